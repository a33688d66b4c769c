//! Webhooks: an enterprise's, managed by its CEO, and the platform's (hearing every enterprise),
//! managed by the platform admin. Events reach them signed as the Standard Webhooks specification
//! says, at least once, retried for a day (`webhooks::dispatcher`).

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use serde_json::json;
use uuid::Uuid;

use super::{
    ApiTags,
    enterprises::Deleted,
    types::{Page, paging},
};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::BearerAuth,
    auth::Caller,
    domain::{FieldErrors, FieldIssue, Role},
    error::{AppError, Conflict},
    state::AppState,
    store::{
        self,
        webhooks::{DeliveryRecord, NewWebhook, Owner, WebhookChanges, WebhookRecord},
    },
    webhooks::{self as hooks, guard},
};

#[derive(Default)]
pub struct WebhooksApi;

/// How long a rotated-out secret keeps signing beside the new one.
const PREVIOUS_SECRET_HOURS: i64 = 24;
/// Test events one webhook may be sent in a minute: a button, not a way to load a receiver (or
/// the dispatcher).
pub const TESTS_PER_MINUTE: i64 = 10;

/// The addresses this server accepts for webhooks: what the form says before anything is typed.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookUrlRules {
    /// `["https"]`, or `["http", "https"]` where private networks are allowed.
    pub schemes: Vec<String>,
    /// The ports a URL may use (empty: any).
    pub ports: Vec<u16>,
    /// Whether a URL may point at private, loopback or link-local addresses (never in production:
    /// a webhook would reach into the platform's own network). `WEBHOOK_ALLOW_PRIVATE_NETWORKS`.
    pub private_networks: bool,
}

/// A new webhook.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateWebhook {
    /// Where events are POSTed: an `https` URL whose host resolves to public addresses only.
    #[oai(validator(max_length = 2000))]
    pub url: String,
    /// The events it hears (at least one): `report.created`, `report.submitted`,
    /// `report.reviewed`, `report.approved`, `report.rejected`, `report.deleted`, `user.created`,
    /// `user.updated`, `user.deactivated`, `user.deleted`, `spreadsheet.created`,
    /// `session.started`, `session.ended`.
    #[oai(validator(max_items = 32))]
    pub events: Vec<String>,
    /// What it is for (at most 200 characters).
    #[oai(validator(max_length = 400))]
    pub description: Option<String>,
}

/// Changes to a webhook: only the fields sent.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateWebhook {
    #[oai(validator(max_length = 2000))]
    pub url: Option<String>,
    #[oai(validator(max_items = 32))]
    pub events: Option<Vec<String>>,
    #[oai(validator(max_length = 400))]
    pub description: Option<String>,
    /// Turn deliveries off (`false`) or back on (`true`, which also clears a failing streak).
    pub enabled: Option<bool>,
}

/// A webhook, never its secret.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Webhook {
    pub id: Uuid,
    /// Its enterprise; null for a platform-wide webhook.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    pub url: String,
    pub events: Vec<String>,
    pub description: String,
    pub enabled: bool,
    /// Why it is off: `manual`, or `failing` when every delivery failed for five days.
    #[oai(nullable)]
    pub disabled_reason: Option<String>,
    /// Since when every delivery has failed; null while the last one succeeded.
    #[oai(nullable)]
    pub failing_since: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<WebhookRecord> for Webhook {
    fn from(w: WebhookRecord) -> Self {
        Self {
            id: w.id,
            enterprise_id: w.enterprise_id,
            url: w.url,
            events: w.events,
            description: w.description,
            enabled: w.enabled,
            disabled_reason: w.disabled_reason,
            failing_since: w.failing_since,
            created_at: w.created_at,
            updated_at: w.updated_at,
        }
    }
}

/// A webhook just made (or whose secret was just rotated), with its signing secret: shown this
/// once.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookWithSecret {
    #[oai(flatten)]
    pub webhook: Webhook,
    /// `whsec_…`: verify deliveries with it (any Standard Webhooks library). Not shown again.
    pub secret: String,
}

