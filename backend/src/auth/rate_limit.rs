//! Sign-in attempts, counted in Redis in fixed windows per (account, client IP) and per client IP.
//! Counting per pair rather than per account means a stranger guessing wrong cannot lock a user
//! out; the per-IP counter stops one client from spraying many accounts.
//!
//! An attempt is counted before its password is checked, in one atomic step that also tells
//! whether the client is over a limit: however many guesses are sent at once, at most the limit's
//! number are ever checked. A successful sign-in gives its attempt back. Without Redis the limit
//! fails open (and says so in the log) rather than locking everyone out.

use std::net::IpAddr;

use deadpool_redis::redis;

use crate::{cache::Cache, config::LoginLimits, domain::Email};

#[derive(Clone)]
pub struct LoginLimiter {
    cache: Cache,
    limits: LoginLimits,
}

/// The counters one attempt was counted in; given back when the attempt succeeds.
pub struct Attempt {
    keys: Vec<String>,
}

impl LoginLimiter {
    pub fn new(cache: Cache, limits: LoginLimits) -> Self {
        Self { cache, limits }
    }

    fn counters(&self, email: &Email, ip: Option<IpAddr>) -> [(String, u32); 2] {
        let ip = ip.map(|i| i.to_string()).unwrap_or_else(|| "unknown".into());
        [
            (self.cache.key(&["login-attempts", "account", &email.normalized(), &ip]), self.limits.per_account_and_ip),
            (self.cache.key(&["login-attempts", "ip", &ip]), self.limits.per_ip),
        ]
    }

    /// Counts one attempt. `Err(seconds to wait)` when the client is over a limit: the password
    /// must then not be checked.
    pub async fn attempt(&self, email: &Email, ip: Option<IpAddr>) -> Result<Attempt, u64> {
        let counters = self.counters(email, ip);
        let window = self.limits.window.as_secs().max(1);
        let result = async {
            let mut conn = self.cache.conn().await?;
            let mut pipe = redis::pipe();
            pipe.atomic();
            for (key, _) in &counters {
                pipe.incr(key, 1);
                // The window starts at the first attempt; later ones do not extend it.
                pipe.cmd("EXPIRE").arg(key).arg(window).arg("NX").ignore();
                pipe.ttl(key);
            }
            let counts: Vec<i64> = pipe.query_async(&mut conn).await?;
            anyhow::Ok(counts)
        }
        .await;
        let counts = match result {
            Ok(counts) => counts,
            Err(err) => {
                tracing::warn!(error = %err, "redis unavailable; sign-in rate limit not enforced");
                return Ok(Attempt { keys: Vec::new() });
            }
        };
        let mut wait = None;
        for ((_, limit), pair) in counters.iter().zip(counts.chunks(2)) {
            if pair[0] > i64::from(*limit) {
                wait = Some(wait.unwrap_or(1).max(pair[1].max(1) as u64));
            }
        }
        match wait {
            Some(secs) => Err(secs),
            None => Ok(Attempt { keys: counters.into_iter().map(|(key, _)| key).collect() }),
        }
    }

    /// A successful sign-in forgives this client's attempts on this account and gives its own
    /// attempt back to the client's counter.
    pub async fn succeeded(&self, attempt: Attempt) {
        let [pair, per_ip] = match <[String; 2]>::try_from(attempt.keys) {
            Ok(keys) => keys,
            Err(_) => return,
        };
        let result = async {
            let mut conn = self.cache.conn().await?;
            redis::pipe().del(&pair).ignore().decr(&per_ip, 1).ignore().query_async::<()>(&mut conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not clear sign-in attempts");
        }
    }
}
