//! Webhooks (`public.webhooks`) and their deliveries (`public.webhook_deliveries`). A webhook
//! belongs to an enterprise (its CEO manages it) or, with no enterprise, to the platform (the
//! admin's, hearing every enterprise).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::Paging;
use crate::sealed::{KeyRing, Sealed, WEBHOOK_PREVIOUS_SECRET, WEBHOOK_SECRET};

/// The most webhooks one enterprise (or the platform) may have.
pub const MAX_WEBHOOKS: i64 = 20;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct WebhookRecord {
    pub id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub url: String,
    pub events: Vec<String>,
    pub description: String,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub failing_since: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, enterprise_id, url, events, description, enabled, disabled_reason, failing_since, created_at, updated_at";

/// Whose webhooks: an enterprise's, or the platform's (`None`).
pub type Owner = Option<Uuid>;

pub struct NewWebhook<'a> {
    pub id: Uuid,
    pub owner: Owner,
    pub url: &'a str,
    pub events: &'a [String],
    pub description: &'a str,
    pub secret: &'a str,
    pub created_by: Uuid,
}

/// Stores a webhook unless its owner already has `MAX_WEBHOOKS` (`None`); its secret sealed.
pub async fn create(tx: &mut PgConnection, keys: &KeyRing, w: NewWebhook<'_>) -> sqlx::Result<Option<WebhookRecord>> {
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text, 25))").bind(w.owner.unwrap_or_default()).execute(&mut *tx).await?;
    let count: i64 = sqlx::query_scalar("select count(*) from public.webhooks where enterprise_id is not distinct from $1")
        .bind(w.owner)
        .fetch_one(&mut *tx)
        .await?;
    if count >= MAX_WEBHOOKS {
        return Ok(None);
    }
    let record = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "insert into public.webhooks (id, enterprise_id, url, events, description, secret, created_by)
         values ($1, $2, $3, $4, $5, $6, $7) returning {COLUMNS}"
    )))
    .bind(w.id)
    .bind(w.owner)
    .bind(w.url)
    .bind(w.events)
    .bind(w.description)
    .bind(keys.seal_for(WEBHOOK_SECRET, w.id, w.secret))
    .bind(w.created_by)
    .fetch_one(&mut *tx)
    .await?;
    Ok(Some(record))
}

pub async fn list(pool: &PgPool, owner: Owner, paging: Paging) -> sqlx::Result<(Vec<WebhookRecord>, i64)> {
    let items = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from public.webhooks where enterprise_id is not distinct from $1 order by created_at desc, id limit $2 offset $3"
    )))
    .bind(owner)
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(pool)
    .await?;
    let total =
        sqlx::query_scalar("select count(*) from public.webhooks where enterprise_id is not distinct from $1").bind(owner).fetch_one(pool).await?;
    Ok((items, total))
}

/// The webhook `id` if `owner` owns it.
pub async fn find(db: impl sqlx::PgExecutor<'_>, owner: Owner, id: Uuid) -> sqlx::Result<Option<WebhookRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {COLUMNS} from public.webhooks where id = $1 and enterprise_id is not distinct from $2")))
        .bind(id)
        .bind(owner)
        .fetch_optional(db)
        .await
}

pub struct WebhookChanges<'a> {
    pub url: Option<&'a str>,
    pub events: Option<&'a [String]>,
    pub description: Option<&'a str>,
    /// Turning a webhook back on clears why it was off and how long it had failed.
    pub enabled: Option<bool>,
}

pub async fn update(tx: &mut PgConnection, owner: Owner, id: Uuid, c: &WebhookChanges<'_>) -> sqlx::Result<Option<WebhookRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "update public.webhooks set
             url = coalesce($3, url),
             events = coalesce($4, events),
             description = coalesce($5, description),
             enabled = coalesce($6, enabled),
             disabled_reason = case when $6 then null when $6 = false then 'manual' else disabled_reason end,
             failing_since = case when $6 then null else failing_since end,
             updated_at = now()
         where id = $1 and enterprise_id is not distinct from $2
         returning {COLUMNS}"
    )))
    .bind(id)
    .bind(owner)
    .bind(c.url)
    .bind(c.events)
    .bind(c.description)
    .bind(c.enabled)
    .fetch_optional(&mut *tx)
    .await
}

