-- Tenant tables name users (public.users) by id, without foreign keys; the server keeps those
-- references whole (store::users::hold and store::users::delete).
--
-- Why: a foreign key from a tenant table to public.users puts two triggers on public.users, so
-- every tenant added four foreign keys' worth of triggers to ONE shared table. With 2,000 tenants
-- deleting any user ran 8,000 referential checks and failed with "out of shared memory"
-- (max_locks_per_transaction); every new tenant also locked public.users against writes and made
-- every connection rebuild its cache of it. Measured in docs/performance.md.
--
-- Schemas created before this migration lose those constraints here; new schemas never had them.
alter table departments drop constraint if exists departments_head_id_fkey;
alter table reports drop constraint if exists reports_created_by_fkey;
alter table reports drop constraint if exists reports_reviewed_by_fkey;
alter table report_events drop constraint if exists report_events_actor_id_fkey;
