//! Real time: one WebSocket per signed-in tab (`socket.rs`), and the hub that delivers events to
//! them on every instance.
//!
//! An event is raised once, anywhere in the server, with its audience (`Hub::publish`). It is
//! published on a Redis channel that every instance subscribes to, and each instance delivers it
//! to its own sockets whose caller belongs to the audience, never across tenants. When Redis is
//! unreachable the event is delivered on the raising instance only, and clients stay correct by
//! refetching when they reconnect. Events carry ids and small fields; clients refetch the rest.
//!
//! Each socket has a bounded queue: a client too slow to read it is disconnected (it reconnects
//! and refetches), so a slow client never makes the server's memory grow.
//!
//! What an instance publishes is signed (HMAC-SHA256 with a key derived from `JWT_SECRET`, which
//! every instance shares) and timestamped: an instance acts only on messages that carry a valid
//! signature made in the last minutes, so a process that can reach Redis but does not hold the
//! secret can neither push events to sockets nor close them.

pub mod live;
pub mod socket;
pub mod tasks;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use chrono::{DateTime, Utc};
use deadpool_redis::redis;
use futures_util::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

use crate::{cache::Cache, domain::Role};

/// Every event a socket can receive. Serialized as `{"type": "...", ...camelCase fields}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum Event {
    /// The session of this socket has ended; the socket is then closed with code 4401.
    #[serde(rename = "session.ended")]
    SessionEnded { session_id: Uuid, reason: String },
    /// A session started that the monitor may see.
    #[serde(rename = "monitoring.session_started")]
    MonitoringSessionStarted { session_id: Uuid, user_id: Uuid, enterprise_id: Option<Uuid> },
    /// A watched session was seen again (at most once a minute per session).
    #[serde(rename = "monitoring.session_updated")]
    MonitoringSessionUpdated { session_id: Uuid, enterprise_id: Option<Uuid>, last_seen_at: DateTime<Utc> },
    /// A watched session ended.
    #[serde(rename = "monitoring.session_ended")]
    MonitoringSessionEnded { session_id: Uuid, enterprise_id: Option<Uuid>, reason: String },
    /// Many watched sessions changed within one second (a mass expiry, a busy hour): how many
    /// started, were seen again and ended, instead of one event each (`MONITOR_DETAIL`). For a
    /// CEO, their enterprise's; for the admins, the whole platform's (`enterpriseId` null).
    #[serde(rename = "monitoring.sessions_changed")]
    MonitoringSessionsChanged { enterprise_id: Option<Uuid>, started: u32, updated: u32, ended: u32 },
    /// A report moved in its review; sent to its author, its department's head and the CEO.
    #[serde(rename = "report.status_changed")]
    ReportStatusChanged { report_id: Uuid, department_id: Uuid, title: String, from_status: Option<String>, status: String, actor_id: Uuid },
    /// A message was posted in a conversation of the listener (ids only: the client fetches it).
    #[serde(rename = "message.created")]
    MessageCreated { conversation_id: Uuid, message_id: Uuid, sender_id: Uuid },
    /// A member read a conversation up to this message.
    #[serde(rename = "message.read")]
    MessageRead { conversation_id: Uuid, user_id: Uuid, message_id: Uuid },
    /// A conversation's members, name, keys or (for this listener) archive flag changed.
    #[serde(rename = "conversation.changed")]
    ConversationChanged { conversation_id: Uuid },
    /// A member is typing (never stored; clients show it for a few seconds).
    #[serde(rename = "conversation.typing")]
    Typing { conversation_id: Uuid, user_id: Uuid },
    /// One of the listener's own sessions started or ended (their "Your sessions" list changed);
    /// sent to the person's sockets.
    #[serde(rename = "own_sessions.changed")]
    OwnSessionsChanged { user_id: Uuid },
    /// A webhook was turned off after its deliveries failed for days; sent to its owner (the
    /// enterprise's CEO, or the platform admins).
    #[serde(rename = "webhook.disabled")]
    WebhookDisabled { webhook_id: Uuid, url: String },
}

