-- Department spreadsheets: the spreadsheet engine's own bytes, tagged with the engine version
-- that wrote them (the format changes between versions), and a version number for optimistic
-- concurrency (a save names the version it started from).
create table spreadsheets (
    id uuid primary key,
    department_id uuid not null references departments (id) on delete cascade,
    name text not null,
    content bytea not null,
    engine_version text not null,
    version integer not null default 1,
    created_by uuid,
    created_at timestamptz not null default now(),
    updated_by uuid,
    updated_at timestamptz not null default now()
);
create index spreadsheets_department_idx on spreadsheets (department_id, updated_at desc);
