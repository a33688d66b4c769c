//! Who may call what: one row per API operation, one column per role, read by the handlers
//! (`Caller::require`, the role gate every operation passes first). The test
//! `tests/api/permissions.rs` is the second opinion: it writes the expected answer of every
//! operation for eleven kinds of caller literally, from the product's rules, and calls them all;
//! it never reads this table, so a row changed here fails there until the test is changed too. A
//! new feature adds its rows here and its line there.
//!
//! For tenant roles a cell says what happens with ids of their own enterprise (for department
//! staff: their own department) and with another enterprise's ids, which never exist for them
//! (404). A role that may never call an operation gets 403 whatever the ids (the gate runs first,
//! and says nothing about whether they exist). The platform admin has one realm: every
//! enterprise.

use super::{Caller, Credential, api_token};
use crate::{domain::Role, error::AppError};

/// What one role gets from one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The call does what it says (2xx).
    Allowed,
    /// The role may never do this: 403 `forbidden`.
    Forbidden,
    /// The target does not exist for this caller: 404 `not_found`.
    Hidden,
}

use Access::{Allowed as A, Forbidden as F, Hidden as H};

/// One operation's row: the admin's access, then (own tenant, another tenant) for the CEO, a
/// department head and a department user.
#[derive(Debug, Clone, Copy)]
pub struct Permission {
    pub operation: &'static str,
    pub admin: Access,
    pub ceo: (Access, Access),
    pub head: (Access, Access),
    pub user: (Access, Access),
}

const fn row(operation: &'static str, admin: Access, ceo: [Access; 2], head: [Access; 2], user: [Access; 2]) -> Permission {
    Permission { operation, admin, ceo: (ceo[0], ceo[1]), head: (head[0], head[1]), user: (user[0], user[1]) }
}