/// Who receives an event. Every audience but the admins' is inside one tenant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Audience {
    /// The sockets of one session.
    Session(Uuid),
    /// Monitors whose scope includes a session of `enterprise` (none: the platform realm):
    /// platform admins always, and that enterprise's CEO.
    Monitors { enterprise: Option<Uuid> },
    /// These users of `enterprise`, and its CEO when `ceo` is set.
    Tenant { enterprise: Uuid, users: Vec<Uuid>, ceo: bool },
    /// These users of one realm: an enterprise, or (none) the platform admins.
    Users { enterprise: Option<Uuid>, users: Vec<Uuid> },
    /// The platform admins (the monitors' summaries, `Hub::flush_monitors`).
    Admins,
    /// One enterprise's CEO (the monitors' summaries).
    Ceo { enterprise: Uuid },
}

#[derive(Debug, Serialize, Deserialize)]
struct Envelope {
    audience: Audience,
    event: Event,
}

/// The counts of monitors' events, as one `monitoring.sessions_changed`.
fn summary<'a>(enterprise_id: Option<Uuid>, events: impl Iterator<Item = &'a Event>) -> Event {
    let (mut started, mut updated, mut ended) = (0u32, 0u32, 0u32);
    for event in events {
        match event {
            Event::MonitoringSessionStarted { .. } => started += 1,
            Event::MonitoringSessionUpdated { .. } => updated += 1,
            Event::MonitoringSessionEnded { .. } => ended += 1,
            _ => {}
        }
    }
    Event::MonitoringSessionsChanged { enterprise_id, started, updated, ended }
}

/// Who is on the other end of a socket.
#[derive(Debug, Clone, Copy)]
pub struct Listener {
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub role: Role,
}

impl Audience {
    fn includes(&self, l: &Listener) -> bool {
        match self {
            Self::Session(id) => l.session_id == *id,
            Self::Monitors { enterprise } => {
                l.role == Role::PlatformAdmin || (l.role == Role::EnterpriseCeo && enterprise.is_some() && l.enterprise_id == *enterprise)
            }
            Self::Tenant { enterprise, users, ceo } => {
                l.enterprise_id == Some(*enterprise) && (users.contains(&l.user_id) || (*ceo && l.role == Role::EnterpriseCeo))
            }
            Self::Users { enterprise, users } => l.enterprise_id == *enterprise && users.contains(&l.user_id),
            Self::Admins => l.role == Role::PlatformAdmin,
            Self::Ceo { enterprise } => l.role == Role::EnterpriseCeo && l.enterprise_id == Some(*enterprise),
        }
    }
}

/// Why the server closes a socket.
pub mod close {
    /// The session is missing, bad or has ended.
    pub const SESSION_ENDED: u16 = 4401;
    /// The client did not keep up with its events; it reconnects and refetches.
    pub const TOO_SLOW: u16 = 4408;
    /// The server is going away (shutdown); reconnect to another instance.
    pub const GOING_AWAY: u16 = 1001;
    /// The session could not be checked (PostgreSQL did not answer): reconnect later.
    pub const TRY_AGAIN_LATER: u16 = 1013;
}

/// How many events may wait for one socket before it is dropped as too slow.
pub const QUEUE: usize = 256;

/// Monitors hear of their sessions once a second at most: up to this many as they are, more as
/// one `monitoring.sessions_changed` with the counts (the admins: of every enterprise together;
/// a CEO: of theirs).
pub const MONITOR_DETAIL: usize = 20;

struct Connection {
    listener: Listener,
    events: mpsc::Sender<Arc<str>>,
    close: watch::Sender<Option<u16>>,
}

/// One per instance: its sockets, and the Redis channel shared with the other instances.
#[derive(Clone)]
pub struct Hub(Arc<HubInner>);

struct HubInner {
    cache: Cache,
    /// Signs and checks what instances publish (`seal`, `open`).
    signing_key: Vec<u8>,
    redis_url: String,
    channel: String,
    next_id: AtomicU64,
    connections: Mutex<HashMap<u64, Connection>>,
    /// The monitors' events of the current second, per enterprise (`flush_monitors`).
    monitors: Mutex<HashMap<Option<Uuid>, Vec<Event>>>,
    /// The sessions known live here, kept true by the ends this hub hears (`live.rs`).
    live: live::LiveSessions,
}

/// A registered socket: its queue, its close signal, and its place in the hub until dropped.
pub struct Registration {
    hub: Hub,
    id: u64,
    pub events: mpsc::Receiver<Arc<str>>,
    pub close: watch::Receiver<Option<u16>>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.hub.0.connections.lock().expect("hub lock").remove(&self.id);
    }
}

