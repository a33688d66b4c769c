-- One row per tenant schema with the tenant-migration version it has reached, so "is anything
-- pending?" is one query over all tenants (ARCHITECTURE.md, Tenancy).
create table tenant_schemas (
    schema_name text primary key,
    -- Null for the platform realm (`platform`), which has no enterprise row.
    enterprise_id uuid unique references enterprises (id) on delete cascade,
    version bigint not null,
    migrated_at timestamptz not null default now(),
    last_error text
);
create index tenant_schemas_version_idx on tenant_schemas (version);
