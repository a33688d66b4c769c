//! What each enterprise uses, and the limits it may use up to (docs/api.md, "A tenant's life").
//!
//! - **Daily counters** (API calls, e-mails sent, exports asked for, sign-ins) are counted as
//!   they happen into this instance's memory (`Counters::add`, no I/O) and added to
//!   `public.enterprise_usage_daily` every few seconds, at a graceful stop, and before a usage
//!   read: kept, never recomputed. A crash loses at most the last few seconds' counts.
//! - **What it holds now** (people, live sessions, its schema's size, reports, spreadsheets) is
//!   measured when asked.
//! - **Limits**: an enterprise's own (`PUT /enterprises/{id}/limits`), else the configured
//!   defaults (`TENANT_LIMIT_*`), else none. People and storage are checked where they grow (a
//!   new person; a new report or spreadsheet): 409 `limit_reached`. API calls per minute are
//!   counted in Redis across instances by the request limiter (`api::limit`): 429.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use chrono::{NaiveDate, Utc};
use deadpool_redis::redis;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::{
    cache::Cache,
    config::TenantLimits,
    error::{AppError, Limit},
    store::{
        self,
        usage::{DailyCounts, OwnLimits},
    },
    tenancy::SchemaName,
};

/// How often each instance adds what it counted to the database.
const FLUSH_EVERY: Duration = Duration::from_secs(10);

/// How long the limiter trusts the per-minute limit it read into Redis (a change through the
/// API takes effect at once: it drops the kept value).
const API_LIMIT_KEPT_SECS: u64 = 60;

/// What is counted per enterprise and day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    ApiCall,
    Email,
    Export,
    SignIn,
}

/// This instance's counts not yet written.
#[derive(Default)]
pub struct Counters(Mutex<HashMap<(Uuid, NaiveDate), DailyCounts>>);

impl Counters {
    pub fn add(&self, enterprise: Uuid, counter: Counter) {
        let day = Utc::now().date_naive();
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let c = counts.entry((enterprise, day)).or_default();
        match counter {
            Counter::ApiCall => c.api_calls += 1,
            Counter::Email => c.emails += 1,
            Counter::Export => c.exports += 1,
            Counter::SignIn => c.sign_ins += 1,
        }
    }

    /// Writes what was counted; on failure the counts are kept for the next try.
    pub async fn flush(&self, db: &PgPool) -> sqlx::Result<()> {
        let taken: Vec<_> = {
            let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
            counts.drain().map(|((enterprise, day), c)| (enterprise, day, c)).collect()
        };
        let written = store::usage::add_daily(db, &taken).await;
        if written.is_err() {
            let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
            for (enterprise, day, c) in taken {
                let kept = counts.entry((enterprise, day)).or_default();
                kept.api_calls += c.api_calls;
                kept.emails += c.emails;
                kept.exports += c.exports;
                kept.sign_ins += c.sign_ins;
            }
        }
        written
    }
}

/// Writes the counts every `FLUSH_EVERY` until the process ends.
pub fn spawn(counters: Arc<Counters>, db: PgPool) {
    crate::supervise::spawn("usage_counters", move || {
        let (counters, db) = (counters.clone(), db.clone());
        async move {
            loop {
                tokio::time::sleep(FLUSH_EVERY).await;
                if let Err(err) = counters.flush(&db).await {
                    tracing::warn!(error = %err, "could not write the usage counters; they are kept for the next try");
                }
            }
        }
    });
}

/// The limits in force: the enterprise's own, else the configured defaults.
pub fn in_force(own: OwnLimits, defaults: TenantLimits) -> TenantLimits {
    let positive = |n: i64| u64::try_from(n).ok().filter(|n| *n > 0);
    TenantLimits {
        people: own.people.and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0).or(defaults.people),
        storage_bytes: own.storage_bytes.and_then(positive).or(defaults.storage_bytes),
        api_calls_per_minute: own.api_calls_per_minute.and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0).or(defaults.api_calls_per_minute),
    }
}

async fn limits_of(conn: &mut PgConnection, defaults: TenantLimits, enterprise: Uuid) -> sqlx::Result<TenantLimits> {
    let own = store::usage::limits(&mut *conn, enterprise).await?.unwrap_or_default();
    Ok(in_force(own, defaults))
}

