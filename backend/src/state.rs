//! What every request can reach: configuration, the database pool, Redis, GeoIP, token keys.

use std::{ops::Deref, sync::Arc};

use anyhow::Context;
use sqlx::PgPool;

use crate::{
    auth::{rate_limit::LoginLimiter, sessions::SessionGuard, token::TokenKeys},
    cache::Cache,
    config::Config,
    db,
    geoip::GeoIp,
};

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub db: PgPool,
    pub cache: Cache,
    pub sessions: SessionGuard,
    pub login_limiter: LoginLimiter,
    pub tokens: TokenKeys,
    pub geoip: Option<GeoIp>,
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// Connects to PostgreSQL (lazily) and Redis and opens the GeoIP database.
    pub fn new(config: Config) -> anyhow::Result<Self> {
        let db = db::pool(&config.database_url)?;
        Self::with_pool(config, db)
    }

    pub fn with_pool(config: Config, db: PgPool) -> anyhow::Result<Self> {
        let cache = Cache::new(&config.redis_url, &config.redis_prefix).context("invalid REDIS_URL")?;
        let geoip = config.geoip_database.as_deref().map(GeoIp::open).transpose()?;
        Ok(Self(Arc::new(Inner {
            sessions: SessionGuard::new(db.clone(), cache.clone()),
            login_limiter: LoginLimiter::new(cache.clone(), config.login_limits),
            tokens: TokenKeys::new(&config.jwt_secret),
            geoip,
            cache,
            db,
            config,
        })))
    }
}
