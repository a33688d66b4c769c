//! What an enterprise uses (`usage`): its daily counters, what it holds now, and its own limits.

use std::collections::HashMap;

use chrono::NaiveDate;
use sqlx::{PgConnection, PgPool, Row};
use uuid::Uuid;

use crate::tenancy::SchemaName;

/// One day's counts of one enterprise.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct DailyCounts {
    pub api_calls: i64,
    pub emails: i64,
    pub exports: i64,
    pub sign_ins: i64,
}

/// Adds counts to their days' rows (made when missing), in one statement.
pub async fn add_daily(db: &PgPool, rows: &[(Uuid, NaiveDate, DailyCounts)]) -> sqlx::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let enterprises: Vec<Uuid> = rows.iter().map(|r| r.0).collect();
    let days: Vec<NaiveDate> = rows.iter().map(|r| r.1).collect();
    let column = |f: fn(&DailyCounts) -> i64| rows.iter().map(|r| f(&r.2)).collect::<Vec<i64>>();
    // An enterprise purged meanwhile has no row to count against: its counts are dropped.
    sqlx::query(
        "insert into public.enterprise_usage_daily (enterprise_id, day, api_calls, emails, exports, sign_ins) \
         select u.* from unnest($1::uuid[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) \
             as u (enterprise_id, day, api_calls, emails, exports, sign_ins) \
         where exists (select 1 from public.enterprises e where e.id = u.enterprise_id) \
         on conflict (enterprise_id, day) do update set \
             api_calls = enterprise_usage_daily.api_calls + excluded.api_calls, \
             emails = enterprise_usage_daily.emails + excluded.emails, \
             exports = enterprise_usage_daily.exports + excluded.exports, \
             sign_ins = enterprise_usage_daily.sign_ins + excluded.sign_ins",
    )
    .bind(enterprises)
    .bind(days)
    .bind(column(|c| c.api_calls))
    .bind(column(|c| c.emails))
    .bind(column(|c| c.exports))
    .bind(column(|c| c.sign_ins))
    .execute(db)
    .await
    .map(drop)
}

/// The days from `from` to `to` (both included) that have counts, oldest first.
pub async fn daily(db: &PgPool, enterprise: Uuid, from: NaiveDate, to: NaiveDate) -> sqlx::Result<Vec<(NaiveDate, DailyCounts)>> {
    let rows = sqlx::query(
        "select day, api_calls, emails, exports, sign_ins from public.enterprise_usage_daily \
         where enterprise_id = $1 and day between $2 and $3 order by day",
    )
    .bind(enterprise)
    .bind(from)
    .bind(to)
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|r| (r.get(0), DailyCounts { api_calls: r.get(1), emails: r.get(2), exports: r.get(3), sign_ins: r.get(4) })).collect())
}

/// An enterprise's own limits; `None` takes the platform's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OwnLimits {
    pub people: Option<i32>,
    pub storage_bytes: Option<i64>,
    pub api_calls_per_minute: Option<i32>,
}

pub async fn limits(db: impl sqlx::PgExecutor<'_>, enterprise: Uuid) -> sqlx::Result<Option<OwnLimits>> {
    let row = sqlx::query("select limit_people, limit_storage_bytes, limit_api_calls_per_minute from public.enterprises where id = $1")
        .bind(enterprise)
        .fetch_optional(db)
        .await?;
    Ok(row.map(|r| OwnLimits { people: r.get(0), storage_bytes: r.get(1), api_calls_per_minute: r.get(2) }))
}

pub async fn set_limits(db: &PgPool, enterprise: Uuid, limits: OwnLimits) -> sqlx::Result<()> {
    sqlx::query("update public.enterprises set limit_people = $2, limit_storage_bytes = $3, limit_api_calls_per_minute = $4 where id = $1")
        .bind(enterprise)
        .bind(limits.people)
        .bind(limits.storage_bytes)
        .bind(limits.api_calls_per_minute)
        .execute(db)
        .await
        .map(drop)
}

/// The enterprise's people who count against its limit: everyone not erased.
pub async fn people(db: impl sqlx::PgExecutor<'_>, enterprise: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from public.users where enterprise_id = $1 and erased_at is null").bind(enterprise).fetch_one(db).await
}

/// Sessions of the enterprise's people that are live now.
pub async fn active_sessions(db: &PgPool, enterprise: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from public.sessions s join public.users u on u.id = s.user_id \
         where u.enterprise_id = $1 and s.ended_at is null and s.expires_at > now()",
    )
    .bind(enterprise)
    .fetch_one(db)
    .await
}

/// Reports and spreadsheets in the tenant's schema (the connection's search path).
pub async fn holdings(conn: &mut PgConnection) -> sqlx::Result<(i64, i64)> {
    let row = sqlx::query("select (select count(*) from reports), (select count(*) from spreadsheets)").fetch_one(&mut *conn).await?;
    Ok((row.get(0), row.get(1)))
}

/// The size on disk of the schema's tables with their indexes and TOAST. On Citus a tenant's
/// tables live on a worker: their size is asked of it (`citus_total_relation_size`), as the
/// coordinator holds only their names.
pub async fn schema_bytes(conn: &mut PgConnection, schema: &SchemaName, citus: bool) -> sqlx::Result<i64> {
    let size = if citus {
        "case when exists (select 1 from pg_dist_partition p where p.logicalrelid = c.oid) \
              then citus_total_relation_size(c.oid) else pg_total_relation_size(c.oid) end"
    } else {
        "pg_total_relation_size(c.oid)"
    };
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "select coalesce(sum({size}), 0)::bigint from pg_class c join pg_namespace n on n.oid = c.relnamespace \
         where n.nspname = $1 and c.relkind in ('r', 'm', 'p')"
    )))
    .bind(schema.as_str())
    .fetch_one(&mut *conn)
    .await
}

