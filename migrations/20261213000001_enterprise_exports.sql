-- An enterprise's export (docs/api.md, "A tenant's life"): a background job that writes the whole
-- enterprise into one zip archive. Any instance may run it (the row is the queue: a job whose
-- heartbeat stops is taken again) and any instance serves the download (the archive's bytes are
-- in `enterprise_export_parts`). Times are written by the server, never by now(), for Citus.
create table enterprise_exports (
    id uuid primary key,
    enterprise_id uuid not null references enterprises (id) on delete cascade,
    -- Who asked: told by e-mail when it is ready; null once their account is gone.
    requested_by uuid references users (id) on delete set null,
    status text not null default 'queued' check (status in ('queued', 'running', 'ready', 'failed', 'expired')),
    progress integer not null default 0 check (progress between 0 and 100),
    stage text not null default 'queued',
    size_bytes bigint,
    sha256 text,
    error text,
    created_at timestamptz not null,
    started_at timestamptz,
    heartbeat_at timestamptz,
    finished_at timestamptz,
    expires_at timestamptz
);
