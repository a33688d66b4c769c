//! Redis: what is hot and shared between server instances. Every key carries the configured
//! prefix. Redis is an accelerator here, never the source of truth: callers fall back to
//! PostgreSQL (sessions) or fail open (rate limits) when it is unreachable.

use std::time::Duration;

use deadpool::managed::{self, Metrics, Object, Pool, RecycleResult, Timeouts};
use deadpool_redis::redis::{
    Cmd, Pipeline, RedisError, RedisFuture, Value,
    aio::{ConnectionLike, MultiplexedConnection},
};

/// A pooled connection: put it where redis wants a connection as `&mut *conn`.
pub type Connection = Object<Recycler>;

#[derive(Clone)]
pub struct Cache {
    pool: Pool<Recycler>,
    prefix: String,
}

impl Cache {
    pub fn new(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let pool = Pool::builder(Recycler(deadpool_redis::Manager::new(url)?))
            .max_size(32)
            // A dead Redis must cost a request milliseconds, not seconds.
            .timeouts(Timeouts {
                wait: Some(Duration::from_millis(500)),
                create: Some(Duration::from_millis(500)),
                recycle: Some(Duration::from_millis(500)),
            })
            .runtime(deadpool::Runtime::Tokio1)
            .build()?;
        Ok(Self { pool, prefix: prefix.to_owned() })
    }

    pub fn key(&self, parts: &[&str]) -> String {
        let mut key = self.prefix.clone();
        key.push_str(&parts.join(":"));
        key
    }

    pub async fn conn(&self) -> anyhow::Result<Connection> {
        self.pool.get().await.map_err(|err| {
            crate::metrics::redis_error();
            err.into()
        })
    }

    /// Keeps `value` as JSON under `key` (a full key, from `key`) for `ttl_secs`: what one step of
    /// a ceremony leaves for the next (passkeys, single sign-on).
    pub async fn put_json<T: serde::Serialize>(&self, key: &str, value: &T, ttl_secs: u64) -> Result<(), crate::error::AppError> {
        use crate::error::AppError;
        let json = serde_json::to_string(value).map_err(|e| AppError::Unexpected(e.into()))?;
        let mut conn = self.conn().await.map_err(|_| AppError::Busy { retry_after_secs: 5 })?;
        deadpool_redis::redis::cmd("SET")
            .arg(key)
            .arg(json)
            .arg("EX")
            .arg(ttl_secs)
            .query_async::<()>(&mut *conn)
            .await
            .map_err(|_| AppError::Busy { retry_after_secs: 5 })
    }

    /// Takes out what `put_json` kept, so that it is used once (on any instance): `None` when it
    /// expired, was taken already, or never was.
    pub async fn take_json<T: serde::de::DeserializeOwned>(&self, key: &str) -> Result<Option<T>, crate::error::AppError> {
        use crate::error::AppError;
        let mut conn = self.conn().await.map_err(|_| AppError::Busy { retry_after_secs: 5 })?;
        let json: Option<String> =
            deadpool_redis::redis::cmd("GETDEL").arg(key).query_async(&mut *conn).await.map_err(|_| AppError::Busy { retry_after_secs: 5 })?;
        Ok(json.and_then(|j| serde_json::from_str(&j).ok()))
    }

    /// Marks `key` seen for `ttl_secs`: true the first time (on any instance), false while the
    /// mark lasts (a replayed token's id).
    pub async fn first_time(&self, key: &str, ttl_secs: u64) -> Result<bool, crate::error::AppError> {
        use crate::error::AppError;
        let mut conn = self.conn().await.map_err(|_| AppError::Busy { retry_after_secs: 5 })?;
        let set: Option<String> = deadpool_redis::redis::cmd("SET")
            .arg(key)
            .arg(1)
            .arg("NX")
            .arg("EX")
            .arg(ttl_secs)
            .query_async(&mut *conn)
            .await
            .map_err(|_| AppError::Busy { retry_after_secs: 5 })?;
        Ok(set.is_some())
    }

    pub async fn ping(&self) -> anyhow::Result<()> {
        let mut conn = self.conn().await?;
        deadpool_redis::redis::cmd("PING").query_async::<String>(&mut *conn).await?;
        Ok(())
    }
}

