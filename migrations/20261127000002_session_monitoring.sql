-- Live session monitoring: what the user agent says (parsed at sign-in), anomaly flags
-- (new_country, impossible_travel), and indexes for the monitors' lists (newest activity first,
-- per user).
alter table sessions
    add column browser text,
    add column os text,
    add column device_type text,
    add column flags text[] not null default '{}';
create index sessions_last_seen_idx on sessions (last_seen_at desc, id);
create index sessions_user_created_idx on sessions (user_id, created_at desc);
