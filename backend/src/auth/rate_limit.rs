//! Failed sign-ins, counted in Redis in fixed windows per (account, client IP) and per client IP.
//! Counting per pair rather than per account means a stranger guessing wrong cannot lock a user
//! out; the per-IP counter stops one client from spraying many accounts. Without Redis the limit
//! fails open (and says so in the log) rather than locking everyone out.

use std::net::IpAddr;

use deadpool_redis::redis;

use crate::{cache::Cache, config::LoginLimits, domain::Email};

#[derive(Clone)]
pub struct LoginLimiter {
    cache: Cache,
    limits: LoginLimits,
}

impl LoginLimiter {
    pub fn new(cache: Cache, limits: LoginLimits) -> Self {
        Self { cache, limits }
    }

    fn keys(&self, email: &Email, ip: Option<IpAddr>) -> [String; 2] {
        let ip = ip.map(|i| i.to_string()).unwrap_or_else(|| "unknown".into());
        [
            self.cache.key(&["login-failures", "account", &email.normalized(), &ip]),
            self.cache.key(&["login-failures", "ip", &ip]),
        ]
    }

    /// `Some(seconds)` to wait when this client is over either limit.
    pub async fn blocked_for(&self, email: &Email, ip: Option<IpAddr>) -> Option<u64> {
        let [pair, per_ip] = self.keys(email, ip);
        let result = async {
            let mut conn = self.cache.conn().await?;
            let (pair_count, pair_ttl, ip_count, ip_ttl): (Option<u32>, i64, Option<u32>, i64) = redis::pipe()
                .get(&pair)
                .ttl(&pair)
                .get(&per_ip)
                .ttl(&per_ip)
                .query_async(&mut conn)
                .await?;
            let mut wait = None;
            if pair_count.unwrap_or(0) >= self.limits.per_account_and_ip {
                wait = Some(pair_ttl.max(1) as u64);
            }
            if ip_count.unwrap_or(0) >= self.limits.per_ip {
                wait = Some(wait.unwrap_or(0).max(ip_ttl.max(1) as u64));
            }
            anyhow::Ok(wait)
        }
        .await;
        result.unwrap_or_else(|err| {
            tracing::warn!(error = %err, "redis unavailable; sign-in rate limit not enforced");
            None
        })
    }

    pub async fn record_failure(&self, email: &Email, ip: Option<IpAddr>) {
        let window = self.limits.window.as_secs().max(1) as i64;
        let result = async {
            let mut conn = self.cache.conn().await?;
            let mut pipe = redis::pipe();
            for key in self.keys(email, ip) {
                pipe.incr(&key, 1).ignore();
                // The window starts at the first failure; later failures do not extend it.
                pipe.cmd("EXPIRE").arg(&key).arg(window).arg("NX").ignore();
            }
            pipe.query_async::<()>(&mut conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not record a failed sign-in");
        }
    }

    /// A successful sign-in forgives this client's failures on this account.
    pub async fn clear(&self, email: &Email, ip: Option<IpAddr>) {
        let [pair, _] = self.keys(email, ip);
        let result = async {
            let mut conn = self.cache.conn().await?;
            redis::cmd("DEL").arg(&pair).query_async::<()>(&mut conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not clear failed sign-ins");
        }
    }
}
