-- Single sign-on (OpenID Connect, issue 26): an enterprise's identity provider, and the e-mail
-- domains it signs in. A domain belongs to one enterprise at most, so the sign-in page knows where
-- to send an address.
create table enterprise_sso (
    enterprise_id uuid primary key references enterprises (id) on delete cascade,
    -- The provider's issuer URL (its discovery document is `<issuer>/.well-known/openid-configuration`).
    issuer text not null,
    client_id text not null,
    -- Never sent back by the API; see docs/security.md.
    client_secret text not null,
    -- People of these domains must sign in through the provider (a password is refused), except
    -- the break-glass CEO, who must then pass a second factor.
    required boolean not null default false,
    -- `just_in_time`: an unknown person of a domain is created at their first sign-in, with the
    -- default role and department; `invitation_only`: only people who exist already may sign in.
    provisioning text not null check (provisioning in ('just_in_time', 'invitation_only')),
    default_role text not null default 'DepartmentUser' check (default_role in ('DepartmentHead', 'DepartmentUser')),
    default_department_id uuid,
    break_glass_user_id uuid references users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

create table sso_domains (
    domain text primary key check (domain = lower(domain)),
    enterprise_id uuid not null references enterprise_sso (enterprise_id) on delete cascade
);
create index sso_domains_enterprise_idx on sso_domains (enterprise_id);

-- Who the provider says a person is (`sub`), set at their first single sign-on. Such a person may
-- have no password without being an invitation still waiting.
alter table users add column sso_subject text;
