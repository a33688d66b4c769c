//! Who may do what, written out. Every operation of the served openapi.json is called by eleven
//! kinds of caller and must answer what one literal line of `TABLE` says. The table is a second
//! opinion on the server's own (`backend/src/auth/permissions.rs`, which `require` reads): it is
//! written from the product's rules (SPEC.md's roles, docs/architecture.md, the operations'
//! descriptions in openapi.json) and never read from the server, so a change of who may do what
//! fails here until this file is changed too, on purpose. An operation without a line here, or
//! without a request in `World::request`, fails the test; so does a line for an operation the
//! server no longer serves.
//!
//! Every call is about tenant Alpha's finance department and what it holds (its report, its
//! spreadsheet, its group chat, its member...). Operations about the caller themselves (signing
//! out, my sessions, my keys and backup, whom I may message, my conversations, my unread count,
//! the CEO's dashboard) act on the caller's own, and their answer must name the caller's realm
//! and nothing of another tenant's. An allowed cell proves the answer is the right one
//! (`World::check`): the body names what was asked for, a list holds only what the caller may see,
//! a change is seen afterwards.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use backend::domain::Role;
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::database::test_database;
use crate::{
    helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp},
    messaging::{backup_body, epoch_body, group as conversation, keys_body, message_body, send, start_epoch},
    spreadsheets::{import, xlsx},
};

/// Fails a check (`World::check`) with a message.
macro_rules! ensure {
    ($cond:expr, $($message:tt)+) => {
        if !$cond {
            return Err(format!($($message)+));
        }
    };
}

/// What one caller gets from one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    /// 2xx, and the right answer (`World::check`).
    A,
    /// 403: the caller's role may never do this, whatever the ids.
    F,
    /// 404: the target does not exist for this caller (another tenant's, another department's,
    /// a conversation they are not in, another realm's person).
    H,
    /// 401: no live session.
    U,
}

use Cell::{A, F, H, U};

/// The columns of `TABLE`, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// The platform admin (their messenger realm is the platform's).
    Admin,
    /// Alpha's CEO.
    Ceo,
    /// The head of Alpha's finance department.
    Head,
    /// A user of Alpha's finance department.
    User,
    /// No `Authorization` header.
    NoToken,
    /// The token of a session that has ended (Alpha's finance user signed out).
    DeadToken,
    /// Beta's CEO: another tenant.
    OtherCeo,
    /// The head of Beta's finance department.
    OtherHead,
    /// A user of Beta's finance department.
    OtherUser,
    /// The head of Alpha's operations department: the same enterprise, another department.
    OpsHead,
    /// A user of Alpha's operations department.
    OpsUser,
}

use Caller::{Admin, Ceo, DeadToken, Head, NoToken, OpsHead, OpsUser, OtherCeo, OtherHead, OtherUser, User};

