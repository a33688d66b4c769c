-- A second factor (issue 26): one-time codes from an authenticator app (TOTP, RFC 6238), single-use
-- recovery codes, how each session signed in, and the policies that require a second factor.

-- One authenticator per person. `confirmed_at` is null while enrolment waits for its first code;
-- `last_step` is the time step of the last code accepted, so no code is accepted twice.
create table user_totp (
    user_id uuid primary key references users (id) on delete cascade,
    secret text not null,
    confirmed_at timestamptz,
    last_step bigint,
    created_at timestamptz not null default now()
);

-- Ten per enrolment (or regeneration), shown once; only their SHA-256 is kept.
create table user_recovery_codes (
    user_id uuid not null references users (id) on delete cascade,
    code_hash bytea not null,
    used_at timestamptz,
    primary key (user_id, code_hash)
);

-- How the session was opened: `password`, `password_totp`, `password_recovery_code` or
-- `invitation` (more with passkeys and single sign-on).
alter table sessions add column sign_in_method text not null default 'password';

-- The roles that must have a second factor. The platform's list covers the platform admins and is
-- every enterprise's default; an enterprise's own list (not null) replaces it for its people.
alter table enterprises add column mfa_required_roles text[];
create table platform_settings (
    id boolean primary key default true check (id),
    mfa_required_roles text[] not null default '{}',
    updated_at timestamptz not null default now()
);
insert into platform_settings (id) values (true);
