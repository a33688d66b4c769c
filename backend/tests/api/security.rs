//! The findings of the security review (issue 15), each proved fixed through the API: a test
//! here fails on the code the review probed.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp};

fn draft(title: &str) -> Value {
    json!({ "title": title, "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31" })
}

async fn user_id(app: &TestApp, token: &str) -> String {
    app.get(token, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned()
}

/// Finding 1: a demoted CEO kept creating users, approving reports and reading the CEO
/// dashboard with their old token.
#[tokio::test]
async fn a_demoted_ceo_loses_their_powers_on_the_next_request() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    app.staff(&ceo, &ent, "author@acme.example", "DepartmentUser", Some(&finance)).await;
    let author = app.token("author@acme.example", "staff-password").await;
    let (_, report) = app
        .post(
            &author,
            &format!("/api/v1/departments/{finance}/reports"),
            json!({
                "title": "Q1", "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "submitted"
            }),
        )
        .await;
    let review = format!("/api/v1/reports/{}/review", report["id"].as_str().unwrap());
    assert_eq!(app.get(&ceo, "/api/v1/dashboard/ceo").await.0, 200);

    let ceo_id = user_id(&app, &ceo).await;
    let (status, body) = app.put(&admin, &format!("/api/v1/users/{ceo_id}"), json!({ "role": "DepartmentUser" })).await;
    assert_eq!((status, body["role"].as_str()), (200, Some("DepartmentUser")), "{body}");

    let new_user = json!({ "fullName": "X", "email": "x@acme.example", "password": "staff-password", "role": "DepartmentUser" });
    assert_eq!(app.post(&ceo, "/api/v1/users", new_user.clone()).await.0, 401);
    assert_eq!(app.post(&ceo, &review, json!({ "status": "approved" })).await.0, 401);
    assert_eq!(app.get(&ceo, "/api/v1/dashboard/ceo").await.0, 401);
    // Signed in again, they hold their new role's rights only.
    let again = app.token("ceo@acme.example", "ceo-password").await;
    assert_eq!(app.get(&again, "/api/v1/auth/me").await.1["role"], "DepartmentUser");
    assert_eq!(app.post(&again, "/api/v1/users", new_user).await.0, 403);
    assert_eq!(app.post(&again, &review, json!({ "status": "approved" })).await.0, 403);
    assert_eq!(app.get(&again, "/api/v1/dashboard/ceo").await.0, 403);
    let (_, row) = app.get(&admin, &format!("/api/v1/users/{ceo_id}")).await;
    assert_eq!(row["role"], "DepartmentUser");
}

