//! The outbox (`public.outbox`): what a committed change asks to be sent, written in the change's
//! own transaction, so no acknowledged change loses its event even when the process dies right
//! after the commit. The dispatcher (`webhooks::dispatcher`) turns rows into deliveries.

use chrono::{SecondsFormat, Utc};
use serde_json::{Value, json};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Records `event_type` with `data` for the webhooks of `enterprise` (and the platform's), as the
/// body every delivery will carry: `{ type, timestamp, data }`.
pub async fn webhook_event(tx: &mut PgConnection, enterprise: Option<Uuid>, event_type: &str, data: Value) -> sqlx::Result<()> {
    let body = json!({
        "type": event_type,
        "timestamp": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        "data": data,
    });
    sqlx::query("insert into public.outbox (kind, enterprise_id, event_type, payload) values ('webhook', $1, $2, $3)")
        .bind(enterprise)
        .bind(event_type)
        .bind(body)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Takes up to `limit` webhook events (rows another instance holds are skipped) and, in the same
/// statement, writes one delivery per enabled webhook that listens to each: the enterprise's own
/// and the platform-wide ones. Returns how many events it took; a crash before the commit leaves
/// them in the outbox for the next pass.
pub async fn fan_out_webhooks(pool: &PgPool, limit: i64) -> sqlx::Result<u64> {
    let (taken,): (i64,) = sqlx::query_as(
        "with taken as (
             delete from public.outbox
             where id in (select id from public.outbox where kind = 'webhook' order by id limit $1 for update skip locked)
             returning id, enterprise_id, event_type, payload, created_at
         ), made as (
             insert into public.webhook_deliveries (id, webhook_id, event_type, body, next_attempt_at)
             select gen_random_uuid(), w.id, t.event_type, t.payload::text, now()
             from taken t
             join public.webhooks w
               on (w.enterprise_id = t.enterprise_id or w.enterprise_id is null)
              and w.enabled and t.event_type = any (w.events)
              -- A webhook hears what happened after it was made, not a backlog from before.
              and w.created_at <= t.created_at
              -- An enterprise whose deletion is scheduled is heard by no webhook of its own.
              and not w.suspended
             order by t.id
             returning 1
         )
         select count(*) from taken",
    )
    .bind(limit)
    .fetch_one(pool)
    .await?;
    Ok(u64::try_from(taken).unwrap_or(0))
}

/// Records an e-mail of `kind` for `recipient`, to be sent after `delay` (a notification waits
/// for others to the same person, to go out as one digest).
pub async fn email(
    tx: &mut PgConnection,
    enterprise: Option<Uuid>,
    recipient: Uuid,
    kind: &str,
    data: Value,
    delay: std::time::Duration,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into public.outbox (kind, enterprise_id, event_type, payload, recipient_id, next_attempt_at) \
         values ('email', $1, $2, $3, $4, now() + make_interval(secs => $5))",
    )
    .bind(enterprise)
    .bind(kind)
    .bind(data)
    .bind(recipient)
    .bind(delay.as_secs_f64())
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// An e-mail row taken for sending.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PendingEmail {
    pub id: i64,
    pub enterprise_id: Option<Uuid>,
    pub recipient_id: Option<Uuid>,
    pub event_type: String,
    pub payload: Value,
    pub attempts: i32,
}

/// Takes up to `limit` due e-mails under a lease of `lease_secs` (rows another instance holds
/// are skipped) and, for each person with a due activity item, every other item waiting for them:
/// they go out together, as one digest.
pub async fn take_due_emails(pool: &PgPool, limit: i64, lease_secs: f64) -> sqlx::Result<Vec<PendingEmail>> {
    sqlx::query_as(
        "with due as (
             select id, recipient_id, event_type from public.outbox
             where kind = 'email' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
             order by next_attempt_at, id limit $1 for update skip locked
         ), companions as (
             select o.id from public.outbox o
             where o.kind = 'email' and o.event_type = 'activity'
               and o.recipient_id in (select recipient_id from due where event_type = 'activity')
               and (o.lease_until is null or o.lease_until < now())
             for update skip locked
         )
         update public.outbox set lease_until = now() + make_interval(secs => $2)
         where id in (select id from due union select id from companions)
         returning id, enterprise_id, recipient_id, event_type, payload, attempts",
    )
    .bind(limit)
    .bind(lease_secs)
    .fetch_all(pool)
    .await
}

/// The messages were sent, or will never be: they leave the outbox.
pub async fn emails_done(pool: &PgPool, ids: &[i64]) -> sqlx::Result<()> {
    sqlx::query("delete from public.outbox where id = any($1)").bind(ids).execute(pool).await.map(drop)
}

/// Sending failed for now: try again after `retry_in`.
pub async fn emails_retry(pool: &PgPool, ids: &[i64], retry_in: std::time::Duration, error: &str) -> sqlx::Result<()> {
    sqlx::query(
        "update public.outbox set attempts = attempts + 1, lease_until = null, last_error = $3, \
         next_attempt_at = now() + make_interval(secs => $2) where id = any($1)",
    )
    .bind(ids)
    .bind(retry_in.as_secs_f64())
    .bind(error)
    .execute(pool)
    .await
    .map(drop)
}