impl Hub {
    /// `secret`: the deployment's shared secret (`JWT_SECRET`); the key that signs events is
    /// derived from it for this use only.
    pub fn new(cache: Cache, redis_url: &str, secret: &[u8]) -> Self {
        let channel = cache.key(&["realtime"]);
        Self(Arc::new(HubInner {
            signing_key: hmac_sha256(secret, b"enterprise-platform realtime events v1").to_vec(),
            cache,
            redis_url: redis_url.to_owned(),
            channel,
            next_id: AtomicU64::new(1),
            connections: Mutex::new(HashMap::new()),
            monitors: Mutex::new(HashMap::new()),
            live: live::LiveSessions::default(),
        }))
    }

    /// The sessions known live on this instance (`auth::sessions` asks it first).
    pub fn live(&self) -> &live::LiveSessions {
        &self.0.live
    }

    pub fn register(&self, listener: Listener) -> Registration {
        let (events_tx, events) = mpsc::channel(QUEUE);
        let (close_tx, close) = watch::channel(None);
        let id = self.0.next_id.fetch_add(1, Ordering::Relaxed);
        self.0.connections.lock().expect("hub lock").insert(id, Connection { listener, events: events_tx, close: close_tx });
        Registration { hub: self.clone(), id, events, close }
    }

    /// Open sockets on this instance.
    pub fn connections(&self) -> usize {
        self.0.connections.lock().expect("hub lock").len()
    }

    /// Raises an event: through Redis to every instance, or on this one alone without Redis.
    pub async fn publish(&self, audience: Audience, event: Event) {
        self.publish_all(vec![Envelope { audience, event }]).await;
    }

    /// Raises many events in one message (a sweep that ends thousands of sessions sends one
    /// PUBLISH, not thousands, so the channel never queues other instances' events behind them).
    pub async fn publish_many(&self, events: impl IntoIterator<Item = (Audience, Event)>) {
        self.publish_all(events.into_iter().map(|(audience, event)| Envelope { audience, event }).collect()).await;
    }

    async fn publish_all(&self, envelopes: Vec<Envelope>) {
        // The monitors' events wait for the next second's summary; the rest go now.
        let (watched, envelopes): (Vec<Envelope>, Vec<Envelope>) =
            envelopes.into_iter().partition(|e| matches!(e.audience, Audience::Monitors { .. }));
        if !watched.is_empty() {
            let mut monitors = self.0.monitors.lock().expect("monitors lock");
            for Envelope { audience, event } in watched {
                if let Audience::Monitors { enterprise } = audience {
                    monitors.entry(enterprise).or_default().push(event);
                }
            }
        }
        self.send(envelopes).await;
    }

    /// Sends the monitors' events gathered since the last call. Up to `MONITOR_DETAIL` in all go
    /// as they are, to the admins and each enterprise's CEO. More: the admins get one summary of
    /// them all, and each CEO their enterprise's events as they are, or past `MONITOR_DETAIL` one
    /// summary. So a socket hears of a mass expiry in one message, whoever watches. Run every
    /// second (`realtime::tasks`) and at shutdown.
    pub async fn flush_monitors(&self) {
        let gathered = std::mem::take(&mut *self.0.monitors.lock().expect("monitors lock"));
        let total: usize = gathered.values().map(Vec::len).sum();
        let mut envelopes = Vec::new();
        if total <= MONITOR_DETAIL {
            for (enterprise, events) in gathered {
                envelopes.extend(events.into_iter().map(|event| Envelope { audience: Audience::Monitors { enterprise }, event }));
            }
        } else {
            envelopes.push(Envelope { audience: Audience::Admins, event: summary(None, gathered.values().flatten()) });
            for (enterprise, events) in gathered {
                let Some(id) = enterprise else { continue };
                let audience = Audience::Ceo { enterprise: id };
                if events.len() <= MONITOR_DETAIL {
                    envelopes.extend(events.into_iter().map(|event| Envelope { audience: audience.clone(), event }));
                } else {
                    envelopes.push(Envelope { audience, event: summary(enterprise, events.iter()) });
                }
            }
        }
        self.send(envelopes).await;
    }

