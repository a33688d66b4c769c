-- Applied to every tenant schema with search_path set to that schema alone. Shared tables are
-- written public.<table>; a tenant table may reference only public.enterprises and public.users.

create table departments (
    id uuid primary key,
    type text not null unique check (type in ('finance', 'operations', 'sales_marketing', 'human_resources', 'information_technology')),
    description text not null default '',
    head_id uuid references public.users (id) on delete set null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create trigger departments_updated_at before update on departments
    for each row execute function public.set_updated_at();
