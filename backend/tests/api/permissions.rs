//! The permission table (`backend/src/auth/permissions.rs`), walked: every operation in the
//! served openapi.json is called without a token, with a dead token, and as each role on its own
//! tenant's ids and on another tenant's, and answers exactly what its row says. An operation
//! without a row, or without a request here, fails the test.

use backend::{
    auth::permissions::{Access, PUBLIC, permission},
    domain::Role,
};
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::{
    helpers::TestApp,
    messaging::{backup_body, epoch_body, group as conversation, keys_body, message_body, send, start_epoch},
};

/// One enterprise with its CEO, the head and a user of finance, and reports.
struct Tenant {
    id: String,
    name: String,
    ceo: String,
    head: String,
    user: String,
    finance: String,
    /// A submitted report of finance, visible to everyone who reads the tenant's reports.
    submitted: String,
    /// A department user nobody changes (reads of a user).
    member: String,
    /// A group of the CEO, head, user and member whose members change.
    group: String,
    /// A group of the same four with its first key epoch and a message.
    chat: String,
    /// The ids of the head, the user and the member (the CEO's groups hold them).
    people: [String; 3],
    message: String,
    /// A spreadsheet of finance.
    sheet: String,
}

struct World {
    app: TestApp,
    admin: String,
    a: Tenant,
    b: Tenant,
    counter: std::sync::atomic::AtomicU32,
}

const PASSWORD: &str = "staff-password";