    async fn send(&self, envelopes: Vec<Envelope>) {
        if envelopes.is_empty() {
            return;
        }
        // Ended sessions are forgotten here before anyone is told, and the sender waits until
        // every instance has heard (the barrier below).
        let ended = ended_sessions(&envelopes);
        if !ended.is_empty() {
            self.0.live.ended(ended.iter().copied());
        }
        let json = serde_json::to_string(&envelopes).expect("events serialize");
        let sealed = seal(&self.0.signing_key, Utc::now().timestamp(), &json);
        let published = async {
            let mut conn = self.0.cache.conn().await?;
            let receivers = redis::cmd("PUBLISH").arg(&self.0.channel).arg(&sealed).query_async::<u64>(&mut *conn).await?;
            anyhow::Ok(receivers)
        }
        .await;
        match published {
            Ok(receivers) if !ended.is_empty() => self.barrier(&sealed, receivers).await,
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(error = %err, "redis unavailable; events delivered on this instance only");
                for envelope in &envelopes {
                    self.deliver(envelope);
                }
            }
        }
    }

    /// Waits (up to `BARRIER_WAIT`) until each of the `receivers` of a message that ended
    /// sessions has said it heard it (`heard`): every instance has then forgotten those sessions
    /// (or, one that was too slow to say so, stopped trusting what it knows), so the caller's
    /// answer ("signed out", "deactivated") is true on all of them.
    async fn barrier(&self, sealed: &str, receivers: u64) {
        let key = self.heard_key(sealed);
        let deadline = tokio::time::Instant::now() + BARRIER_WAIT;
        let mut heard = 0;
        while heard < receivers {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                tracing::warn!(heard, receivers, "realtime: not every instance confirmed a session's end in time");
                return;
            }
            // Redis's client gives up on an answer after 500 ms: each wait is shorter.
            let wait = left.min(std::time::Duration::from_millis(300)).as_secs_f64();
            let popped = async {
                let mut conn = self.0.cache.conn().await?;
                let popped: Option<(String, String)> = redis::cmd("BLPOP").arg(&key).arg(wait).query_async(&mut *conn).await?;
                anyhow::Ok(popped)
            }
            .await;
            match popped {
                Ok(Some(_)) => heard += 1,
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "realtime: could not wait for the instances to hear a session's end");
                    return;
                }
            }
        }
    }

    /// Says that this instance heard a message that ended sessions (see `barrier`).
    fn heard(&self, sealed: &str) {
        let (cache, key) = (self.0.cache.clone(), self.heard_key(sealed));
        tokio::spawn(async move {
            let said = async {
                let mut conn = cache.conn().await?;
                redis::pipe().rpush(&key, 1).ignore().expire(&key, 60).ignore().query_async::<()>(&mut *conn).await?;
                anyhow::Ok(())
            }
            .await;
            if let Err(err) = said {
                tracing::warn!(error = %err, "realtime: could not confirm a session's end");
            }
        });
    }

    /// A message is named by its signature (the first 32 hex digits of its HMAC).
    fn heard_key(&self, sealed: &str) -> String {
        self.0.cache.key(&["heard", sealed.get(..32).unwrap_or(sealed)])
    }

    /// Tells this instance's sockets in the audience; ends the session's sockets on
    /// `session.ended`.
    fn deliver(&self, envelope: &Envelope) {
        let json: Arc<str> = serde_json::to_string(&envelope.event).expect("events serialize").into();
        let ends_session = matches!(envelope.event, Event::SessionEnded { .. });
        let mut connections = self.0.connections.lock().expect("hub lock");
        connections.retain(|_, conn| {
            if !envelope.audience.includes(&conn.listener) {
                return true;
            }
            let delivered = conn.events.try_send(json.clone()).is_ok();
            if ends_session {
                conn.close.send_replace(Some(close::SESSION_ENDED));
            } else if !delivered {
                conn.close.send_replace(Some(close::TOO_SLOW));
                crate::metrics::websocket_dropped();
                tracing::warn!(session_id = %conn.listener.session_id, "socket too slow for its events; closing it");
            }
            delivered || ends_session
        });
    }

    /// Closes every socket (shutdown): clients reconnect elsewhere.
    pub fn close_all(&self, code: u16) {
        for conn in self.0.connections.lock().expect("hub lock").values() {
            conn.close.send_replace(Some(code));
        }
    }

    /// Receives the other instances' events (and its own) until the process ends, reconnecting
    /// to Redis with backoff.
    pub async fn subscribe_forever(self) {
        let mut backoff = std::time::Duration::from_millis(250);
        loop {
            match self.subscribe_once().await {
                Ok(()) => backoff = std::time::Duration::from_millis(250),
                Err(err) => tracing::warn!(error = %err, "realtime: redis subscription lost; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(std::time::Duration::from_secs(5));
        }
    }

    async fn subscribe_once(&self) -> anyhow::Result<()> {
        /// Trust in the sessions known live lasts while the subscription is heard; it is lost
        /// however this function returns.
        struct Deaf<'a>(&'a live::LiveSessions);
        impl Drop for Deaf<'_> {
            fn drop(&mut self) {
                self.0.deaf();
            }
        }
        let client = redis::Client::open(self.0.redis_url.as_str())?;
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(&self.0.channel).await?;
        let (mut sink, mut messages) = pubsub.split();
        let _deaf = Deaf(&self.0.live);
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                message = messages.next() => {
                    let Some(message) = message else { return Ok(()) };
                    self.receive(&message)?;
                }
                _ = ping.tick() => {
                    // A subscription can die without an error (a half-open connection): one that
                    // does not answer is dropped and made again. Redis answers a PING after every
                    // message it published before the PING reached it, and the connection's reader
                    // queues those messages before it hands the answer over: once the queue is
                    // handled, everything published before `sent` has been heard.
                    let sent = std::time::Instant::now();
                    match tokio::time::timeout(live::FRESH, sink.ping::<redis::Value>()).await {
                        Ok(Ok(_)) => {
                            while let Some(message) = messages.next().now_or_never() {
                                let Some(message) = message else { return Ok(()) };
                                self.receive(&message)?;
                            }
                            self.0.live.heard(sent);
                        }
                        Ok(Err(err)) => return Err(err.into()),
                        Err(_) => anyhow::bail!("no answer to a PING in {:?}", live::FRESH),
                    }
                }
            }
        }
    }

    /// One message from the events channel: sessions it ends are forgotten here (and that is
    /// confirmed to their ender), then its events reach this instance's sockets.
    fn receive(&self, message: &redis::Msg) -> anyhow::Result<()> {
        let payload: String = message.get_payload()?;
        let Some(json) = open(&self.0.signing_key, Utc::now().timestamp(), &payload) else {
            tracing::warn!("realtime: a message without a valid signature was ignored");
            return Ok(());
        };
        match serde_json::from_str::<Vec<Envelope>>(json) {
            Ok(envelopes) => {
                let ended = ended_sessions(&envelopes);
                if !ended.is_empty() {
                    self.0.live.ended(ended);
                    self.heard(&payload);
                }
                envelopes.iter().for_each(|envelope| self.deliver(envelope));
            }
            Err(err) => tracing::warn!(error = %err, "realtime: unreadable event"),
        }
        Ok(())
    }
}