/// Replaces the signing secret; the previous one keeps signing until `previous_until` (opened
/// and sealed again as the previous secret: a sealed value opens only in its own column).
pub async fn rotate_secret(
    tx: &mut PgConnection,
    keys: &KeyRing,
    owner: Owner,
    id: Uuid,
    secret: &str,
    previous_until: DateTime<Utc>,
) -> sqlx::Result<Option<WebhookRecord>> {
    let current: Option<Sealed> =
        sqlx::query_scalar("select secret from public.webhooks where id = $1 and enterprise_id is not distinct from $2 for update")
            .bind(id)
            .bind(owner)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(current) = current else { return Ok(None) };
    let previous = keys.open_for(WEBHOOK_SECRET, id, &current)?;
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "update public.webhooks set previous_secret = $5, previous_secret_expires_at = $4, secret = $3, updated_at = now()
         where id = $1 and enterprise_id is not distinct from $2 returning {COLUMNS}"
    )))
    .bind(id)
    .bind(owner)
    .bind(keys.seal_for(WEBHOOK_SECRET, id, secret))
    .bind(previous_until)
    .bind(keys.seal_for(WEBHOOK_PREVIOUS_SECRET, id, &previous))
    .fetch_optional(&mut *tx)
    .await
}

pub async fn delete(tx: &mut PgConnection, owner: Owner, id: Uuid) -> sqlx::Result<Option<WebhookRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "delete from public.webhooks where id = $1 and enterprise_id is not distinct from $2 returning {COLUMNS}"
    )))
    .bind(id)
    .bind(owner)
    .fetch_optional(&mut *tx)
    .await
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DeliveryRecord {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_type: String,
    pub status: String,
    pub attempts: i32,
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

const DELIVERY_COLUMNS: &str = "id, webhook_id, event_type, status, attempts, last_status, last_error, next_attempt_at, delivered_at, created_at";

pub async fn deliveries(pool: &PgPool, webhook: Uuid, paging: Paging) -> sqlx::Result<(Vec<DeliveryRecord>, i64)> {
    let items = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {DELIVERY_COLUMNS} from public.webhook_deliveries where webhook_id = $1 order by created_at desc, id desc limit $2 offset $3"
    )))
    .bind(webhook)
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(pool)
    .await?;
    let total = sqlx::query_scalar("select count(*) from public.webhook_deliveries where webhook_id = $1").bind(webhook).fetch_one(pool).await?;
    Ok((items, total))
}

/// A new delivery of `body` to one webhook, due now (the test event).
pub async fn insert_delivery(tx: &mut PgConnection, webhook: Uuid, event_type: &str, body: &str) -> sqlx::Result<DeliveryRecord> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "insert into public.webhook_deliveries (id, webhook_id, event_type, body, next_attempt_at)
         values ($1, $2, $3, $4, now()) returning {DELIVERY_COLUMNS}"
    )))
    .bind(Uuid::now_v7())
    .bind(webhook)
    .bind(event_type)
    .bind(body)
    .fetch_one(&mut *tx)
    .await
}

/// Test events queued to a webhook in the last minute.
pub async fn recent_tests(tx: &mut PgConnection, webhook: Uuid, event_type: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from public.webhook_deliveries where webhook_id = $1 and event_type = $2 and created_at > now() - interval '1 minute'",
    )
    .bind(webhook)
    .bind(event_type)
    .fetch_one(&mut *tx)
    .await
}

/// What asking for a delivery again came to.
pub enum Redelivery {
    Queued(DeliveryRecord),
    /// An instance is sending it right now (its lease holds): its answer would overwrite ours.
    InFlight,
    Missing,
}

/// Sends a delivery again, now, with a fresh round of retries (same message id, same body),
/// unless an instance is sending it at this moment.
pub async fn redeliver(tx: &mut PgConnection, webhook: Uuid, delivery: Uuid) -> sqlx::Result<Redelivery> {
    let leased: Option<bool> =
        sqlx::query_scalar("select coalesce(lease_until > now(), false) from public.webhook_deliveries where id = $1 and webhook_id = $2 for update")
            .bind(delivery)
            .bind(webhook)
            .fetch_optional(&mut *tx)
            .await?;
    match leased {
        None => return Ok(Redelivery::Missing),
        Some(true) => return Ok(Redelivery::InFlight),
        Some(false) => {}
    }
    let record = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "update public.webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = now(), lease_until = null
         where id = $1 returning {DELIVERY_COLUMNS}"
    )))
    .bind(delivery)
    .fetch_one(&mut *tx)
    .await?;
    Ok(Redelivery::Queued(record))
}

