use serde_json::json;

use crate::database::test_database;
use crate::helpers::{TestApp, parts};

#[tokio::test]
async fn a_ceo_creates_department_staff_in_their_own_enterprise_only() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (mine, ceo) = app.enterprise(&admin, "Mine").await;
    let (other, _) = app.enterprise(&admin, "Other").await;
    let finance = app.department(&ceo, &mine, "finance").await;

    let (status, user) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({
                "fullName": "Hana Head", "email": "hana@mine.example", "password": "head-password",
                "role": "DepartmentHead", "departmentId": finance
            }),
        )
        .await;
    assert_eq!(status, 201, "{user}");
    assert_eq!((user["enterpriseId"].as_str(), user["departmentId"].as_str()), (Some(mine.as_str()), Some(finance.as_str())));
    assert_eq!(user["status"], "active");
    assert_eq!(app.login("hana@mine.example", "head-password").await.status(), 200);

    let person = |role: &str, enterprise: Option<&str>| {
        json!({
            "fullName": "X", "email": format!("{role}@x.example"), "password": "person-password-1", "role": role, "enterpriseId": enterprise
        })
    };
    assert_eq!(app.post(&ceo, "/api/v1/users", person("EnterpriseCeo", None)).await.0, 403);
    assert_eq!(app.post(&ceo, "/api/v1/users", person("PlatformAdmin", None)).await.0, 403);
    assert_eq!(app.post(&ceo, "/api/v1/users", person("DepartmentUser", Some(&other))).await.0, 404);
    // A department of another enterprise is not found in this one.
    let other_finance: String =
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("select id::text from t_{}.departments where type = 'finance'", other.replace('-', ""))))
            .fetch_one(&app.db)
            .await
            .unwrap();
    let mut body = person("DepartmentUser", None);
    body["departmentId"] = json!(other_finance);
    assert_eq!(app.post(&ceo, "/api/v1/users", body).await.0, 404);
}

#[tokio::test]
async fn user_input_is_validated_field_by_field() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (status, body) =
        app.post(&admin, "/api/v1/users", json!({ "fullName": "", "email": "bad", "password": "123", "role": "DepartmentUser" })).await;
    assert_eq!(status, 400);
    assert_eq!(body["fields"], json!({ "fullName": "required", "email": "invalid_email", "password": "too_short", "enterpriseId": "required" }));
    let (status, body) = app
        .post(
            &admin,
            "/api/v1/users",
            json!({ "fullName": "A", "email": "admin@example.com", "password": "person-password-1", "role": "PlatformAdmin" }),
        )
        .await;
    assert_eq!((status, body["code"].as_str(), &body["fields"]), (409, Some("conflict"), &json!({ "email": "taken" })));
    // A CEO naming an address of another enterprise learns only that it cannot be used.
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, _globex_ceo) = app.enterprise(&admin, "Globex").await;
    let (status, body) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "A", "email": "ceo@globex.example", "password": "person-password-1", "role": "DepartmentUser", "enterpriseId": ent }),
        )
        .await;
    assert_eq!((status, body["fields"]["email"].as_str()), (409, Some("taken")), "{body}");
    assert_eq!(body["message"], "This email address cannot be used");
    let (status, _) =
        app.post(&admin, "/api/v1/users", json!({ "fullName": "A", "email": "a@x.example", "password": "person-password-1", "role": "Boss" })).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn lists_are_scoped_and_filtered() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (a, ceo_a) = app.enterprise(&admin, "Alpha").await;
    let (b, ceo_b) = app.enterprise(&admin, "Beta").await;
    app.staff(&ceo_a, &a, "ann@alpha.example", "DepartmentHead", None).await;
    app.staff(&ceo_a, &a, "bob@alpha.example", "DepartmentUser", None).await;
    app.staff(&ceo_b, &b, "cid@beta.example", "DepartmentUser", None).await;

    let emails = |page: &serde_json::Value| -> Vec<String> {
        let mut v: Vec<String> = page["items"].as_array().unwrap().iter().map(|u| u["email"].as_str().unwrap().to_owned()).collect();
        v.sort();
        v
    };
    let (status, page) = app.get(&ceo_a, "/api/v1/users").await;
    assert_eq!(status, 200);
    assert_eq!(emails(&page), ["ann@alpha.example", "bob@alpha.example"], "a CEO sees their own staff only");
    assert_eq!(app.get(&ceo_a, &format!("/api/v1/users?enterpriseId={b}")).await.0, 404);
    let (_, page) = app.get(&admin, "/api/v1/users?role=DepartmentUser").await;
    assert_eq!(emails(&page), ["bob@alpha.example", "cid@beta.example"]);
    let (_, page) = app.get(&admin, &format!("/api/v1/users?enterpriseId={a}&q=ANN")).await;
    assert_eq!(emails(&page), ["ann@alpha.example"]);
    let (_, page) = app.get(&admin, &format!("/api/v1/enterprises/{a}/users")).await;
    assert_eq!(page["total"], 3);
    assert_eq!(page["items"][0]["enterpriseName"], "Alpha");
    let (_, page) = app.get(&ceo_a, &format!("/api/v1/enterprises/{a}/users?role=DepartmentHead&role=DepartmentUser")).await;
    assert_eq!(emails(&page), ["ann@alpha.example", "bob@alpha.example"]);
    let (_, page) = app.get(&ceo_a, &format!("/api/v1/enterprises/{a}/users?role=DepartmentUser&q=bob")).await;
    assert_eq!(emails(&page), ["bob@alpha.example"]);
    // Staff do not manage people.
    let staff = app.token("bob@alpha.example", "staff-password").await;
    assert_eq!(app.get(&staff, "/api/v1/users").await.0, 403);
}

