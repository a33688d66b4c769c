-- Platform-level ledger of report status changes: ids, statuses and times only (titles and
-- content stay in the tenant schema). It lets the platform admin's dashboard and statistics
-- count reports across every tenant with one query instead of one per schema.
create table report_transitions (
    id uuid primary key,
    enterprise_id uuid not null references enterprises (id) on delete cascade,
    report_id uuid not null,
    to_status text not null check (to_status in ('draft', 'submitted', 'reviewed', 'approved', 'rejected')),
    at timestamptz not null default now()
);
create index report_transitions_report_idx on report_transitions (report_id, at desc);
create index report_transitions_at_idx on report_transitions (at);
