//! Reads served from the instance's memory, kept true by generations of the tenants' data.
//!
//! Each enterprise has a number in Redis, and the platform one more; every request that may
//! change data moves its tenant's number (a program's or an unsigned request's, and the platform
//! admin's, move the platform's), after its work and before its answer (`moved_by`, applied by
//! `edge::request_rules`). A read kept in memory (`ReadCache`) records the numbers it was made
//! under and is served only while both are still current: asking costs one Redis round trip and
//! no SQL, and a change made through any instance is seen by the next read on every instance.
//!
//! - Missing numbers (a new or restarted Redis) are set to random ones, so nothing kept before
//!   matches them; without Redis nothing kept is served.
//! - Writes that cannot touch what is kept (heartbeats, the messenger, signing in and out) move
//!   nothing (`MOVES_NOTHING`): a mistake there could only ever serve stale data, so the list is
//!   short and each entry obvious.
//! - A number that could not be moved (Redis unreachable from this instance alone) leaves other
//!   instances serving what they kept for at most `KEEP_FOR`.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use deadpool_redis::redis;
use poem::{Request, http::Method};
use uuid::Uuid;

use crate::{auth::token::TokenKeys, cache::Cache};

/// How long a kept read may be served at most, however current its numbers look.
pub const KEEP_FOR: Duration = Duration::from_secs(60);
/// At most this many reads are kept; past it, the oldest half goes.
const MAX_KEPT: usize = 20_000;
/// Larger answers are not kept.
const MAX_BODY: usize = 256 * 1024;

/// Writes that change no report, user, department or enterprise (paths under `/api/v1`).
const MOVES_NOTHING: &[&str] = &["/monitoring/sessions/activity", "/messaging/", "/auth/login", "/auth/logout"];

/// The numbers a read was made under: the platform's and its enterprise's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp(u64, u64);

#[derive(Clone)]
pub struct Generations {
    cache: Cache,
}

impl Generations {
    pub fn new(cache: Cache) -> Self {
        Self { cache }
    }

    fn key(&self, enterprise: Option<Uuid>) -> String {
        match enterprise {
            Some(id) => self.cache.key(&["generation", &id.to_string()]),
            None => self.cache.key(&["generation", "platform"]),
        }
    }

    /// The current numbers for `enterprise`, or none (Redis unreachable, or a number was
    /// missing: it is set now, and the next read can keep what it makes).
    pub async fn current(&self, enterprise: Uuid) -> Option<Stamp> {
        let keys = [self.key(None), self.key(Some(enterprise))];
        let read = async {
            let mut conn = self.cache.conn().await?;
            let values: Vec<Option<u64>> = redis::cmd("MGET").arg(&keys).query_async(&mut *conn).await?;
            if let [Some(platform), Some(tenant)] = values[..] {
                return anyhow::Ok(Some(Stamp(platform, tenant)));
            }
            let mut pipe = redis::pipe();
            for (key, value) in keys.iter().zip(values) {
                if value.is_none() {
                    // Random, below 2^62: far from any number used before, and room to count.
                    pipe.cmd("SET").arg(key).arg(rand::random::<u64>() >> 2).arg("NX").ignore();
                }
            }
            pipe.query_async::<()>(&mut *conn).await?;
            anyhow::Ok(None)
        }
        .await;
        read.unwrap_or_else(|err| {
            tracing::warn!(error = %err, "redis unavailable; reads are not served from memory");
            None
        })
    }

    /// Moves the number of `enterprise` (none: the platform's, which every stamp holds).
    pub async fn bump(&self, enterprise: Option<Uuid>) {
        let key = self.key(enterprise);
        let moved = async {
            let mut conn = self.cache.conn().await?;
            // A missing number starts from a random one, as in `current`: never back to a number
            // a read may have been kept under before Redis lost it.
            redis::pipe()
                .cmd("SET")
                .arg(&key)
                .arg(rand::random::<u64>() >> 2)
                .arg("NX")
                .ignore()
                .incr(&key, 1)
                .ignore()
                .query_async::<()>(&mut *conn)
                .await?;
            anyhow::Ok(())
        }
        .await;
        if let Err(err) = moved {
            tracing::warn!(error = %err, "could not move a data generation; other instances may serve kept reads for up to a minute");
        }
    }
}

/// The number a request moves once it is done (see the module's notes): `None` for a read or a
/// write that changes nothing kept; else its caller's enterprise from the session token, or none
/// (the platform's) for anyone else.
pub fn moved_by(req: &Request, tokens: &TokenKeys) -> Option<Option<Uuid>> {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return None;
    }
    let path = req.uri().path().strip_prefix("/api/v1").unwrap_or("");
    if MOVES_NOTHING.iter().any(|p| path.starts_with(p)) {
        return None;
    }
    let enterprise = req
        .headers()
        .get(poem::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .and_then(|token| tokens.verify(token))
        .and_then(|claims| claims.ent);
    Some(enterprise)
}

/// Answers kept in this instance's memory: the JSON a reader was given, under the numbers it was
/// made under. Keyed by reader and resource, so whatever the reader's access allowed then is what
/// is served while nothing in the tenant has changed.
#[derive(Default)]
pub struct ReadCache(Mutex<HashMap<(Uuid, Uuid), Kept>>);

struct Kept {
    stamp: Stamp,
    made: Instant,
    body: bytes::Bytes,
}

impl ReadCache {
    pub fn get(&self, reader: Uuid, id: Uuid, stamp: Stamp) -> Option<bytes::Bytes> {
        let kept = self.0.lock().expect("read cache lock");
        kept.get(&(reader, id)).filter(|k| k.stamp == stamp && k.made.elapsed() < KEEP_FOR).map(|k| k.body.clone())
    }

    pub fn keep(&self, reader: Uuid, id: Uuid, stamp: Stamp, body: bytes::Bytes) {
        if body.len() > MAX_BODY {
            return;
        }
        let mut kept = self.0.lock().expect("read cache lock");
        if kept.len() >= MAX_KEPT {
            let mut ages: Vec<Instant> = kept.values().map(|k| k.made).collect();
            let (_, median, _) = ages.select_nth_unstable(MAX_KEPT / 2);
            let median = *median;
            kept.retain(|_, k| k.made > median);
        }
        kept.insert((reader, id), Kept { stamp, made: Instant::now(), body });
    }

    pub fn len(&self) -> usize {
        self.0.lock().expect("read cache lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_read_is_served_under_its_own_numbers_only_and_to_its_reader_only() {
        let cache = ReadCache::default();
        let (reader, other, report) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        cache.keep(reader, report, Stamp(1, 7), bytes::Bytes::from_static(b"{}"));
        assert_eq!(cache.get(reader, report, Stamp(1, 7)).as_deref(), Some(&b"{}"[..]));
        assert_eq!(cache.get(reader, report, Stamp(1, 8)), None, "the tenant changed");
        assert_eq!(cache.get(reader, report, Stamp(2, 7)), None, "the platform changed");
        assert_eq!(cache.get(other, report, Stamp(1, 7)), None, "another reader");
    }

    #[test]
    fn memory_stays_bounded() {
        let cache = ReadCache::default();
        for _ in 0..MAX_KEPT + 10 {
            cache.keep(Uuid::now_v7(), Uuid::now_v7(), Stamp(0, 0), bytes::Bytes::from_static(b"{}"));
        }
        assert!(cache.len() <= MAX_KEPT);
        cache.keep(Uuid::now_v7(), Uuid::now_v7(), Stamp(0, 0), bytes::Bytes::from(vec![b' '; MAX_BODY + 1]));
        assert!(cache.len() <= MAX_KEPT);
    }
}
