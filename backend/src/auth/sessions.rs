//! Whether a session is still live. PostgreSQL is the truth; Redis caches the answer ("1" live,
//! "0" ended) so the hot path is one GET. When Redis is unreachable every check goes to
//! PostgreSQL, so ending a session is never lost.

use chrono::{DateTime, Utc};
use deadpool_redis::redis::AsyncCommands;
use uuid::Uuid;

use crate::{cache::Cache, store};

/// How long a "live" answer may be cached: it bounds how stale a cache can be if Redis missed an
/// end (it was down at that moment).
const LIVE_CACHE_SECS: i64 = 300;
/// "ended" answers outlive any token (the longest session is 30 days by default).
const ENDED_CACHE_SECS: u64 = 40 * 86400;

#[derive(Clone)]
pub struct SessionGuard {
    db: sqlx::PgPool,
    cache: Cache,
}

impl SessionGuard {
    pub fn new(db: sqlx::PgPool, cache: Cache) -> Self {
        Self { db, cache }
    }

    fn key(&self, id: Uuid) -> String {
        self.cache.key(&["session", &id.to_string()])
    }

    pub async fn is_live(&self, id: Uuid) -> anyhow::Result<bool> {
        match self.cached(id).await {
            Ok(Some(live)) => return Ok(live),
            Ok(None) => {}
            Err(err) => tracing::warn!(error = %err, "redis unavailable; checking the session in PostgreSQL"),
        }
        let until = store::sessions::live_until(&self.db, id).await?;
        self.remember(id, until).await;
        Ok(until.is_some())
    }

    /// Marks a just-created session live in the cache.
    pub async fn started(&self, id: Uuid, until: DateTime<Utc>) {
        self.remember(id, Some(until)).await;
    }

    /// Ends the session in PostgreSQL, then in the cache. Returns whether it was live.
    pub async fn end(&self, id: Uuid, reason: &str) -> anyhow::Result<bool> {
        let was_live = store::sessions::end(&self.db, id, reason).await?;
        self.remember(id, None).await;
        Ok(was_live)
    }

    /// Marks sessions already ended in PostgreSQL (deactivation, deletion) as ended in the cache,
    /// after the transaction that ended them has committed.
    pub async fn ended(&self, ids: &[Uuid]) {
        for id in ids {
            self.remember(*id, None).await;
        }
    }

    async fn cached(&self, id: Uuid) -> anyhow::Result<Option<bool>> {
        let mut conn = self.cache.conn().await?;
        let value: Option<String> = conn.get(self.key(id)).await?;
        Ok(value.map(|v| v == "1"))
    }

    async fn remember(&self, id: Uuid, live_until: Option<DateTime<Utc>>) {
        let (value, ttl) = match live_until {
            Some(until) => ("1", (until - Utc::now()).num_seconds().clamp(1, LIVE_CACHE_SECS) as u64),
            None => ("0", ENDED_CACHE_SECS),
        };
        let result = async {
            let mut conn = self.cache.conn().await?;
            conn.set_ex::<_, _, ()>(self.key(id), value, ttl).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not cache session state");
        }
    }
}
