-- The server's role cannot rewrite the audit log (issue 41, finding 8). The guard of
-- 20261203000001 held only against a role that neither owns the table nor may set
-- `audit.retention`: its owner could grant itself DELETE or turn the triggers off, superuser or
-- not. So the server runs as a role of its own that does not own the database
-- (`MIGRATION_DATABASE_URL` names the owner, who migrates, and `db::grant_server_role` gives the
-- server SELECT and INSERT on audit_events and nothing else there). Expired entries are deleted
-- through this function, which runs as the table's owner: it keeps at least 30 days whatever it
-- is asked, so even the server's role cannot empty the log through it.
create function audit_retention(days integer) returns bigint
language plpgsql security definer set search_path = pg_catalog, public as $$
declare
    deleted bigint;
begin
    -- One instance at a time.
    if not pg_try_advisory_xact_lock(hashtextextended('audit-retention', 24)) then
        return 0;
    end if;
    perform set_config('audit.retention', 'on', true);
    execute format('grant delete on public.audit_events to %I', current_user);
    delete from public.audit_events where at < now() - make_interval(days => greatest(days, 30));
    get diagnostics deleted = row_count;
    execute format('revoke delete on public.audit_events from %I', current_user);
    perform set_config('audit.retention', 'off', true);
    return deleted;
end
$$;
