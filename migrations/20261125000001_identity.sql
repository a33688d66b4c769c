-- Platform-wide identity: enterprises (tenants), users and their sign-in sessions.

create or replace function set_updated_at() returns trigger
language plpgsql as $$
begin
    new.updated_at = now();
    return new;
end;
$$;

create table enterprises (
    id uuid primary key,
    name text not null,
    description text not null default '',
    is_active boolean not null default true,
    -- Derived from the id only (t_<uuid hex>), never from user input.
    schema_name text not null unique,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create trigger enterprises_updated_at before update on enterprises
    for each row execute function set_updated_at();

create table users (
    id uuid primary key,
    -- Null for platform administrators (realm zero).
    enterprise_id uuid references enterprises (id) on delete cascade,
    -- Departments live in the tenant schema; no cross-schema foreign key (see ARCHITECTURE.md).
    department_id uuid,
    role text not null check (role in ('PlatformAdmin', 'EnterpriseCeo', 'DepartmentHead', 'DepartmentUser')),
    full_name text not null,
    email text not null,
    password_hash text not null,
    status text not null default 'active' check (status in ('active', 'inactive')),
    last_login_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    check ((role = 'PlatformAdmin') = (enterprise_id is null))
);
-- E-mail addresses are unique across the platform, compared case-insensitively.
create unique index users_email_key on users (lower(email));
create index users_enterprise_idx on users (enterprise_id);
create trigger users_updated_at before update on users
    for each row execute function set_updated_at();

create table sessions (
    id uuid primary key,
    user_id uuid not null references users (id) on delete cascade,
    enterprise_id uuid references enterprises (id) on delete cascade,
    ip_address inet,
    user_agent text,
    city text,
    country text,
    latitude double precision,
    longitude double precision,
    remember_me boolean not null default false,
    created_at timestamptz not null default now(),
    last_seen_at timestamptz not null default now(),
    expires_at timestamptz not null,
    ended_at timestamptz,
    end_reason text check (end_reason in ('logout', 'revoked', 'user_deactivated', 'enterprise_deactivated', 'deleted'))
);
create index sessions_user_idx on sessions (user_id);
create index sessions_enterprise_idx on sessions (enterprise_id);
create index sessions_active_idx on sessions (last_seen_at desc) where ended_at is null;
