-- A single sign-on domain routes nobody until it is proven (issue 41): by a DNS TXT record the
-- enterprise publishes (`_enterprise-platform-challenge.<domain>` holding
-- `enterprise-platform-verification=<token>`), or by the platform admin's approval. A claim not
-- yet proven blocks nobody else's claim (so a squatter cannot hold a domain hostage); a proven
-- domain belongs to one enterprise. Claims made before this migration start unproven.
alter table sso_domains
    drop constraint sso_domains_pkey,
    add column token text not null default replace(gen_random_uuid()::text, '-', ''),
    add column verified_at timestamptz,
    -- `dns` or `admin`.
    add column verified_by text check (verified_by in ('dns', 'admin')),
    add column created_at timestamptz not null default now(),
    add primary key (enterprise_id, domain),
    add constraint sso_domains_proof check ((verified_at is null) = (verified_by is null));
