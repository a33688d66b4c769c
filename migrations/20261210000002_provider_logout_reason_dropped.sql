-- A session also ends when the enterprise's identity provider signs the person out (OpenID
-- Connect Back-Channel Logout): the end reasons' check is replaced (the next migration adds it
-- back with `provider_logout`). One statement per file: Citus forwards a DDL statement's whole
-- text to its workers.
alter table sessions drop constraint sessions_end_reason_check;
