-- A webhook of an enterprise whose deletion is scheduled hears nothing and sends nothing until a
-- restore (`store::enterprises::schedule_deletion`): a flag on the webhook, so that the fan-out and
-- the dispatcher read it from the table they already join (on Citus a subquery on the enterprises,
-- a reference table, inside their statements is not planned correctly).
alter table webhooks add column suspended boolean not null default false;
