//! The dispatcher every instance runs: it turns outbox rows into deliveries (one statement that
//! deletes the rows it takes, `FOR UPDATE SKIP LOCKED`), takes due deliveries under a lease (so
//! two instances never send one at once, and one that dies mid-send leaves it to be sent again),
//! sends them signed, and schedules the retries of those that failed.

use std::{sync::Arc, time::Duration};

use chrono::Utc;
use rand::Rng as _;
use tokio::sync::Semaphore;

use super::guard;
use crate::{
    audit::{Audit, Changes, Target},
    config::EventsConfig,
    realtime::{Audience, Event, Hub},
    sealed::KeyRing,
    store::{
        self,
        webhooks::{DueDelivery, Outcome},
    },
};

/// Seconds to wait after each failed attempt (the Standard Webhooks recommendation): 5 s, 5 min,
/// 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 27.6 hours, each delay ±20 % at random
/// so that a recovering receiver is not hit by every retry at once.
pub const RETRY_SCHEDULE: &[u64] = &[5, 300, 1800, 7200, 18_000, 36_000, 36_000];

/// Deliveries that ended longer ago than this are deleted by the daily pass.
pub const DELIVERY_RETENTION_DAYS: u32 = 30;

/// A webhook whose deliveries have all failed for this long is turned off and its owner told.
pub const DISABLE_AFTER: Duration = Duration::from_secs(5 * 24 * 3600);

/// How long an instance holds a delivery it took (the 10 s request, and ample margin).
const LEASE_SECS: f64 = 60.0;
/// Outbox rows fanned out per statement.
const FAN_OUT_BATCH: i64 = 200;
/// Deliveries in flight at once on an instance.
const IN_FLIGHT: usize = 16;
/// Deliveries in flight at once to one webhook, across every instance: a receiver that hangs
/// holds this many of the slots, never the others' (its other deliveries wait their turn).
pub const PER_WEBHOOK_IN_FLIGHT: i64 = 2;
/// Attempts recorded at once: a burst of failures takes few of the pool's connections from
/// requests.
const RECORDING: usize = 2;
/// The most of a receiver's answer ever read.
const MAX_RESPONSE_BYTES: usize = 1024;

/// What the dispatcher touches: the outbox's database, the keys that open the webhooks' secrets,
/// the webhook settings, the extra trusted roots of its HTTPS client (`TRUSTED_CA_CERTS`), and
/// the hub that tells an enterprise a webhook was turned off.
#[derive(Clone)]
pub struct Dispatcher {
    pub db: sqlx::PgPool,
    pub keys: KeyRing,
    pub events: EventsConfig,
    pub trusted_roots: Vec<reqwest::Certificate>,
    pub hub: Hub,
}

/// Starts the dispatcher and the daily retention (audit entries past `AUDIT_RETENTION_DAYS`,
/// deliveries that ended more than 30 days ago); they run until the process ends.
pub fn spawn(state: Dispatcher) {
    if !state.events.dispatch {
        return;
    }
    let dispatcher = state.clone();
    crate::supervise::spawn("webhook_dispatcher", move || {
        let dispatcher = dispatcher.clone();
        async move {
            let client = guard::client(dispatcher.events.allow_private_networks, &dispatcher.trusted_roots);
            let slots = Arc::new(Semaphore::new(IN_FLIGHT));
            let recording = Arc::new(Semaphore::new(RECORDING));
            loop {
                match pass(&dispatcher, &client, &slots, &recording).await {
                    Ok(true) => {}
                    Ok(false) => tokio::time::sleep(dispatcher.events.outbox_poll).await,
                    Err(err) => {
                        tracing::warn!(error = %err, "webhook dispatch failed");
                        tokio::time::sleep(dispatcher.events.outbox_poll.max(Duration::from_secs(1))).await;
                    }
                }
            }
        }
    });
    let (db, retention_days) = (state.db, state.events.audit_retention_days);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(24 * 3600));
        loop {
            every.tick().await;
            match crate::audit::apply_retention(&db, retention_days).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "audit entries past retention deleted"),
                Err(err) => tracing::warn!(error = %err, "audit retention failed"),
            }
            match store::webhooks::prune_deliveries(&db, DELIVERY_RETENTION_DAYS).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "webhook deliveries past retention deleted"),
                Err(err) => tracing::warn!(error = %err, "webhook delivery retention failed"),
            }
        }
    });
}

/// One pass: fan out new events, and start sending what is due, as many as there are free
/// slots. Each delivery runs on its own and records its outcome when it ends: nothing waits for
/// the slowest of a batch. True when there was work (look again at once).
pub async fn pass(state: &Dispatcher, client: &reqwest::Client, slots: &Arc<Semaphore>, recording: &Arc<Semaphore>) -> anyhow::Result<bool> {
    // Every slot busy: wait for one (a delivery ends within its 10 s deadline).
    let first = slots.clone().acquire_owned().await?;
    let fanned = store::outbox::fan_out_webhooks(&state.db, FAN_OUT_BATCH).await?;
    let free = 1 + slots.available_permits();
    let due = store::webhooks::take_due(&state.db, &state.keys, i64::try_from(free).unwrap_or(1), LEASE_SECS, PER_WEBHOOK_IN_FLIGHT).await?;
    let busy = fanned > 0 || !due.is_empty();
    let mut first = Some(first);
    for d in due {
        let Some(permit) = first.take().or_else(|| slots.clone().try_acquire_owned().ok()) else { break };
        let (state, client, recording) = (state.clone(), client.clone(), recording.clone());
        tokio::spawn(async move {
            let outcome = attempt(&state, &client, &d).await;
            drop(permit);
            let _recording = recording.acquire_owned().await;
            if let Err(err) = settle(&state, &d, outcome).await {
                tracing::warn!(error = %err, delivery = %d.id, "could not record a webhook attempt; its lease will end");
            }
        });
    }
    Ok(busy)
}

