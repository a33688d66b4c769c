//! The audit log, read: a CEO their enterprise's entries, the platform admin everyone's. Nothing
//! here writes: entries are written by the changes themselves (`crate::audit`).

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{ApiResponse, Enum, Object, OpenApi, param::Query, payload::Binary, payload::Json};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    api_errors,
    auth::{BearerAuth, Caller},
    domain::Role,
    error::AppError,
    state::AppState,
    store::{
        self,
        audit::{EntryFilter, EntryRecord},
    },
};

#[derive(Default)]
pub struct AuditApi;

/// The most entries one export holds (a narrower filter gets the rest).
const MAX_EXPORT: i64 = 100_000;

/// Who did it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditActor {
    /// `user` (a person signed in), `token` (a program, with a person's token or a service
    /// credential) or `system` (the platform itself: a timeout, a background job).
    #[oai(rename = "type")]
    pub kind: String,
    #[oai(nullable)]
    pub id: Option<Uuid>,
    /// Their name when it happened.
    #[oai(nullable)]
    pub name: Option<String>,
    /// The same as `name` (a `UserSummary`'s member).
    #[oai(nullable)]
    pub full_name: Option<String>,
}

/// One entry of the audit log.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    /// The same as `at`.
    pub occurred_at: DateTime<Utc>,
    /// The same as `actor.type`: `user`, `token` or `system`.
    pub actor_type: String,
    /// The enterprise it happened in; null for the platform itself.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    pub actor: AuditActor,
    /// What was done, `<target>.<verb>`: `auth.signed_in`, `auth.sign_in_failed`,
    /// `auth.sign_in_refused`, `auth.signed_out`, `session.ended`, `user.created`,
    /// `user.updated`, `user.role_changed`, `user.deactivated`, `user.reactivated`,
    /// `user.deleted`, `enterprise.created`, `enterprise.updated`, `enterprise.deleted`,
    /// `enterprise.deletion_scheduled`, `enterprise.restored`, `enterprise.purged`,
    /// `department.updated`, `department.head_changed`, `department.member_added`,
    /// `department.member_removed`, `report.created`, `report.updated`, `report.submitted`,
    /// `report.reviewed`, `report.approved`, `report.rejected`, `report.deleted`,
    /// `report.exported`, `spreadsheet.created`, `spreadsheet.imported`,
    /// `spreadsheet.exported`, `token.created`, `token.revoked`, `webhook.created`,
    /// `webhook.updated`, `webhook.deleted`, `webhook.secret_rotated`, `webhook.disabled`.
    pub action: String,
    #[oai(nullable)]
    pub target_type: Option<String>,
    #[oai(nullable)]
    pub target_id: Option<Uuid>,
    /// The target's name when it happened.
    #[oai(nullable)]
    pub target_name: Option<String>,
    /// The client's address.
    #[oai(nullable)]
    pub ip: Option<String>,
    /// The same as `ip`.
    #[oai(nullable)]
    pub ip_address: Option<String>,
    /// Where that address is (city and country code), when known.
    #[oai(nullable)]
    pub place: Option<String>,
    #[oai(nullable)]
    pub user_agent: Option<String>,
    /// The changed fields, `{ "field": [before, after] }`, and facts about the action. Never a
    /// password, a token, a secret or message content.
    pub changes: serde_json::Value,
    /// The same as `changes`.
    pub details: serde_json::Value,
}

impl From<EntryRecord> for AuditEvent {
    fn from(e: EntryRecord) -> Self {
        Self {
            id: e.id,
            at: e.at,
            occurred_at: e.at,
            actor_type: e.actor_type.clone(),
            enterprise_id: e.enterprise_id,
            actor: AuditActor { kind: e.actor_type, id: e.actor_id, full_name: e.actor_name.clone(), name: e.actor_name },
            action: e.action,
            target_type: e.target_type,
            target_id: e.target_id,
            target_name: e.target_name,
            ip_address: e.ip.clone(),
            ip: e.ip,
            place: e.place,
            user_agent: e.user_agent,
            details: e.changes.clone(),
            changes: e.changes,
        }
    }
}

