//! Redis: what is hot and shared between server instances. Every key carries the configured
//! prefix. Redis is an accelerator here, never the source of truth: callers fall back to
//! PostgreSQL (sessions) or fail open (rate limits) when it is unreachable.

use std::time::Duration;

use deadpool_redis::{Config as PoolConfig, Connection, Pool, Runtime, Timeouts};

#[derive(Clone)]
pub struct Cache {
    pool: Pool,
    prefix: String,
}

impl Cache {
    pub fn new(url: &str, prefix: &str) -> anyhow::Result<Self> {
        let mut cfg = PoolConfig::from_url(url);
        let mut pool_cfg = deadpool_redis::PoolConfig::new(32);
        // A dead Redis must cost a request milliseconds, not seconds.
        pool_cfg.timeouts =
            Timeouts { wait: Some(Duration::from_millis(500)), create: Some(Duration::from_millis(500)), recycle: Some(Duration::from_millis(500)) };
        cfg.pool = Some(pool_cfg);
        let pool = cfg.create_pool(Some(Runtime::Tokio1))?;
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

    pub async fn ping(&self) -> anyhow::Result<()> {
        let mut conn = self.conn().await?;
        deadpool_redis::redis::cmd("PING").query_async::<String>(&mut conn).await?;
        Ok(())
    }
}
