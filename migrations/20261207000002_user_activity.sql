-- Activity per user (issue 28), kept as sessions change instead of aggregated over every session
-- on each read: the statements that start, touch and end sessions (`store::sessions`) update it in
-- the same statement or transaction. No trigger: the shared tables have none (docs/scaling.md).
-- `active_sessions` counts sessions not ended; an expired one counts until the sweep ends it.
-- `active_seconds` sums, over the person's sessions, the time from its start to its last
-- activity (or its end).
create table user_activity (
    user_id uuid primary key references users (id) on delete cascade,
    session_count bigint not null default 0,
    active_sessions bigint not null default 0,
    last_seen_at timestamptz not null,
    active_seconds float8 not null default 0
);
create index user_activity_last_seen_idx on user_activity (last_seen_at desc, user_id);

-- The places each person's sessions came from, with how many sessions each.
create table user_activity_places (
    user_id uuid not null references users (id) on delete cascade,
    city text not null default '',
    country text not null,
    sessions bigint not null,
    primary key (user_id, country, city)
);

-- The activity table's search (names, addresses, cities) without reading every person: trigram
-- indexes (pg_trgm, made by the audit log's migration).
create index user_activity_places_city_trgm on user_activity_places using gin (city gin_trgm_ops);
create index users_full_name_trgm on users using gin (full_name gin_trgm_ops);
create index users_email_trgm on users using gin (email gin_trgm_ops);

insert into user_activity (user_id, session_count, active_sessions, last_seen_at, active_seconds)
select user_id, count(*), count(*) filter (where ended_at is null), max(coalesce(ended_at, last_seen_at)),
       coalesce(sum(greatest(extract(epoch from coalesce(ended_at, last_seen_at) - created_at), 0)), 0)
from sessions group by user_id;

insert into user_activity_places (user_id, city, country, sessions)
select user_id, coalesce(city, ''), country, count(*) from sessions where country is not null group by 1, 2, 3;