/// One enterprise in the platform's usage overview (`listEnterpriseUsage`).
#[derive(Debug, Clone, Default)]
pub struct Overview {
    pub id: Uuid,
    pub name: String,
    pub is_active: bool,
    /// Its own limits (`None` each: the platform's default).
    pub limits: OwnLimits,
    pub people: i64,
    pub active_sessions: i64,
    pub storage_bytes: i64,
    /// Of `storage_bytes`, the spreadsheets' table (workbooks are stored whole).
    pub spreadsheet_bytes: i64,
    /// The ready archives of its exports, stored until they expire.
    pub export_bytes: i64,
    /// Summed over the days from `since`.
    pub counts: DailyCounts,
}

/// Every enterprise's usage, each figure read for all of them at once (one statement each, not
/// one per tenant): people, live sessions, its daily counts since `since`, stored export archives,
/// and its schema's size on disk. On Citus a tenant's tables are on a worker: their sizes come
/// from `citus_shards`, which asks each worker once.
pub async fn overview(conn: &mut PgConnection, since: NaiveDate, now: chrono::DateTime<chrono::Utc>, citus: bool) -> sqlx::Result<Vec<Overview>> {
    let mut all: HashMap<Uuid, Overview> = HashMap::new();
    let mut schemas: HashMap<String, Uuid> = HashMap::new();
    let enterprises =
        sqlx::query("select id, name, is_active, schema_name, limit_people, limit_storage_bytes, limit_api_calls_per_minute from public.enterprises")
            .fetch_all(&mut *conn)
            .await?;
    for row in enterprises {
        let id: Uuid = row.get(0);
        schemas.insert(row.get(3), id);
        let limits = OwnLimits { people: row.get(4), storage_bytes: row.get(5), api_calls_per_minute: row.get(6) };
        all.insert(id, Overview { id, name: row.get(1), is_active: row.get(2), limits, ..Overview::default() });
    }
    let pairs = |rows: Vec<sqlx::postgres::PgRow>| rows.into_iter().map(|r| (r.get::<Uuid, _>(0), r.get::<i64, _>(1))).collect::<Vec<_>>();
    let people = sqlx::query("select enterprise_id, count(*) from public.users where enterprise_id is not null and erased_at is null group by 1")
        .fetch_all(&mut *conn)
        .await?;
    for (id, n) in pairs(people) {
        all.entry(id).and_modify(|o| o.people = n);
    }
    let sessions = sqlx::query(
        "select u.enterprise_id, count(*) from public.sessions s join public.users u on u.id = s.user_id \
         where u.enterprise_id is not null and s.ended_at is null and s.expires_at > $1 group by 1",
    )
    .bind(now)
    .fetch_all(&mut *conn)
    .await?;
    for (id, n) in pairs(sessions) {
        all.entry(id).and_modify(|o| o.active_sessions = n);
    }
    let exports =
        sqlx::query("select enterprise_id, coalesce(sum(size_bytes), 0)::bigint from public.enterprise_exports where status = 'ready' group by 1")
            .fetch_all(&mut *conn)
            .await?;
    for (id, n) in pairs(exports) {
        all.entry(id).and_modify(|o| o.export_bytes = n);
    }
    let counted = sqlx::query(
        "select enterprise_id, sum(api_calls)::bigint, sum(emails)::bigint, sum(exports)::bigint, sum(sign_ins)::bigint \
         from public.enterprise_usage_daily where day >= $1 group by 1",
    )
    .bind(since)
    .fetch_all(&mut *conn)
    .await?;
    for r in counted {
        let counts = DailyCounts { api_calls: r.get(1), emails: r.get(2), exports: r.get(3), sign_ins: r.get(4) };
        all.entry(r.get(0)).and_modify(|o| o.counts = counts);
    }
    // Each tenant schema's tables with their indexes and TOAST; on Citus the distributed ones
    // from their shards, the others (none, with schema-based sharding) where they are.
    let local = "select n.nspname::text, coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint, \
                        coalesce(sum(pg_total_relation_size(c.oid)) filter (where c.relname = 'spreadsheets'), 0)::bigint \
                 from pg_class c join pg_namespace n on n.oid = c.relnamespace \
                 where n.nspname like 't\\_%' and c.relkind in ('r', 'm', 'p') {unless} group by 1";
    let mut sizes = Vec::new();
    if citus {
        let unless = "and not exists (select 1 from pg_dist_partition p where p.logicalrelid = c.oid)";
        sizes.extend(sqlx::query(sqlx::AssertSqlSafe(local.replace("{unless}", unless))).fetch_all(&mut *conn).await?);
        sizes.extend(
            sqlx::query(
                "select n.nspname::text, coalesce(sum(s.shard_size), 0)::bigint, \
                        coalesce(sum(s.shard_size) filter (where c.relname = 'spreadsheets'), 0)::bigint \
                 from citus_shards s join pg_class c on c.oid = s.table_name join pg_namespace n on n.oid = c.relnamespace \
                 where n.nspname like 't\\_%' group by 1",
            )
            .fetch_all(&mut *conn)
            .await?,
        );
    } else {
        sizes.extend(sqlx::query(sqlx::AssertSqlSafe(local.replace("{unless}", ""))).fetch_all(&mut *conn).await?);
    }
    for r in sizes {
        let Some(id) = schemas.get(&r.get::<String, _>(0)) else { continue };
        all.entry(*id).and_modify(|o| {
            o.storage_bytes += r.get::<i64, _>(1);
            o.spreadsheet_bytes += r.get::<i64, _>(2);
        });
    }
    Ok(all.into_values().collect())
}
