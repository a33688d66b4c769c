-- Applied to every tenant schema with search_path set to that schema alone. Shared tables are
-- written public.<table>; a tenant table may name only public.enterprises and public.users rows,
-- by id and WITHOUT a foreign key (see 20261126000001_user_references_without_foreign_keys.sql).

create table departments (
    id uuid primary key,
    type text not null unique check (type in ('finance', 'operations', 'sales_marketing', 'human_resources', 'information_technology')),
    description text not null default '',
    -- A user of this enterprise (public.users); cleared when they are deleted.
    head_id uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