#[tokio::test]
async fn deactivating_or_deleting_a_user_ends_their_sessions() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", None).await;
    let bob = app.staff(&ceo, &ent, "bob@acme.example", "DepartmentUser", None).await;
    let ann_token = app.token("ann@acme.example", "staff-password").await;
    let bob_token = app.token("bob@acme.example", "staff-password").await;

    let (status, body) = app.put(&ceo, &format!("/api/v1/users/{ann}"), json!({ "status": "inactive", "fullName": "Ann A." })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((body["status"].as_str(), body["fullName"].as_str()), (Some("inactive"), Some("Ann A.")));
    assert_eq!(app.me(&ann_token).await.status(), 401);
    let (status, body) = parts(app.login("ann@acme.example", "staff-password").await).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("account_inactive")));

    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{bob}")).await.0, 204);
    assert_eq!(app.me(&bob_token).await.status(), 401);
    assert_eq!(app.get(&ceo, &format!("/api/v1/users/{bob}")).await.0, 404);
}

#[tokio::test]
async fn nobody_locks_themselves_out_or_promotes_past_their_rank() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let me: String = app.get(&admin, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.put(&admin, &format!("/api/v1/users/{me}"), json!({ "status": "inactive" })).await.0, 409);
    assert_eq!(app.delete(&admin, &format!("/api/v1/users/{me}")).await.0, 409);

    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", None).await;
    let (status, body) = app.put(&ceo, &format!("/api/v1/users/{ann}"), json!({ "role": "EnterpriseCeo" })).await;
    assert_eq!((status, body["fields"]["role"].as_str()), (400, Some("invalid")));
    let (status, _) = app.put(&admin, &format!("/api/v1/users/{ann}"), json!({ "role": "PlatformAdmin" })).await;
    assert_eq!(status, 400);
    let ceo_id: String = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.get(&ceo, &format!("/api/v1/users/{ceo_id}")).await.0, 404, "a CEO manages staff, not themselves");
}

/// Tenant tables name users without foreign keys (tenant-migrations/20261126000001_...), so the
/// server itself keeps those references whole when a user goes.
#[tokio::test]
async fn deleting_a_user_forgets_them_in_their_tenant_but_never_orphans_a_report() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let author = app.staff(&ceo, &ent, "author@acme.example", "DepartmentUser", Some(&finance)).await;
    let head = app.staff(&ceo, &ent, "head@acme.example", "DepartmentUser", None).await;
    let department = format!("/api/v1/enterprises/{ent}/departments/{finance}");
    assert_eq!(app.put(&ceo, &department, json!({ "headId": head })).await.0, 200);
    let author_token = app.token("author@acme.example", "staff-password").await;
    let (status, report) = app
        .post(
            &author_token,
            &format!("/api/v1/departments/{finance}/reports"),
            json!({
                "title": "Q1", "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "submitted"
            }),
        )
        .await;
    assert_eq!(status, 201, "{report}");
    let report_path = format!("/api/v1/reports/{}", report["id"].as_str().unwrap());
    let (status, reviewed) = app.post(&ceo, &format!("{report_path}/review"), json!({ "status": "rejected", "reviewNotes": "More" })).await;
    assert_eq!((status, reviewed["reviewedBy"]["email"].as_str()), (200, Some("ceo@acme.example")));

    // An author stays: the audit trail keeps its authors.
    let (status, body) = app.delete(&ceo, &format!("/api/v1/users/{author}")).await;
    assert_eq!((status, body["code"].as_str(), body["reason"].as_str()), (409, Some("conflict"), Some("has_reports")), "{body}");
    assert_eq!(app.get(&ceo, &format!("/api/v1/users/{author}")).await.0, 200);
    assert_eq!(app.get(&author_token, &report_path).await.0, 200);

    // A head goes, and the department has no head.
    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{head}")).await.0, 204);
    let (_, dept) = app.get(&ceo, &department).await;
    assert!(dept["head"].is_null(), "{dept}");

    // A reviewer goes: the report and its history stay, without them.
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    assert_eq!(app.delete(&admin, &format!("/api/v1/users/{}", me["id"].as_str().unwrap())).await.0, 204);
    let (status, detail) = app.get(&author_token, &report_path).await;
    assert_eq!((status, detail["status"].as_str()), (200, Some("rejected")), "{detail}");
    assert!(detail["reviewedBy"].is_null(), "{detail}");
    let review = detail["history"].as_array().unwrap().iter().find(|e| e["toStatus"] == "rejected").unwrap();
    assert_eq!((review["actor"].is_null(), review["notes"].as_str()), (true, Some("More")));
}

#[tokio::test]
async fn an_admin_deletes_another_admin_but_not_themselves() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (status, other) = app
        .post(
            &admin,
            "/api/v1/users",
            json!({
                "fullName": "Second Admin", "email": "second@example.com", "password": "admin-password-2", "role": "PlatformAdmin"
            }),
        )
        .await;
    assert_eq!(status, 201, "{other}");
    let second = app.token("second@example.com", "admin-password-2").await;
    assert_eq!(app.delete(&admin, &format!("/api/v1/users/{}", other["id"].as_str().unwrap())).await.0, 204);
    assert_eq!(app.me(&second).await.status(), 401);
    let (_, me) = app.get(&admin, "/api/v1/auth/me").await;
    let (status, body) = app.delete(&admin, &format!("/api/v1/users/{}", me["id"].as_str().unwrap())).await;
    assert_eq!((status, body["code"].as_str(), body["reason"].as_str()), (409, Some("conflict"), Some("own_account")));
}
