//! Whether a session is still live. PostgreSQL is the truth; Redis caches the answer ("1" live,
//! "0" ended) so the hot path is one round trip. When Redis is unreachable every check goes to
//! PostgreSQL, so ending a session is never lost.
//!
//! Ending wins every race with caching: an end writes "0" unconditionally, a check that read
//! "live" from PostgreSQL writes "1" only where no answer is cached yet (SET NX). A check that
//! read the row just before an end committed can therefore never put "live" back over "ended".
//!
//! A session also ends when unused for its idle timeout (`SESSION_IDLE_TIMEOUT_SECS`, or
//! `REMEMBER_ME_IDLE_TIMEOUT_SECS` for remembered ones): requests move `last_seen_at`, written to
//! PostgreSQL at most once a minute per session, and a cached "live" never outlasts the idle
//! deadline it was computed from.

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
    time::Duration,
};

use chrono::{DateTime, Utc};
use deadpool_redis::redis;
use uuid::Uuid;

use crate::{
    cache::Cache,
    config::IdleTimeouts,
    realtime::{Audience, Event, Hub},
    store::{self, sessions::EndedSession},
};

/// How long a "live" answer may be cached: it bounds how stale a cache can be if Redis missed an
/// end (it was down at that moment).
const LIVE_CACHE_SECS: i64 = 300;
/// "ended" answers outlive any token (the longest session is 30 days by default).
const ENDED_CACHE_SECS: u64 = 40 * 86400;
/// `last_seen_at` is written at most this often per session (more often only for idle timeouts
/// under four minutes, so that a session in use never looks idle).
const SEEN_WRITE_SECS: u64 = 60;

#[derive(Clone)]
pub struct SessionGuard {
    db: sqlx::PgPool,
    cache: Cache,
    idle: IdleTimeouts,
    hub: Hub,
    /// Sessions seen since the last flush (`flush_seen`): `last_seen_at` is written in batches.
    seen: Arc<Mutex<HashSet<Uuid>>>,
}

impl SessionGuard {
    pub fn new(db: sqlx::PgPool, cache: Cache, idle: IdleTimeouts, hub: Hub) -> Self {
        Self { db, cache, idle, hub, seen: Arc::default() }
    }

    pub fn idle(&self) -> IdleTimeouts {
        self.idle
    }

    fn seen_every_secs(&self) -> u64 {
        (self.idle.session.min(self.idle.remembered).as_secs() / 4).clamp(1, SEEN_WRITE_SECS)
    }

    fn idle_timeout(&self, remember_me: bool) -> Duration {
        if remember_me { self.idle.remembered } else { self.idle.session }
    }

    fn key(&self, id: Uuid) -> String {
        self.cache.key(&["session", &id.to_string()])
    }

    /// Whether the session may make this request; marks it as used.
    pub async fn is_live(&self, id: Uuid) -> anyhow::Result<bool> {
        self.check(id, true).await
    }

    /// Whether the session is still live, without marking it as used: for checks the server
    /// makes on its own (an open socket's periodic re-check), which must not keep an idle
    /// session alive.
    pub async fn still_live(&self, id: Uuid) -> anyhow::Result<bool> {
        self.check(id, false).await
    }

    async fn check(&self, id: Uuid, used: bool) -> anyhow::Result<bool> {
        // Known live on this instance: no round trip (`realtime::live`).
        let live = self.hub.live();
        if let Some(due) = live.check(id, used.then(|| Duration::from_secs(self.seen_every_secs()))) {
            if due {
                self.touch_later(id);
            }
            return Ok(true);
        }
        let ticket = live.ticket();
        let seen_key = self.cache.key(&["session-seen", &id.to_string()]);
        let cached = async {
            let mut conn = self.cache.conn().await?;
            if !used {
                let value: Option<String> = redis::cmd("GET").arg(self.key(id)).query_async(&mut *conn).await?;
                return anyhow::Ok((value, 0, false));
            }
            // One round trip: the cached answer, how long it lasts, and whether `last_seen_at` is
            // due a write.
            let (value, ttl_ms, due): (Option<String>, i64, Option<String>) = redis::pipe()
                .get(self.key(id))
                .pttl(self.key(id))
                .cmd("SET")
                .arg(&seen_key)
                .arg("1")
                .arg("NX")
                .arg("EX")
                .arg(self.seen_every_secs())
                .query_async(&mut *conn)
                .await?;
            anyhow::Ok((value, ttl_ms, due.is_some()))
        }
        .await;
        let redis_up = match cached {
            Ok((Some(value), ttl_ms, due)) => {
                let is_live = value == "1";
                if is_live && due {
                    self.touch_later(id);
                }
                if let (true, Some(ticket), Ok(ttl_ms)) = (is_live && used, ticket, u64::try_from(ttl_ms)) {
                    live.keep(ticket, id, Duration::from_millis(ttl_ms), Duration::from_secs(self.seen_every_secs()));
                }
                return Ok(is_live);
            }
            Ok((None, ..)) => true,
            Err(err) => {
                tracing::warn!(error = %err, "redis unavailable; checking the session in PostgreSQL");
                false
            }
        };
        let Some(found) = store::sessions::find_live(&self.db, id).await? else {
            self.remember(id, None).await;
            return Ok(false);
        };
        let idle_deadline = found.last_seen_at + self.idle_timeout(found.remember_me);
        if idle_deadline <= Utc::now() {
            self.end(id, "idle").await?;
            return Ok(false);
        }
        // Without Redis nothing spaces the writes out: they happen in line, at most one a minute
        // (the statement skips rows seen recently).
        if used && redis_up {
            self.touch_later(id);
        } else if used {
            store::sessions::touch(&self.db, id, self.seen_every_secs()).await?;
        }
        let live_until = found.expires_at.min(idle_deadline);
        self.remember(id, Some(live_until)).await;
        if let (true, Some(ticket), Ok(left)) = (used && redis_up, ticket, (live_until - Utc::now()).to_std()) {
            live.keep(ticket, id, left, Duration::from_secs(self.seen_every_secs()));
        }
        Ok(true)
    }

