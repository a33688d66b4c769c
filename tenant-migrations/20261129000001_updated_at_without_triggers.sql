-- Tenant tables have no triggers: the server's UPDATE statements set updated_at themselves.
--
-- Why: Citus refuses triggers on distributed tables ("triggers are not supported on distributed
-- tables"), and every tenant schema becomes one when the platform grows onto a Citus cluster
-- (docs/scaling.md). Writing `updated_at = now()` in the few UPDATEs that change these rows is
-- simpler than proving the triggers safe under `citus.enable_unsafe_triggers`.
--
-- Schemas built before this migration lose their triggers here; newer schemas never had them.
-- The check comes first because Citus refuses even `drop trigger if exists` on a distributed
-- table, and a distributed schema never had the triggers.
do $$
begin
    if exists (select 1 from pg_trigger where tgname = 'departments_updated_at' and tgrelid = 'departments'::regclass) then
        drop trigger departments_updated_at on departments;
    end if;
    if exists (select 1 from pg_trigger where tgname = 'reports_updated_at' and tgrelid = 'reports'::regclass) then
        drop trigger reports_updated_at on reports;
    end if;
end
$$;
