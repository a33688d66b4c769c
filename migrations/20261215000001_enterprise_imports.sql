-- An enterprise re-created from its archive (docs/api.md, "A tenant's life"): the job the
-- platform admin follows. The instance that took the upload runs it from its own temporary copy;
-- a job whose heartbeat stops (that instance died) reads as failed, and nothing of it is left,
-- since the whole import is one transaction. Times are written by the server, for Citus.
create table enterprise_imports (
    id uuid primary key,
    -- Who asked; null once their account is gone.
    requested_by uuid references users (id) on delete set null,
    status text not null default 'queued' check (status in ('queued', 'running', 'ready', 'failed')),
    progress integer not null default 0 check (progress between 0 and 100),
    stage text not null default 'queued',
    -- The enterprise named in the archive, and once ready the one made (no foreign key: the
    -- record of an import outlives the enterprise it made).
    enterprise_name text not null,
    enterprise_id uuid,
    -- What was imported and what was left out, with why (`ImportResult`).
    result jsonb,
    error text,
    created_at timestamptz not null,
    heartbeat_at timestamptz,
    finished_at timestamptz
);