/// A page of the audit log, newest first.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AuditEventPage {
    pub items: Vec<AuditEvent>,
    /// Pass as `before` for the next (older) page; null on the last page.
    #[oai(nullable)]
    pub next_cursor: Option<Uuid>,
}

#[derive(Debug, Clone, Copy, Enum, PartialEq, Eq)]
#[oai(rename_all = "lowercase")]
pub enum AuditFormat {
    Csv,
    Jsonl,
}

impl AuditFormat {
    pub const ALL: [Self; 2] = [Self::Csv, Self::Jsonl];

    pub fn media_type(self) -> &'static str {
        match self {
            Self::Csv => "text/csv; charset=utf-8",
            Self::Jsonl => "application/jsonl; charset=utf-8",
        }
    }
}

#[derive(Debug, ApiResponse)]
pub enum AuditExport {
    /// The entries as CSV (one header row) or JSON Lines (one entry per line), newest first, at
    /// most 100,000.
    #[oai(status = 200)]
    File(Binary<Vec<u8>>, #[oai(header = "Content-Type")] String, #[oai(header = "Content-Disposition")] String),
}

api_errors!(AuditError {
    /// A filter is invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Not the platform admin or a CEO, or a token without the `audit:read` scope.
    403 Forbidden,
    /// No such enterprise for this caller.
    404 NotFound,
});

/// The filters every read takes, in the caller's realm: a CEO's own enterprise whatever they
/// ask; the admin's choice of enterprise, or all.
#[allow(clippy::too_many_arguments)]
async fn filter(
    state: &AppState,
    caller: &Caller,
    enterprise_id: Option<Uuid>,
    actor: Option<Uuid>,
    action: Option<String>,
    target: Option<Uuid>,
    target_type: Option<String>,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
    q: Option<String>,
) -> Result<EntryFilter, AppError> {
    let enterprise = if caller.role == Role::PlatformAdmin {
        if let Some(id) = enterprise_id
            && !store::enterprises::exists(&state.db, id).await?
        {
            return Err(AppError::NotFound);
        }
        enterprise_id
    } else {
        match (caller.enterprise_id, enterprise_id) {
            (Some(own), Some(asked)) if own != asked => return Err(AppError::NotFound),
            (own, _) => Some(own.ok_or(AppError::Forbidden)?),
        }
    };
    let clean = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(EntryFilter { enterprise, actor, action: clean(action), target, target_type: clean(target_type), from, to, text: clean(q), before: None })
}

#[OpenApi(tag = "ApiTags::Audit")]
impl AuditApi {
    /// List audit events
    ///
    /// Who did what, newest first, a page at a time (`before` takes the previous page's
    /// `nextCursor`). A CEO reads their enterprise's entries; the platform admin every
    /// enterprise's and the platform's, or one enterprise's (`enterpriseId`). Filters: `actorId`
    /// (a user's or token's id; also `actor`), `action` (`user.role_changed`, or `user` for every
    /// user action), `targetId` (the id acted on; also `target`), `targetType` (`user`, `report`…),
    /// `from` and `to` (times), `q` (text in the names, action or address).
    #[oai(path = "/audit-events", method = "get", operation_id = "listAuditEvents")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        actor: Query<Option<Uuid>>,
        #[oai(name = "actorId")] actor_id: Query<Option<Uuid>>,
        #[oai(validator(max_length = 100))] action: Query<Option<String>>,
        target: Query<Option<Uuid>>,
        #[oai(name = "targetId")] target_id: Query<Option<Uuid>>,
        #[oai(name = "targetType", validator(max_length = 50))] target_type: Query<Option<String>>,
        from: Query<Option<DateTime<Utc>>>,
        to: Query<Option<DateTime<Utc>>>,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
        before: Query<Option<Uuid>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<AuditEventPage>, AuditError> {
        auth.0.require("listAuditEvents")?;
        let mut f =
            filter(&state, &auth.0, enterprise_id.0, actor.0.or(actor_id.0), action.0, target.0.or(target_id.0), target_type.0, from.0, to.0, q.0)
                .await?;
        f.before = before.0;
        let size = i64::from(page_size.0.unwrap_or(50));
        let mut items = store::audit::list(&state.db, &f, size + 1).await.map_err(AppError::from)?;
        let more = items.len() as i64 > size;
        items.truncate(usize::try_from(size).unwrap_or(50));
        let next_cursor = if more { items.last().map(|e| e.id) } else { None };
        Ok(Json(AuditEventPage { items: items.into_iter().map(Into::into).collect(), next_cursor }))
    }