/// The sessions a message ends.
fn ended_sessions(envelopes: &[Envelope]) -> Vec<Uuid> {
    envelopes
        .iter()
        .filter_map(|e| match e.event {
            Event::SessionEnded { session_id, .. } => Some(session_id),
            _ => None,
        })
        .collect()
}

/// How often the subscription is checked with a PING (`live::FRESH` is longer).
const PING_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// How long the instance that ends sessions waits for every instance to confirm it heard: past
/// `live::FRESH` after the end was published, an instance that has not heard it does not trust
/// what it knows any more (its last answered PING was sent before the end), so the end holds on
/// every instance either way.
const BARRIER_WAIT: std::time::Duration = live::FRESH.saturating_add(std::time::Duration::from_millis(100));

/// How old (or how far ahead, between clocks) a published message may be.
const MAX_MESSAGE_AGE_SECS: i64 = 300;

fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    use hmac::Mac;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// `<signature, hex>.<unix seconds>.<json>`, the signature over `<unix seconds>.<json>`.
fn seal(key: &[u8], now: i64, json: &str) -> String {
    let signed = format!("{now}.{json}");
    let mut out = String::with_capacity(65 + signed.len());
    for byte in hmac_sha256(key, signed.as_bytes()) {
        out.push_str(&format!("{byte:02x}"));
    }
    out.push('.');
    out.push_str(&signed);
    out
}

