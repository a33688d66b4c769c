-- A purged enterprise's own audit entries go with it (every row it owns is dropped). The server's
-- role may not delete from the log, so this runs as the table's owner, and only for an enterprise
-- that no longer exists: the caller deletes its row first, in the same transaction. The platform
-- keeps its own record of the purge (`enterprise.purged`, without an enterprise).
create function audit_forget_enterprise(enterprise uuid) returns bigint
language plpgsql security definer set search_path = pg_catalog, public as $$
declare
    deleted bigint;
begin
    if enterprise is null or exists (select 1 from public.enterprises where id = enterprise) then
        raise exception 'only a purged enterprise''s audit entries can be forgotten' using errcode = '42501';
    end if;
    perform set_config('audit.retention', 'on', true);
    execute format('grant delete on public.audit_events to %I', current_user);
    delete from public.audit_events where enterprise_id = enterprise;
    get diagnostics deleted = row_count;
    execute format('revoke delete on public.audit_events from %I', current_user);
    perform set_config('audit.retention', 'off', true);
    return deleted;
end
$$;