    /// Export audit events
    ///
    /// The entries the same filters select, newest first, as CSV or JSON Lines (at most
    /// 100,000; narrow the filters for more).
    #[oai(path = "/audit-events/export", method = "get", operation_id = "exportAuditEvents")]
    #[allow(clippy::too_many_arguments)]
    async fn export(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        format: Query<AuditFormat>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        actor: Query<Option<Uuid>>,
        #[oai(name = "actorId")] actor_id: Query<Option<Uuid>>,
        #[oai(validator(max_length = 100))] action: Query<Option<String>>,
        target: Query<Option<Uuid>>,
        #[oai(name = "targetId")] target_id: Query<Option<Uuid>>,
        #[oai(name = "targetType", validator(max_length = 50))] target_type: Query<Option<String>>,
        from: Query<Option<DateTime<Utc>>>,
        to: Query<Option<DateTime<Utc>>>,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
    ) -> Result<AuditExport, AuditError> {
        auth.0.require("exportAuditEvents")?;
        let f =
            filter(&state, &auth.0, enterprise_id.0, actor.0.or(actor_id.0), action.0, target.0.or(target_id.0), target_type.0, from.0, to.0, q.0)
                .await?;
        let entries = store::audit::list(&state.db, &f, MAX_EXPORT).await.map_err(AppError::from)?;
        let stamp = Utc::now().format("%Y%m%d-%H%M%S");
        let (bytes, content_type, name) = match format.0 {
            AuditFormat::Jsonl => {
                let mut out = Vec::with_capacity(entries.len() * 300);
                for e in &entries {
                    serde_json::to_writer(&mut out, e).map_err(|e| AppError::Unexpected(e.into()))?;
                    out.push(b'\n');
                }
                (out, format.0.media_type(), format!("audit-{stamp}.jsonl"))
            }
            AuditFormat::Csv => (csv_bytes(&entries).map_err(AppError::Unexpected)?, format.0.media_type(), format!("audit-{stamp}.csv")),
        };
        Ok(AuditExport::File(Binary(bytes), content_type.to_owned(), format!("attachment; filename=\"{name}\"")))
    }
}

fn csv_bytes(entries: &[EntryRecord]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "id",
        "at",
        "enterpriseId",
        "actorType",
        "actorId",
        "actorName",
        "action",
        "targetType",
        "targetId",
        "targetName",
        "ip",
        "place",
        "userAgent",
        "changes",
    ])?;
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let id = |v: &Option<Uuid>| v.map(|u| u.to_string()).unwrap_or_default();
    for e in entries {
        w.write_record([
            e.id.to_string(),
            e.at.to_rfc3339(),
            id(&e.enterprise_id),
            e.actor_type.clone(),
            id(&e.actor_id),
            // A cell a spreadsheet would run as a formula starts with a quote.
            crate::export::csv_safe(&text(&e.actor_name)),
            e.action.clone(),
            text(&e.target_type),
            id(&e.target_id),
            crate::export::csv_safe(&text(&e.target_name)),
            text(&e.ip),
            text(&e.place),
            crate::export::csv_safe(&text(&e.user_agent)),
            e.changes.to_string(),
        ])?;
    }
    Ok(w.into_inner()?)
}
