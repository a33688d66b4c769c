-- Events out (issue 24): the outbox every change that others must hear of writes into, in the
-- change's own transaction; the webhooks that hear of them and each delivery to them; and the
-- audit log of who did what.
--
-- All three are shared tables in `public`, not per tenant: the dispatcher every instance runs
-- takes rows with one indexed query whatever the number of tenants (one table per tenant would
-- be one poll per tenant), and the platform admin's audit view reads every enterprise's entries in
-- one page. Rows carry `enterprise_id` (null: the platform itself).

-- What a committed change asks to be sent. `kind` is `webhook` (an event for the enterprise's and
-- the platform's webhooks) today and `email` once mail exists. The dispatcher deletes the rows it
-- has fanned out in the same transaction that writes their deliveries.
create table outbox (
    id bigint generated always as identity primary key,
    kind text not null,
    enterprise_id uuid,
    event_type text not null,
    payload jsonb not null,
    created_at timestamptz not null default now()
);

create table webhooks (
    id uuid primary key,
    -- Null: a platform-wide webhook, managed by the platform admin, hearing every enterprise.
    enterprise_id uuid references enterprises (id) on delete cascade,
    url text not null,
    events text[] not null,
    description text not null default '',
    -- The signing secret (`whsec_` + base64 of 32 random bytes). The sender needs it in clear to
    -- sign; it is shown to people once, when made or rotated.
    secret text not null,
    -- After a rotation the previous secret also signs every delivery until it expires.
    previous_secret text,
    previous_secret_expires_at timestamptz,
    enabled boolean not null default true,
    -- Why it was turned off: `failing` when deliveries failed for days.
    disabled_reason text,
    -- Since when every delivery has failed (null while the last one succeeded).
    failing_since timestamptz,
    created_by uuid,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

create index webhooks_enterprise_id on webhooks (enterprise_id);

create table webhook_deliveries (
    -- Also the message id (`webhook-id: msg_<id without dashes>`), the same on every attempt.
    id uuid primary key,
    webhook_id uuid not null references webhooks (id) on delete cascade,
    event_type text not null,
    -- The exact JSON body sent: `{ type, timestamp, data }`.
    body text not null,
    -- `pending` (waiting for its next attempt), `delivered`, or `failed` (retries exhausted, or
    -- its webhook was turned off).
    status text not null default 'pending',
    attempts integer not null default 0,
    last_status integer,
    last_error text,
    next_attempt_at timestamptz,
    -- An instance that took the delivery holds it until then; past it, another may.
    lease_until timestamptz,
    delivered_at timestamptz,
    created_at timestamptz not null default now(),
    check (status in ('pending', 'delivered', 'failed'))
);

create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_webhook on webhook_deliveries (webhook_id, created_at desc);

create table audit_events (
    -- UUIDv7: ordered by time, the page key.
    id uuid primary key,
    at timestamptz not null default now(),
    -- No foreign keys: history outlives what it names (a deleted enterprise, user or report).
    enterprise_id uuid,
    actor_type text not null,
    actor_id uuid,
    -- Names as they were when it happened.
    actor_name text,
    action text not null,
    target_type text,
    target_id uuid,
    target_name text,
    ip inet,
    place text,
    user_agent text,
    -- The changed fields, `{ field: [before, after] }`, or facts about the action; never a
    -- password, a token, a secret or message content.
    changes jsonb not null default '{}',
    -- What the free-text filter searches, in one lower-case text behind one trigram index: the
    -- names, the action and the address.
    search text generated always as (
        lower(coalesce(actor_name, '') || ' ' || coalesce(target_name, '') || ' ' || action || ' ' || coalesce(host(ip), ''))
    ) stored,
    check (actor_type in ('user', 'token', 'system'))
);

create index audit_events_enterprise on audit_events (enterprise_id, id desc);
create index audit_events_enterprise_action on audit_events (enterprise_id, action, id desc);
create index audit_events_actor on audit_events (actor_id, id desc);
create index audit_events_target on audit_events (target_id, id desc);
-- `q`: a search that matches nothing, or a few hundred entries, is read from this index instead of
-- every entry of the enterprise (docs/performance.md). pg_trgm is a trusted extension: the
-- database's owner may create it.
create extension if not exists pg_trgm;
create index audit_events_search on audit_events using gin (search gin_trgm_ops);

-- History cannot be rewritten by the role the requests use: no UPDATE, DELETE or TRUNCATE grant
-- (an owner's own privileges can be revoked), and a guard that holds even for a superuser. The
-- retention job (`backend audit-retention`, and the daily task) is the one path that deletes: in
-- its own transaction it sets `audit.retention`, grants itself DELETE, deletes what is older than
-- AUDIT_RETENTION_DAYS and revokes the grant before it commits, so no other transaction ever sees
-- the grant.
revoke update, delete, truncate on audit_events from public;
revoke update, delete, truncate on audit_events from current_user;

create function audit_events_insert_only() returns trigger language plpgsql as $$
begin
    if tg_op = 'DELETE' and current_setting('audit.retention', true) = 'on' then
        return null;
    end if;
    raise exception 'audit events are insert-only' using errcode = '42501';
end $$;

create trigger audit_events_no_update before update on audit_events
    for each statement execute function audit_events_insert_only();
create trigger audit_events_no_delete before delete on audit_events
    for each statement execute function audit_events_insert_only();
create trigger audit_events_no_truncate before truncate on audit_events
    for each statement execute function audit_events_insert_only();