/// One event sent (or being sent) to one webhook.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WebhookDelivery {
    /// Also the message id the receiver sees as `webhook-id` (`msg_` and this id without dashes).
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_type: String,
    /// `pending` (another attempt is scheduled), `delivered`, or `failed` (given up).
    pub status: String,
    pub attempts: i32,
    /// The receiver's last HTTP status; null when it did not answer.
    #[oai(nullable)]
    pub last_status: Option<i32>,
    /// Why the last attempt failed: `http_status`, `timeout`, `connection_failed`,
    /// `request_failed`, `private_address`, `port_not_allowed`, `webhook_disabled`.
    #[oai(nullable)]
    pub last_error: Option<String>,
    #[oai(nullable)]
    pub next_attempt_at: Option<DateTime<Utc>>,
    #[oai(nullable)]
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<DeliveryRecord> for WebhookDelivery {
    fn from(d: DeliveryRecord) -> Self {
        Self {
            id: d.id,
            webhook_id: d.webhook_id,
            event_type: d.event_type,
            status: d.status,
            attempts: d.attempts,
            last_status: d.last_status,
            last_error: d.last_error,
            next_attempt_at: d.next_attempt_at,
            delivered_at: d.delivered_at,
            created_at: d.created_at,
        }
    }
}

#[derive(Debug, ApiResponse)]
pub enum WebhookCreated {
    /// The webhook exists; its secret is in this answer only.
    #[oai(status = 201)]
    Created(Json<WebhookWithSecret>),
}

#[derive(Debug, ApiResponse)]
pub enum DeliveryQueued {
    /// The delivery is queued and goes out within a second.
    #[oai(status = 202)]
    Accepted(Json<WebhookDelivery>),
}

api_errors!(WebhookError {
    /// A field is missing or invalid (`validation_failed`, with `fields`): an unknown event, a
    /// URL that is not https or points into a private network.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Not the platform admin or a CEO, or a token without the `webhooks` scope.
    403 Forbidden,
    /// No such webhook or delivery for this caller.
    404 NotFound,
    /// Already 20 webhooks (`conflict`, reason `too_many_webhooks`), or the delivery to send
    /// again is being sent right now (`delivery_in_flight`: retry in a minute).
    409 Conflict,
});

/// Whose webhooks the caller makes and lists: a CEO their enterprise's; the admin the
/// platform's, or an enterprise's when they name it.
async fn owner(state: &AppState, caller: &Caller, enterprise: Option<Uuid>) -> Result<Owner, AppError> {
    match (caller.role, enterprise) {
        (Role::PlatformAdmin, Some(id)) if store::enterprises::exists(&state.db, id).await? => Ok(Some(id)),
        (Role::PlatformAdmin, Some(_)) => Err(AppError::NotFound),
        (Role::PlatformAdmin, None) => Ok(None),
        (_, Some(id)) if caller.enterprise_id != Some(id) => Err(AppError::NotFound),
        _ => Ok(caller.enterprise_id),
    }
}

/// The owner of webhook `id` as the caller may reach it: a CEO only their enterprise's, the
/// admin any (404 otherwise).
async fn owner_of(state: &AppState, caller: &Caller, id: Uuid) -> Result<Owner, AppError> {
    if caller.role == Role::PlatformAdmin {
        let mut conn = state.db.acquire().await?;
        if store::webhooks::exists(&mut conn, id).await? {
            return Ok(store::webhooks::owner_of(&mut conn, id).await?);
        }
        return Err(AppError::NotFound);
    }
    Ok(caller.enterprise_id)
}

fn check_events(events: &[String]) -> Result<Vec<String>, FieldIssue> {
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    if events.is_empty() {
        return Err(FieldIssue::Required);
    }
    if events.iter().all(|e| hooks::EVENTS.contains(&e.as_str())) { Ok(events) } else { Err(FieldIssue::Invalid) }
}

fn check_description(d: Option<&str>) -> Result<Option<String>, FieldIssue> {
    d.map(|d| crate::domain::text::paragraphs(d, 200).map(str::to_owned)).transpose()
}

