//! Sign-in attempts, counted in fixed windows (OWASP's "device cookie" scheme for the account).
//!
//! An attempt from a browser without a valid device token for the account (a stranger, or the
//! owner on a new browser) counts against three limits: per (account, client address), per client
//! address (one client spraying many accounts), and per account across all addresses (one account
//! guessed from many). An attempt that carries a valid device token for the account — the browser
//! signed in to it before — counts only against that device's own limit, so the account-wide limit
//! that strangers fill never locks the owner out of a browser they use.
//!
//! An attempt is counted before its password is checked, in one atomic step that also tells
//! whether the client is over a limit: however many guesses are sent at once, at most the limit's
//! number are ever checked. A successful sign-in gives its attempt back, and so does one whose
//! password could not be checked (the database did not answer).
//!
//! Redis holds the counters so every instance shares them. When Redis is unreachable, each
//! instance limits on its own with an in-process limiter (governor: the same limits as a steady
//! rate with a burst of the limit; attempts are not given back), rather than not at all.

use std::{net::IpAddr, num::NonZeroU32, sync::Arc};

use deadpool_redis::redis;
use governor::{DefaultKeyedRateLimiter, Quota, clock::Clock};
use uuid::Uuid;

use crate::{cache::Cache, config::LoginLimits, domain::Email};

#[derive(Clone)]
pub struct LoginLimiter {
    /// What it counts, in its Redis keys: `login-attempts`, `reset-requests`.
    name: &'static str,
    cache: Cache,
    limits: LoginLimits,
    local: Arc<LocalLimits>,
}

/// The counters one attempt was counted in; given back when the attempt succeeds.
pub struct Attempt {
    counters: Vec<Counter>,
}

struct Counter {
    key: String,
    limit: u32,
    /// Forgotten on success (this client's failures on this account), rather than decremented.
    cleared_on_success: bool,
}

/// One in-process limiter per kind of limit (their quotas differ).
struct LocalLimits {
    by_limit: Vec<(u32, DefaultKeyedRateLimiter<String>)>,
}

impl LocalLimits {
    fn new(limits: &LoginLimits) -> Self {
        let mut by_limit: Vec<(u32, DefaultKeyedRateLimiter<String>)> = Vec::new();
        for limit in [limits.per_account_and_ip, limits.per_ip, limits.per_account, limits.per_device] {
            if by_limit.iter().any(|(l, _)| *l == limit) {
                continue;
            }
            let burst = NonZeroU32::new(limit.max(1)).expect("non-zero");
            let period = (limits.window / burst.get()).max(std::time::Duration::from_millis(1));
            let quota = Quota::with_period(period).expect("non-zero period").allow_burst(burst);
            by_limit.push((limit, DefaultKeyedRateLimiter::keyed(quota)));
        }
        Self { by_limit }
    }

    /// `Err(seconds)` when any counter is over its limit.
    fn check(&self, counters: &[Counter]) -> Result<(), u64> {
        let mut wait = None;
        for counter in counters {
            let Some((_, limiter)) = self.by_limit.iter().find(|(l, _)| *l == counter.limit) else { continue };
            if limiter.len() > 100_000 {
                limiter.retain_recent();
            }
            if let Err(not_until) = limiter.check_key(&counter.key) {
                let secs = not_until.wait_time_from(governor::clock::DefaultClock::default().now()).as_secs().max(1);
                wait = Some(wait.unwrap_or(0).max(secs));
            }
        }
        wait.map_or(Ok(()), Err)
    }
}

impl LoginLimiter {
    pub fn new(cache: Cache, limits: LoginLimits) -> Self {
        Self::named("login-attempts", cache, limits)
    }

    /// A limiter of the same shape for other requests about an account (password-reset
    /// requests), counted apart from sign-ins.
    pub fn named(name: &'static str, cache: Cache, limits: LoginLimits) -> Self {
        Self { name, local: Arc::new(LocalLimits::new(&limits)), cache, limits }
    }

    fn counters(&self, email: &Email, ip: Option<IpAddr>, device: Option<Uuid>) -> Vec<Counter> {
        let account = email.normalized();
        let counter = |parts: &[&str], limit, cleared_on_success| Counter { key: self.cache.key(parts), limit, cleared_on_success };
        if let Some(device) = device {
            return vec![counter(&[self.name, "device", &account, &device.to_string()], self.limits.per_device, true)];
        }
        let ip = ip.map(|i| i.to_string()).unwrap_or_else(|| "unknown".into());
        vec![
            counter(&[self.name, "account-ip", &account, &ip], self.limits.per_account_and_ip, true),
            counter(&[self.name, "ip", &ip], self.limits.per_ip, false),
            counter(&[self.name, "account", &account], self.limits.per_account, false),
        ]
    }

    /// Counts one attempt; `device` is the id of a valid device token for this account.
    /// `Err(seconds to wait)` when the client is over a limit: the password must then not be
    /// checked.
    pub async fn attempt(&self, email: &Email, ip: Option<IpAddr>, device: Option<Uuid>) -> Result<Attempt, u64> {
        let counters = self.counters(email, ip, device);
        let window = self.limits.window.as_secs().max(1);
        let result = async {
            let mut conn = self.cache.conn().await?;
            let mut pipe = redis::pipe();
            pipe.atomic();
            for counter in &counters {
                pipe.incr(&counter.key, 1);
                // The window starts at the first attempt; later ones do not extend it.
                pipe.cmd("EXPIRE").arg(&counter.key).arg(window).arg("NX").ignore();
                pipe.ttl(&counter.key);
            }
            let counts: Vec<i64> = pipe.query_async(&mut *conn).await?;
            anyhow::Ok(counts)
        }
        .await;
        let counts = match result {
            Ok(counts) => counts,
            Err(err) => {
                tracing::warn!(error = %err, "redis unavailable; sign-in attempts limited by this instance alone");
                self.local.check(&counters)?;
                return Ok(Attempt { counters: Vec::new() });
            }
        };
        let mut wait = None;
        for (counter, pair) in counters.iter().zip(counts.chunks(2)) {
            if pair[0] > i64::from(counter.limit) {
                wait = Some(wait.unwrap_or(1).max(pair[1].max(1) as u64));
            }
        }
        match wait {
            Some(secs) => Err(secs),
            None => Ok(Attempt { counters }),
        }
    }

    /// A successful sign-in forgives this client's failures on this account and gives its own
    /// attempt back to the shared counters.
    pub async fn succeeded(&self, attempt: Attempt) {
        self.release(attempt, true).await;
    }

    /// Gives back an attempt whose password was never checked (the database did not answer):
    /// it guessed nothing, so it must not bring the client nearer to its limit.
    pub async fn not_checked(&self, attempt: Attempt) {
        self.release(attempt, false).await;
    }

    async fn release(&self, attempt: Attempt, succeeded: bool) {
        if attempt.counters.is_empty() {
            return;
        }
        let result = async {
            let mut conn = self.cache.conn().await?;
            let mut pipe = redis::pipe();
            for counter in &attempt.counters {
                if succeeded && counter.cleared_on_success {
                    pipe.del(&counter.key).ignore();
                } else {
                    pipe.decr(&counter.key, 1).ignore();
                }
            }
            pipe.query_async::<()>(&mut *conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not clear sign-in attempts");
        }
    }
}
