-- Department reports and their audit trail.

create table reports (
    id uuid primary key,
    department_id uuid not null references departments (id) on delete cascade,
    title text not null,
    content text not null default '',
    period_start date not null,
    period_end date not null,
    status text not null default 'draft' check (status in ('draft', 'submitted', 'reviewed', 'approved', 'rejected')),
    -- A table the detail screen charts: { columns: string[], rows: (string|number|null)[][] }.
    data jsonb,
    -- Authors cannot be deleted while their reports exist (deactivate them instead).
    created_by uuid not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    submitted_at timestamptz,
    -- Users of this enterprise; set to null when they are deleted.
    reviewed_by uuid,
    reviewed_at timestamptz,
    review_notes text,
    check (period_end >= period_start)
);
create index reports_department_idx on reports (department_id, created_at desc);
create index reports_status_idx on reports (status, created_at desc);

-- Every status change: who, when, from, to, and the notes given.
create table report_events (
    id uuid primary key,
    report_id uuid not null references reports (id) on delete cascade,
    actor_id uuid,
    from_status text,
    to_status text not null,
    notes text,
    created_at timestamptz not null default now()
);
create index report_events_report_idx on report_events (report_id, created_at);
