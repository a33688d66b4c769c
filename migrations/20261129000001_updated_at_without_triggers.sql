-- public.enterprises and public.users have no triggers: the server's UPDATE statements set
-- updated_at themselves. Both become Citus reference tables when the platform grows onto a Citus
-- cluster (docs/scaling.md), and Citus refuses triggers on those. public.set_updated_at() stays
-- while tenant schemas older than tenant migration 20261129000001 still call it.
drop trigger if exists enterprises_updated_at on enterprises;
drop trigger if exists users_updated_at on users;
