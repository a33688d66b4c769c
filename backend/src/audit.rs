//! The audit log: who did what, to what, when and from where. Every privileged or
//! security-relevant action writes one entry in the transaction of the change itself
//! (`store::audit`), so an acknowledged change always has its entry and a rolled-back one never
//! does. Entries are insert-only for the role requests use (`migrations/…_outbox_webhooks_audit.sql`);
//! the retention job is the only deletion.

use serde_json::{Map, Value};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::{
    auth::{Caller, Credential, client},
    state::AppState,
    store::audit::NewEntry,
};

/// Who acted and from where: made once per request, then used for each entry it writes.
#[derive(Debug, Clone)]
pub struct Audit {
    actor_type: &'static str,
    actor_id: Option<Uuid>,
    ip: Option<std::net::IpAddr>,
    place: Option<String>,
    user_agent: Option<String>,
}

/// What an action was done to.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub kind: &'static str,
    pub id: Option<Uuid>,
    pub name: Option<&'a str>,
}

impl<'a> Target<'a> {
    pub fn new(kind: &'static str, id: Uuid, name: &'a str) -> Self {
        Self { kind, id: Some(id), name: Some(name) }
    }

    pub fn id(kind: &'static str, id: Uuid) -> Self {
        Self { kind, id: Some(id), name: None }
    }
}

impl Audit {
    /// The caller of the current request: a person, or a program's token (a personal token
    /// names its owner, a service credential itself).
    pub fn of(state: &AppState, caller: &Caller) -> Self {
        let actor_type = match caller.credential {
            Credential::Session => "user",
            Credential::Token { .. } => "token",
        };
        Self::from_client(state, actor_type, Some(caller.user_id))
    }

    /// Someone not yet known to be anyone (a sign-in attempt), or a known user by id.
    pub fn person(state: &AppState, user_id: Option<Uuid>) -> Self {
        Self::from_client(state, "user", user_id)
    }

    /// The platform itself (a timeout, a background job).
    pub fn system() -> Self {
        Self { actor_type: "system", actor_id: None, ip: None, place: None, user_agent: None }
    }

    fn from_client(state: &AppState, actor_type: &'static str, actor_id: Option<Uuid>) -> Self {
        let client = client::current().unwrap_or_default();
        let place = client.ip.and_then(|ip| state.geoip.as_ref()?.locate(ip)).and_then(|l| match (l.city, l.country) {
            (Some(city), Some(country)) => Some(format!("{city}, {country}")),
            (None, Some(country)) => Some(country),
            (Some(city), None) => Some(city),
            (None, None) => None,
        });
        Self { actor_type, actor_id, ip: client.ip, place, user_agent: client.user_agent }
    }

    /// Writes one entry in `tx`, the transaction of the change it describes.
    pub async fn record(
        &self,
        tx: &mut PgConnection,
        enterprise: Option<Uuid>,
        action: &str,
        target: Option<Target<'_>>,
        changes: Changes,
    ) -> sqlx::Result<()> {
        let entry = NewEntry {
            id: Uuid::now_v7(),
            enterprise_id: enterprise,
            actor_type: self.actor_type,
            actor_id: self.actor_id,
            action,
            target_type: target.map(|t| t.kind),
            target_id: target.and_then(|t| t.id),
            target_name: target.and_then(|t| t.name),
            ip: self.ip,
            place: self.place.as_deref(),
            user_agent: self.user_agent.as_deref(),
            changes: Value::Object(changes.0),
        };
        crate::store::audit::insert(tx, &entry).await
    }

    /// [`Self::record`] in a transaction of its own, for actions that change nothing else
    /// (a download, a refused sign-in).
    pub async fn record_alone(
        &self,
        state: &AppState,
        enterprise: Option<Uuid>,
        action: &str,
        target: Option<Target<'_>>,
        changes: Changes,
    ) -> sqlx::Result<()> {
        let mut conn = state.db.acquire().await?;
        self.record(&mut conn, enterprise, action, target, changes).await
    }
}

/// The fields an action changed, `{ field: [before, after] }`, and facts about it
/// (`{ format: "csv" }`). Never a password, a token, a secret or message content.
#[derive(Debug, Clone, Default)]
pub struct Changes(Map<String, Value>);

impl Changes {
    pub fn new() -> Self {
        Self::default()
    }

    /// `field` went from `before` to `after` (left out when they are equal).
    pub fn changed<T: serde::Serialize + PartialEq>(mut self, field: &str, before: T, after: T) -> Self {
        if before != after {
            self.0.insert(field.to_owned(), serde_json::json!([before, after]));
        }
        self
    }

    /// A fact about the action.
    pub fn with<T: serde::Serialize>(mut self, field: &str, value: T) -> Self {
        self.0.insert(field.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Deletes the entries older than `AUDIT_RETENTION_DAYS`: the only path that deletes any. Runs
/// daily on every instance (one at a time: an advisory lock) and as `backend audit-retention`.
pub async fn apply_retention(state: &AppState) -> sqlx::Result<u64> {
    crate::store::audit::delete_older_than(&state.db, state.config.events.audit_retention_days).await
}
