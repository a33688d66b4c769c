//! The HTTP API under /api/v1: one module per OpenAPI tag. Handlers are thin: parse, authorize,
//! call, map.

mod accounts;
mod api_tokens;
mod audit;
mod auth;
mod conditional;
mod dashboards;
mod departments;
mod document;
mod enterprises;
mod exports;
mod idempotency;
mod imports;
mod location;
mod managed;
mod messaging;
mod mfa;
mod monitoring;
mod parse_errors;
mod passkeys;
mod provisioning;
mod rate_limit;
mod raw_json;
mod reports;
mod scim;
mod spreadsheets;
mod sso;
mod types;
mod usage;
mod users;
mod webhooks;

use poem_openapi::{OpenApiService, Tags};

pub use conditional::conditional;
pub use document::spec_json;
pub use idempotency::once;
pub use location::locate;
pub use parse_errors::name_fields;
pub use rate_limit::limit;
pub use scim::{is_scim, scim_errors};
pub use types::User;

#[derive(Tags)]
pub enum ApiTags {
    /// Signing in and out, and who the caller is.
    Auth,
    /// One's second factor: an authenticator app, recovery codes and passkeys; signing in with
    /// a passkey.
    Security,
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
    /// Tokens for programs: personal access tokens and an enterprise's service credentials.
    Tokens,
    /// Webhooks: signed deliveries (Standard Webhooks) of an enterprise's events, at least once.
    Webhooks,
    /// The audit log: who did what, to what, when and from where.
    Audit,
    /// Provisioning (SCIM 2.0) at `/scim/v2`: an enterprise's identity provider keeps its
    /// department staff in step, with a service credential holding `scim:write`.
    Provisioning,
}

pub type Api = (
    (auth::AuthApi, accounts::AccountsApi, mfa::MfaApi, passkeys::PasskeysApi, sso::SsoApi, sso::SsoSignInApi),
    monitoring::OwnSessionsApi,
    (enterprises::EnterprisesApi, exports::ExportsApi, imports::ImportsApi, usage::UsageApi, provisioning::ProvisioningApi),
    departments::DepartmentsApi,
    users::UsersApi,
    reports::ReportsApi,
    dashboards::DashboardsApi,
    monitoring::MonitoringApi,
    messaging::MessagingKeysApi,
    messaging::ConversationsApi,
    messaging::MessagesApi,
    (spreadsheets::SpreadsheetsApi, api_tokens::ApiTokensApi, webhooks::WebhooksApi, audit::AuditApi, scim::ScimApi),
);

/// The API service; `base` is where it is mounted (written into the document's `servers`).
pub fn service() -> OpenApiService<Api, ()> {
    OpenApiService::new(Api::default(), "Enterprise Platform API", env!("CARGO_PKG_VERSION"))
        .description(
            "Multi-tenant enterprise management platform. Errors are RFC 9457 problem details \
         (`application/problem+json`) that also carry a stable `code`, a `message`, `fields` for \
         invalid input and the `requestId`. Lists are pages `{ items, total, page, pageSize }`. \
         Authenticate with `Authorization: Bearer <token>`: a person's session token from \
         `POST /auth/login`, or a program's token from `POST /api-tokens` (scoped; see each \
         operation's `ApiToken` scope). Every answer carries `RateLimit-Policy` and `RateLimit`; \
         a POST with `Idempotency-Key` is safe to retry; GETs carry an `ETag`. Read [the guide \
         for programs](/api/guide.md) first: tokens, scopes, errors, limits, retries, pages, \
         versions.\n\n\
         **Real time.** `GET /api/v1/ws` upgrades to a WebSocket (one per tab). Its first message, \
         within 5 s, is `{\"type\":\"auth\",\"token\":\"<token>\"}` (never put the token in the URL); the \
         server answers `{\"type\":\"ready\"}`, then sends events as JSON objects with a `type`: \
         `session.ended` (`sessionId`, `reason`; the socket then closes with code 4401, as it does for a \
         missing, bad or dead token), `monitoring.session_started` (`sessionId`, `userId`, \
         `enterpriseId`), `monitoring.session_updated` (`sessionId`, `enterpriseId`, `lastSeenAt`) and \
         `monitoring.session_ended` (`sessionId`, `enterpriseId`, `reason`) to the monitors whose scope \
         includes the session, once a second at most: past 20 in a second, one \
         `monitoring.sessions_changed` (`enterpriseId`, null for the admins' summary of the whole \
         platform; `started`, `updated`, `ended`: counts) instead, so a mass expiry is one message; and `report.status_changed` (`reportId`, `departmentId`, `title`, \
         `fromStatus`, `status`, `actorId`: who moved it) to the report's author, department head and CEO. The messenger's \
         events go to a conversation's members: `message.created` (`conversationId`, `messageId`, \
         `senderId`), `message.read` (`conversationId`, `userId`, `messageId`), \
         `conversation.changed` (`conversationId`: members, name, keys or the listener's archive \
         flag) and `conversation.typing` (`conversationId`, `userId`; never stored). \
         `own_sessions.changed` (`userId`) tells a person's sockets that one of their own sessions \
         started or ended (their \"Your sessions\" list changed; refetch it). \
         `webhook.disabled` (`webhookId`, `url`) tells a webhook's owner (the CEO, or the platform \
         admins) that it was turned off after failing for days. A client too slow \
         to read its events is closed with 4408; reconnect and refetch.",
        )
        .server("/api/v1")
}
