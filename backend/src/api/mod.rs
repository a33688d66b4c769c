//! The HTTP API under /api/v1: one module per OpenAPI tag. Handlers are thin: parse, authorize,
//! call, map.

mod auth;
mod dashboards;
mod departments;
mod enterprises;
mod managed;
mod messaging;
mod monitoring;
mod reports;
mod spreadsheets;
mod types;
mod users;

use poem_openapi::{OpenApiService, Tags};

pub use types::User;

#[derive(Tags)]
pub enum ApiTags {
    /// Signing in and out, and who the caller is.
    Auth,
    /// Tenants: each enterprise has its own schema, CEO and five departments.
    Enterprises,
    /// An enterprise's departments: heads and members.
    Departments,
    /// Accounts: the platform admin manages everyone, a CEO their department staff.
    Users,
    /// Department reports and the CEO's review: draft, submitted, reviewed, approved, rejected.
    Reports,
    /// What each role sees first: counts, pending work, time series.
    Dashboards,
    /// Live sessions: who is signed in, from where, on what; ending sessions.
    Monitoring,
    /// Department spreadsheets: the engine's workbooks, saved with optimistic concurrency;
    /// XLSX and CSV downloads, XLSX imports and report data evaluated by the server.
    Spreadsheets,
    /// The end-to-end encrypted messenger: public keys, conversations, key epochs, messages.
    /// The server stores ciphertext, nonces, signatures and wrapped keys only.
    Messaging,
}

pub type Api = (
    auth::AuthApi,
    monitoring::OwnSessionsApi,
    enterprises::EnterprisesApi,
    departments::DepartmentsApi,
    users::UsersApi,
    reports::ReportsApi,
    dashboards::DashboardsApi,
    monitoring::MonitoringApi,
    messaging::MessagingKeysApi,
    messaging::ConversationsApi,
    messaging::MessagesApi,
    spreadsheets::SpreadsheetsApi,
);

/// The API service; `base` is where it is mounted (written into the document's `servers`).
pub fn service() -> OpenApiService<Api, ()> {
    OpenApiService::new(Api::default(), "Enterprise Platform API", env!("CARGO_PKG_VERSION"))
        .description(
            "Multi-tenant enterprise management platform. Every error is `{ code, message, fields? }` \
         with a stable `code`. Lists are pages `{ items, total, page, pageSize }`. Authenticate \
         with `Authorization: Bearer <token>` from `POST /auth/login`.\n\n\
         **Real time.** `GET /api/v1/ws` upgrades to a WebSocket (one per tab). Its first message, \
         within 5 s, is `{\"type\":\"auth\",\"token\":\"<token>\"}` (never put the token in the URL); the \
         server answers `{\"type\":\"ready\"}`, then sends events as JSON objects with a `type`: \
         `session.ended` (`sessionId`, `reason`; the socket then closes with code 4401, as it does for a \
         missing, bad or dead token), `monitoring.session_started` (`sessionId`, `userId`, \
         `enterpriseId`), `monitoring.session_updated` (`sessionId`, `enterpriseId`, `lastSeenAt`) and \
         `monitoring.session_ended` (`sessionId`, `enterpriseId`, `reason`) to the monitors whose scope \
         includes the session, and `report.status_changed` (`reportId`, `departmentId`, `title`, \
         `fromStatus`, `status`, `actorId`: who moved it) to the report's author, department head and CEO. The messenger's \
         events go to a conversation's members: `message.created` (`conversationId`, `messageId`, \
         `senderId`), `message.read` (`conversationId`, `userId`, `messageId`), \
         `conversation.changed` (`conversationId`: members, name, keys or the listener's archive \
         flag) and `conversation.typing` (`conversationId`, `userId`; never stored). A client too slow \
         to read its events is closed with 4408; reconnect and refetch.",
        )
        .server("/api/v1")
}

/// The OpenAPI document as served and committed in `openapi.json`: poem-openapi's, plus what it
/// cannot say itself: the statuses every operation with a body can answer before it runs (413
/// over `MAX_BODY_BYTES`, 415 without a JSON `Content-Type`), which poem raises itself, and the
/// media types of report and spreadsheet downloads (poem-openapi declares an attachment as one
/// type).
pub fn spec_json() -> String {
    let mut spec: serde_json::Value = serde_json::from_str(&service().spec()).expect("poem-openapi writes JSON");
    let error = |description: &str| {
        serde_json::json!({
            "description": description,
            "content": { "application/json; charset=utf-8": { "schema": { "$ref": "#/components/schemas/ApiError" } } }
        })
    };
    for operation in spec["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .flat_map(|p| p.as_object_mut().into_iter().flat_map(|p| p.values_mut()))
    {
        let downloads: &[&str] = match operation["operationId"].as_str() {
            Some("exportReport") => &reports::ExportFormat::ALL.map(reports::ExportFormat::media_type),
            Some("exportSpreadsheet") => &spreadsheets::SheetFormat::ALL.map(spreadsheets::SheetFormat::media_type),
            _ => &[],
        };
        if !downloads.is_empty() {
            let files: serde_json::Map<String, serde_json::Value> =
                downloads.iter().map(|m| ((*m).to_owned(), serde_json::json!({ "schema": { "type": "string", "format": "binary" } }))).collect();
            operation["responses"]["200"]["content"] = serde_json::Value::Object(files);
        }
        if operation.get("requestBody").is_none() {
            continue;
        }
        let responses = operation["responses"].as_object_mut().expect("every operation has responses");
        responses.entry("413").or_insert_with(|| error("The body is larger than the server accepts (`payload_too_large`)."));
        responses.entry("415").or_insert_with(|| error("The body is not sent as `application/json` (`unsupported_media_type`)."));
        responses.sort_keys();
    }
    let mut json = serde_json::to_string_pretty(&spec).expect("a JSON value serializes");
    json.push('\n');
    json
}