/// Operations anyone may call, signed in or not.
pub const PUBLIC: &[&str] = &[
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

/// Every signed-in role, on anything.
const ALL: [Access; 2] = [A, A];
/// Never this role.
const NEVER: [Access; 2] = [F, F];
/// Their own enterprise's (or department's) only.
const OWN: [Access; 2] = [A, H];

pub const PERMISSIONS: &[Permission] = &[
    // Auth
    row("logout", A, ALL, ALL, ALL),
    row("getMe", A, ALL, ALL, ALL),
    // Accounts: everyone their own profile and password (a person signed in, not a program).
    row("updateMe", A, ALL, ALL, ALL),
    row("changeMyPassword", A, ALL, ALL, ALL),
    row("listMySessions", A, ALL, ALL, ALL),
    // The second factor: everyone their own; the admin resets anyone's, a CEO their staff's.
    row("getMfaStatus", A, ALL, ALL, ALL),
    row("startTotpEnrollment", A, ALL, ALL, ALL),
    row("confirmTotpEnrollment", A, ALL, ALL, ALL),
    row("disableTotp", A, ALL, ALL, ALL),
    row("regenerateRecoveryCodes", A, ALL, ALL, ALL),
    row("listPasskeys", A, ALL, ALL, ALL),
    row("startPasskeyRegistration", A, ALL, ALL, ALL),
    row("finishPasskeyRegistration", A, ALL, ALL, ALL),
    row("renamePasskey", A, ALL, ALL, ALL),
    row("deletePasskey", A, ALL, ALL, ALL),
    row("resetUserMfa", A, OWN, NEVER, NEVER),
    // Second-factor policies: the platform's is the admin's; an enterprise's its CEO's too.
    row("getPlatformSecurityPolicy", A, NEVER, NEVER, NEVER),
    row("updatePlatformSecurityPolicy", A, NEVER, NEVER, NEVER),
    row("getEnterpriseSecurityPolicy", A, OWN, NEVER, NEVER),
    row("updateEnterpriseSecurityPolicy", A, OWN, NEVER, NEVER),
    row("getEnterpriseSso", A, OWN, NEVER, NEVER),
    row("updateEnterpriseSso", A, OWN, NEVER, NEVER),
    row("deleteEnterpriseSso", A, OWN, NEVER, NEVER),
    row("listSsoDomains", A, OWN, NEVER, NEVER),
    row("addSsoDomain", A, OWN, NEVER, NEVER),
    row("verifySsoDomain", A, OWN, NEVER, NEVER),
    row("deleteSsoDomain", A, OWN, NEVER, NEVER),
    row("logoutMySession", A, OWN, OWN, OWN),
    // Provisioning (SCIM): an enterprise's, so its CEO's (or their service credential's).
    row("getScimServiceProviderConfig", F, OWN, NEVER, NEVER),
    row("listScimSchemas", F, OWN, NEVER, NEVER),
    row("getScimSchema", F, OWN, NEVER, NEVER),
    row("listScimResourceTypes", F, OWN, NEVER, NEVER),
    row("getScimResourceType", F, OWN, NEVER, NEVER),
    row("listScimUsers", F, OWN, NEVER, NEVER),
    row("searchScimUsers", F, OWN, NEVER, NEVER),
    row("searchScim", F, OWN, NEVER, NEVER),
    row("createScimUser", F, OWN, NEVER, NEVER),
    row("getScimUser", F, OWN, NEVER, NEVER),
    row("replaceScimUser", F, OWN, NEVER, NEVER),
    row("patchScimUser", F, OWN, NEVER, NEVER),
    row("deleteScimUser", F, OWN, NEVER, NEVER),
    // Enterprises: the admin's; a CEO reads their own.
    row("listEnterprises", A, NEVER, NEVER, NEVER),
    row("createEnterprise", A, NEVER, NEVER, NEVER),
    row("getEnterprise", A, OWN, NEVER, NEVER),
    row("updateEnterprise", A, NEVER, NEVER, NEVER),
    row("deleteEnterprise", A, NEVER, NEVER, NEVER),
    row("restoreEnterprise", A, NEVER, NEVER, NEVER),
    row("purgeEnterprise", A, NEVER, NEVER, NEVER),
    // An enterprise's export: the admin any, a CEO their own.
    row("createEnterpriseExport", A, OWN, NEVER, NEVER),
    row("listEnterpriseExports", A, OWN, NEVER, NEVER),
    row("getEnterpriseExport", A, OWN, NEVER, NEVER),
    row("downloadEnterpriseExport", A, OWN, NEVER, NEVER),
    // Importing an enterprise from its archive: the admin's.
    row("importEnterprise", A, NEVER, NEVER, NEVER),
    row("listEnterpriseImports", A, NEVER, NEVER, NEVER),
    row("getEnterpriseImport", A, NEVER, NEVER, NEVER),
    // Usage: the admin any, a CEO their own; limits are the admin's.
    row("getEnterpriseUsage", A, OWN, NEVER, NEVER),
    row("listEnterpriseUsage", A, NEVER, NEVER, NEVER),
    row("getEnterpriseProvisioning", A, OWN, NEVER, NEVER),
    row("updateEnterpriseProvisioning", A, OWN, NEVER, NEVER),
    row("setEnterpriseLimits", A, NEVER, NEVER, NEVER),
    row("listEnterpriseUsers", A, OWN, NEVER, NEVER),
    row("listEnterpriseReports", A, OWN, NEVER, NEVER),
    // Departments: managed by the admin and the CEO; staff read their own department.
    row("listEnterpriseDepartments", A, OWN, NEVER, NEVER),
    row("getDepartment", A, OWN, OWN, OWN),
    row("updateDepartment", A, OWN, NEVER, NEVER),
    row("assignDepartmentUser", A, OWN, NEVER, NEVER),
    row("removeDepartmentUser", A, OWN, NEVER, NEVER),
    // Users: the admin everyone; a CEO their enterprise's department staff.
    row("createUser", A, OWN, NEVER, NEVER),
    row("listUsers", A, OWN, NEVER, NEVER),
    row("getUser", A, OWN, NEVER, NEVER),
    row("updateUser", A, OWN, NEVER, NEVER),
    row("deleteUser", A, OWN, NEVER, NEVER),
    row("eraseUser", A, OWN, NEVER, NEVER),
    row("resendInvitation", A, OWN, NEVER, NEVER),
    // Reports: staff write in their department; the CEO reviews; the admin reads.
    row("createDepartmentReport", F, NEVER, OWN, OWN),
    row("listDepartmentReports", A, OWN, OWN, OWN),
    row("getReport", A, OWN, OWN, OWN),
    row("updateReport", F, NEVER, OWN, OWN),
    row("deleteReport", F, NEVER, OWN, OWN),
    row("reviewReport", F, OWN, NEVER, NEVER),
    row("exportReport", A, OWN, OWN, OWN),
    // Dashboards
    row("getCeoDashboard", F, ALL, NEVER, NEVER),
    row("listCeoReports", F, OWN, NEVER, NEVER),
    row("getAdminDashboard", A, NEVER, NEVER, NEVER),
    row("getAdminStatistics", A, NEVER, NEVER, NEVER),
    // Monitoring: the admin every session, a CEO their enterprise's; everyone sends heartbeats.
    row("listSessions", A, OWN, NEVER, NEVER),
    row("listMonitoringPlaces", A, OWN, NEVER, NEVER),
    row("listUserActivity", A, OWN, NEVER, NEVER),
    row("logoutSession", A, OWN, NEVER, NEVER),
    row("logoutOtherSessions", A, OWN, NEVER, NEVER),
    row("recordActivity", A, ALL, ALL, ALL),
    // Messaging: everyone, inside their own realm (the admins' realm is the platform, so an
    // enterprise's users and conversations are 404 to them, as to another enterprise).
    row("registerMessagingKeys", A, ALL, ALL, ALL),
    row("getMessagingKeys", H, OWN, OWN, OWN),
    row("getMessagingSetup", A, ALL, ALL, ALL),
    row("getMessagingBackup", A, ALL, ALL, ALL),
    row("putMessagingBackup", A, ALL, ALL, ALL),
    row("listMessagingUsers", A, ALL, ALL, ALL),
    row("createConversation", H, OWN, OWN, OWN),
    row("createGroupChat", H, OWN, OWN, OWN),
    row("listConversations", A, ALL, ALL, ALL),
    row("getUnreadTotal", A, ALL, ALL, ALL),
    row("getConversation", H, OWN, OWN, OWN),
    row("updateConversation", H, OWN, OWN, OWN),
    row("archiveConversation", H, OWN, OWN, OWN),
    row("unarchiveConversation", H, OWN, OWN, OWN),
    row("addConversationMembers", H, OWN, OWN, OWN),
    row("removeConversationMember", H, OWN, OWN, OWN),
    row("listConversationKeys", H, OWN, OWN, OWN),
    row("createConversationEpoch", H, OWN, OWN, OWN),
    row("sendMessage", H, OWN, OWN, OWN),
    row("listMessages", H, OWN, OWN, OWN),
    row("markMessageRead", H, OWN, OWN, OWN),
    row("sendTyping", H, OWN, OWN, OWN),
    // Spreadsheets: staff work in their own department; the CEO reads; the admin does not see them.
    row("listSpreadsheets", F, OWN, OWN, OWN),
    row("createSpreadsheet", F, NEVER, OWN, OWN),
    row("importSpreadsheet", F, NEVER, OWN, OWN),
    row("getSpreadsheet", F, OWN, OWN, OWN),
    row("saveSpreadsheet", F, NEVER, OWN, OWN),
    row("deleteSpreadsheet", F, NEVER, OWN, OWN),
    row("exportSpreadsheet", F, OWN, OWN, OWN),
    row("getSpreadsheetRange", F, OWN, OWN, OWN),
    // Tokens for programs: everyone their own; service credentials the admin and the CEO.
    row("createApiToken", A, ALL, ALL, ALL),
    row("listApiTokens", A, ALL, ALL, ALL),
    row("deleteApiToken", A, OWN, OWN, OWN),
    row("createServiceToken", A, OWN, NEVER, NEVER),
    row("listServiceTokens", A, OWN, NEVER, NEVER),
    row("deleteServiceToken", A, OWN, NEVER, NEVER),
    // Webhooks: a CEO their enterprise's, the admin the platform's (an enterprise's are 404 to
    // the admin, as the admin's are to a CEO).
    row("createWebhook", A, ALL, NEVER, NEVER),
    row("listWebhooks", A, ALL, NEVER, NEVER),
    row("getWebhookUrlRules", A, ALL, NEVER, NEVER),
    row("getWebhook", A, OWN, NEVER, NEVER),
    row("updateWebhook", A, OWN, NEVER, NEVER),
    row("deleteWebhook", A, OWN, NEVER, NEVER),
    row("rotateWebhookSecret", A, OWN, NEVER, NEVER),
    row("sendWebhookTestEvent", A, OWN, NEVER, NEVER),
    row("listWebhookDeliveries", A, OWN, NEVER, NEVER),
    row("redeliverWebhookDelivery", A, OWN, NEVER, NEVER),
    // The audit log: a CEO their enterprise's, the admin everyone's.
    row("listAuditEvents", A, OWN, NEVER, NEVER),
    row("exportAuditEvents", A, OWN, NEVER, NEVER),
];

/// The scope a program's token needs for each operation it may call (`auth::api_token`). An
/// operation not listed here is for people signed in only (a session): signing out, one's own
/// sessions and heartbeats, the messenger, and the tokens themselves. `getMe` needs no scope.
pub const SCOPES: &[(&str, &str)] = &[
    ("getMe", ""),
    ("listEnterprises", "enterprises:read"),
    ("getEnterprise", "enterprises:read"),
    ("createEnterprise", "enterprises:write"),
    ("updateEnterprise", "enterprises:write"),
    ("deleteEnterprise", "enterprises:write"),
    ("restoreEnterprise", "enterprises:write"),
    ("purgeEnterprise", "enterprises:write"),
    ("createEnterpriseExport", "enterprises:write"),
    ("listEnterpriseExports", "enterprises:read"),
    ("getEnterpriseExport", "enterprises:read"),
    ("downloadEnterpriseExport", "enterprises:read"),
    ("importEnterprise", "enterprises:write"),
    ("listEnterpriseImports", "enterprises:read"),
    ("getEnterpriseImport", "enterprises:read"),
    ("getEnterpriseUsage", "enterprises:read"),
    ("listEnterpriseUsage", "enterprises:read"),
    ("getEnterpriseProvisioning", "scim:read"),
    ("updateEnterpriseProvisioning", "scim:write"),
    ("setEnterpriseLimits", "enterprises:write"),
    ("listEnterpriseDepartments", "enterprises:read"),
    ("getDepartment", "enterprises:read"),
    ("updateDepartment", "enterprises:write"),
    ("assignDepartmentUser", "enterprises:write"),
    ("removeDepartmentUser", "enterprises:write"),
    ("listEnterpriseUsers", "users:read"),
    ("listUsers", "users:read"),
    ("getScimServiceProviderConfig", "scim:read"),
    ("listScimSchemas", "scim:read"),
    ("getScimSchema", "scim:read"),
    ("listScimResourceTypes", "scim:read"),
    ("getScimResourceType", "scim:read"),
    ("listScimUsers", "scim:read"),
    ("searchScimUsers", "scim:read"),
    ("searchScim", "scim:read"),
    ("getScimUser", "scim:read"),
    ("createScimUser", "scim:write"),
    ("replaceScimUser", "scim:write"),
    ("patchScimUser", "scim:write"),
    ("deleteScimUser", "scim:write"),
    ("getUser", "users:read"),
    ("createUser", "users:write"),
    ("updateUser", "users:write"),
    ("deleteUser", "users:write"),
    ("eraseUser", "users:write"),
    ("resendInvitation", "users:write"),
    ("listEnterpriseReports", "reports:read"),
    ("listDepartmentReports", "reports:read"),
    ("getReport", "reports:read"),
    ("exportReport", "reports:read"),
    ("listCeoReports", "reports:read"),
    ("createDepartmentReport", "reports:write"),
    ("updateReport", "reports:write"),
    ("deleteReport", "reports:write"),
    ("reviewReport", "reports:write"),
    ("getCeoDashboard", "dashboards:read"),
    ("getAdminDashboard", "dashboards:read"),
    ("getAdminStatistics", "dashboards:read"),
    ("listSessions", "monitoring:read"),
    ("listMonitoringPlaces", "monitoring:read"),
    ("listUserActivity", "monitoring:read"),
    ("logoutSession", "monitoring:write"),
    ("logoutOtherSessions", "monitoring:write"),
    ("listSpreadsheets", "spreadsheets:read"),
    ("getSpreadsheet", "spreadsheets:read"),
    ("exportSpreadsheet", "spreadsheets:read"),
    ("getSpreadsheetRange", "spreadsheets:read"),
    ("createSpreadsheet", "spreadsheets:write"),
    ("importSpreadsheet", "spreadsheets:write"),
    ("saveSpreadsheet", "spreadsheets:write"),
    ("deleteSpreadsheet", "spreadsheets:write"),
    ("listWebhooks", "webhooks:read"),
    ("getWebhookUrlRules", "webhooks:read"),
    ("getWebhook", "webhooks:read"),
    ("listWebhookDeliveries", "webhooks:read"),
    ("createWebhook", "webhooks:write"),
    ("updateWebhook", "webhooks:write"),
    ("deleteWebhook", "webhooks:write"),
    ("rotateWebhookSecret", "webhooks:write"),
    ("sendWebhookTestEvent", "webhooks:write"),
    ("redeliverWebhookDelivery", "webhooks:write"),
    ("listAuditEvents", "audit:read"),
    ("exportAuditEvents", "audit:read"),
];

/// Operations that act as a person, which an enterprise's service credential (no person behind
/// it) may not call whatever its scopes: who am I, and a review, which names its reviewer.
pub const PERSON_ONLY: &[&str] = &["getMe", "reviewReport"];

/// The scope a token needs for `operation`; `None` when no token may call it.
pub fn scope(operation: &str) -> Option<&'static str> {
    SCOPES.iter().find(|(op, _)| *op == operation).map(|(_, scope)| *scope)
}