/// Checks a URL; a refusal is a 400 naming `url` and saying why.
async fn check_url(state: &AppState, url: &str) -> Result<String, AppError> {
    guard::check_url(url, state.config.events.allow_private_networks).await.map_err(|refusal| {
        let mut errors = FieldErrors::new();
        errors.check::<()>("url", Err(FieldIssue::Invalid));
        let message = match refusal {
            guard::Refusal::Invalid => "Enter an absolute http(s) URL without a user name or password",
            guard::Refusal::NotHttps => "Webhook URLs must use https",
            guard::Refusal::Unresolvable => "This URL's host name does not resolve",
            guard::Refusal::PrivateAddress => "This URL points into a private network, which webhooks may not reach",
            guard::Refusal::Port => "Webhook URLs must use port 443 or 8443",
        };
        AppError::Explained(errors, message.to_owned())
    })
}

fn webhook_target(w: &WebhookRecord) -> Target<'_> {
    Target::new("webhook", w.id, &w.url)
}

async fn find(state: &AppState, caller: &Caller, id: Uuid) -> Result<WebhookRecord, AppError> {
    let owner = owner_of(state, caller, id).await?;
    store::webhooks::find(&state.db, owner, id).await?.ok_or(AppError::NotFound)
}

#[OpenApi(tag = "ApiTags::Webhooks")]
impl WebhooksApi {
    /// Create a webhook
    ///
    /// A CEO's webhook hears their enterprise's events; the platform admin's hears every
    /// enterprise's (or, with `enterpriseId`, is made for that enterprise). The signing secret is
    /// in this answer only.
    #[oai(path = "/webhooks", method = "post", operation_id = "createWebhook")]
    async fn create(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        body: Json<CreateWebhook>,
    ) -> Result<WebhookCreated, WebhookError> {
        auth.0.require("createWebhook")?;
        let owner = owner(&state, &auth.0, enterprise_id.0).await?;
        let mut errors = FieldErrors::new();
        let events = errors.check("events", check_events(&body.events));
        let description = errors.check("description", check_description(body.description.as_deref()));
        errors.into_result()?;
        let url = check_url(&state, &body.url).await?;
        let (Some(events), Some(description)) = (events, description) else { unreachable!("no field errors") };
        let secret = hooks::new_secret();
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        let made = store::webhooks::create(
            &mut tx,
            &state.config.data_keys,
            NewWebhook {
                id: Uuid::now_v7(),
                owner,
                url: &url,
                events: &events,
                description: description.as_deref().unwrap_or(""),
                secret: &secret,
                created_by: auth.0.user_id,
            },
        )
        .await
        .map_err(AppError::from)?
        .ok_or(AppError::Conflict(Conflict::TooManyWebhooks))?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, owner, "webhook.created", Some(webhook_target(&made)), Changes::new().with("events", &made.events))
            .await
            .map_err(AppError::from)?;
        tx.commit().await.map_err(AppError::from)?;
        Ok(WebhookCreated::Created(Json(WebhookWithSecret { webhook: made.into(), secret })))
    }

    /// List webhooks
    ///
    /// The caller's enterprise's webhooks (the admin: the platform's, or with `enterpriseId`
    /// that enterprise's), newest first.
    #[oai(path = "/webhooks", method = "get", operation_id = "listWebhooks")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        #[oai(validator(minimum(value = "1"), maximum(value = "100000")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Webhook>>, WebhookError> {
        auth.0.require("listWebhooks")?;
        let paging = paging(page.0, page_size.0);
        let owner = owner(&state, &auth.0, enterprise_id.0).await?;
        let (items, total) = store::webhooks::list(&state.db, owner, paging).await.map_err(AppError::from)?;
        Ok(Json(Page::new(items.into_iter().map(Into::into).collect(), total, paging)))
    }

    /// Which URLs webhooks may use
    ///
    /// The rules `createWebhook` and `updateWebhook` apply to `url` on this server: its schemes, its ports and whether private networks are allowed.
    #[oai(path = "/webhooks/url-rules", method = "get", operation_id = "getWebhookUrlRules")]
    async fn url_rules(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<WebhookUrlRules>, WebhookError> {
        auth.0.require("getWebhookUrlRules")?;
        let open = state.config.events.allow_private_networks;
        Ok(Json(WebhookUrlRules {
            schemes: if open { vec!["http".into(), "https".into()] } else { vec!["https".into()] },
            ports: if open { Vec::new() } else { guard::HTTPS_PORTS.to_vec() },
            private_networks: open,
        }))
    }

    /// Get a webhook
    #[oai(path = "/webhooks/:id", method = "get", operation_id = "getWebhook")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Webhook>, WebhookError> {
        auth.0.require("getWebhook")?;
        Ok(Json(find(&state, &auth.0, id.0).await?.into()))
    }

    /// Change a webhook
    ///
    /// Only the fields sent change. Turning it off gives up its pending deliveries; turning it
    /// back on clears its failing streak.
    #[oai(path = "/webhooks/:id", method = "put", operation_id = "updateWebhook")]
    async fn update(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<UpdateWebhook>,
    ) -> Result<Json<Webhook>, WebhookError> {
        auth.0.require("updateWebhook")?;
        let before = find(&state, &auth.0, id.0).await?;
        let owner = before.enterprise_id;
        let mut errors = FieldErrors::new();
        let events = body.events.as_deref().map(|e| errors.check("events", check_events(e)));
        let description = errors.check("description", check_description(body.description.as_deref()));
        errors.into_result()?;
        let url = match &body.url {
            Some(url) => Some(check_url(&state, url).await?),
            None => None,
        };
        let events = events.flatten();
        let description = description.flatten();
        let changes = WebhookChanges { url: url.as_deref(), events: events.as_deref(), description: description.as_deref(), enabled: body.enabled };
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        let after = store::webhooks::update(&mut tx, owner, id.0, &changes).await.map_err(AppError::from)?.ok_or(AppError::NotFound)?;
        if body.enabled == Some(false) {
            store::webhooks::give_up_pending(&mut tx, id.0, "webhook_disabled").await.map_err(AppError::from)?;
        }
        let diff = Changes::new()
            .changed("url", &before.url, &after.url)
            .changed("events", &before.events, &after.events)
            .changed("description", &before.description, &after.description)
            .changed("enabled", before.enabled, after.enabled);
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, owner, "webhook.updated", Some(webhook_target(&after)), diff)
            .await
            .map_err(AppError::from)?;
        tx.commit().await.map_err(AppError::from)?;
        Ok(Json(after.into()))
    }

    /// Delete a webhook
    ///
    /// It hears nothing more; its pending deliveries are dropped with it.
    #[oai(path = "/webhooks/:id", method = "delete", operation_id = "deleteWebhook")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Deleted, WebhookError> {
        auth.0.require("deleteWebhook")?;
        let owner = owner_of(&state, &auth.0, id.0).await?;
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        let gone = store::webhooks::delete(&mut tx, owner, id.0).await.map_err(AppError::from)?.ok_or(AppError::NotFound)?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, owner, "webhook.deleted", Some(webhook_target(&gone)), Changes::new())
            .await
            .map_err(AppError::from)?;
        tx.commit().await.map_err(AppError::from)?;
        Ok(Deleted::Deleted)
    }

    /// Rotate a webhook's secret
    ///
    /// A new secret signs every delivery from now on; for 24 hours (or `previousSecretHours`, up
    /// to 168) the previous one signs too (two signatures in `webhook-signature`), so receivers
    /// can switch without missing one. `previousSecretHours=0` expires the previous secret at once
    /// (it leaked). The new secret is in this answer only.
    #[oai(path = "/webhooks/:id/rotate-secret", method = "post", operation_id = "rotateWebhookSecret")]
    async fn rotate(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "previousSecretHours", validator(maximum(value = "168")))] previous_hours: Query<Option<u32>>,
    ) -> Result<Json<WebhookWithSecret>, WebhookError> {
        auth.0.require("rotateWebhookSecret")?;
        let owner = owner_of(&state, &auth.0, id.0).await?;
        let secret = hooks::new_secret();
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        let until = Utc::now() + Duration::hours(previous_hours.0.map_or(PREVIOUS_SECRET_HOURS, i64::from));
        let rotated = store::webhooks::rotate_secret(&mut tx, &state.config.data_keys, owner, id.0, &secret, until)
            .await
            .map_err(AppError::from)?
            .ok_or(AppError::NotFound)?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, owner, "webhook.secret_rotated", Some(webhook_target(&rotated)), Changes::new().with("previousSecretUntil", until))
            .await
            .map_err(AppError::from)?;
        tx.commit().await.map_err(AppError::from)?;
        Ok(Json(WebhookWithSecret { webhook: rotated.into(), secret }))
    }

    /// Send a test event
    ///
    /// Queues a `webhook.test` event to this webhook alone (whatever events it hears), to check
    /// the receiver and its signature verification. At most 10 a minute per webhook (then 429
    /// `rate_limited` with `Retry-After`).
    #[oai(path = "/webhooks/:id/test", method = "post", operation_id = "sendWebhookTestEvent")]
    async fn test(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<DeliveryQueued, WebhookError> {
        auth.0.require("sendWebhookTestEvent")?;
        let webhook = find(&state, &auth.0, id.0).await?;
        let body = json!({
            "type": hooks::TEST_EVENT,
            "timestamp": Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            "data": { "webhookId": webhook.id, "enterpriseId": webhook.enterprise_id },
        });
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        if store::webhooks::recent_tests(&mut tx, webhook.id, hooks::TEST_EVENT).await.map_err(AppError::from)? >= TESTS_PER_MINUTE {
            return Err(AppError::RateLimited { retry_after_secs: 60 }.into());
        }
        let delivery = store::webhooks::insert_delivery(&mut tx, webhook.id, hooks::TEST_EVENT, &body.to_string()).await.map_err(AppError::from)?;
        tx.commit().await.map_err(AppError::from)?;
        Ok(DeliveryQueued::Accepted(Json(delivery.into())))
    }

    /// List a webhook's deliveries
    ///
    /// Newest first: each event sent, its attempts, the receiver's last status, the next attempt
    /// and when it was delivered. Deliveries are kept 30 days after they end.
    #[oai(path = "/webhooks/:id/deliveries", method = "get", operation_id = "listWebhookDeliveries")]
    async fn deliveries(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(minimum(value = "1"), maximum(value = "100000")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<WebhookDelivery>>, WebhookError> {
        auth.0.require("listWebhookDeliveries")?;
        let webhook = find(&state, &auth.0, id.0).await?;
        let paging = paging(page.0, page_size.0);
        let (items, total) = store::webhooks::deliveries(&state.db, webhook.id, paging).await.map_err(AppError::from)?;
        Ok(Json(Page::new(items.into_iter().map(Into::into).collect(), total, paging)))
    }

    /// Redeliver an event
    ///
    /// Sends a delivery again now, with the same message id and body and a fresh round of
    /// retries, whatever became of it.
    #[oai(path = "/webhooks/:id/deliveries/:deliveryId/redeliver", method = "post", operation_id = "redeliverWebhookDelivery")]
    async fn redeliver(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "deliveryId")] delivery_id: Path<Uuid>,
    ) -> Result<DeliveryQueued, WebhookError> {
        auth.0.require("redeliverWebhookDelivery")?;
        let webhook = find(&state, &auth.0, id.0).await?;
        let mut tx = state.db.begin().await.map_err(AppError::from)?;
        let delivery = match store::webhooks::redeliver(&mut tx, webhook.id, delivery_id.0).await.map_err(AppError::from)? {
            store::webhooks::Redelivery::Queued(d) => d,
            store::webhooks::Redelivery::InFlight => return Err(AppError::Conflict(Conflict::DeliveryInFlight).into()),
            store::webhooks::Redelivery::Missing => return Err(AppError::NotFound.into()),
        };
        tx.commit().await.map_err(AppError::from)?;
        Ok(DeliveryQueued::Accepted(Json(delivery.into())))
    }
}