impl World {
    fn unique(&self) -> u32 {
        self.counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    async fn tenant(app: &TestApp, admin: &str, name: &str) -> Tenant {
        let (id, ceo) = app.enterprise(admin, name).await;
        let finance = app.department(&ceo, &id, "finance").await;
        let slug = name.to_lowercase();
        let head_id = app.staff(&ceo, &id, &format!("head@{slug}.example"), "DepartmentHead", Some(&finance)).await;
        let (status, body) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/departments/{finance}"), json!({ "headId": head_id })).await;
        assert_eq!(status, 200, "{body}");
        let user_id = app.staff(&ceo, &id, &format!("user@{slug}.example"), "DepartmentUser", Some(&finance)).await;
        let member = app.staff(&ceo, &id, &format!("member@{slug}.example"), "DepartmentUser", Some(&finance)).await;
        let head = app.token(&format!("head@{slug}.example"), PASSWORD).await;
        let user = app.token(&format!("user@{slug}.example"), PASSWORD).await;
        let submitted = report(app, &user, &finance, "submitted").await;
        let member_token = app.token(&format!("member@{slug}.example"), PASSWORD).await;
        for token in [&ceo, &head, &user, &member_token] {
            let (status, body) = app.post(token, "/api/v1/messaging/keys", keys_body()).await;
            assert_eq!(status, 201, "{body}");
        }
        let ids = [member.clone(), head_id.clone(), user_id.clone()];
        let group = conversation(app, &ceo, "Group", &ids).await;
        let chat = conversation(app, &ceo, "Chat", &ids).await;
        start_epoch(app, &ceo, &chat, 1).await;
        let message = send(app, &ceo, &chat, 1).await;
        let sheet = spreadsheet(app, &user, &finance).await;
        Tenant { id, name: slug, ceo, head, user, finance, submitted, member, group, chat, people: ids.clone(), message, sheet }
    }

    /// A fresh department user of the tenant, in finance or in no department.
    async fn fresh_staff(&self, t: &Tenant, in_finance: bool) -> String {
        let email = format!("fresh{}@{}.example", self.unique(), t.name);
        self.app.staff(&t.ceo, &t.id, &email, "DepartmentUser", in_finance.then_some(t.finance.as_str())).await
    }

    /// A fresh session of the tenant's member (a user nobody else's token depends on).
    async fn fresh_member_session(&self, t: &Tenant) -> String {
        let token = self.app.token(&format!("member@{}.example", t.name), PASSWORD).await;
        self.session_of(&token)
    }

    fn session_of(&self, token: &str) -> String {
        backend::auth::token::TokenKeys::new(&self.app.config.jwt_secret).verify(token).expect("a token we signed").sid.to_string()
    }

    /// The path and body of one call of `operation` by `role` (of `home`) on the ids of `t`.
    /// Operations that change or remove something get a target of their own.
    async fn request(&self, operation: &str, t: &Tenant, role: Role, home: &Tenant) -> (Method, String, Option<Value>) {
        let (ent, dept) = (&t.id, &t.finance);
        let get = |path: String| (Method::GET, path, None);
        match operation {
            "logout" => (Method::POST, "/api/v1/auth/logout".into(), None),
            "getMe" => get("/api/v1/auth/me".into()),
            "listEnterprises" => get("/api/v1/enterprises".into()),
            "createEnterprise" => {
                let n = self.unique();
                let body = json!({ "name": format!("New {n}"), "ceoFullName": "C", "ceoEmail": format!("ceo{n}@new.example"), "ceoPassword": "ceo-password" });
                (Method::POST, "/api/v1/enterprises".into(), Some(body))
            }
            "getEnterprise" => get(format!("/api/v1/enterprises/{ent}")),
            "updateEnterprise" => (Method::PUT, format!("/api/v1/enterprises/{ent}"), Some(json!({ "description": "Changed" }))),
            "deleteEnterprise" => {
                // The admin deletes a spare enterprise; anyone else is refused on the tenant's own.
                (Method::DELETE, format!("/api/v1/enterprises/{ent}"), None)
            }
            "listEnterpriseUsers" => get(format!("/api/v1/enterprises/{ent}/users")),
            "listEnterpriseReports" => get(format!("/api/v1/enterprises/{ent}/reports")),
            "listEnterpriseDepartments" => get(format!("/api/v1/enterprises/{ent}/departments")),
            "getDepartment" => get(format!("/api/v1/enterprises/{ent}/departments/{dept}")),
            "updateDepartment" => (Method::PUT, format!("/api/v1/enterprises/{ent}/departments/{dept}"), Some(json!({ "description": "Money" }))),
            "assignDepartmentUser" => {
                let user = self.fresh_staff(t, false).await;
                (Method::POST, format!("/api/v1/enterprises/{ent}/departments/{dept}/users"), Some(json!({ "userId": user })))
            }
            "removeDepartmentUser" => {
                let user = self.fresh_staff(t, true).await;
                (Method::DELETE, format!("/api/v1/enterprises/{ent}/departments/{dept}/users/{user}"), None)
            }
            "createUser" => {
                let body = json!({ "fullName": "New Person", "email": format!("new{}@{}.example", self.unique(), t.name), "password": PASSWORD,
                    "role": "DepartmentUser", "enterpriseId": ent });
                (Method::POST, "/api/v1/users".into(), Some(body))
            }
            "listUsers" => get(format!("/api/v1/users?enterpriseId={ent}")),
            "getUser" => get(format!("/api/v1/users/{}", t.member)),
            "updateUser" => (Method::PUT, format!("/api/v1/users/{}", self.fresh_staff(t, true).await), Some(json!({ "fullName": "Renamed" }))),
            "deleteUser" => (Method::DELETE, format!("/api/v1/users/{}", self.fresh_staff(t, true).await), None),
            "createDepartmentReport" => (Method::POST, format!("/api/v1/departments/{dept}/reports"), Some(report_body("draft"))),
            "listDepartmentReports" => get(format!("/api/v1/departments/{dept}/reports?enterpriseId={ent}")),
            "getReport" => get(format!("/api/v1/reports/{}?enterpriseId={ent}", t.submitted)),
            "updateReport" => {
                let draft = report(&self.app, &t.user, dept, "draft").await;
                (Method::PUT, format!("/api/v1/reports/{draft}"), Some(json!({ "title": "Edited" })))
            }
            "deleteReport" => (Method::DELETE, format!("/api/v1/reports/{}", report(&self.app, &t.user, dept, "draft").await), None),
            "reviewReport" => {
                let submitted = report(&self.app, &t.user, dept, "submitted").await;
                (Method::POST, format!("/api/v1/reports/{submitted}/review"), Some(json!({ "status": "reviewed" })))
            }
            "exportReport" => get(format!("/api/v1/reports/{}/export?format=csv&enterpriseId={ent}", t.submitted)),
            "getCeoDashboard" => get("/api/v1/dashboard/ceo".into()),
            "listCeoReports" => get(format!("/api/v1/dashboard/reports?departmentId={dept}")),
            "getAdminDashboard" => get("/api/v1/admin/dashboard".into()),
            "getAdminStatistics" => get("/api/v1/admin/statistics".into()),
            "listMySessions" => get("/api/v1/auth/sessions".into()),
            "logoutMySession" => {
                // Their own other session, or (another tenant) somebody else's.
                let session =
                    if std::ptr::eq(t, home) { self.session_of(&self.token(role, home, "logout").await) } else { self.fresh_member_session(t).await };
                (Method::POST, format!("/api/v1/auth/sessions/{session}/logout"), None)
            }
            "listSessions" => get(format!("/api/v1/monitoring/sessions?enterpriseId={ent}")),
            "listUserActivity" => get(format!("/api/v1/monitoring/user-activity?enterpriseId={ent}")),
            "logoutSession" => (Method::POST, format!("/api/v1/monitoring/sessions/{}/logout", self.fresh_member_session(t).await), None),
            "logoutOtherSessions" => {
                (Method::POST, format!("/api/v1/monitoring/sessions/{}/logout-others", self.fresh_member_session(t).await), None)
            }
            "recordActivity" => (Method::POST, "/api/v1/monitoring/sessions/activity".into(), None),
            "registerMessagingKeys" => (Method::POST, "/api/v1/messaging/keys".into(), Some(keys_body())),
            "getMessagingKeys" => get(format!("/api/v1/messaging/keys/{}", t.member)),
            "getMessagingBackup" => {
                let caller = self.token(role, home, operation).await;
                let (status, body) = self.app.put(&caller, "/api/v1/messaging/backup", backup_body()).await;
                assert_eq!(status, 200, "{body}");
                get("/api/v1/messaging/backup".into())
            }
            "putMessagingBackup" => (Method::PUT, "/api/v1/messaging/backup".into(), Some(backup_body())),
            "listMessagingUsers" => get("/api/v1/messaging/users".into()),
            "createConversation" => (Method::POST, "/api/v1/messaging/conversations".into(), Some(json!({ "participantId": t.member }))),
            "createGroupChat" => (Method::POST, "/api/v1/messaging/group-chats".into(), Some(json!({ "name": "New", "participantIds": [t.member] }))),
            "listConversations" => get("/api/v1/messaging/conversations".into()),
            "getUnreadTotal" => get("/api/v1/messaging/unread".into()),
            "getConversation" => get(format!("/api/v1/messaging/conversations/{}", t.group)),
            "updateConversation" => (Method::PUT, format!("/api/v1/messaging/conversations/{}", t.group), Some(json!({ "name": "Renamed" }))),
            "archiveConversation" => (Method::POST, format!("/api/v1/messaging/conversations/{}/archive", t.group), None),
            "unarchiveConversation" => (Method::POST, format!("/api/v1/messaging/conversations/{}/unarchive", t.group), None),
            "addConversationMembers" => {
                let user = self.fresh_staff(t, false).await;
                (Method::POST, format!("/api/v1/messaging/conversations/{}/members", t.group), Some(json!({ "userIds": [user] })))
            }
            "removeConversationMember" => {
                // Their own group on their own tenant; the tenant CEO's group for others (and the admin).
                let owner =
                    if role != Role::PlatformAdmin && std::ptr::eq(t, home) { self.token(role, home, operation).await } else { t.ceo.clone() };
                let group = conversation(&self.app, &owner, "Spare", std::slice::from_ref(&t.member)).await;
                (Method::DELETE, format!("/api/v1/messaging/conversations/{group}/members/{}", t.member), None)
            }
            "listConversationKeys" => get(format!("/api/v1/messaging/conversations/{}/keys", t.chat)),
            "createConversationEpoch" => {
                let owner =
                    if role != Role::PlatformAdmin && std::ptr::eq(t, home) { self.token(role, home, operation).await } else { t.ceo.clone() };
                let group = conversation(&self.app, &owner, "Spare", std::slice::from_ref(&t.member)).await;
                let body = epoch_body(&self.app, &owner, &group, 1).await;
                (Method::POST, format!("/api/v1/messaging/conversations/{group}/epochs"), Some(body))
            }
            "sendMessage" => {
                // A chat of its own, keyed for everyone's newest keys now: the walk registers new
                // keys, and a member's new keys need a new epoch before the next message.
                let chat = conversation(&self.app, &t.ceo, "Send", &t.people).await;
                start_epoch(&self.app, &t.ceo, &chat, 1).await;
                (Method::POST, "/api/v1/messaging/messages".into(), Some(message_body(&chat, 1)))
            }
            "listMessages" => get(format!("/api/v1/messaging/conversations/{}/messages", t.chat)),
            "markMessageRead" => (Method::POST, format!("/api/v1/messaging/messages/{}/read", t.message), None),
            "sendTyping" => (Method::POST, format!("/api/v1/messaging/conversations/{}/typing", t.chat), None),
            "listSpreadsheets" => get(format!("/api/v1/departments/{dept}/spreadsheets")),
            "createSpreadsheet" => (Method::POST, format!("/api/v1/departments/{dept}/spreadsheets"), Some(json!({ "name": "New" }))),
            "importSpreadsheet" => (Method::POST, format!("/api/v1/departments/{dept}/spreadsheets/import"), Some(json!({ MULTIPART_XLSX: true }))),
            "getSpreadsheet" => get(format!("/api/v1/spreadsheets/{}", t.sheet)),
            "saveSpreadsheet" => {
                let sheet = spreadsheet(&self.app, &t.user, dept).await;
                let content = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, backend::spreadsheet::empty("Saved"));
                (Method::PUT, format!("/api/v1/spreadsheets/{sheet}"), Some(json!({ "content": content, "version": 1 })))
            }
            "deleteSpreadsheet" => (Method::DELETE, format!("/api/v1/spreadsheets/{}", spreadsheet(&self.app, &t.user, dept).await), None),
            "exportSpreadsheet" => get(format!("/api/v1/spreadsheets/{}/export?format=csv", t.sheet)),
            "getSpreadsheetRange" => get(format!("/api/v1/spreadsheets/{}/range?range=A1:B2", t.sheet)),
            other => panic!("{other} has no request in tests/api/permissions.rs: add one, and its row in src/auth/permissions.rs"),
        }
    }

