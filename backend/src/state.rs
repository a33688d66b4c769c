//! What every request can reach: configuration, the database pool, Redis, GeoIP, token keys.

use std::{ops::Deref, sync::Arc};

use anyhow::Context;
use sqlx::PgPool;

use crate::{
    auth::{passkeys::Passkeys, rate_limit::LoginLimiter, sessions::SessionGuard, sso::SingleSignOn, token::TokenKeys},
    cache::Cache,
    config::Config,
    db,
    generations::{Generations, ReadCache},
    geoip::GeoIp,
    realtime::Hub,
    spreadsheet::worker::Engine,
    usage::Counters,
};

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub db: PgPool,
    /// Builds and drops tenant schemas, and nothing else. A PostgreSQL backend keeps the catalog
    /// entries of every schema it created for the rest of its life: request connections that had
    /// built thousands of tenants served tenant reads about a third slower (docs/performance.md).
    /// On their own pool, those connections never serve requests.
    pub tenant_ddl: PgPool,
    pub cache: Cache,
    /// The tenants' data generations, which say whether a read kept in memory is still true.
    pub generations: Generations,
    /// Reports as their readers were last given them (`GET /reports/{id}`).
    pub report_reads: ReadCache,
    pub sessions: SessionGuard,
    /// This instance's sockets and the channel shared with the other instances.
    pub realtime: Hub,
    pub login_limiter: LoginLimiter,
    /// Password-reset requests: 3 an hour per address and client, 20 per client, 5 per address.
    pub reset_limiter: LoginLimiter,
    pub tokens: Arc<TokenKeys>,
    pub geoip: Option<GeoIp>,
    /// The spreadsheet engine's worker processes and their slots.
    pub engine: Arc<Engine>,
    /// The passkeys' relying party; none when `PUBLIC_URL` is an address passkeys cannot
    /// belong to (an IP address other than loopback).
    pub passkeys: Option<Passkeys>,
    /// Single sign-on's client side; none when `PUBLIC_URL` is not a URL a provider can send
    /// people back to.
    pub sso: Option<SingleSignOn>,
    /// What each enterprise used today, counted on this instance and not yet written.
    pub usage: Arc<Counters>,
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// What signing in touches (`auth::sign_in`).
    pub fn sign_ins(&self) -> crate::auth::sign_in::SignIns<'_> {
        crate::auth::sign_in::SignIns {
            db: &self.db,
            data_keys: &self.config.data_keys,
            login_limiter: &self.login_limiter,
            passkeys: &self.passkeys,
            geoip: &self.geoip,
            tokens: &self.tokens,
            sessions: &self.sessions,
            realtime: &self.realtime,
            usage: &self.usage,
            ttls: crate::auth::sign_in::Ttls::of(&self.config),
        }
    }

    /// What an enterprise's exports touch (`enterprise_export`).
    pub fn exporter(&self) -> crate::enterprise_export::Exporter {
        crate::enterprise_export::Exporter { db: self.db.clone(), engine: self.engine.clone(), ttl: self.config.tenant_export_ttl }
    }

    /// Serves with `db` for requests and a small pool of its own for tenant DDL.
    pub fn new(config: Config, db: PgPool) -> anyhow::Result<Self> {
        let tenant_ddl = db::pool_with((*db.connect_options()).clone(), db::TENANT_DDL_CONNECTIONS);
        Self::with_pools(config, db, tenant_ddl)
    }

    /// One pool for everything (tests: their databases are small and short-lived).
    pub fn with_pool(config: Config, db: PgPool) -> anyhow::Result<Self> {
        Self::with_pools(config, db.clone(), db)
    }

    fn with_pools(config: Config, db: PgPool, tenant_ddl: PgPool) -> anyhow::Result<Self> {
        let cache = Cache::new(&config.redis_url, &config.redis_prefix).context("invalid REDIS_URL")?;
        let geoip = config.geoip_database.as_deref().map(GeoIp::open).transpose()?;
        let realtime = Hub::new(cache.clone(), &config.redis_url, &config.jwt_secret);
        // A relying party named in the configuration must be right; one derived from PUBLIC_URL
        // may be missing (an IP address), and then only passkeys are unavailable.
        let passkeys = match Passkeys::new(&config.mail.public_url, config.passkey_rp_id.as_deref(), cache.clone()) {
            Ok(passkeys) => Some(passkeys),
            Err(err) if config.passkey_rp_id.is_none() => {
                tracing::warn!(error = %err, "passkeys are not available");
                None
            }
            Err(err) => return Err(err.context("PASSKEY_RP_ID")),
        };
        let sso = SingleSignOn::new(
            &config.mail.public_url,
            config.events.allow_private_networks,
            &config.trusted_roots,
            config.data_keys.clone(),
            cache.clone(),
        )
        .inspect_err(|err| tracing::warn!(error = %err, "single sign-on is not available"))
        .ok();
        Ok(Self(Arc::new(Inner {
            tenant_ddl,
            generations: Generations::new(cache.clone()),
            report_reads: ReadCache::default(),
            sessions: SessionGuard::new(db.clone(), cache.clone(), config.idle_timeouts, realtime.clone()),
            realtime,
            login_limiter: LoginLimiter::new(cache.clone(), config.login_limits),
            reset_limiter: LoginLimiter::named(
                "reset-requests",
                cache.clone(),
                crate::config::LoginLimits {
                    per_account_and_ip: 3,
                    per_ip: 20,
                    per_account: 5,
                    per_device: 3,
                    window: std::time::Duration::from_secs(3600),
                },
            ),
            tokens: Arc::new(TokenKeys::new(&config.jwt_secret)),
            geoip,
            engine: Arc::new(Engine::new(config.spreadsheet_engine.clone())),
            passkeys,
            sso,
            usage: Arc::default(),
            cache,
            db,
            config,
        })))
    }
}