/// The JSON of a sealed message whose signature is valid and whose time is within
/// `MAX_MESSAGE_AGE_SECS` of `now`.
fn open<'a>(key: &[u8], now: i64, sealed: &'a str) -> Option<&'a str> {
    use hmac::Mac;
    let (signature, signed) = sealed.split_once('.')?;
    let (at, json) = signed.split_once('.')?;
    if signature.len() != 64 || (now - at.parse::<i64>().ok()?).abs() > MAX_MESSAGE_AGE_SECS {
        return None;
    }
    let signature: Vec<u8> = (0..32).map(|i| u8::from_str_radix(signature.get(2 * i..2 * i + 2)?, 16).ok()).collect::<Option<_>>()?;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    // Compared in constant time.
    mac.verify_slice(&signature).ok()?;
    Some(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_recent_messages_signed_with_the_key_are_opened() {
        let key = hmac_sha256(b"a deployment secret", b"realtime");
        let sealed = seal(&key, 1_000_000, r#"[{"a":1}]"#);
        assert_eq!(open(&key, 1_000_010, &sealed), Some(r#"[{"a":1}]"#));
        assert_eq!(open(&hmac_sha256(b"another secret", b"realtime"), 1_000_010, &sealed), None, "another key");
        assert_eq!(open(&key, 1_000_000 + MAX_MESSAGE_AGE_SECS + 1, &sealed), None, "too old: a replay");
        let tampered = sealed.replace(r#""a":1"#, r#""a":2"#);
        assert_eq!(open(&key, 1_000_010, &tampered), None, "changed after signing");
        assert_eq!(open(&key, 1_000_010, r#"[{"a":1}]"#), None, "unsigned");
        assert_eq!(open(&key, 1_000_010, "zz.1.x"), None);
    }

    fn listener(role: Role, enterprise: Option<Uuid>) -> Listener {
        Listener { session_id: Uuid::now_v7(), user_id: Uuid::now_v7(), enterprise_id: enterprise, role }
    }

    #[test]
    fn events_are_json_with_a_type_and_camel_case_ids() {
        let id = Uuid::nil();
        let json = serde_json::to_value(Event::SessionEnded { session_id: id, reason: "logout".into() }).unwrap();
        assert_eq!(json, serde_json::json!({ "type": "session.ended", "sessionId": id, "reason": "logout" }));
    }

    #[test]
    fn audiences_never_cross_tenants() {
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let admin = listener(Role::PlatformAdmin, None);
        let ceo_a = listener(Role::EnterpriseCeo, Some(a));
        let ceo_b = listener(Role::EnterpriseCeo, Some(b));
        let staff_a = listener(Role::DepartmentUser, Some(a));
        let monitors_a = Audience::Monitors { enterprise: Some(a) };
        assert!(monitors_a.includes(&admin) && monitors_a.includes(&ceo_a));
        assert!(!monitors_a.includes(&ceo_b) && !monitors_a.includes(&staff_a));
        assert!(!Audience::Monitors { enterprise: None }.includes(&ceo_a), "the platform realm is the admins' alone");
        let report = Audience::Tenant { enterprise: a, users: vec![staff_a.user_id], ceo: true };
        assert!(report.includes(&staff_a) && report.includes(&ceo_a));
        assert!(!report.includes(&ceo_b) && !report.includes(&admin));
        // A user id of another tenant in the list does not reach across.
        let mixed = Audience::Tenant { enterprise: b, users: vec![staff_a.user_id], ceo: false };
        assert!(!mixed.includes(&staff_a));
    }

    #[tokio::test]
    async fn a_socket_that_does_not_read_is_closed_not_buffered_forever() {
        let cache = Cache::new("redis://127.0.0.1:1", "t:").unwrap();
        let hub = Hub::new(cache, "redis://127.0.0.1:1", b"secret");
        let me = listener(Role::PlatformAdmin, None);
        let registration = hub.register(me);
        let envelope = Envelope {
            audience: Audience::Session(me.session_id),
            event: Event::MonitoringSessionStarted { session_id: me.session_id, user_id: me.user_id, enterprise_id: None },
        };
        for _ in 0..QUEUE {
            hub.deliver(&envelope);
        }
        assert_eq!(*registration.close.borrow(), None);
        hub.deliver(&envelope);
        assert_eq!(*registration.close.borrow(), Some(close::TOO_SLOW));
        assert_eq!(hub.connections(), 0, "dropped from the hub");
    }
}