    async fn call(&self, token: Option<&str>, (method, path, body): (Method, String, Option<Value>)) -> u16 {
        let mut req = self.app.http.request(method, self.app.url(&path));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        match body {
            Some(body) if body.get(MULTIPART_XLSX).is_some() => {
                let file = crate::spreadsheets::xlsx(&[(1, 1, "Imported")]);
                req = req.multipart(reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(file).file_name("walk.xlsx")));
            }
            Some(body) => req = req.json(&body),
            None => {}
        }
        req.send().await.unwrap().status().as_u16()
    }

    /// The caller's token; signing out gets a token of its own (it ends it).
    async fn token(&self, role: Role, home: &Tenant, operation: &str) -> String {
        let shared = match role {
            Role::PlatformAdmin => &self.admin,
            Role::EnterpriseCeo => &home.ceo,
            Role::DepartmentHead => &home.head,
            Role::DepartmentUser => &home.user,
        };
        if operation != "logout" {
            return shared.clone();
        }
        let email = match role {
            Role::PlatformAdmin => crate::helpers::ADMIN_EMAIL.to_owned(),
            Role::EnterpriseCeo => format!("ceo@{}.example", home.name),
            Role::DepartmentHead => format!("head@{}.example", home.name),
            Role::DepartmentUser => format!("user@{}.example", home.name),
        };
        let password = match role {
            Role::PlatformAdmin => crate::helpers::ADMIN_PASSWORD,
            Role::EnterpriseCeo => "ceo-password",
            _ => PASSWORD,
        };
        self.app.token(&email, password).await
    }
}