/// What sending came to, before it is recorded.
enum Sent {
    Delivered(u16),
    Failed(Option<u16>, &'static str),
    /// Not sent and never will be (the webhook is off).
    Abandoned(&'static str),
}

async fn attempt(state: &Dispatcher, client: &reqwest::Client, d: &DueDelivery) -> Sent {
    if !d.enabled {
        return Sent::Abandoned("webhook_disabled");
    }
    let allow_private = state.events.allow_private_networks;
    let Ok(url) = url::Url::parse(&d.url) else { return Sent::Abandoned("invalid_url") };
    if !guard::literal_allowed(&url, allow_private) {
        return Sent::Failed(None, "private_address");
    }
    if !guard::port_allowed(&url, allow_private) {
        return Sent::Failed(None, "port_not_allowed");
    }
    let msg_id = super::message_id(d.id);
    let timestamp = Utc::now().timestamp();
    let mut secrets = vec![d.secret.as_str()];
    secrets.extend(d.previous_secret.as_deref());
    let Ok(signature) = super::signature(&secrets, &msg_id, timestamp, d.body.as_bytes()) else { return Sent::Abandoned("bad_secret") };
    let sent = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", &msg_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(d.body.clone())
        .send()
        .await;
    match sent {
        Ok(mut response) => {
            let status = response.status();
            // Read at most 1 KB of the answer, then drop the connection's rest.
            let mut read = 0;
            while read < MAX_RESPONSE_BYTES {
                match response.chunk().await {
                    Ok(Some(chunk)) => read += chunk.len(),
                    _ => break,
                }
            }
            if status.is_success() { Sent::Delivered(status.as_u16()) } else { Sent::Failed(Some(status.as_u16()), "http_status") }
        }
        Err(err) if err.is_timeout() => Sent::Failed(None, "timeout"),
        Err(err) if err.is_connect() => Sent::Failed(None, "connection_failed"),
        Err(_) => Sent::Failed(None, "request_failed"),
    }
}

/// When the next attempt after the `attempts`-th failed one is due, if any.
pub fn retry_delay(attempts: i32, scale: f64) -> Option<Duration> {
    let index = usize::try_from(attempts).ok()?.checked_sub(1)?;
    let base = *RETRY_SCHEDULE.get(index)? as f64 * scale;
    let jitter = rand::rng().random_range(0.8..1.2);
    Some(Duration::from_secs_f64(base * jitter))
}

async fn settle(state: &Dispatcher, d: &DueDelivery, sent: Sent) -> anyhow::Result<()> {
    let disable_after = DISABLE_AFTER.as_secs_f64() * state.events.retry_scale;
    let outcome = match sent {
        Sent::Delivered(status) => {
            metrics::histogram!("webhook_delivery_seconds").record((Utc::now() - d.created_at).as_seconds_f64());
            Outcome::Delivered { status: i32::from(status) }
        }
        Sent::Failed(status, error) => {
            let retry_at = retry_delay(d.attempts, state.events.retry_scale)
                .and_then(|delay| chrono::Duration::from_std(delay).ok())
                .map(|delay| Utc::now() + delay);
            Outcome::Failed { status: status.map(i32::from), error, retry_at }
        }
        Sent::Abandoned(error) => Outcome::Failed { status: None, error, retry_at: None },
    };
    metrics::counter!("webhook_attempts_total", "outcome" => if matches!(outcome, Outcome::Delivered { .. }) { "delivered" } else { "failed" })
        .increment(1);
    let turned_off = store::webhooks::record_attempt(&state.db, d, outcome, disable_after).await?;
    if turned_off {
        tracing::warn!(webhook = %d.webhook_id, "webhook turned off after failing for days");
        let mut conn = state.db.acquire().await?;
        let enterprise = store::webhooks::owner_of(&mut conn, d.webhook_id).await?;
        let target = Target::new("webhook", d.webhook_id, &d.url);
        Audit::system().record(&mut conn, enterprise, "webhook.disabled", Some(target), Changes::new()).await?;
        // Its owner is told at once in any open browser (and sees it on the Integrations screen).
        let audience = match enterprise {
            Some(enterprise) => Audience::Tenant { enterprise, users: Vec::new(), ceo: true },
            None => Audience::Admins,
        };
        state.hub.publish(audience, Event::WebhookDisabled { webhook_id: d.webhook_id, url: d.url.clone() }).await;
    }
    Ok(())
}
