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