/// What a program's token (`POST /api-tokens`, or an enterprise's service credential) needs to
/// make a call that its person may make: the last column of `TABLE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Program {
    /// No token may call it, whatever its scopes: it is for a person signed in (a session).
    Never,
    /// A token holding this scope (or the area's `write` for a `read`).
    S(&'static str),
    /// A person's token holding this scope ("": any of a person's tokens); never an enterprise's
    /// service credential, which has no person behind it.
    P(&'static str),
}

use Program::{P, S};
const NEVER: Program = Program::Never;

/// Every scope a token may hold (docs/api.md: `<area>:read` and `<area>:write`).
const ALL_SCOPES: [&str; 18] = [
    "enterprises:read",
    "enterprises:write",
    "users:read",
    "users:write",
    "reports:read",
    "reports:write",
    "dashboards:read",
    "dashboards:write",
    "monitoring:read",
    "monitoring:write",
    "spreadsheets:read",
    "spreadsheets:write",
    "audit:read",
    "audit:write",
    "webhooks:read",
    "webhooks:write",
    "scim:read",
    "scim:write",
];

const CALLERS: [Caller; 11] = [Admin, Ceo, Head, User, NoToken, DeadToken, OtherCeo, OtherHead, OtherUser, OpsHead, OpsUser];

/// Single sign-on settings for Alpha, with the test provider (scripts/oidc/start.sh).
fn sso_settings() -> Value {
    let issuer = std::env::var("OIDC_ISSUER").expect("OIDC_ISSUER: start the test provider (source scripts/oidc/start.sh)");
    json!({ "issuer": issuer, "clientId": "platform", "clientSecret": "platform-secret", "domains": ["alpha-sso.example"], "provisioning": "just_in_time" })
}

/// Operations anyone may call, signed in or not.
const PUBLIC: &[&str] = &[
    "login",
    "verifyLogin",
    "startLoginTotpEnrollment",
    "startPasskeySignIn",
    "finishPasskeySignIn",
    "discoverSso",
    "startSsoSignIn",
    "finishSsoSignIn",
    "backchannelLogout",
    "requestPasswordReset",
    "checkPasswordReset",
    "confirmPasswordReset",
    "checkInvitation",
    "acceptInvitation",
];

/// Who may do what, on tenant Alpha's finance department (see the module's comment).
///
/// Columns: admin | Alpha's CEO, finance head, finance user | no token, dead token |
/// Beta's CEO, finance head, finance user (another tenant) | Alpha's operations head and user
/// (another department of the same enterprise).
/// A = 2xx and the right answer, F = 403, H = 404, U = 401. The last column: what a program's
/// token needs (`Program`), walked by `every_operation_asks_a_program_s_token_for_its_scope`.
#[rustfmt::skip]
const TABLE: &[(&str, [Cell; 11], Program)] = &[
    //                             admin  ceo head user  none dead  B:ceo head user  ops:head user  a program's token
    // Signing in and out, and one's own sessions: every user ends only their own.
    ("logout",                    [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("getMe",                     [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], P("")),
    ("listMySessions",            [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("logoutMySession",           [A,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    // One's own profile and password: everyone their own.
    ("updateMe",                  [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("changeMyPassword",          [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    // One's own second factor: everyone their own (a program's token never).
    ("getMfaStatus",              [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("startTotpEnrollment",       [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("confirmTotpEnrollment",     [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("disableTotp",               [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("regenerateRecoveryCodes",   [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    // One's own passkeys: everyone theirs (a program's token never).
    ("listPasskeys",              [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("startPasskeyRegistration",  [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("finishPasskeyRegistration", [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("renamePasskey",             [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("deletePasskey",             [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    // Someone else's second factor, reset as users are managed: the admin anyone's, a CEO their
    // own enterprise's staff.
    ("resetUserMfa",              [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    // Provisioning (SCIM): an enterprise's, its CEO's (or their service credential's); the
    // platform has none. Another enterprise's CEO reaches their own people only.
    ("getScimServiceProviderConfig", [F,  A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("listScimSchemas",           [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("getScimSchema",             [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("listScimResourceTypes",     [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("getScimResourceType",       [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("listScimUsers",             [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("searchScimUsers",           [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("searchScim",                [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:read")),
    ("createScimUser",            [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("scim:write")),
    ("getScimUser",               [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:read")),
    ("replaceScimUser",           [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:write")),
    ("patchScimUser",             [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:write")),
    ("deleteScimUser",            [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:write")),
    // Second-factor policies: the platform's is the admin's; an enterprise's its CEO's and the admin's.
    ("getPlatformSecurityPolicy", [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], NEVER),
    ("updatePlatformSecurityPolicy", [A,  F,  F,   F,    U,   U,    F,     F,   F,     F,    F], NEVER),
    ("getEnterpriseSecurityPolicy", [A,   A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("updateEnterpriseSecurityPolicy", [A, A, F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    // Single sign-on: an enterprise's, its CEO's and the admin's.
    ("getEnterpriseSso",          [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("updateEnterpriseSso",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("deleteEnterpriseSso",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("listSsoDomains",            [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("addSsoDomain",              [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("verifySsoDomain",           [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("deleteSsoDomain",           [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    // Enterprises: the admin's; a CEO reads their own and its users, reports and departments.
    ("listEnterprises",           [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:read")),
    ("createEnterprise",          [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("getEnterprise",             [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    ("updateEnterprise",          [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("deleteEnterprise",          [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("restoreEnterprise",         [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("purgeEnterprise",           [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    // An enterprise's export: the admin any, a CEO their own.
    ("createEnterpriseExport",    [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:write")),
    ("listEnterpriseExports",     [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    ("getEnterpriseExport",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    ("downloadEnterpriseExport",  [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    // Importing an enterprise from its archive: the admin's.
    ("importEnterprise",          [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("listEnterpriseImports",     [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:read")),
    ("getEnterpriseImport",       [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:read")),
    // Usage: the admin any, a CEO their own; limits are the admin's.
    ("getEnterpriseUsage",        [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    ("setEnterpriseLimits",       [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:write")),
    ("listEnterpriseUsage",       [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("enterprises:read")),
    // What the enterprise's directory deleting someone does: its CEO's and the admin's.
    ("getEnterpriseProvisioning", [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:read")),
    ("updateEnterpriseProvisioning", [A,  A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("scim:write")),
    ("listEnterpriseUsers",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:read")),
    ("listEnterpriseReports",     [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("reports:read")),
    // Departments: managed by the admin and the CEO; staff read their own department only.
    ("listEnterpriseDepartments", [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:read")),
    ("getDepartment",             [A,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("enterprises:read")),
    ("updateDepartment",          [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:write")),
    ("assignDepartmentUser",      [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:write")),
    ("removeDepartmentUser",      [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("enterprises:write")),
    // Users: the admin everyone; a CEO their own enterprise's department staff.
    ("createUser",                [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:write")),
    ("listUsers",                 [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:read")),
    ("getUser",                   [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:read")),
    ("updateUser",                [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:write")),
    ("deleteUser",                [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:write")),
    ("eraseUser",                 [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:write")),
    ("resendInvitation",          [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("users:write")),
    // Reports: staff write in their own department (the author or its head edits and deletes a
    // draft); the CEO reviews; the CEO and the admin read all but drafts.
    ("createDepartmentReport",    [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("reports:write")),
    ("listDepartmentReports",     [A,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("reports:read")),
    ("getReport",                 [A,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("reports:read")),
    ("updateReport",              [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("reports:write")),
    ("deleteReport",              [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("reports:write")),
    ("reviewReport",              [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], P("reports:write")),
    ("exportReport",              [A,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("reports:read")),
    // Dashboards: the CEO's (each CEO sees their own enterprise) and the admin's.
    ("getCeoDashboard",           [F,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("dashboards:read")),
    ("listCeoReports",            [F,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("reports:read")),
    ("getAdminDashboard",         [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("dashboards:read")),
    ("getAdminStatistics",        [A,     F,  F,   F,    U,   U,    F,     F,   F,     F,    F], S("dashboards:read")),
    // Monitoring: the admin every session, a CEO their enterprise's, staff none; everyone's
    // tab sends heartbeats.
    ("listSessions",              [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("monitoring:read")),
    ("listMonitoringPlaces",      [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("monitoring:read")),
    ("listUserActivity",          [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("monitoring:read")),
    ("logoutSession",             [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("monitoring:write")),
    ("logoutOtherSessions",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("monitoring:write")),
    ("recordActivity",            [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    // Messaging: everyone, inside their realm (their enterprise; the admins': the platform). A
    // conversation exists only for its members; another realm's people are 404.
    ("registerMessagingKeys",     [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("getMessagingKeys",          [H,     A,  A,   A,    U,   U,    H,     H,   H,     A,    A], NEVER),
    ("getMessagingSetup",         [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("getMessagingBackup",        [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("putMessagingBackup",        [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("listMessagingUsers",        [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("createConversation",        [H,     A,  A,   A,    U,   U,    H,     H,   H,     A,    A], NEVER),
    ("createGroupChat",           [H,     A,  A,   A,    U,   U,    H,     H,   H,     A,    A], NEVER),
    ("listConversations",         [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("getUnreadTotal",            [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("getConversation",           [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("updateConversation",        [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("archiveConversation",       [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("unarchiveConversation",     [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("addConversationMembers",    [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("removeConversationMember",  [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("listConversationKeys",      [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("createConversationEpoch",   [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("sendMessage",               [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("listMessages",              [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("markMessageRead",           [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("sendTyping",                [H,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    // Spreadsheets: staff work in their own department; the CEO reads their enterprise's; the
    // admin never.
    ("listSpreadsheets",          [F,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("spreadsheets:read")),
    ("createSpreadsheet",         [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("spreadsheets:write")),
    ("importSpreadsheet",         [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("spreadsheets:write")),
    ("getSpreadsheet",            [F,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("spreadsheets:read")),
    ("saveSpreadsheet",           [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("spreadsheets:write")),
    ("deleteSpreadsheet",         [F,     F,  A,   A,    U,   U,    F,     H,   H,     H,    H], S("spreadsheets:write")),
    ("exportSpreadsheet",         [F,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("spreadsheets:read")),
    ("getSpreadsheetRange",       [F,     A,  A,   A,    U,   U,    H,     H,   H,     H,    H], S("spreadsheets:read")),
    // Tokens for programs: everyone their own personal tokens (another's is 404, even to the
    // admin); an enterprise's service credentials its CEO and the admin.
    ("createApiToken",            [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("listApiTokens",             [A,     A,  A,   A,    U,   U,    A,     A,   A,     A,    A], NEVER),
    ("deleteApiToken",            [H,     H,  H,   A,    U,   U,    H,     H,   H,     H,    H], NEVER),
    ("createServiceToken",        [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("listServiceTokens",         [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    ("deleteServiceToken",        [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], NEVER),
    // Webhooks: a CEO their enterprise's, the admin the platform's (and any by id).
    ("createWebhook",             [A,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("webhooks:write")),
    ("listWebhooks",              [A,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("webhooks:read")),
    ("getWebhookUrlRules",        [A,     A,  F,   F,    U,   U,    A,     F,   F,     F,    F], S("webhooks:read")),
    ("getWebhook",                [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:read")),
    ("updateWebhook",             [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:write")),
    ("deleteWebhook",             [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:write")),
    ("rotateWebhookSecret",       [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:write")),
    ("sendWebhookTestEvent",      [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:write")),
    ("listWebhookDeliveries",     [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:read")),
    ("redeliverWebhookDelivery",  [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("webhooks:write")),
    // The audit log: a CEO their enterprise's (asking for another's is 404), the admin all.
    ("listAuditEvents",           [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("audit:read")),
    ("exportAuditEvents",         [A,     A,  F,   F,    U,   U,    H,     F,   F,     F,    F], S("audit:read")),
];

const PASSWORD: &str = "staff-password";

/// Someone signed in.
struct Person {
    id: String,
    email: String,
    password: &'static str,
    token: String,
}

impl Person {
    async fn sign_in(app: &TestApp, id: String, email: String, password: &'static str) -> Self {
        let token = app.token(&email, password).await;
        Self { id, email, password, token }
    }
}

/// One enterprise with its CEO, the head and a user of finance, and what they made.
struct Tenant {
    id: String,
    /// "Alpha", "Beta": also in the report's title and the spreadsheet's first cell.
    name: String,
    ceo: Person,
    head: Person,
    user: Person,
    /// A finance user nobody's token depends on (reads of a user, sessions to end).
    member: String,
    finance: String,
    /// A submitted report of finance, titled "<name> finance Q1".
    submitted: String,
    /// A draft of finance, which only its staff see.
    draft: String,
    /// A group of the CEO (its creator), the head, the user and the member whose members change.
    group: String,
    /// A group of the same four with its first key epoch and `message`, from the CEO.
    chat: String,
    /// The ids of the member, the head and the user (the CEO's groups hold them).
    people: [String; 3],
    message: String,
    /// A spreadsheet of finance, "<name> ledger", whose A1 reads "<name> finance".
    sheet: String,
}

impl Tenant {
    fn slug(&self) -> String {
        self.name.to_lowercase()
    }
}

/// What one call sends.
struct Call {
    method: Method,
    path: String,
    body: Body,
    /// Sent instead of the caller's usual token (signing out ends a session of its own).
    token: Option<String>,
    /// What the check compares with: a target made for this call, a name or salt sent, a token
    /// whose session the call ends.
    target: String,
    /// A second such value.
    spare: String,
}

enum Body {
    None,
    Json(Value),
    /// A multipart upload of this XLSX file, as `file`.
    Xlsx(Vec<u8>),
    /// A multipart upload of this enterprise archive, as `archive`.
    Archive(Vec<u8>),
}

impl Call {
    fn new(method: Method, path: impl Into<String>) -> Self {
        Self { method, path: path.into(), body: Body::None, token: None, target: String::new(), spare: String::new() }
    }

    fn json(mut self, body: Value) -> Self {
        self.body = Body::Json(body);
        self
    }

    fn target(mut self, target: impl Into<String>) -> Self {
        self.target = target.into();
        self
    }

    fn spare(mut self, spare: impl Into<String>) -> Self {
        self.spare = spare.into();
        self
    }

    fn token(mut self, token: String) -> Self {
        self.token = Some(token);
        self
    }
}

fn get(path: impl Into<String>) -> Call {
    Call::new(Method::GET, path)
}

fn post(path: impl Into<String>) -> Call {
    Call::new(Method::POST, path)
}

fn put(path: impl Into<String>) -> Call {
    Call::new(Method::PUT, path)
}

fn delete(path: impl Into<String>) -> Call {
    Call::new(Method::DELETE, path)
}

fn patch(path: impl Into<String>) -> Call {
    Call::new(Method::PATCH, path)
}

/// What one call answered.
struct Reply {
    status: u16,
    /// The JSON body, or null.
    body: Value,
    text: String,
    disposition: String,
}

struct World {
    app: TestApp,
    admin: Person,
    /// Another platform admin: the admin's realm has someone to message.
    second_admin: String,
    /// A group of the two admins.
    admin_chat: String,
    a: Tenant,
    b: Tenant,
    ops_head: Person,
    ops_user: Person,
    /// A token of Alpha's finance user whose session has ended.
    dead: String,
    counter: AtomicU32,
    calls: AtomicU32,
}

impl World {
    async fn new(db: PgPool) -> Self {
        let app = TestApp::spawn(db).await;
        let admin_id = app.admin().await.to_string();
        let admin = Person::sign_in(&app, admin_id, ADMIN_EMAIL.into(), ADMIN_PASSWORD).await;
        let second_admin = app.create_user(Role::PlatformAdmin, "second-admin@example.com", ADMIN_PASSWORD).await.to_string();
        let a = Self::tenant(&app, &admin.token, "Alpha").await;
        let b = Self::tenant(&app, &admin.token, "Beta").await;

        // Alpha's operations department, its head (named as such) and a user.
        let operations = app.department(&a.ceo.token, &a.id, "operations").await;
        let ops_head_id = app.staff(&a.ceo.token, &a.id, "opshead@alpha.example", "DepartmentHead", Some(&operations)).await;
        let (status, body) =
            app.put(&a.ceo.token, &format!("/api/v1/enterprises/{}/departments/{operations}", a.id), json!({ "headId": ops_head_id })).await;
        assert_eq!(status, 200, "{body}");
        let ops_user_id = app.staff(&a.ceo.token, &a.id, "opsuser@alpha.example", "DepartmentUser", Some(&operations)).await;
        let ops_head = Person::sign_in(&app, ops_head_id, "opshead@alpha.example".into(), PASSWORD).await;
        let ops_user = Person::sign_in(&app, ops_user_id, "opsuser@alpha.example".into(), PASSWORD).await;

        let second_token = app.token("second-admin@example.com", ADMIN_PASSWORD).await;
        for token in [&admin.token, &second_token] {
            let (status, body) = app.post(token, "/api/v1/messaging/keys", keys_body()).await;
            assert_eq!(status, 201, "{body}");
        }
        let admin_chat = conversation(&app, &admin.token, "Admins", std::slice::from_ref(&second_admin)).await;

        let dead = app.token(&a.user.email, PASSWORD).await;
        assert_eq!(app.logout(&dead).await.status(), 204);
        World { app, admin, second_admin, admin_chat, a, b, ops_head, ops_user, dead, counter: AtomicU32::new(0), calls: AtomicU32::new(0) }
    }

    async fn tenant(app: &TestApp, admin: &str, name: &str) -> Tenant {
        let slug = name.to_lowercase();
        let (id, ceo_token) = app.enterprise(admin, name).await;
        let (_, me) = app.get(&ceo_token, "/api/v1/auth/me").await;
        let ceo =
            Person { id: me["id"].as_str().unwrap().to_owned(), email: format!("ceo@{slug}.example"), password: "ceo-password", token: ceo_token };
        let finance = app.department(&ceo.token, &id, "finance").await;
        let head_id = app.staff(&ceo.token, &id, &format!("head@{slug}.example"), "DepartmentHead", Some(&finance)).await;
        let (status, body) = app.put(&ceo.token, &format!("/api/v1/enterprises/{id}/departments/{finance}"), json!({ "headId": head_id })).await;
        assert_eq!(status, 200, "{body}");
        let user_id = app.staff(&ceo.token, &id, &format!("user@{slug}.example"), "DepartmentUser", Some(&finance)).await;
        let member = app.staff(&ceo.token, &id, &format!("member@{slug}.example"), "DepartmentUser", Some(&finance)).await;
        let head = Person::sign_in(app, head_id, format!("head@{slug}.example"), PASSWORD).await;
        let user = Person::sign_in(app, user_id, format!("user@{slug}.example"), PASSWORD).await;
        let submitted = report(app, &user.token, &finance, &format!("{name} finance Q1"), "submitted").await;
        let draft = report(app, &user.token, &finance, "Draft", "draft").await;

        let member_token = app.token(&format!("member@{slug}.example"), PASSWORD).await;
        for token in [&ceo.token, &head.token, &user.token, &member_token] {
            let (status, body) = app.post(token, "/api/v1/messaging/keys", keys_body()).await;
            assert_eq!(status, 201, "{body}");
        }
        let people = [member.clone(), head.id.clone(), user.id.clone()];
        let group = conversation(app, &ceo.token, "Group", &people).await;
        let chat = conversation(app, &ceo.token, "Chat", &people).await;
        start_epoch(app, &ceo.token, &chat, 1).await;
        let message = send(app, &ceo.token, &chat, 1).await;

        let (first_cell, sheet_name) = (format!("{name} finance"), format!("{name} ledger"));
        let file = xlsx(&[(1, 1, first_cell.as_str()), (1, 2, "Total"), (2, 1, "Q1"), (2, 2, "42")]);
        let (status, body) = import(app, &user.token, &finance, file, Some(sheet_name.as_str())).await;
        assert_eq!(status, 201, "{body}");
        let sheet = body["id"].as_str().unwrap().to_owned();
        Tenant { id, name: name.to_owned(), ceo, head, user, member, finance, submitted, draft, group, chat, people, message, sheet }
    }

    fn unique(&self) -> u32 {
        self.counter.fetch_add(1, Relaxed)
    }

    /// Who signs the call (without a token, or with a dead one, the request is Alpha's user's).
    fn person(&self, who: Caller) -> &Person {
        match who {
            Admin => &self.admin,
            Ceo => &self.a.ceo,
            Head => &self.a.head,
            User | NoToken | DeadToken => &self.a.user,
            OtherCeo => &self.b.ceo,
            OtherHead => &self.b.head,
            OtherUser => &self.b.user,
            OpsHead => &self.ops_head,
            OpsUser => &self.ops_user,
        }
    }

    /// The caller's enterprise; none for the admin.
    fn home(&self, who: Caller) -> Option<&Tenant> {
        match who {
            Admin => None,
            OtherCeo | OtherHead | OtherUser => Some(&self.b),
            _ => Some(&self.a),
        }
    }

    /// The ids of a tenant's people (Alpha's include its operations staff).
    fn people(&self, t: &Tenant) -> Vec<String> {
        let mut ids = vec![t.ceo.id.clone(), t.head.id.clone(), t.user.id.clone(), t.member.clone()];
        if std::ptr::eq(t, &self.a) {
            ids.extend([self.ops_head.id.clone(), self.ops_user.id.clone()]);
        }
        ids
    }

    /// A fresh department user of Alpha, in finance or in no department.
    async fn fresh_staff(&self, in_finance: bool) -> String {
        let a = &self.a;
        let email = format!("fresh{}@alpha.example", self.unique());
        self.app.staff(&a.ceo.token, &a.id, &email, "DepartmentUser", in_finance.then_some(a.finance.as_str())).await
    }

    /// A fresh session of Alpha's member: its token.
    async fn member_session(&self) -> String {
        self.app.token(&format!("member@{}.example", self.a.slug()), PASSWORD).await
    }

    /// Starts setting up an authenticator for the session's person: its first code (pyotp).
    async fn start_totp(&self, token: &str) -> String {
        let (status, setup) = self.app.post(token, "/api/v1/auth/mfa/totp", json!({})).await;
        assert_eq!(status, 200, "{setup}");
        crate::mfa::code_at(setup["secret"].as_str().unwrap(), 0)
    }

    /// Turns an authenticator on for the session's person.
    async fn enrol(&self, token: &str) {
        let code = self.start_totp(token).await;
        let (status, body) = self.app.post(token, "/api/v1/auth/mfa/totp/confirm", json!({ "code": code })).await;
        assert_eq!(status, 200, "{body}");
    }

    /// Registers a passkey for the session's person: its id.
    async fn passkey(&self, token: &str) -> String {
        let name = format!("Key {}", self.unique());
        crate::passkeys::register(&self.app, token, &name).await.1["id"].as_str().unwrap().to_owned()
    }

    /// The ids of the session's person's passkeys.
    async fn passkeys(&self, token: &str) -> Vec<String> {
        let (status, body) = self.get(token, "/api/v1/auth/webauthn/credentials").await;
        assert_eq!(status, 200, "{body}");
        body.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_owned()).collect()
    }

    /// Removes a passkey of the session's person again.
    async fn drop_passkey(&self, token: &str, id: &str) -> bool {
        self.calls.fetch_add(1, Relaxed);
        self.app.delete(token, &format!("/api/v1/auth/webauthn/credentials/{id}")).await.0 == 204
    }

    /// Whether the session's person has an authenticator on.
    async fn totp_on(&self, token: &str) -> bool {
        let (status, body) = self.get(token, "/api/v1/auth/mfa").await;
        assert_eq!(status, 200, "{body}");
        body["totpEnabled"] == true
    }

    /// Turns the person's authenticator off again (the walk's people sign in with a password).
    async fn turn_off(&self, me: &Person) -> bool {
        self.calls.fetch_add(1, Relaxed);
        let resp = self
            .app
            .http
            .delete(self.app.url("/api/v1/auth/mfa/totp"))
            .bearer_auth(&me.token)
            .json(&json!({ "password": me.password }))
            .send()
            .await
            .unwrap();
        resp.status() == 204
    }

    fn session_of(&self, token: &str) -> String {
        backend::auth::token::TokenKeys::new(&self.app.config.jwt_secret).verify(token).expect("a token we signed").sid.to_string()
    }

    /// A spare enterprise, to delete.
    async fn spare_enterprise(&self) -> String {
        let n = self.unique();
        let body =
            json!({ "name": format!("Spare {n}"), "ceoFullName": "C", "ceoEmail": format!("ceo{n}@spare.example"), "ceoPassword": "ceo-password" });
        let (status, body) = self.app.post(&self.admin.token, "/api/v1/enterprises", body).await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    /// An export of Alpha that is ready to download (asked for by the admin, waited for).
    async fn ready_export(&self) -> String {
        let ent = &self.a.id;
        let (_, listed) = self.app.get(&self.admin.token, &format!("/api/v1/enterprises/{ent}/exports")).await;
        if let Some(ready) = listed.as_array().and_then(|l| l.iter().find(|e| e["status"] == "ready")) {
            return ready["id"].as_str().unwrap().to_owned();
        }
        let (status, export) = self.app.post(&self.admin.token, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await;
        assert_eq!(status, 202, "{export}");
        let path = format!("/api/v1/enterprises/{ent}/exports/{}", export["id"].as_str().unwrap());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let (_, export) = self.app.get(&self.admin.token, &path).await;
            match export["status"].as_str() {
                Some("ready") => return export["id"].as_str().unwrap().to_owned(),
                Some("queued" | "running") => {}
                _ => panic!("Alpha's export did not become ready: {export}"),
            }
            assert!(std::time::Instant::now() < deadline, "Alpha's export never became ready: {export}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// An import that is ready (made by the admin from a small archive, waited for).
    async fn ready_import(&self) -> String {
        let (_, listed) = self.app.get(&self.admin.token, "/api/v1/enterprises/imports").await;
        if let Some(ready) = listed.as_array().and_then(|l| l.iter().find(|i| i["status"] == "ready")) {
            return ready["id"].as_str().unwrap().to_owned();
        }
        let archive = crate::enterprise_import::small_archive(&format!("Imported {}", self.unique()));
        let (status, import) = crate::enterprise_import::upload(&self.app, &self.admin.token, archive, Some(false)).await;
        assert_eq!(status, 202, "{import}");
        let (_, done) = crate::enterprise_import::finished(&self.app, &self.admin.token, import["id"].as_str().unwrap()).await;
        assert_eq!(done["status"], "ready", "{done}");
        done["id"].as_str().unwrap().to_owned()
    }

    /// A spare enterprise whose deletion is scheduled: its id and name.
    async fn scheduled_spare(&self) -> (String, String) {
        let id = self.spare_enterprise().await;
        let (status, body) = self.app.delete(&self.admin.token, &format!("/api/v1/enterprises/{id}")).await;
        assert_eq!(status, 202, "{body}");
        let (_, detail) = self.app.get(&self.admin.token, &format!("/api/v1/enterprises/{id}")).await;
        (id, detail["name"].as_str().unwrap().to_owned())
    }

    /// One call of `operation` by `who`, on Alpha's finance department (or the caller's own, for
    /// operations about the caller). Operations that change or remove something get a target of
    /// their own, made for each call whatever its expected answer.
    async fn request(&self, operation: &str, who: Caller) -> Call {
        let t = &self.a;
        let me = self.person(who);
        let (ent, dept) = (&t.id, &t.finance);
        // Alpha's finance people, members of its group and chat.
        let insider = matches!(who, Ceo | Head | User | NoToken | DeadToken);
        // The platform admin names the enterprise of a report; tenant callers have theirs in the token.
        let hint = |sep: char| if who == Admin { format!("{sep}enterpriseId={ent}") } else { String::new() };
        match operation {
            "logout" => post("/api/v1/auth/logout").token(self.app.token(&me.email, me.password).await),
            "getMe" => get("/api/v1/auth/me"),
            "updateMe" => put("/api/v1/auth/me").json(json!({ "notifications": { "invitations": false } })),
            // The same password again: the walk's people keep theirs; their other sessions end.
            "changeMyPassword" => put("/api/v1/auth/me/password").json(json!({ "currentPassword": me.password, "newPassword": me.password })),
            "listMySessions" => get("/api/v1/auth/sessions?pageSize=100"),
            "getMfaStatus" => get("/api/v1/auth/mfa"),
            "startTotpEnrollment" => post("/api/v1/auth/mfa/totp").json(json!({})),
            "confirmTotpEnrollment" => {
                // A set-up of the caller's own, confirmed by its first code (the check turns it off again).
                let code = if matches!(who, NoToken | DeadToken) { "000000".to_owned() } else { self.start_totp(&me.token).await };
                post("/api/v1/auth/mfa/totp/confirm").json(json!({ "code": code }))
            }
            "disableTotp" | "regenerateRecoveryCodes" => {
                if !matches!(who, NoToken | DeadToken) {
                    self.enrol(&me.token).await;
                }
                let body = json!({ "password": me.password });
                if operation == "disableTotp" {
                    delete("/api/v1/auth/mfa/totp").json(body)
                } else {
                    post("/api/v1/auth/mfa/recovery-codes").json(body)
                }
            }
            // Passkeys: the caller's own, registered by a software authenticator for each call
            // (the check removes it again: the walk's people sign in with a password alone).
            "listPasskeys" | "renamePasskey" | "deletePasskey" => {
                let id = if matches!(who, NoToken | DeadToken) { uuid::Uuid::new_v4().to_string() } else { self.passkey(&me.token).await };
                match operation {
                    "listPasskeys" => get("/api/v1/auth/webauthn/credentials"),
                    "renamePasskey" => put(format!("/api/v1/auth/webauthn/credentials/{id}")).json(json!({ "name": "Renamed" })),
                    _ => delete(format!("/api/v1/auth/webauthn/credentials/{id}")),
                }
                .target(id)
            }
            "startPasskeyRegistration" => post("/api/v1/auth/webauthn/registration/options").json(json!({})),
            "finishPasskeyRegistration" => {
                let credential = if matches!(who, NoToken | DeadToken) {
                    json!({})
                } else {
                    crate::passkeys::registration_answer(&self.app, &me.token).await["credential"].clone()
                };
                let name = format!("Key {}", self.unique());
                post("/api/v1/auth/webauthn/registration").json(json!({ "name": name, "credential": credential })).target(name)
            }
            "getPlatformSecurityPolicy" => get("/api/v1/platform/security-policy"),
            "updatePlatformSecurityPolicy" => put("/api/v1/platform/security-policy").json(json!({ "mfaRequiredRoles": [] })),
            "getEnterpriseSecurityPolicy" => get(format!("/api/v1/enterprises/{ent}/security-policy")),
            "updateEnterpriseSecurityPolicy" => put(format!("/api/v1/enterprises/{ent}/security-policy")).json(json!({ "mfaRequiredRoles": null })),
            "getEnterpriseSso" => get(format!("/api/v1/enterprises/{ent}/sso")),
            "updateEnterpriseSso" => put(format!("/api/v1/enterprises/{ent}/sso")).json(sso_settings()),
            "deleteEnterpriseSso" => {
                // Alpha's single sign-on, set up by the admin for each call.
                let (status, body) = self.app.put(&self.admin.token, &format!("/api/v1/enterprises/{ent}/sso"), sso_settings()).await;
                assert_eq!(status, 200, "{body}");
                delete(format!("/api/v1/enterprises/{ent}/sso"))
            }
            // Alpha's single sign-on domains (its single sign-on set up by the admin for each call).
            "listSsoDomains" | "addSsoDomain" | "verifySsoDomain" | "deleteSsoDomain" => {
                let (status, body) = self.app.put(&self.admin.token, &format!("/api/v1/enterprises/{ent}/sso"), sso_settings()).await;
                assert_eq!(status, 200, "{body}");
                let domains = format!("/api/v1/enterprises/{ent}/sso/domains");
                match operation {
                    "listSsoDomains" => get(domains),
                    "addSsoDomain" => {
                        let domain = format!("d{}.alpha-sso.example", self.unique());
                        post(domains).json(json!({ "domain": domain })).target(domain)
                    }
                    "verifySsoDomain" => {
                        // Its TXT record published at the tests' DNS server: the proof any caller may ask for.
                        let (_, list) = self.app.get(&self.admin.token, &domains).await;
                        let claim = list.as_array().unwrap().iter().find(|d| d["domain"] == "alpha-sso.example").unwrap().clone();
                        crate::sso::publish(claim["txtName"].as_str().unwrap(), claim["txtValue"].as_str().unwrap());
                        post(format!("{domains}/alpha-sso.example/verify"))
                    }
                    _ => {
                        let domain = format!("d{}.alpha-sso.example", self.unique());
                        let (status, body) = self.app.post(&self.admin.token, &domains, json!({ "domain": domain })).await;
                        assert_eq!(status, 201, "{body}");
                        delete(format!("{domains}/{domain}")).target(domain)
                    }
                }
            }
            "logoutMySession" => {
                // Another session of their own, or (anyone outside finance's people) Alpha's member's.
                let token = if insider || who == Admin { self.app.token(&me.email, me.password).await } else { self.member_session().await };
                post(format!("/api/v1/auth/sessions/{}/logout", self.session_of(&token))).target(token)
            }
            "listEnterprises" => get("/api/v1/enterprises?pageSize=100"),
            "createEnterprise" => {
                let n = self.unique();
                let (name, email) = (format!("New {n}"), format!("ceo{n}@new.example"));
                let body = json!({ "name": name, "ceoFullName": "C", "ceoEmail": email, "ceoPassword": "ceo-password" });
                post("/api/v1/enterprises").json(body).target(name).spare(email)
            }
            "getEnterprise" => get(format!("/api/v1/enterprises/{ent}")),
            "updateEnterprise" => put(format!("/api/v1/enterprises/{ent}")).json(json!({ "description": "Changed" })),
            "deleteEnterprise" => {
                // The admin deletes a spare enterprise, so the walk keeps its world; others try Alpha.
                let id = if who == Admin { self.spare_enterprise().await } else { ent.clone() };
                delete(format!("/api/v1/enterprises/{id}")).target(id)
            }
            "restoreEnterprise" => {
                let id = if who == Admin { self.scheduled_spare().await.0 } else { ent.clone() };
                post(format!("/api/v1/enterprises/{id}/restore")).target(id)
            }
            "purgeEnterprise" => {
                let (id, name) = if who == Admin { self.scheduled_spare().await } else { (ent.clone(), "Alpha".to_owned()) };
                post(format!("/api/v1/enterprises/{id}/purge")).json(json!({ "confirmName": name })).target(id)
            }
            "createEnterpriseExport" => post(format!("/api/v1/enterprises/{ent}/exports")).json(json!({})),
            "listEnterpriseExports" => get(format!("/api/v1/enterprises/{ent}/exports")),
            "getEnterpriseExport" => get(format!("/api/v1/enterprises/{ent}/exports/{}", self.ready_export().await)),
            "downloadEnterpriseExport" => get(format!("/api/v1/enterprises/{ent}/exports/{}/download", self.ready_export().await)),
            "importEnterprise" => {
                let name = format!("Imported {}", self.unique());
                let mut call = post("/api/v1/enterprises/imports").target(name.clone());
                call.body = Body::Archive(crate::enterprise_import::small_archive(&name));
                call
            }
            "listEnterpriseImports" => {
                self.ready_import().await;
                get("/api/v1/enterprises/imports")
            }
            "getEnterpriseImport" => get(format!("/api/v1/enterprises/imports/{}", self.ready_import().await)),
            "getEnterpriseUsage" => get(format!("/api/v1/enterprises/{ent}/usage")),
            "listEnterpriseUsage" => get("/api/v1/enterprises/usage?sort=people&pageSize=100"),
            "getEnterpriseProvisioning" => get(format!("/api/v1/enterprises/{ent}/provisioning")),
            // The default again: the walk's SCIM deletions keep deleting.
            "updateEnterpriseProvisioning" => put(format!("/api/v1/enterprises/{ent}/provisioning")).json(json!({ "scimDeletion": "delete" })),
            // A limit no walk comes near.
            "setEnterpriseLimits" => put(format!("/api/v1/enterprises/{ent}/limits")).json(json!({ "people": 1000 })),
            "listEnterpriseUsers" => get(format!("/api/v1/enterprises/{ent}/users?pageSize=100")),
            "listEnterpriseReports" => get(format!("/api/v1/enterprises/{ent}/reports?pageSize=100")),
            "listEnterpriseDepartments" => get(format!("/api/v1/enterprises/{ent}/departments")),
            "getDepartment" => get(format!("/api/v1/enterprises/{ent}/departments/{dept}")),
            "updateDepartment" => put(format!("/api/v1/enterprises/{ent}/departments/{dept}")).json(json!({ "description": "Money" })),
            "assignDepartmentUser" => {
                let user = self.fresh_staff(false).await;
                post(format!("/api/v1/enterprises/{ent}/departments/{dept}/users")).json(json!({ "userId": user })).target(user)
            }
            "removeDepartmentUser" => {
                let user = self.fresh_staff(true).await;
                delete(format!("/api/v1/enterprises/{ent}/departments/{dept}/users/{user}")).target(user)
            }
            "createUser" => {
                let email = format!("new{}@alpha.example", self.unique());
                let body = json!({ "fullName": "New Person", "email": email, "password": PASSWORD, "role": "DepartmentUser", "enterpriseId": ent });
                post("/api/v1/users").json(body).target(email)
            }
            "resendInvitation" => {
                // Someone of Alpha's finance invited (no password), for each call.
                let email = format!("invited{}@alpha.example", self.unique());
                let body = json!({ "fullName": "Invited", "email": email, "role": "DepartmentUser", "enterpriseId": ent, "departmentId": dept });
                let (status, made) = self.app.post(&self.admin.token, "/api/v1/users", body).await;
                assert_eq!(status, 201, "{made}");
                let id = made["id"].as_str().unwrap().to_owned();
                post(format!("/api/v1/users/{id}/invitation")).json(json!({})).target(id)
            }
            "getScimServiceProviderConfig" => get("/api/v1/scim/v2/ServiceProviderConfig"),
            "listScimSchemas" => get("/api/v1/scim/v2/Schemas"),
            "getScimSchema" => get("/api/v1/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User"),
            "listScimResourceTypes" => get("/api/v1/scim/v2/ResourceTypes"),
            "getScimResourceType" => get("/api/v1/scim/v2/ResourceTypes/User"),
            "listScimUsers" => get("/api/v1/scim/v2/Users?count=100"),
            "searchScimUsers" | "searchScim" => {
                // The home enterprise's member, by their address.
                let email = match self.home(who) {
                    Some(home) => self.app.get(&self.admin.token, &format!("/api/v1/users/{}", home.member)).await.1["email"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    None => "nobody@platform.example".to_owned(),
                };
                let (path, shown) = match operation {
                    "searchScimUsers" => ("/api/v1/scim/v2/Users/.search", json!({ "attributes": ["userName"] })),
                    _ => ("/api/v1/scim/v2/.search", json!({ "excludedAttributes": ["emails"] })),
                };
                let mut body =
                    json!({ "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"], "filter": format!("userName eq \"{email}\"") });
                body.as_object_mut().unwrap().extend(shown.as_object().unwrap().clone());
                post(path).json(body)
            }
            "createScimUser" => {
                let email = format!("scim{}@{}.example", self.unique(), self.home(who).map_or("platform".to_owned(), |t| t.slug()));
                post("/api/v1/scim/v2/Users").json(json!({ "userName": email, "displayName": "Provisioned" })).target(email)
            }
            "getScimUser" => get(format!("/api/v1/scim/v2/Users/{}", t.member)).target(t.member.clone()),
            "replaceScimUser" | "patchScimUser" | "deleteScimUser" => {
                // Someone of Alpha's finance, for each call.
                let user = self.fresh_staff(true).await;
                let path = format!("/api/v1/scim/v2/Users/{user}");
                let email = self.app.get(&self.admin.token, &format!("/api/v1/users/{user}")).await.1["email"].as_str().unwrap().to_owned();
                match operation {
                    "replaceScimUser" => put(path).json(json!({ "userName": email, "displayName": "Replaced" })),
                    "patchScimUser" => patch(path).json(json!({
                        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                        "Operations": [{ "op": "replace", "path": "active", "value": false }]
                    })),
                    _ => delete(path),
                }
                .target(user)
            }
            "resetUserMfa" => {
                // Someone of Alpha's finance with an authenticator, for each call.
                let user = self.fresh_staff(true).await;
                let (_, made) = self.app.get(&self.admin.token, &format!("/api/v1/users/{user}")).await;
                let token = self.app.token(made["email"].as_str().unwrap(), PASSWORD).await;
                self.enrol(&token).await;
                delete(format!("/api/v1/users/{user}/mfa")).target(user)
            }
            "listUsers" => get(format!("/api/v1/users?enterpriseId={ent}&pageSize=100")),
            "getUser" => get(format!("/api/v1/users/{}", t.member)),
            "updateUser" => {
                let user = self.fresh_staff(true).await;
                put(format!("/api/v1/users/{user}")).json(json!({ "fullName": "Renamed" })).target(user)
            }
            "deleteUser" => {
                let user = self.fresh_staff(true).await;
                delete(format!("/api/v1/users/{user}")).target(user)
            }
            "eraseUser" => {
                let user = self.fresh_staff(true).await;
                post(format!("/api/v1/users/{user}/erasure")).target(user)
            }
            "createDepartmentReport" => post(format!("/api/v1/departments/{dept}/reports")).json(report_body("New", "draft")),
            "listDepartmentReports" => get(format!("/api/v1/departments/{dept}/reports?pageSize=100{}", hint('&'))),
            "getReport" => get(format!("/api/v1/reports/{}{}", t.submitted, hint('?'))),
            "updateReport" => {
                let draft = report(&self.app, &t.user.token, dept, "Draft", "draft").await;
                put(format!("/api/v1/reports/{draft}")).json(json!({ "title": "Edited" })).target(draft)
            }
            "deleteReport" => {
                let draft = report(&self.app, &t.user.token, dept, "Draft", "draft").await;
                delete(format!("/api/v1/reports/{draft}")).target(draft)
            }
            "reviewReport" => {
                let submitted = report(&self.app, &t.user.token, dept, "Submitted", "submitted").await;
                post(format!("/api/v1/reports/{submitted}/review")).json(json!({ "status": "reviewed" })).target(submitted)
            }
            "exportReport" => get(format!("/api/v1/reports/{}/export?format=csv{}", t.submitted, hint('&'))),
            "getCeoDashboard" => get("/api/v1/dashboard/ceo"),
            "listCeoReports" => get(format!("/api/v1/dashboard/reports?departmentId={dept}&pageSize=100")),
            "getAdminDashboard" => get("/api/v1/admin/dashboard"),
            "getAdminStatistics" => get("/api/v1/admin/statistics"),
            "listSessions" => get(format!("/api/v1/monitoring/sessions?enterpriseId={ent}&pageSize=100")),
            "listMonitoringPlaces" => get(format!("/api/v1/monitoring/places?enterpriseId={ent}")),
            "listUserActivity" => get(format!("/api/v1/monitoring/user-activity?enterpriseId={ent}&pageSize=100")),
            "logoutSession" => {
                let token = self.member_session().await;
                post(format!("/api/v1/monitoring/sessions/{}/logout", self.session_of(&token))).target(token)
            }
            "logoutOtherSessions" => {
                let (kept, ended) = (self.member_session().await, self.member_session().await);
                post(format!("/api/v1/monitoring/sessions/{}/logout-others", self.session_of(&kept))).target(kept).spare(ended)
            }
            "recordActivity" => post("/api/v1/monitoring/sessions/activity"),
            "registerMessagingKeys" => post("/api/v1/messaging/keys").json(keys_body()),
            "getMessagingKeys" => get(format!("/api/v1/messaging/keys/{}", t.member)),
            "getMessagingSetup" => {
                // The caller's own backup, saved just before (everyone here has keys).
                let backup = backup_body();
                let (status, body) = self.app.put(&me.token, "/api/v1/messaging/backup", backup.clone()).await;
                assert_eq!(status, 200, "{body}");
                get("/api/v1/messaging/setup").target(backup["salt"].as_str().unwrap())
            }
            "getMessagingBackup" => {
                // The caller's own backup, saved just before.
                let backup = backup_body();
                let (status, body) = self.app.put(&me.token, "/api/v1/messaging/backup", backup.clone()).await;
                assert_eq!(status, 200, "{body}");
                get("/api/v1/messaging/backup").target(backup["salt"].as_str().unwrap())
            }
            "putMessagingBackup" => {
                let backup = backup_body();
                let salt = backup["salt"].as_str().unwrap().to_owned();
                put("/api/v1/messaging/backup").json(backup).target(salt)
            }
            "listMessagingUsers" => get("/api/v1/messaging/users?pageSize=100"),
            "createConversation" => post("/api/v1/messaging/conversations").json(json!({ "participantId": t.member })),
            "createGroupChat" => post("/api/v1/messaging/group-chats").json(json!({ "name": "New", "participantIds": [t.member] })),
            "listConversations" => get("/api/v1/messaging/conversations?pageSize=100"),
            "getUnreadTotal" => get("/api/v1/messaging/unread"),
            "getConversation" => get(format!("/api/v1/messaging/conversations/{}", t.group)),
            "updateConversation" => put(format!("/api/v1/messaging/conversations/{}", t.group)).json(json!({ "name": "Renamed" })),
            "archiveConversation" => post(format!("/api/v1/messaging/conversations/{}/archive", t.group)),
            "unarchiveConversation" => post(format!("/api/v1/messaging/conversations/{}/unarchive", t.group)),
            "addConversationMembers" => {
                let user = self.fresh_staff(false).await;
                post(format!("/api/v1/messaging/conversations/{}/members", t.group)).json(json!({ "userIds": [user] })).target(user)
            }
            "removeConversationMember" => {
                // A group of their own (its creator removes others), or for anyone else the CEO's.
                let owner = if insider { &me.token } else { &t.ceo.token };
                let group = conversation(&self.app, owner, "Spare", std::slice::from_ref(&t.member)).await;
                delete(format!("/api/v1/messaging/conversations/{group}/members/{}", t.member)).target(group)
            }
            "listConversationKeys" => get(format!("/api/v1/messaging/conversations/{}/keys", t.chat)),
            "createConversationEpoch" => {
                let owner = if insider { &me.token } else { &t.ceo.token };
                let group = conversation(&self.app, owner, "Spare", std::slice::from_ref(&t.member)).await;
                let body = epoch_body(&self.app, owner, &group, 1).await;
                post(format!("/api/v1/messaging/conversations/{group}/epochs")).json(body).target(group)
            }
            "sendMessage" => {
                // A chat of its own, keyed for everyone's newest keys now: the walk registers new
                // keys, and a member's new keys need a new epoch before the next message.
                let chat = conversation(&self.app, &t.ceo.token, "Send", &t.people).await;
                start_epoch(&self.app, &t.ceo.token, &chat, 1).await;
                post("/api/v1/messaging/messages").json(message_body(&chat, 1)).target(chat)
            }
            "listMessages" => get(format!("/api/v1/messaging/conversations/{}/messages", t.chat)),
            "markMessageRead" => post(format!("/api/v1/messaging/messages/{}/read", t.message)),
            "sendTyping" => post(format!("/api/v1/messaging/conversations/{}/typing", t.chat)),
            "listSpreadsheets" => get(format!("/api/v1/departments/{dept}/spreadsheets?pageSize=100")),
            "createSpreadsheet" => post(format!("/api/v1/departments/{dept}/spreadsheets")).json(json!({ "name": "New" })),
            "importSpreadsheet" => {
                let mut call = post(format!("/api/v1/departments/{dept}/spreadsheets/import"));
                call.body = Body::Xlsx(xlsx(&[(1, 1, "Imported")]));
                call
            }
            "getSpreadsheet" => get(format!("/api/v1/spreadsheets/{}", t.sheet)),
            "saveSpreadsheet" => {
                let sheet = spreadsheet(&self.app, &t.user.token, dept).await;
                let content = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, backend::spreadsheet::empty("Saved"));
                put(format!("/api/v1/spreadsheets/{sheet}")).json(json!({ "content": content, "version": 1 })).target(sheet)
            }
            "deleteSpreadsheet" => {
                let sheet = spreadsheet(&self.app, &t.user.token, dept).await;
                delete(format!("/api/v1/spreadsheets/{sheet}")).target(sheet)
            }
            "exportSpreadsheet" => get(format!("/api/v1/spreadsheets/{}/export?format=csv", t.sheet)),
            "getSpreadsheetRange" => get(format!("/api/v1/spreadsheets/{}/range?range=A1:B2", t.sheet)),
            "createApiToken" => {
                let name = format!("token {}", self.unique());
                post("/api/v1/api-tokens").json(json!({ "name": name, "scopes": ["reports:read"] })).target(name)
            }
            "listApiTokens" => {
                // Alpha's finance user holds one, which nobody else may see.
                program_token(&self.app, &t.user.token, "/api/v1/api-tokens").await;
                get("/api/v1/api-tokens?pageSize=100")
            }
            "deleteApiToken" => {
                let (id, secret) = program_token(&self.app, &t.user.token, "/api/v1/api-tokens").await;
                delete(format!("/api/v1/api-tokens/{id}")).target(secret)
            }
            "createServiceToken" => {
                let name = format!("service {}", self.unique());
                post(format!("/api/v1/enterprises/{ent}/service-tokens")).json(json!({ "name": name, "scopes": ["reports:read"] })).target(name)
            }
            "listServiceTokens" => {
                program_token(&self.app, &t.ceo.token, &format!("/api/v1/enterprises/{ent}/service-tokens")).await;
                get(format!("/api/v1/enterprises/{ent}/service-tokens"))
            }
            "deleteServiceToken" => {
                let (id, secret) = program_token(&self.app, &t.ceo.token, &format!("/api/v1/enterprises/{ent}/service-tokens")).await;
                delete(format!("/api/v1/enterprises/{ent}/service-tokens/{id}")).target(secret)
            }
            "createWebhook" => {
                let url = format!("http://127.0.0.1:9/{}", self.unique());
                post("/api/v1/webhooks").json(json!({ "url": url, "events": ["report.approved"] })).target(url)
            }
            "getWebhookUrlRules" => get("/api/v1/webhooks/url-rules"),
            "listWebhooks" => {
                let (_, url) = webhook(&self.app, &t.ceo.token).await;
                get("/api/v1/webhooks?pageSize=100").target(url)
            }
            "getWebhook" | "updateWebhook" | "deleteWebhook" | "rotateWebhookSecret" | "sendWebhookTestEvent" | "listWebhookDeliveries" => {
                let (id, _) = webhook(&self.app, &t.ceo.token).await;
                match operation {
                    "getWebhook" => get(format!("/api/v1/webhooks/{id}")),
                    "updateWebhook" => put(format!("/api/v1/webhooks/{id}")).json(json!({ "description": "changed" })),
                    "deleteWebhook" => delete(format!("/api/v1/webhooks/{id}")),
                    "rotateWebhookSecret" => post(format!("/api/v1/webhooks/{id}/rotate-secret")),
                    "sendWebhookTestEvent" => post(format!("/api/v1/webhooks/{id}/test")),
                    _ => get(format!("/api/v1/webhooks/{id}/deliveries")),
                }
                .target(id)
            }
            "redeliverWebhookDelivery" => {
                let (id, _) = webhook(&self.app, &t.ceo.token).await;
                let (status, delivery) = self.app.post(&t.ceo.token, &format!("/api/v1/webhooks/{id}/test"), json!({})).await;
                assert_eq!(status, 202, "{delivery}");
                let delivery = delivery["id"].as_str().unwrap().to_owned();
                post(format!("/api/v1/webhooks/{id}/deliveries/{delivery}/redeliver")).target(delivery)
            }
            "listAuditEvents" => get(format!("/api/v1/audit-events?enterpriseId={ent}")),
            "exportAuditEvents" => get(format!("/api/v1/audit-events/export?format=jsonl&enterpriseId={ent}")),
            other => panic!("{other} has no request in tests/api/permissions.rs: add one, and its line in TABLE"),
        }
    }

    async fn send(&self, who: Caller, call: &Call) -> Reply {
        let token = match who {
            NoToken => None,
            DeadToken => Some(self.dead.as_str()),
            _ => Some(call.token.as_deref().unwrap_or(&self.person(who).token)),
        };
        let mut req = self.app.http.request(call.method.clone(), self.app.url(&call.path));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        req = match &call.body {
            Body::None => req,
            Body::Json(body) => req.json(body),
            Body::Xlsx(file) => {
                let part = reqwest::multipart::Part::bytes(file.clone()).file_name("walk.xlsx");
                req.multipart(reqwest::multipart::Form::new().part("file", part))
            }
            Body::Archive(file) => {
                let part = reqwest::multipart::Part::bytes(file.clone()).file_name("walk.zip");
                req.multipart(reqwest::multipart::Form::new().part("archive", part).text("invite", "false"))
            }
        };
        let resp = req.send().await.unwrap();
        self.calls.fetch_add(1, Relaxed);
        let status = resp.status().as_u16();
        let disposition = resp.headers().get("content-disposition").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let text = resp.text().await.unwrap();
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply { status, body, text, disposition }
    }

    /// A GET made by a check.
    async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        self.calls.fetch_add(1, Relaxed);
        self.app.get(token, path).await
    }

    /// Whether the token's session is live.
    async fn live(&self, token: &str) -> bool {
        self.calls.fetch_add(1, Relaxed);
        self.app.me(token).await.status() == 200
    }

    /// Whether an allowed call gave the right answer: `Err` says what is wrong.
    async fn check(&self, operation: &str, who: Caller, call: &Call, reply: &Reply) -> Result<(), String> {
        let (a, b, body) = (&self.a, &self.b, &reply.body);
        let me = self.person(who);
        let home = self.home(who);
        let my_enterprise = home.map_or(Value::Null, |t| json!(t.id));
        let list = items(body);
        let staff = matches!(who, Head | User | OtherHead | OtherUser | OpsHead | OpsUser);
        match operation {
            "logout" => {
                ensure!(!self.live(call.token.as_deref().unwrap()).await, "the token signed out still works");
                ensure!(self.live(&me.token).await, "the caller's other session ended too");
            }
            "getMe" => ensure!(body["id"] == me.id.as_str() && body["enterpriseId"] == my_enterprise, "not the caller: {body}"),
            "updateMe" => ensure!(body["id"] == me.id.as_str() && body["notifications"]["invitations"] == false, "not the caller's: {body}"),
            "changeMyPassword" => ensure!(self.live(&me.token).await, "the session that changed it ended"),
            "getMfaStatus" => ensure!(body["totpEnabled"] == false && body["required"] == false, "not the caller's (nothing set up): {body}"),
            "startTotpEnrollment" => {
                let account = me.email.replace('@', "%40");
                ensure!(body["otpauthUrl"].as_str().is_some_and(|u| u.contains(&account)), "not for the caller: {body}");
                ensure!(!self.totp_on(&me.token).await, "on before its first code");
            }
            "confirmTotpEnrollment" | "regenerateRecoveryCodes" => {
                ensure!(body["recoveryCodes"].as_array().map(Vec::len) == Some(10), "not ten recovery codes: {body}");
                ensure!(self.totp_on(&me.token).await, "the caller's authenticator is not on");
                ensure!(self.turn_off(me).await, "could not turn it off again");
            }
            "disableTotp" => ensure!(!self.totp_on(&me.token).await, "the caller's authenticator is still on"),
            "listPasskeys" => {
                ensure!(list.len() == 1 && list[0]["id"] == call.target.as_str(), "not the caller's one passkey: {body}");
                ensure!(self.drop_passkey(&me.token, &call.target).await, "could not remove it again");
            }
            "startPasskeyRegistration" => ensure!(body["publicKey"]["user"]["name"] == me.email.as_str(), "not for the caller: {body}"),
            "finishPasskeyRegistration" => {
                ensure!(body["name"] == call.target.as_str(), "not the passkey registered: {body}");
                ensure!(self.passkeys(&me.token).await == [body["id"].as_str().unwrap_or_default()], "not among the caller's passkeys");
                ensure!(self.drop_passkey(&me.token, body["id"].as_str().unwrap_or_default()).await, "could not remove it again");
            }
            "renamePasskey" => {
                ensure!(body["id"] == call.target.as_str() && body["name"] == "Renamed", "not the caller's passkey renamed: {body}");
                ensure!(self.drop_passkey(&me.token, &call.target).await, "could not remove it again");
            }
            "deletePasskey" => ensure!(self.passkeys(&me.token).await.is_empty(), "the passkey is still there"),
            "getScimServiceProviderConfig" => ensure!(body["patch"]["supported"] == true, "{body}"),
            "listScimSchemas" => ensure!(body["Resources"][0]["id"] == "urn:ietf:params:scim:schemas:core:2.0:User", "{body}"),
            "getScimSchema" => {
                ensure!(body["id"] == "urn:ietf:params:scim:schemas:core:2.0:User" && body["attributes"][0]["name"] == "userName", "{body}")
            }
            "listScimResourceTypes" => ensure!(body["Resources"][0]["endpoint"] == "/Users", "{body}"),
            "getScimResourceType" => ensure!(body["id"] == "User" && body["endpoint"] == "/Users", "{body}"),
            "searchScimUsers" | "searchScim" => {
                // The caller's member found by their address, alone, shown as the search asked.
                let Some(t) = home else { return Err(format!("no enterprise: {body}")) };
                let found = items(&body["Resources"]);
                ensure!(found.len() == 1 && has(found, &t.member), "not its member alone: {body}");
                let shown = if operation == "searchScimUsers" {
                    found.iter().all(|u| u.get("emails").is_none() && u.get("active").is_none())
                } else {
                    found.iter().all(|u| u.get("emails").is_none() && u.get("active").is_some())
                };
                ensure!(shown, "not the attributes asked for: {body}");
            }
            "listScimUsers" => {
                // The caller's enterprise's people (its own addresses), its member among them.
                let Some(t) = home else { return Err(format!("no enterprise: {body}")) };
                let found = items(&body["Resources"]);
                let domain = format!("@{}.example", t.slug());
                ensure!(has(found, &t.member), "not its member: {body}");
                ensure!(found.iter().all(|u| u["userName"].as_str().is_some_and(|n| n.ends_with(&domain))), "someone else's: {body}");
                ensure!(!found.iter().any(|u| home.is_some_and(|t| u["id"] == t.ceo.id.as_str())), "the CEO is not provisioned: {body}");
            }
            "createScimUser" => ensure!(body["userName"] == call.target.as_str() && body["active"] == true, "{body}"),
            "getScimUser" => ensure!(body["id"] == call.target.as_str() && body["userName"].is_string(), "{body}"),
            "replaceScimUser" => ensure!(body["id"] == call.target.as_str() && body["displayName"] == "Replaced", "{body}"),
            "patchScimUser" => ensure!(body["id"] == call.target.as_str() && body["active"] == false, "{body}"),
            "deleteScimUser" => ensure!(self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await.0 == 404, "still there"),
            "resetUserMfa" => {
                let (_, user) = self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await;
                ensure!(user["mfaEnabled"] == false, "still on: {user}");
            }
            "getPlatformSecurityPolicy" | "updatePlatformSecurityPolicy" => ensure!(body["mfaRequiredRoles"] == json!([]), "{body}"),
            "getEnterpriseSso" => ensure!(body["redirectUri"].is_string() && body["configured"].is_boolean(), "{body}"),
            "updateEnterpriseSso" => ensure!(body["configured"] == true && body["domains"] == json!(["alpha-sso.example"]), "{body}"),
            "deleteEnterpriseSso" => {
                let (_, after) = self.get(&self.admin.token, &format!("/api/v1/enterprises/{}/sso", self.a.id)).await;
                ensure!(after["configured"] == false, "still there: {after}");
            }
            "listSsoDomains" => ensure!(body.as_array().is_some_and(|d| d.iter().any(|d| d["domain"] == "alpha-sso.example")), "{body}"),
            "addSsoDomain" => ensure!(body["domain"] == call.target.as_str() && body["status"] == "pending", "{body}"),
            "verifySsoDomain" => ensure!(body["domain"] == "alpha-sso.example" && body["status"] == "verified", "{body}"),
            "deleteSsoDomain" => {
                let (_, list) = self.get(&self.admin.token, &format!("/api/v1/enterprises/{}/sso/domains", self.a.id)).await;
                ensure!(!list.as_array().unwrap().iter().any(|d| d["domain"] == call.target.as_str()), "still there: {list}");
            }
            "getEnterpriseSecurityPolicy" | "updateEnterpriseSecurityPolicy" => {
                ensure!(body["mfaRequiredRoles"].is_null() && body["platformDefault"] == json!([]), "{body}")
            }
            "listMySessions" => {
                ensure!(list.iter().any(|s| s["current"] == true), "no current session: {body}");
                ensure!(list.iter().all(|s| s["user"]["id"] == me.id.as_str() && s["enterpriseId"] == my_enterprise), "someone else's: {body}");
            }
            "logoutMySession" => ensure!(!self.live(&call.target).await, "the session still works"),
            "listEnterprises" => ensure!(has(list, &a.id) && has(list, &b.id), "not every enterprise: {body}"),
            "createEnterpriseExport" => ensure!(body["id"].is_string() && body["createdAt"].is_string() && body["progress"].is_number(), "{body}"),
            "listEnterpriseExports" => ensure!(!list.is_empty() && list.iter().all(|e| e["id"].is_string() && e["status"].is_string()), "{body}"),
            "getEnterpriseExport" => {
                ensure!(body["status"] == "ready" && body["downloadUrl"].as_str().is_some_and(|u| u.contains(&a.id)), "{body}")
            }
            "downloadEnterpriseExport" => {
                ensure!(reply.disposition.contains(".zip") && reply.text.starts_with("PK"), "not a zip: {}", reply.disposition)
            }
            "importEnterprise" => {
                ensure!(body["enterpriseName"] == call.target.as_str() && body["progress"].is_number() && body["createdAt"].is_string(), "{body}")
            }
            "listEnterpriseImports" => ensure!(!list.is_empty() && list.iter().all(|i| i["id"].is_string() && i["status"].is_string()), "{body}"),
            "getEnterpriseImport" => {
                ensure!(body["status"] == "ready" && body["enterpriseId"].is_string() && body["result"]["idsKept"] == true, "{body}")
            }
            "getEnterpriseUsage" => {
                ensure!(body["current"]["people"].as_i64().is_some_and(|n| n >= 3), "{body}");
                ensure!(body["daily"].as_array().is_some_and(|d| d.len() == 30), "not the 30 days up to today: {body}");
            }
            "getEnterpriseProvisioning" | "updateEnterpriseProvisioning" => ensure!(body == &json!({ "scimDeletion": "delete" }), "{body}"),
            "listEnterpriseUsage" => {
                let alpha = list.iter().find(|e| e["enterpriseId"] == a.id.as_str());
                ensure!(
                    alpha.is_some_and(|e| e["people"].as_i64().is_some_and(|n| n >= 3)) && list.iter().any(|e| e["enterpriseId"] == b.id.as_str()),
                    "{body}"
                );
                ensure!(list.windows(2).all(|w| w[0]["people"].as_i64() >= w[1]["people"].as_i64()), "not by people, most first: {body}");
            }
            "setEnterpriseLimits" => ensure!(body["ownLimits"] == json!({ "people": 1000 }) && body["limits"]["people"] == 1000, "{body}"),
            "createEnterprise" => ensure!(body["name"] == call.target.as_str() && body["ceo"]["email"] == call.spare.as_str(), "{body}"),
            "getEnterprise" => {
                ensure!(body["id"] == a.id.as_str() && has(items(&body["departments"]), &a.finance), "{body}");
                ensure!(all(items(&body["departments"]), "enterpriseId", &a.id), "another enterprise's department: {body}");
            }
            "updateEnterprise" => ensure!(body["id"] == a.id.as_str() && body["description"] == "Changed", "{body}"),
            "deleteEnterprise" => {
                let (_, detail) = self.get(&self.admin.token, &format!("/api/v1/enterprises/{}", call.target)).await;
                ensure!(
                    body["status"] == "scheduled" && detail["isActive"] == false && detail["purgeAfter"] == body["purgeAfter"],
                    "{body} {detail}"
                );
            }
            "restoreEnterprise" => ensure!(body["id"] == call.target.as_str() && body["isActive"] == true && body["purgeAfter"].is_null(), "{body}"),
            "purgeEnterprise" => ensure!(self.get(&self.admin.token, &format!("/api/v1/enterprises/{}", call.target)).await.0 == 404, "still there"),
            "listEnterpriseUsers" => {
                ensure!(has(list, &a.member) && all(list, "enterpriseId", &a.id), "{body}");
                ensure!(none(list, &self.people(b)), "another tenant's people: {body}");
            }
            "listEnterpriseReports" | "listCeoReports" => {
                ensure!(has(list, &a.submitted) && all(list, "departmentId", &a.finance), "{body}");
                ensure!(list.iter().all(|r| r["status"] != "draft"), "a draft: {body}");
            }
            "listEnterpriseDepartments" => ensure!(list.len() == 5 && has(list, &a.finance) && all(list, "enterpriseId", &a.id), "{body}"),
            "getDepartment" => {
                ensure!(body["id"] == a.finance.as_str() && body["enterpriseId"] == a.id.as_str(), "{body}");
                ensure!(has(items(&body["members"]), &a.member), "not finance's members: {body}");
            }
            "updateDepartment" => {
                ensure!(body["id"] == a.finance.as_str() && body["enterpriseId"] == a.id.as_str() && body["description"] == "Money", "{body}")
            }
            "assignDepartmentUser" | "removeDepartmentUser" => {
                let (_, user) = self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await;
                let expected = if operation == "assignDepartmentUser" { json!(a.finance) } else { Value::Null };
                ensure!(user["departmentId"] == expected, "the department did not change: {user}");
            }
            "createUser" => ensure!(body["email"] == call.target.as_str() && body["enterpriseId"] == a.id.as_str(), "{body}"),
            "listUsers" => {
                ensure!(has(list, &a.member) && all(list, "enterpriseId", &a.id), "{body}");
                let only_staff = list.iter().all(|u| u["role"] == "DepartmentHead" || u["role"] == "DepartmentUser");
                ensure!(who == Admin || only_staff, "a CEO sees department staff only: {body}");
            }
            "getUser" => ensure!(body["id"] == a.member.as_str() && body["enterpriseId"] == a.id.as_str(), "{body}"),
            "updateUser" => ensure!(body["id"] == call.target.as_str() && body["fullName"] == "Renamed", "{body}"),
            "deleteUser" => ensure!(self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await.0 == 404, "still there"),
            "eraseUser" => {
                let (_, user) = self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await;
                ensure!(user["erased"] == true && user["email"].is_null() && body["kept"].as_array().is_some_and(|k| !k.is_empty()), "{user} {body}");
            }
            "resendInvitation" => {
                let (_, user) = self.get(&self.admin.token, &format!("/api/v1/users/{}", call.target)).await;
                ensure!(user["invitation"]["status"] == "pending" && user["enterpriseId"] == a.id.as_str(), "{user}");
            }
            "createDepartmentReport" => {
                ensure!(body["departmentId"] == a.finance.as_str() && body["createdBy"]["id"] == me.id.as_str() && body["title"] == "New", "{body}")
            }
            "listDepartmentReports" => {
                ensure!(has(list, &a.submitted) && all(list, "departmentId", &a.finance), "{body}");
                // Staff see every status of their department; the CEO and the admin never a draft.
                let drafts = list.iter().any(|r| r["status"] == "draft");
                ensure!(if staff { has(list, &a.draft) } else { !drafts }, "drafts shown wrongly: {body}");
            }
            "getReport" => {
                ensure!(body["id"] == a.submitted.as_str() && body["departmentId"] == a.finance.as_str(), "{body}");
                ensure!(body["title"] == format!("{} finance Q1", a.name) && !items(&body["history"]).is_empty(), "{body}");
            }
            "updateReport" => ensure!(body["id"] == call.target.as_str() && body["title"] == "Edited", "{body}"),
            "deleteReport" => {
                ensure!(self.get(&a.user.token, &format!("/api/v1/reports/{}", call.target)).await.0 == 404, "still there")
            }
            "reviewReport" => {
                ensure!(body["id"] == call.target.as_str() && body["status"] == "reviewed" && body["reviewedBy"]["id"] == me.id.as_str(), "{body}")
            }
            "exportReport" => {
                let name = format!("finance-{}-finance-q1-2026-01-01.csv", a.slug());
                ensure!(reply.disposition.contains(&name), "not the report asked for: {}", reply.disposition);
            }
            "getCeoDashboard" => {
                let home = home.unwrap();
                let other = if std::ptr::eq(home, a) { b } else { a };
                let departments = items(&body["departments"]);
                ensure!(body["enterpriseId"] == home.id.as_str() && body["enterpriseName"] == home.name.as_str(), "{body}");
                ensure!(has(departments, &home.finance) && !has(departments, &other.finance), "another enterprise's departments: {body}");
            }
            "getAdminDashboard" => {
                let (enterprises, admins) = (body["enterprises"]["active"].as_i64(), body["usersByRole"]["platformAdmin"].as_i64());
                ensure!(enterprises >= Some(2) && admins >= Some(2), "{body}");
            }
            "getAdminStatistics" => ensure!(items(&body["days"]).len() == 30, "{body}"),
            "listSessions" => ensure!(!list.is_empty() && all(list, "enterpriseId", &a.id), "{body}"),
            "listMonitoringPlaces" => {
                // Alpha's sessions, each on the map once: as many as Alpha's list holds.
                let on_map: i64 = body.as_array().map_or(0, |p| p.iter().filter_map(|p| p["total"].as_i64()).sum());
                let (_, listed) = self.get(&me.token, &format!("/api/v1/monitoring/sessions?enterpriseId={}&pageSize=1", a.id)).await;
                ensure!(on_map > 0 && listed["total"].as_i64() == Some(on_map), "{on_map} on the map, {listed}");
            }
            "listUserActivity" => {
                let users: Vec<Value> = list.iter().map(|u| u["user"].clone()).collect();
                ensure!(has(&users, &a.ceo.id) && none(&users, &self.people(b)) && !has(&users, &self.admin.id), "{body}");
            }
            "logoutSession" => ensure!(!self.live(&call.target).await, "the session still works"),
            "logoutOtherSessions" => {
                ensure!(self.live(&call.target).await, "the session named ended too");
                ensure!(!self.live(&call.spare).await, "the user's other session still works");
            }
            "recordActivity" | "sendTyping" => ensure!(reply.status == 204 && reply.text.is_empty(), "{}", reply.text),
            "registerMessagingKeys" => ensure!(body["userId"] == me.id.as_str() && body["keyVersion"].as_i64() >= Some(1), "{body}"),
            "getMessagingKeys" => ensure!(body["userId"] == a.member.as_str(), "{body}"),
            "getMessagingBackup" => ensure!(body["salt"] == call.target.as_str(), "not the caller's backup: {body}"),
            "getMessagingSetup" => {
                ensure!(body["backup"]["salt"] == call.target.as_str(), "not the caller's backup: {body}");
                // Alpha's operations staff never set up the messenger here.
                let expected = if matches!(who, OpsHead | OpsUser) { Value::Null } else { json!(me.id) };
                ensure!(body["keys"]["userId"] == expected, "not the caller's keys: {body}");
            }
            "putMessagingBackup" => {
                let (_, saved) = self.get(&me.token, "/api/v1/messaging/backup").await;
                ensure!(body["salt"] == call.target.as_str() && saved["salt"] == call.target.as_str(), "not saved as the caller's: {saved}");
            }
            "listMessagingUsers" => {
                ensure!(!has(list, &me.id), "the caller lists themselves: {body}");
                match home {
                    Some(t) => {
                        let other = if std::ptr::eq(t, a) { b } else { a };
                        ensure!(has(list, &t.member) && none(list, &self.people(other)), "{body}");
                        ensure!(!has(list, &self.second_admin), "an admin in an enterprise's realm: {body}");
                    }
                    None => ensure!(has(list, &self.second_admin) && none(list, &self.people(a)) && none(list, &self.people(b)), "{body}"),
                }
            }
            "createConversation" | "createGroupChat" => {
                let members = items(&body["members"]);
                ensure!(has(members, &me.id) && has(members, &a.member) && members.len() == 2, "{body}");
            }
            "listConversations" => {
                ensure!(list.iter().all(|c| has(items(&c["members"]), &me.id)), "a conversation without the caller: {body}");
                let alpha = [a.group.clone(), a.chat.clone()];
                let beta = [b.group.clone(), b.chat.clone()];
                let right = match who {
                    Ceo | Head | User => has(list, &a.chat) && none(list, &beta),
                    OtherCeo | OtherHead | OtherUser => has(list, &b.chat) && none(list, &alpha),
                    Admin => has(list, &self.admin_chat) && none(list, &alpha) && none(list, &beta),
                    _ => none(list, &alpha) && none(list, &beta),
                };
                ensure!(right, "{body}");
            }
            "getUnreadTotal" => {
                // The caller's own conversations' unread messages, and nobody else's: finance's
                // staff have the CEO's message in their tenant's chat.
                let (_, mine) = self.get(&me.token, "/api/v1/messaging/conversations?pageSize=100").await;
                let sum: i64 = items(&mine).iter().map(|c| c["unreadCount"].as_i64().unwrap()).sum();
                let unread = body["unread"].as_i64();
                ensure!(unread == Some(sum), "{body}, but the caller's conversations hold {sum}");
                ensure!(!matches!(who, Head | User | OtherHead | OtherUser) || sum >= 1, "the chat's message is not counted: {body}");
            }
            "getConversation" => ensure!(body["id"] == a.group.as_str() && has(items(&body["members"]), &me.id), "{body}"),
            "updateConversation" => ensure!(body["id"] == a.group.as_str() && body["name"] == "Renamed", "{body}"),
            "archiveConversation" | "unarchiveConversation" => {
                let archived = operation == "archiveConversation";
                ensure!(body["id"] == a.group.as_str() && body["archived"] == archived, "{body}");
            }
            "addConversationMembers" => ensure!(body["id"] == a.group.as_str() && has(items(&body["members"]), &call.target), "{body}"),
            "removeConversationMember" => {
                let (_, group) = self.get(&me.token, &format!("/api/v1/messaging/conversations/{}", call.target)).await;
                ensure!(!has(items(&group["members"]), &a.member) && has(items(&group["members"]), &me.id), "still a member: {group}");
            }
            "listConversationKeys" => ensure!(list.first().is_some_and(|k| k["epoch"] == 1), "{body}"),
            "createConversationEpoch" => ensure!(body["id"] == call.target.as_str() && body["epoch"] == 1, "{body}"),
            "sendMessage" => ensure!(body["conversationId"] == call.target.as_str() && body["senderId"] == me.id.as_str(), "{body}"),
            "listMessages" => ensure!(has(list, &a.message) && all(list, "conversationId", &a.chat), "{body}"),
            "markMessageRead" => {
                let (_, chat) = self.get(&me.token, &format!("/api/v1/messaging/conversations/{}", a.chat)).await;
                let marked = items(&chat["readMarks"]).iter().any(|m| m["userId"] == me.id.as_str() && m["messageId"] == a.message.as_str());
                ensure!(marked, "no read mark: {chat}");
            }
            "listSpreadsheets" => ensure!(has(list, &a.sheet) && all(list, "departmentId", &a.finance), "{body}"),
            "createSpreadsheet" | "importSpreadsheet" => {
                ensure!(body["departmentId"] == a.finance.as_str() && body["createdBy"] == me.id.as_str(), "{body}")
            }
            "getSpreadsheet" => {
                ensure!(body["id"] == a.sheet.as_str() && body["departmentId"] == a.finance.as_str(), "{body}");
                ensure!(body["editable"] == staff, "the CEO reads only, staff edit: {body}");
            }
            "saveSpreadsheet" => ensure!(body["id"] == call.target.as_str() && body["version"] == 2, "{body}"),
            "deleteSpreadsheet" => {
                ensure!(self.get(&a.user.token, &format!("/api/v1/spreadsheets/{}", call.target)).await.0 == 404, "still there")
            }
            "exportSpreadsheet" => {
                let (cell, name) = (format!("{} finance", a.name), format!("{}-ledger.csv", a.slug()));
                ensure!(reply.text.starts_with(&cell) && reply.disposition.contains(&name), "{}: {}", reply.disposition, reply.text);
            }
            "getSpreadsheetRange" => ensure!(body["columns"] == json!([format!("{} finance", a.name), "Total"]), "{body}"),
            "createApiToken" => {
                let secret = body["token"].as_str().unwrap_or_default();
                ensure!(body["name"] == call.target.as_str() && secret.starts_with("ept_") && body["createdBy"] == me.id.as_str(), "{body}");
                let (status, mine) = self.get(secret, "/api/v1/auth/me").await;
                ensure!(status == 200 && mine["id"] == me.id.as_str(), "the token is not the caller's: {mine}");
            }
            "listApiTokens" => ensure!(all(list, "createdBy", &me.id) && list.iter().all(|t| t.get("token").is_none()), "{body}"),
            "deleteApiToken" | "deleteServiceToken" => ensure!(!self.live(&call.target).await, "the token still works"),
            "createServiceToken" => {
                let secret = body["token"].as_str().unwrap_or_default();
                ensure!(body["name"] == call.target.as_str() && secret.starts_with("eps_") && body["enterpriseId"] == a.id.as_str(), "{body}");
                let (status, users) = self.get(secret, "/api/v1/users").await;
                ensure!(status == 403 && users["code"] == "insufficient_scope", "beyond its scopes: {users}");
            }
            "listServiceTokens" => ensure!(!list.is_empty() && all(list, "enterpriseId", &a.id), "{body}"),
            "createWebhook" => {
                let secret = body["secret"].as_str().unwrap_or_default();
                ensure!(body["url"] == call.target.as_str() && secret.starts_with("whsec_"), "{body}");
                let home = if who == Admin { Value::Null } else { json!(if who == Ceo { &a.id } else { &b.id }) };
                ensure!(body["enterpriseId"] == home, "made for the caller's realm: {body}");
            }
            // The tests' servers allow private networks (their receivers are on the loopback).
            "getWebhookUrlRules" => ensure!(*body == json!({ "schemes": ["http", "https"], "ports": [], "privateNetworks": true }), "{body}"),
            "listWebhooks" => {
                let alphas = list.iter().any(|w| w["url"] == call.target.as_str());
                ensure!(alphas == (who == Ceo), "Alpha's webhook is listed to Alpha's CEO only: {body}");
            }
            "getWebhook" | "updateWebhook" | "rotateWebhookSecret" => {
                ensure!(body["id"] == call.target.as_str() && body["enterpriseId"] == a.id.as_str(), "{body}");
                ensure!(operation != "updateWebhook" || body["description"] == "changed", "{body}");
                ensure!(operation != "rotateWebhookSecret" || body["secret"].as_str().is_some_and(|s| s.starts_with("whsec_")), "{body}");
            }
            "deleteWebhook" => ensure!(self.get(&a.ceo.token, &format!("/api/v1/webhooks/{}", call.target)).await.0 == 404, "still there"),
            "sendWebhookTestEvent" => ensure!(body["webhookId"] == call.target.as_str() && body["eventType"] == "webhook.test", "{body}"),
            "listWebhookDeliveries" => ensure!(all(list, "webhookId", &call.target), "{body}"),
            "redeliverWebhookDelivery" => ensure!(body["id"] == call.target.as_str() && body["status"] == "pending", "{body}"),
            "listAuditEvents" => ensure!(!list.is_empty() && all(list, "enterpriseId", &a.id), "{body}"),
            "exportAuditEvents" => {
                let lines: Vec<Value> = reply.text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
                ensure!(!lines.is_empty() && lines.iter().all(|e| e["enterpriseId"] == a.id.as_str()), "{}", reply.text);
            }
            other => panic!("{other} has no check in tests/api/permissions.rs: say what its right answer is"),
        }
        Ok(())
    }
}

/// The items of a page, or the elements of an array.
fn items(body: &Value) -> &[Value] {
    body.get("items").unwrap_or(body).as_array().map_or(&[], Vec::as_slice)
}

/// Whether the list holds the object with this id.
fn has(list: &[Value], id: &str) -> bool {
    list.iter().any(|v| v["id"] == id)
}

/// Whether the list holds none of these ids.
fn none(list: &[Value], ids: &[String]) -> bool {
    ids.iter().all(|id| !has(list, id))
}

/// Whether every object of the list has `key` equal to `value`.
fn all(list: &[Value], key: &str, value: &str) -> bool {
    list.iter().all(|v| v[key] == value)
}

fn report_body(title: &str, status: &str) -> Value {
    json!({ "title": title, "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": status })
}

async fn report(app: &TestApp, token: &str, department: &str, title: &str, status: &str) -> String {
    let (code, body) = app.post(token, &format!("/api/v1/departments/{department}/reports"), report_body(title, status)).await;
    assert_eq!(code, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

async fn spreadsheet(app: &TestApp, token: &str, department: &str) -> String {
    let (status, body) = app.post(token, &format!("/api/v1/departments/{department}/spreadsheets"), json!({ "name": "Sheet" })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

fn expected(cell: Cell, status: u16) -> bool {
    match cell {
        A => (200..300).contains(&status),
        F => status == 403,
        H => status == 404,
        U => status == 401,
    }
}

#[tokio::test]
async fn every_operation_answers_each_caller_as_the_rules_say() {
    let (db, _dropped) = test_database().await;
    let world = World::new(db).await;
    let spec: Value = world.app.http.get(world.app.url("/api/openapi.json")).send().await.unwrap().json().await.unwrap();
    let mut operations: Vec<String> = spec["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .map(|op| op["operationId"].as_str().unwrap().to_owned())
        .collect();
    operations.sort();
    for (operation, ..) in TABLE {
        assert!(operations.iter().any(|o| o == operation), "TABLE has a line for {operation}, which the server does not serve");
        assert_eq!(TABLE.iter().filter(|(o, ..)| o == operation).count(), 1, "{operation} has two lines in TABLE");
    }

    let mut wrong = Vec::new();
    let mut cells = 0;
    for operation in &operations {
        if PUBLIC.contains(&operation.as_str()) {
            continue;
        }
        let Some((_, row, _)) = TABLE.iter().find(|(o, ..)| o == operation) else {
            panic!("{operation} has no line in TABLE (tests/api/permissions.rs): write who may call it");
        };
        for (who, cell) in CALLERS.into_iter().zip(*row) {
            let call = world.request(operation, who).await;
            let reply = world.send(who, &call).await;
            cells += 1;
            if !expected(cell, reply.status) {
                wrong.push(format!(
                    "{operation} by {who:?}: {}, expected {cell:?} {}",
                    reply.status,
                    reply.text.chars().take(200).collect::<String>()
                ));
            } else if cell == A
                && let Err(why) = world.check(operation, who, &call, &reply).await
            {
                wrong.push(format!("{operation} by {who:?}: {} but the wrong answer: {why}", reply.status));
            }
        }
    }
    assert_eq!(cells, TABLE.len() * CALLERS.len(), "every line of TABLE is walked");
    assert_eq!(TABLE.len() + PUBLIC.len(), operations.len(), "one line per operation served");
    let calls = world.calls.load(Relaxed);
    assert!(
        wrong.is_empty(),
        "{} of {cells} cells ({calls} calls with the checks') answered otherwise than TABLE says:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The last column of `TABLE`, walked with tokens for programs. Each operation is made by the
/// first of Alpha's CEO, finance head, finance user and the admin whose cell is A:
/// - `S(scope)`: that person's token holding every scope but `scope` (and, for a read, but its
///   area's write) is refused, 403 `insufficient_scope`; a token holding `scope` alone gets the
///   right answer (`World::check`); and Beta's person of the same role, whose token holds every
///   scope, gets what their cell of `TABLE` says: a token reaches no more than its enterprise.
/// - `P(scope)`: the same with a person's token; Alpha's service credential holding every
///   scope is refused, 403 `forbidden`: it has no person behind it.
/// - `Never`: a token holding every scope is refused, 403 `forbidden`.
#[tokio::test]
async fn every_operation_asks_a_program_s_token_for_its_scope() {
    let (db, _dropped) = test_database().await;
    let world = World::new(db).await;
    let app = &world.app;
    let service = {
        let path = format!("/api/v1/enterprises/{}/service-tokens", world.a.id);
        let (status, body) = app.post(&world.a.ceo.token, &path, json!({ "name": "scopes", "scopes": ALL_SCOPES })).await;
        assert_eq!(status, 201, "{body}");
        body["token"].as_str().unwrap().to_owned()
    };
    // One personal token per (caller, scopes), made when first needed.
    let tokens = tokio::sync::Mutex::new(std::collections::HashMap::<String, String>::new());
    let token_of = |who: Caller, scopes: Vec<&'static str>| {
        let (tokens, world) = (&tokens, &world);
        async move {
            let key = format!("{who:?} {}", scopes.join(" "));
            let mut tokens = tokens.lock().await;
            if let Some(token) = tokens.get(&key) {
                return token.clone();
            }
            let session = &world.person(who).token;
            let name = format!("scopes {}", tokens.len());
            let (status, body) = world.app.post(session, "/api/v1/api-tokens", json!({ "name": name, "scopes": scopes })).await;
            assert_eq!(status, 201, "{body}");
            let token = body["token"].as_str().unwrap().to_owned();
            tokens.insert(key, token.clone());
            token
        }
    };
    let refused = |reply: &Reply, code: &str| {
        reply.status == 403
            && (reply.body["code"] == code
                // SCIM answers in its own error format (RFC 7644, section 3.12), which has no codes of ours.
                || code == "insufficient_scope"
                    && reply.body["schemas"][0] == "urn:ietf:params:scim:api:messages:2.0:Error"
                    && reply.body["detail"] == "This token's scopes do not allow this operation")
    };
    // A call to be refused at the gate is built as for a caller without a token, which makes
    // nothing of the caller's first (no authenticator, no passkey): the gate refuses before any
    // lookup, so whose ids it names does not matter.
    let to_refuse = |operation: &'static str, token: String| {
        let world = &world;
        async move { world.request(operation, NoToken).await.token(token) }
    };

    let mut wrong = Vec::new();
    for (operation, row, program) in TABLE {
        let (who, _) = [(Ceo, row[1]), (Head, row[2]), (User, row[3]), (Admin, row[0])]
            .into_iter()
            .find(|(_, cell)| *cell == A)
            .unwrap_or_else(|| panic!("{operation}: none of Alpha's CEO, head, user or the admin may call it"));
        let mut says = |what: &str, reply: &Reply| {
            wrong.push(format!("{operation} by {who:?} {what}: {} {}", reply.status, reply.text.chars().take(200).collect::<String>()))
        };
        let scope = match program {
            Program::Never => {
                let reply = world.send(who, &to_refuse(operation, token_of(who, ALL_SCOPES.to_vec()).await).await).await;
                if !refused(&reply, "forbidden") {
                    says("with a token holding every scope, expected 403 forbidden", &reply);
                }
                continue;
            }
            Program::S(scope) | Program::P(scope) => *scope,
        };
        if let Program::P(_) = program {
            let reply = world.send(who, &to_refuse(operation, service.clone()).await).await;
            if !refused(&reply, "forbidden") {
                says("with Alpha's service credential holding every scope, expected 403 forbidden", &reply);
            }
        }
        if !scope.is_empty() {
            let area_write = scope.replace(":read", ":write");
            let others: Vec<&'static str> = ALL_SCOPES.into_iter().filter(|s| *s != scope && *s != area_write).collect();
            let reply = world.send(who, &to_refuse(operation, token_of(who, others).await).await).await;
            if !refused(&reply, "insufficient_scope") {
                says(&format!("with every scope but {scope}, expected 403 insufficient_scope"), &reply);
            }
        }
        // A scope alone (any one, for an operation that needs none).
        let alone = if scope.is_empty() { "audit:read" } else { scope };
        let call = world.request(operation, who).await.token(token_of(who, vec![alone]).await);
        let reply = world.send(who, &call).await;
        if !(200..300).contains(&reply.status) {
            says(&format!("with a token holding {alone} alone, expected 2xx"), &reply);
        } else if let Err(why) = world.check(operation, who, &call, &reply).await {
            says(&format!("with a token holding {alone} alone: the wrong answer ({why})"), &reply);
        }
        let other = match who {
            Ceo => Some((OtherCeo, row[6])),
            Head => Some((OtherHead, row[7])),
            User => Some((OtherUser, row[8])),
            _ => None,
        };
        if let Some((other, cell)) = other {
            let call = world.request(operation, other).await.token(token_of(other, ALL_SCOPES.to_vec()).await);
            let reply = world.send(other, &call).await;
            if !expected(cell, reply.status) {
                says(&format!("as {other:?} with a token holding every scope, expected {cell:?}"), &reply);
            } else if cell == A
                && let Err(why) = world.check(operation, other, &call, &reply).await
            {
                says(&format!("as {other:?} with a token holding every scope: the wrong answer ({why})"), &reply);
            }
        }
    }
    assert!(wrong.is_empty(), "{} answers otherwise than TABLE's last column says:\n{}", wrong.len(), wrong.join("\n"));
}

/// A token made by `session` at `path` (personal or service): (its id, its secret).
/// A webhook of the caller's realm: (id, url). The walk makes more than a realm may hold (20),
/// so earlier ones go first.
async fn webhook(app: &TestApp, session: &str) -> (String, String) {
    let (_, existing) = app.get(session, "/api/v1/webhooks?pageSize=100").await;
    for old in items(&existing).iter().skip(5) {
        app.delete(session, &format!("/api/v1/webhooks/{}", old["id"].as_str().unwrap())).await;
    }
    let url = format!("http://127.0.0.1:9/{}", uuid::Uuid::now_v7());
    let (status, body) = app.post(session, "/api/v1/webhooks", json!({ "url": url, "events": ["report.approved"] })).await;
    assert_eq!(status, 201, "{body}");
    (body["id"].as_str().unwrap().to_owned(), url)
}

async fn program_token(app: &TestApp, session: &str, path: &str) -> (String, String) {
    let (status, body) = app.post(session, path, json!({ "name": "walk", "scopes": ["reports:read"] })).await;
    assert_eq!(status, 201, "{body}");
    (body["id"].as_str().unwrap().to_owned(), body["token"].as_str().unwrap().to_owned())
}