/// A delivery taken for one attempt, with what it takes to send it.
#[derive(Clone)]
pub struct DueDelivery {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub body: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub url: String,
    /// Opened (`take_due`); the database holds both sealed.
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
    pub enabled: bool,
}

/// A due delivery as read, its secrets sealed.
#[derive(sqlx::FromRow)]
struct SealedDelivery {
    id: Uuid,
    webhook_id: Uuid,
    body: String,
    attempts: i32,
    created_at: DateTime<Utc>,
    url: String,
    secret: Sealed,
    previous_secret: Option<Sealed>,
    previous_secret_expires_at: Option<DateTime<Utc>>,
    enabled: bool,
}

/// Takes up to `limit` due deliveries for `lease_secs`: until then no other instance takes them
/// (each row is taken by one statement, rows others are taking are skipped). A process that dies
/// holding one leaves it to be taken again when the lease ends: at least once, never lost. No
/// webhook gets more than `per_webhook` deliveries in flight (leased) across every instance, so
/// one receiver that hangs never takes every slot.
pub async fn take_due(pool: &PgPool, keys: &KeyRing, limit: i64, lease_secs: f64, per_webhook: i64) -> sqlx::Result<Vec<DueDelivery>> {
    let due: Vec<SealedDelivery> = sqlx::query_as(
        "with in_flight as (
             select webhook_id, count(*) as n from public.webhook_deliveries
             where status = 'pending' and lease_until >= now() group by webhook_id
         ), ranked as (
             select id, next_attempt_at, webhook_id, row_number() over (partition by webhook_id order by next_attempt_at, id) as turn
             from public.webhook_deliveries
             where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
         ), due as (
             select d.id from public.webhook_deliveries d
             join ranked r on r.id = d.id
             -- Paused while the webhook's enterprise is scheduled for deletion; a restore resumes them.
             join public.webhooks w on w.id = d.webhook_id and not w.suspended
             left join in_flight f on f.webhook_id = r.webhook_id
             where r.turn <= $3 - coalesce(f.n, 0)
               -- Checked again on the row itself: a row another instance leased and committed
               -- after this statement's snapshot is locked here afterwards, and PostgreSQL
               -- re-evaluates only the locked row's own conditions, never the CTE's.
               and d.status = 'pending' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
             order by r.next_attempt_at limit $1 for update of d skip locked
         )
         update public.webhook_deliveries d
         set lease_until = now() + make_interval(secs => $2), attempts = d.attempts + 1
         from due, public.webhooks w
         where d.id = due.id and w.id = d.webhook_id
         returning d.id, d.webhook_id, d.body, d.attempts, d.created_at, w.url, w.secret, w.previous_secret,
                   w.previous_secret_expires_at, w.enabled",
    )
    .bind(limit)
    .bind(lease_secs)
    .bind(per_webhook)
    .fetch_all(pool)
    .await?;
    // A previous secret signs until it expires (decided here: Citus refuses `now()` in a
    // RETURNING clause).
    let now = Utc::now();
    due.into_iter()
        .map(|d| {
            let previous = match d.previous_secret.filter(|_| d.previous_secret_expires_at.is_some_and(|at| at > now)) {
                Some(sealed) => Some(keys.open_for(WEBHOOK_PREVIOUS_SECRET, d.webhook_id, &sealed)?),
                None => None,
            };
            Ok::<_, sqlx::Error>(DueDelivery {
                id: d.id,
                webhook_id: d.webhook_id,
                body: d.body,
                attempts: d.attempts,
                created_at: d.created_at,
                url: d.url,
                secret: keys.open_for(WEBHOOK_SECRET, d.webhook_id, &d.secret)?,
                previous_secret: previous,
                previous_secret_expires_at: d.previous_secret_expires_at,
                enabled: d.enabled,
            })
        })
        .collect()
}