/// A request body that stands for a multipart upload of an XLSX file.
const MULTIPART_XLSX: &str = "$multipartXlsx";

async fn spreadsheet(app: &TestApp, token: &str, department: &str) -> String {
    let (status, body) = app.post(token, &format!("/api/v1/departments/{department}/spreadsheets"), json!({ "name": "Sheet" })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

fn report_body(status: &str) -> Value {
    json!({ "title": "Q1", "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": status })
}

async fn report(app: &TestApp, token: &str, department: &str, status: &str) -> String {
    let (code, body) = app.post(token, &format!("/api/v1/departments/{department}/reports"), report_body(status)).await;
    assert_eq!(code, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

fn matches(access: Access, status: u16) -> bool {
    match access {
        Access::Allowed => (200..300).contains(&status),
        Access::Forbidden => status == 403,
        Access::Hidden => status == 404,
    }
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn every_operation_answers_each_role_as_the_permission_table_says(db: PgPool) {
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let a = World::tenant(&app, &admin, "Alpha").await;
    let b = World::tenant(&app, &admin, "Beta").await;
    let world = World { app, admin, a, b, counter: Default::default() };
    let dead = world.token(Role::DepartmentUser, &world.a, "logout").await;
    assert_eq!(world.app.logout(&dead).await.status(), 204);

    let spec: Value = world.app.http.get(world.app.url("/api/openapi.json")).send().await.unwrap().json().await.unwrap();
    let mut operations: Vec<String> = spec["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .map(|op| op["operationId"].as_str().unwrap().to_owned())
        .collect();
    operations.sort();
    let mut wrong = Vec::new();
    let mut calls = 0;
    for operation in &operations {
        if PUBLIC.contains(&operation.as_str()) {
            continue;
        }
        let row = permission(operation).unwrap_or_else(|| panic!("{operation} has no row in src/auth/permissions.rs"));
        for (who, token) in [("no token", None), ("a dead token", Some(dead.as_str()))] {
            let status = world.call(token, world.request(operation, &world.a, Role::DepartmentUser, &world.a).await).await;
            calls += 1;
            if status != 401 {
                wrong.push(format!("{operation} with {who}: {status}, expected 401"));
            }
        }
        for role in Role::ALL {
            let targets: &[(&Tenant, Access, &str)] = if role == Role::PlatformAdmin {
                &[(&world.a, row.own(role), "any tenant")]
            } else {
                &[(&world.a, row.own(role), "own tenant"), (&world.b, row.other_tenant(role), "another tenant")]
            };
            for (target, expected, whose) in targets {
                // The deleted enterprise is a spare one, so the rest of the walk keeps its world.
                let spare;
                let target = if *operation == "deleteEnterprise" && *expected == Access::Allowed {
                    spare = World::tenant(&world.app, &world.admin, &format!("Spare{}", world.unique())).await;
                    &spare
                } else {
                    target
                };
                let token = world.token(role, &world.a, operation).await;
                let status = world.call(Some(&token), world.request(operation, target, role, &world.a).await).await;
                calls += 1;
                if !matches(*expected, status) {
                    wrong.push(format!("{operation} as {} on {whose}: {status}, expected {expected:?}", role.as_str()));
                }
            }
        }
    }
    assert!(operations.len() >= 31 && calls > 250, "{} operations, {calls} calls", operations.len());
    assert!(wrong.is_empty(), "{} calls answered otherwise than the table says:\n{}", wrong.len(), wrong.join("\n"));
}