/// Finding 1, heads: a head demoted by the CEO still edited a colleague's draft, and a replaced
/// head kept the DepartmentHead role and its rights. Head rights follow the department's head.
#[tokio::test]
async fn head_rights_end_with_the_headship_or_the_role() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let department = format!("/api/v1/enterprises/{ent}/departments/{finance}");
    app.staff(&ceo, &ent, "author@acme.example", "DepartmentUser", Some(&finance)).await;
    let hana = app.staff(&ceo, &ent, "hana@acme.example", "DepartmentUser", Some(&finance)).await;
    let hugo = app.staff(&ceo, &ent, "hugo@acme.example", "DepartmentUser", Some(&finance)).await;
    // Created as a head of finance, but never named its head.
    app.staff(&ceo, &ent, "titular@acme.example", "DepartmentHead", Some(&finance)).await;
    let author = app.token("author@acme.example", "staff-password").await;
    let (_, report) = app.post(&author, &format!("/api/v1/departments/{finance}/reports"), draft("Q1")).await;
    let report = format!("/api/v1/reports/{}", report["id"].as_str().unwrap());

    let titular = app.token("titular@acme.example", "staff-password").await;
    assert_eq!(app.put(&titular, &report, json!({ "title": "By a head of nothing" })).await.0, 403);

    assert_eq!(app.put(&ceo, &department, json!({ "headId": hana })).await.0, 200);
    let hana_token = app.token("hana@acme.example", "staff-password").await;
    assert_eq!(app.put(&hana_token, &report, json!({ "title": "Edited by the head" })).await.0, 200);

    // The CEO names another head: Hana's token dies, and she is a department user again.
    let (status, dept) = app.put(&ceo, &department, json!({ "headId": hugo })).await;
    assert_eq!((status, dept["head"]["id"].as_str()), (200, Some(hugo.as_str())));
    assert_eq!(app.put(&hana_token, &report, json!({ "title": "Still the head?" })).await.0, 401);
    let hana_token = app.token("hana@acme.example", "staff-password").await;
    assert_eq!(app.get(&hana_token, "/api/v1/auth/me").await.1["role"], "DepartmentUser");
    assert_eq!(app.put(&hana_token, &report, json!({ "title": "Still the head?" })).await.0, 403);

    // The CEO demotes Hugo through his account: his token dies, his rights with it.
    let hugo_token = app.token("hugo@acme.example", "staff-password").await;
    assert_eq!(app.put(&hugo_token, &report, json!({ "title": "Edited by Hugo" })).await.0, 200);
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{hugo}"), json!({ "role": "DepartmentUser" })).await.0, 200);
    assert_eq!(app.put(&hugo_token, &report, json!({ "title": "Edited by Hugo again" })).await.0, 401);
    let hugo_token = app.token("hugo@acme.example", "staff-password").await;
    assert_eq!(app.put(&hugo_token, &report, json!({ "title": "Edited by Hugo again" })).await.0, 403);
    let (_, dept) = app.get(&ceo, &department).await;
    assert!(dept["head"].is_null(), "a demoted head heads nothing: {dept}");

    // Removing a head from the department ends the headship and the role.
    assert_eq!(app.put(&ceo, &department, json!({ "headId": hana })).await.0, 200);
    let hana_token = app.token("hana@acme.example", "staff-password").await;
    assert_eq!(app.delete(&ceo, &format!("{department}/users/{hana}")).await.0, 204);
    assert_eq!(app.get(&hana_token, "/api/v1/auth/me").await.0, 401);
    let (_, row) = app.get(&ceo, &format!("/api/v1/users/{hana}")).await;
    assert_eq!(row["role"], "DepartmentUser");
}

/// Finding 3: 60 simultaneous wrong passwords for one account from one address all got 401.
#[tokio::test]
async fn simultaneous_guesses_check_no_more_passwords_than_the_limit() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_account_and_ip = 5;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    app.admin().await;
    let guesses = (0..60).map(|i| app.login_from(ADMIN_EMAIL, if i == 59 { ADMIN_PASSWORD } else { "wrong-password" }, Some("203.0.113.7")));
    let statuses: Vec<u16> = join_all(guesses).await.iter().map(|r| r.status().as_u16()).collect();
    let checked = statuses.iter().filter(|s| **s != 429).count();
    assert_eq!(checked, 5, "passwords checked: {statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 55);
}

/// Finding 4: with two X-Forwarded-For lines (the client's own, then the proxy's), the
/// client's line was believed.
#[tokio::test]
async fn every_forwarded_for_line_is_read_as_one_list() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    app.admin().await;
    let resp = app
        .http
        .post(app.url("/api/v1/auth/login"))
        .header("x-forwarded-for", "6.6.6.6")
        .header("x-forwarded-for", "81.2.69.142")
        .json(&json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (ip, city): (String, Option<String>) = sqlx::query_as("select host(ip_address), city from sessions").fetch_one(&app.db).await.unwrap();
    assert_eq!((ip.as_str(), city.as_deref()), ("81.2.69.142", Some("London")));
}