/// deadpool-redis' manager, minus one round trip per request: it pings every connection it hands
/// out (bench/mixed.sh: the session check paid a PING before its own pipeline). Here a connection
/// that answered its last command moments ago is handed out as is; one that sat idle, or saw an
/// error, is pinged first, as before, and replaced when the ping fails (the same rule as `db::pool_with`). A connection that died
/// in between fails its next command: the caller falls back as for any Redis error, and the
/// failure gets the connection pinged, and replaced, at its next checkout.
pub struct Recycler(deadpool_redis::Manager);

pub struct PooledConnection {
    inner: MultiplexedConnection,
    /// A command on it failed since it was last checked (an error reply such as WRONGTYPE is not
    /// a failure of the connection: it comes back as a value).
    failed: bool,
}

impl managed::Manager for Recycler {
    type Type = PooledConnection;
    type Error = RedisError;

    async fn create(&self) -> Result<PooledConnection, RedisError> {
        Ok(PooledConnection { inner: managed::Manager::create(&self.0).await?, failed: false })
    }

    async fn recycle(&self, conn: &mut PooledConnection, metrics: &Metrics) -> RecycleResult<RedisError> {
        if !conn.failed && metrics.last_used() <= crate::db::PING_WHEN_IDLE_FOR {
            return Ok(());
        }
        managed::Manager::recycle(&self.0, &mut conn.inner, metrics).await?;
        conn.failed = false;
        Ok(())
    }
}

impl PooledConnection {
    fn note<T>(&mut self, result: Result<T, RedisError>) -> Result<T, RedisError> {
        self.failed |= result.is_err();
        result
    }
}

impl ConnectionLike for PooledConnection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        Box::pin(async move {
            let result = self.inner.req_packed_command(cmd).await;
            self.note(result)
        })
    }

    fn req_packed_commands<'a>(&'a mut self, pipeline: &'a Pipeline, offset: usize, count: usize) -> RedisFuture<'a, Vec<Value>> {
        Box::pin(async move {
            let result = self.inner.req_packed_commands(pipeline, offset, count).await;
            self.note(result)
        })
    }

    fn get_db(&self) -> i64 {
        self.inner.get_db()
    }
}

#[cfg(test)]
mod tests {
    use deadpool_redis::redis;

    use super::*;

    fn cache() -> Cache {
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| crate::config::DEFAULT_REDIS_URL.into());
        Cache::new(&url, "test:cache:").unwrap()
    }

    /// The last command Redis ran for the client `id`, asked on another pool's connection.
    async fn last_command(watcher: &Cache, id: i64) -> String {
        let mut conn = watcher.conn().await.unwrap();
        let info: String = redis::cmd("CLIENT").arg("LIST").arg("ID").arg(id).query_async(&mut *conn).await.unwrap();
        info.split_whitespace().find_map(|field| field.strip_prefix("cmd=")).unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_connection_used_moments_ago_is_handed_out_without_a_ping_one_that_failed_is_replaced_one_that_sat_idle_is_pinged() {
        let (cache, watcher) = (cache(), cache());
        let client_id = |mut conn: Connection| async move { redis::cmd("CLIENT").arg("ID").query_async::<i64>(&mut *conn).await.unwrap() };
        let id = client_id(cache.conn().await.unwrap()).await;

        let mut conn = cache.conn().await.unwrap();
        assert_eq!(last_command(&watcher, id).await, "client|id", "handed out again at once, without a PING");

        // The connection dies under its holder (Redis restarted, a network cut): its command fails,
        // and the pool checks it before handing it out again, so the next request gets a new one.
        let mut admin = watcher.conn().await.unwrap();
        redis::cmd("CLIENT").arg("KILL").arg("ID").arg(id).query_async::<i64>(&mut *admin).await.unwrap();
        drop(admin);
        assert!(redis::cmd("GET").arg(cache.key(&["absent"])).query_async::<Option<String>>(&mut *conn).await.is_err());
        drop(conn);
        let replaced = client_id(cache.conn().await.unwrap()).await;
        assert_ne!(replaced, id, "a failed connection is not handed out as is");

        tokio::time::sleep(crate::db::PING_WHEN_IDLE_FOR + Duration::from_millis(200)).await;
        let _conn = cache.conn().await.unwrap();
        assert_eq!(last_command(&watcher, replaced).await, "ping", "checked after sitting idle");
    }
}