/// What one attempt came to.
pub enum Outcome<'a> {
    Delivered {
        status: i32,
    },
    /// Try again at `retry_at`, or never (`None`: give up).
    Failed {
        status: Option<i32>,
        error: &'a str,
        retry_at: Option<DateTime<Utc>>,
    },
}

/// Records an attempt. A success clears the webhook's failing streak; a failure starts one, and a
/// webhook failing for longer than `disable_after_secs` is turned off (`failing`), its pending
/// deliveries given up. Returns true when this attempt turned the webhook off.
pub async fn record_attempt(pool: &PgPool, d: &DueDelivery, outcome: Outcome<'_>, disable_after_secs: f64) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    match outcome {
        Outcome::Delivered { status } => {
            sqlx::query(
                "update public.webhook_deliveries set status = 'delivered', last_status = $2, last_error = null, delivered_at = now(),
                     next_attempt_at = null, lease_until = null where id = $1",
            )
            .bind(d.id)
            .bind(status)
            .execute(&mut *tx)
            .await?;
            sqlx::query("update public.webhooks set failing_since = null where id = $1 and failing_since is not null")
                .bind(d.webhook_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(false)
        }
        Outcome::Failed { status, error, retry_at } => {
            sqlx::query(
                "update public.webhook_deliveries set status = case when $4::timestamptz is null then 'failed' else 'pending' end,
                     last_status = $2, last_error = $3, next_attempt_at = $4, lease_until = null where id = $1",
            )
            .bind(d.id)
            .bind(status)
            .bind(error)
            .bind(retry_at)
            .execute(&mut *tx)
            .await?;
            let disabled: Option<bool> = sqlx::query_scalar(
                "with w as (
                     select id, enabled, coalesce(failing_since < now() - make_interval(secs => $2), false) as expired
                     from public.webhooks where id = $1 for update
                 )
                 update public.webhooks set failing_since = coalesce(webhooks.failing_since, $3),
                     enabled = webhooks.enabled and not w.expired,
                     disabled_reason = case when webhooks.enabled and w.expired then 'failing' else webhooks.disabled_reason end
                 from w where webhooks.id = w.id
                 returning (w.enabled and w.expired)",
            )
            .bind(d.webhook_id)
            .bind(disable_after_secs)
            // Not `now()` inside the COALESCE: Citus refuses a non-immutable function there.
            .bind(Utc::now())
            .fetch_optional(&mut *tx)
            .await?;
            let disabled = disabled.unwrap_or(false);
            if disabled {
                give_up_pending(&mut tx, d.webhook_id, "webhook_disabled").await?;
            }
            tx.commit().await?;
            Ok(disabled)
        }
    }
}

/// Gives up every pending delivery of a webhook (it was turned off).
pub async fn give_up_pending(tx: &mut PgConnection, webhook: Uuid, reason: &str) -> sqlx::Result<()> {
    sqlx::query(
        "update public.webhook_deliveries set status = 'failed', last_error = $2, next_attempt_at = null, lease_until = null
         where webhook_id = $1 and status = 'pending'",
    )
    .bind(webhook)
    .bind(reason)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The enterprise a webhook belongs to (`None`: the platform's, or gone).
pub async fn owner_of(conn: &mut PgConnection, webhook: Uuid) -> sqlx::Result<Option<Uuid>> {
    Ok(sqlx::query_scalar::<_, Option<Uuid>>("select enterprise_id from public.webhooks where id = $1")
        .bind(webhook)
        .fetch_optional(conn)
        .await?
        .flatten())
}

pub async fn exists(conn: &mut PgConnection, webhook: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from public.webhooks where id = $1)").bind(webhook).fetch_one(conn).await
}

/// Deliveries that ended (delivered, or given up) more than `days` ago are deleted: the list a
/// webhook's owner reads stays the recent past, and the table does not grow without end.
pub async fn prune_deliveries(pool: &PgPool, days: u32) -> sqlx::Result<u64> {
    Ok(sqlx::query("delete from public.webhook_deliveries where status <> 'pending' and created_at < now() - make_interval(days => $1)")
        .bind(i32::try_from(days).unwrap_or(i32::MAX))
        .execute(pool)
        .await?
        .rows_affected())
}