/// Refuses a new person past the enterprise's limit. Call it in the transaction that adds them:
/// it holds the enterprise's lock until that transaction ends, so two additions at once cannot
/// both take the last place.
pub async fn check_people(tx: &mut PgConnection, defaults: TenantLimits, enterprise: Uuid) -> Result<(), AppError> {
    let Some(limit) = limits_of(tx, defaults, enterprise).await?.people else { return Ok(()) };
    sqlx::query("select pg_advisory_xact_lock(hashtextextended('enterprise_people:' || $1::text, 0))").bind(enterprise).execute(&mut *tx).await?;
    if store::usage::people(&mut *tx, enterprise).await? >= i64::from(limit) {
        return Err(AppError::LimitReached(Limit::People));
    }
    Ok(())
}

/// Refuses new data (a report, a spreadsheet) once the enterprise's schema is at its storage
/// limit. Measured only when a limit is in force.
pub async fn check_storage(conn: &mut PgConnection, defaults: TenantLimits, enterprise: Uuid, schema: &SchemaName) -> Result<(), AppError> {
    let Some(limit) = limits_of(conn, defaults, enterprise).await?.storage_bytes else { return Ok(()) };
    let citus = crate::tenancy::citus::enabled(conn).await?;
    let used = store::usage::schema_bytes(conn, schema, citus).await?;
    if u64::try_from(used).unwrap_or(0) >= limit {
        return Err(AppError::LimitReached(Limit::StorageBytes));
    }
    Ok(())
}

fn api_limit_key(cache: &Cache, enterprise: Uuid) -> String {
    cache.key(&["enterprise-api-limit", &enterprise.to_string()])
}

/// The enterprise's API calls per minute in force, as the request limiter reads it: kept in
/// Redis for every instance (`0` for none), read from the database when missing.
pub async fn api_calls_per_minute(
    (cache, db, defaults): (&Cache, &PgPool, TenantLimits),
    conn: &mut (impl redis::aio::ConnectionLike + Send),
    enterprise: Uuid,
) -> anyhow::Result<Option<u32>> {
    let key = api_limit_key(cache, enterprise);
    let kept: Option<u32> = redis::cmd("GET").arg(&key).query_async(&mut *conn).await?;
    if let Some(kept) = kept {
        return Ok(Some(kept).filter(|n| *n > 0));
    }
    let mut db = db.acquire().await?;
    let limit = limits_of(&mut db, defaults, enterprise).await?.api_calls_per_minute;
    let _: () = redis::cmd("SET").arg(&key).arg(limit.unwrap_or(0)).arg("EX").arg(API_LIMIT_KEPT_SECS).query_async(&mut *conn).await?;
    Ok(limit)
}

/// Forgets the per-minute limit kept in Redis: the next request reads the new one.
pub async fn limits_changed(cache: &Cache, enterprise: Uuid) {
    let dropped = async {
        let mut conn = cache.conn().await?;
        let _: () = redis::cmd("DEL").arg(api_limit_key(cache, enterprise)).query_async(&mut *conn).await?;
        anyhow::Ok(())
    }
    .await;
    if let Err(err) = dropped {
        tracing::warn!(error = %err, "could not drop the kept API limit; the new one holds within a minute");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_enterprises_own_limit_wins_over_the_default_and_none_takes_the_default() {
        let defaults = TenantLimits { people: Some(50), storage_bytes: None, api_calls_per_minute: Some(600) };
        let own = OwnLimits { people: Some(5), storage_bytes: Some(1_000_000), api_calls_per_minute: None };
        assert_eq!(in_force(own, defaults), TenantLimits { people: Some(5), storage_bytes: Some(1_000_000), api_calls_per_minute: Some(600) });
        assert_eq!(in_force(OwnLimits::default(), TenantLimits::default()), TenantLimits::default());
    }

    #[test]
    fn counts_gather_per_enterprise_and_day() {
        let counters = Counters::default();
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        for _ in 0..3 {
            counters.add(a, Counter::ApiCall);
        }
        counters.add(a, Counter::SignIn);
        counters.add(b, Counter::Email);
        // Summed over the days: a run across midnight counts on two.
        let counts = counters.0.lock().unwrap();
        let of = |e: Uuid| {
            counts.iter().filter(|((who, _), _)| *who == e).fold(DailyCounts::default(), |t, (_, c)| DailyCounts {
                api_calls: t.api_calls + c.api_calls,
                emails: t.emails + c.emails,
                exports: t.exports + c.exports,
                sign_ins: t.sign_ins + c.sign_ins,
            })
        };
        assert_eq!(of(a), DailyCounts { api_calls: 3, emails: 0, exports: 0, sign_ins: 1 });
        assert_eq!(of(b), DailyCounts { api_calls: 0, emails: 1, exports: 0, sign_ins: 0 });
    }
}
