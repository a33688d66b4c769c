//! The audit log: who did what, to what, when and from where. Every privileged or
//! security-relevant action writes one entry in the transaction of the change itself
//! (`store::audit`), so an acknowledged change always has its entry and a rolled-back one never
//! does. Entries are insert-only for the role requests use (`migrations/…_outbox_webhooks_audit.sql`);
//! the retention job is the only deletion.

use serde_json::{Map, Value};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

pub use crate::store::audit::{Actor, Target};
use crate::{
    auth::{Caller, Credential, client},
    geoip::GeoIp,
};

/// Who acted and from where: made once per request, then used for each entry it writes.
#[derive(Debug, Clone)]
pub struct Audit(pub Actor);

impl Audit {
    /// The caller of the current request: a person, or a program's token (a personal token
    /// names its owner, a service credential itself).
    /// `geoip` names the client's place (`AppState::geoip`).
    pub fn of(geoip: Option<&GeoIp>, caller: &Caller) -> Self {
        let kind = match caller.credential {
            Credential::Session => "user",
            Credential::Token { .. } => "token",
        };
        Self::from_client(geoip, kind, Some(caller.user_id))
    }

    /// Someone not yet known to be anyone (a sign-in attempt), or a known user by id.
    pub fn person(geoip: Option<&GeoIp>, user_id: Option<Uuid>) -> Self {
        Self::from_client(geoip, "user", user_id)
    }

    /// The platform itself (a timeout, a background job).
    pub fn system() -> Self {
        Self(Actor { kind: "system", id: None, ip: None, place: None, user_agent: None })
    }

    fn from_client(geoip: Option<&GeoIp>, kind: &'static str, id: Option<Uuid>) -> Self {
        let client = client::current().unwrap_or_default();
        let place = client.ip.and_then(|ip| geoip?.locate(ip)).and_then(|l| match (l.city, l.country) {
            (Some(city), Some(country)) => Some(format!("{city}, {country}")),
            (None, Some(country)) => Some(country),
            (Some(city), None) => Some(city),
            (None, None) => None,
        });
        Self(Actor { kind, id, ip: client.ip, place, user_agent: client.user_agent })
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
        crate::store::audit::insert(tx, &self.0, enterprise, action, target, changes.into_value()).await
    }

    /// [`Self::record`] in a transaction of its own, for actions that change nothing else
    /// (a refused sign-in).
    pub async fn record_alone(
        &self,
        db: &PgPool,
        enterprise: Option<Uuid>,
        action: &str,
        target: Option<Target<'_>>,
        changes: Changes,
    ) -> sqlx::Result<()> {
        let mut conn = db.acquire().await?;
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

    /// These changes and `other`'s.
    pub fn merge(mut self, other: Changes) -> Self {
        self.0.extend(other.0);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }
}

/// Deletes the entries older than `days` (`AUDIT_RETENTION_DAYS`): the only path that deletes
/// any. Runs daily on every instance (another's deletion at the same time finds nothing left).
pub async fn apply_retention(db: &PgPool, days: u32) -> sqlx::Result<u64> {
    crate::store::audit::delete_older_than(db, days).await
}