/// The row of an operation.
pub fn permission(operation: &str) -> Option<&'static Permission> {
    PERMISSIONS.iter().find(|p| p.operation == operation)
}

impl Permission {
    /// What `role` gets with ids of its own realm.
    pub fn own(&self, role: Role) -> Access {
        match role {
            Role::PlatformAdmin => self.admin,
            Role::EnterpriseCeo => self.ceo.0,
            Role::DepartmentHead => self.head.0,
            Role::DepartmentUser => self.user.0,
        }
    }

    /// What `role` gets with another enterprise's ids (the admin has no other).
    pub fn other_tenant(&self, role: Role) -> Access {
        match role {
            Role::PlatformAdmin => self.admin,
            Role::EnterpriseCeo => self.ceo.1,
            Role::DepartmentHead => self.head.1,
            Role::DepartmentUser => self.user.1,
        }
    }
}

impl Caller {
    /// The role gate of `operation`: 403 when the table says this role may never call it.
    /// Which rows the caller reaches (their tenant, their department) the handler decides.
    pub fn require(&self, operation: &str) -> Result<(), AppError> {
        let Some(permission) = permission(operation) else {
            return Err(AppError::Unexpected(anyhow::anyhow!("no permission row for {operation}")));
        };
        if permission.own(self.role) == Access::Forbidden {
            return Err(AppError::Forbidden);
        }
        let Credential::Token { scopes, service } = &self.credential else { return Ok(()) };
        match scope(operation) {
            None => Err(AppError::Forbidden),
            Some(_) if *service && PERSON_ONLY.contains(&operation) => Err(AppError::Forbidden),
            Some(needed) if needed.is_empty() || api_token::grants(scopes, needed) => Ok(()),
            Some(_) => Err(AppError::InsufficientScope),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_has_one_row() {
        let mut names: Vec<&str> = PERMISSIONS.iter().map(|p| p.operation).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "an operation has two rows");
        assert!(PUBLIC.iter().all(|p| permission(p).is_none()), "a public operation has a row");
    }

    #[test]
    fn the_gate_refuses_what_the_table_forbids() {
        let caller = |role| Caller {
            user_id: uuid::Uuid::now_v7(),
            role,
            enterprise_id: None,
            session_id: uuid::Uuid::now_v7(),
            credential: crate::auth::Credential::Session,
        };
        assert!(caller(Role::PlatformAdmin).require("createEnterprise").is_ok());
        assert!(matches!(caller(Role::EnterpriseCeo).require("createEnterprise"), Err(AppError::Forbidden)));
        assert!(matches!(caller(Role::PlatformAdmin).require("updateReport"), Err(AppError::Forbidden)));
        assert!(caller(Role::DepartmentUser).require("updateReport").is_ok());
        assert!(matches!(caller(Role::DepartmentUser).require("nope"), Err(AppError::Unexpected(_))));
    }

    #[test]
    fn every_scoped_operation_has_a_row_and_a_known_scope() {
        for (operation, scope) in SCOPES {
            assert!(permission(operation).is_some(), "{operation} has a scope but no row");
            assert!(scope.is_empty() || api_token::is_scope(scope), "{operation}: {scope}");
        }
    }

    #[test]
    fn a_token_calls_within_its_scopes_and_never_as_a_session() {
        let token = |role, scopes: &[&str], service| Caller {
            user_id: uuid::Uuid::now_v7(),
            role,
            enterprise_id: Some(uuid::Uuid::now_v7()),
            session_id: uuid::Uuid::now_v7(),
            credential: Credential::Token { scopes: scopes.iter().map(|s| (*s).to_owned()).collect(), service },
        };
        let ceo = token(Role::EnterpriseCeo, &["reports:write"], false);
        assert!(ceo.require("getReport").is_ok() && ceo.require("reviewReport").is_ok() && ceo.require("getMe").is_ok());
        assert!(matches!(ceo.require("listUsers"), Err(AppError::InsufficientScope)));
        assert!(matches!(ceo.require("sendMessage"), Err(AppError::Forbidden)), "no token reads the messenger");
        assert!(matches!(ceo.require("logout"), Err(AppError::Forbidden)), "a token is no session");
        assert!(matches!(ceo.require("createEnterprise"), Err(AppError::Forbidden)), "never more than the role");
        let service = token(Role::EnterpriseCeo, &["reports:write"], true);
        assert!(service.require("getReport").is_ok());
        assert!(matches!(service.require("reviewReport"), Err(AppError::Forbidden)), "a review names a person");
    }
}
