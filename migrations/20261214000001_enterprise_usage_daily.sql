-- What each enterprise used, day by day (docs/api.md, "A tenant's life": usage): counted as it
-- happens and kept, never recomputed. Each instance gathers its counts in memory and adds them
-- here every few seconds (`usage::Counters`), so a request never waits on this table. The rows go
-- with the enterprise by cascade.
create table enterprise_usage_daily (
    enterprise_id uuid not null references enterprises (id) on delete cascade,
    day date not null,
    api_calls bigint not null default 0,
    emails bigint not null default 0,
    exports bigint not null default 0,
    sign_ins bigint not null default 0,
    primary key (enterprise_id, day)
);