    /// Queues the session for the next batched write of `last_seen_at`.
    fn touch_later(&self, id: Uuid) {
        self.seen.lock().expect("seen lock").insert(id);
    }

    /// Writes `last_seen_at` for the sessions seen since the last flush, in one statement, and
    /// tells their monitors. Run every few seconds (`realtime::tasks`) and at shutdown.
    pub async fn flush_seen(&self) -> anyhow::Result<usize> {
        let ids: Vec<Uuid> = std::mem::take(&mut *self.seen.lock().expect("seen lock")).into_iter().collect();
        if ids.is_empty() {
            return Ok(0);
        }
        let touched = match store::sessions::touch_many(&self.db, &ids).await {
            Ok(touched) => touched,
            Err(err) => {
                // Queued again for the next flush: Redis says these sessions were seen this
                // minute, so no request would queue them before the next one.
                self.seen.lock().expect("seen lock").extend(ids);
                return Err(err.into());
            }
        };
        let events = touched.iter().map(|(session_id, enterprise_id, last_seen_at)| {
            let event = Event::MonitoringSessionUpdated { session_id: *session_id, enterprise_id: *enterprise_id, last_seen_at: *last_seen_at };
            (Audience::Monitors { enterprise: *enterprise_id }, event)
        });
        self.hub.publish_many(events).await;
        Ok(touched.len())
    }

    /// Why the server ended a session that is not live (its `end_reason`), when PostgreSQL says:
    /// asked only of a session a check refused, so that the refusal can say why.
    pub async fn why_ended(&self, id: Uuid) -> Option<String> {
        match store::sessions::find(&self.db, id).await {
            Ok(record) => record.and_then(|record| record.end_reason),
            Err(err) => {
                tracing::warn!(error = %err, "cannot read why a session ended");
                None
            }
        }
    }

    /// Marks a just-created session live in the cache.
    pub async fn started(&self, id: Uuid, expires_at: DateTime<Utc>, remember_me: bool) {
        self.remember(id, Some(expires_at.min(Utc::now() + self.idle_timeout(remember_me)))).await;
    }

    /// Ends the session in PostgreSQL, then in the cache and on every socket. Returns whether it
    /// was live.
    pub async fn end(&self, id: Uuid, reason: &str) -> anyhow::Result<bool> {
        let ended = store::sessions::end(&self.db, id, reason).await?;
        self.remember(id, None).await;
        let was_live = ended.is_some();
        match ended {
            Some(session) => self.ended(&[session]).await,
            // Ended already, but perhaps not announced (ended behind the server's back): no
            // instance may go on knowing it live.
            None => self.hub.publish(Audience::Session(id), Event::SessionEnded { session_id: id, reason: reason.to_owned() }).await,
        }
        Ok(was_live)
    }

    /// Announces sessions ended in PostgreSQL (logout, deactivation, deletion, a change of role,
    /// expiry): marks them ended in the cache, closes their sockets on every instance (4401) and
    /// tells their monitors. Called after the transaction that ended them has committed.
    pub async fn ended(&self, sessions: &[EndedSession]) {
        self.remember_ended(sessions.iter().map(|s| s.id)).await;
        let events = sessions.iter().flat_map(|s| {
            [
                (Audience::Session(s.id), Event::SessionEnded { session_id: s.id, reason: s.end_reason.clone() }),
                (
                    Audience::Monitors { enterprise: s.enterprise_id },
                    Event::MonitoringSessionEnded { session_id: s.id, enterprise_id: s.enterprise_id, reason: s.end_reason.clone() },
                ),
            ]
        });
        // Each person once, however many of their sessions ended: their other tabs refresh
        // "Your sessions".
        let mut owners: Vec<(Uuid, Option<Uuid>)> = sessions.iter().map(|s| (s.user_id, s.enterprise_id)).collect();
        owners.sort_unstable();
        owners.dedup();
        let own = owners
            .into_iter()
            .map(|(user_id, enterprise)| (Audience::Users { enterprise, users: vec![user_id] }, Event::OwnSessionsChanged { user_id }));
        self.hub.publish_many(events.chain(own)).await;
    }

    /// Caches "ended" for many sessions in one round trip.
    async fn remember_ended(&self, ids: impl Iterator<Item = Uuid>) {
        let mut pipe = redis::pipe();
        let mut any = false;
        for id in ids {
            pipe.cmd("SET").arg(self.key(id)).arg("0").arg("EX").arg(ENDED_CACHE_SECS).ignore();
            any = true;
        }
        if !any {
            // An empty pipeline is an error for Redis ("empty command"): nothing to remember.
            return;
        }
        let result = async {
            let mut conn = self.cache.conn().await?;
            pipe.query_async::<()>(&mut *conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not cache ended sessions");
        }
    }

    async fn remember(&self, id: Uuid, live_until: Option<DateTime<Utc>>) {
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(id));
        match live_until {
            Some(until) => {
                let ttl = (until - Utc::now()).num_seconds().clamp(1, LIVE_CACHE_SECS);
                cmd.arg("1").arg("NX").arg("EX").arg(ttl)
            }
            None => cmd.arg("0").arg("EX").arg(ENDED_CACHE_SECS),
        };
        let result = async {
            let mut conn = self.cache.conn().await?;
            cmd.query_async::<Option<String>>(&mut *conn).await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = result {
            tracing::warn!(error = %err, "could not cache session state");
        }
    }
}