/// Finding 2: concurrent exports of the largest report allowed are bounded; none fails with a
/// server error (memory is measured by bench/exports.sh).
#[tokio::test]
async fn concurrent_exports_of_a_huge_report_are_served_or_deferred_never_failed() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.max_body_bytes = 2 * 1024 * 1024).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    app.staff(&ceo, &ent, "author@acme.example", "DepartmentUser", Some(&finance)).await;
    let author = app.token("author@acme.example", "staff-password").await;
    let columns: Vec<String> = (0..50).map(|c| format!("C{c}")).collect();
    let rows: Vec<Vec<u32>> = (0..10_000).map(|r| (0..50).map(|c| (r * 50 + c) % 10).collect()).collect();
    let mut body = draft("Huge");
    body["data"] = json!({ "columns": columns, "rows": rows });
    let (status, report) = app.post(&author, &format!("/api/v1/departments/{finance}/reports"), body).await;
    assert_eq!(status, 201, "{report}");
    let export = format!("/api/v1/reports/{}/export?format=pdf", report["id"].as_str().unwrap());
    let statuses: Vec<u16> = join_all((0..8).map(|_| app.http.get(app.url(&export)).bearer_auth(&author).send()))
        .await
        .into_iter()
        .map(|r| r.unwrap().status().as_u16())
        .collect();
    assert!(statuses.iter().all(|s| *s == 200 || *s == 503), "{statuses:?}");
    assert!(statuses.contains(&200), "{statuses:?}");
}

#[tokio::test]
async fn the_ceo_report_list_of_an_unknown_department_is_404() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Acme").await;
    let (status, body) = app.get(&ceo, &format!("/api/v1/dashboard/reports?departmentId={}", uuid::Uuid::now_v7())).await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
}

#[tokio::test]
async fn common_and_trivial_passwords_are_refused_everywhere_one_is_set() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    for weak in ["12345678", "aaaaaaaa", "        "] {
        let (status, body) = app
            .post(
                &admin,
                "/api/v1/enterprises",
                json!({
                    "name": "Weak", "ceoFullName": "C", "ceoEmail": "c@weak.example", "ceoPassword": weak
                }),
            )
            .await;
        assert_eq!((status, body["fields"]["ceoPassword"].as_str()), (400, Some("too_weak")), "{weak:?}: {body}");
    }
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let (status, body) = app
        .post(&ceo, "/api/v1/users", json!({ "fullName": "U", "email": "u@acme.example", "password": "password", "role": "DepartmentUser" }))
        .await;
    assert_eq!((status, body["fields"]["password"].as_str()), (400, Some("too_weak")));
    let user = app.staff(&ceo, &ent, "v@acme.example", "DepartmentUser", None).await;
    let (status, body) = app.put(&ceo, &format!("/api/v1/users/{user}"), json!({ "password": "qwertyuiop" })).await;
    assert_eq!((status, body["fields"]["password"].as_str()), (400, Some("too_weak")));
}

/// Sessions unused for the idle timeout end; sessions in use do not.
#[tokio::test]
async fn a_session_unused_for_the_idle_timeout_ends() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.idle_timeouts.session = Duration::from_secs(4)).await;
    app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for _ in 0..5 {
        assert_eq!(app.me(&token).await.status(), 200, "a session in use stays");
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(app.me(&token).await.status(), 401, "an idle session ends");
    let reason: Option<String> = sqlx::query_scalar("select end_reason from sessions").fetch_one(&app.db).await.unwrap();
    assert_eq!(reason.as_deref(), Some("idle"));
}

/// Swagger UI shares the token's origin: only its own scripts run, and nothing frames it.
#[tokio::test]
async fn the_api_docs_page_has_a_strict_policy() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let resp = app.http.get(app.url("/api/docs")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let csp = resp.headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert_eq!(resp.headers()["x-frame-options"], "DENY");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(csp.contains("script-src 'sha256-"), "{csp}");
    let scripts = csp.split(';').find(|d| d.trim().starts_with("script-src")).unwrap();
    assert!(!scripts.contains("unsafe"), "{csp}");
}
