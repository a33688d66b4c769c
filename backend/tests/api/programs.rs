//! The API as a program uses it (issue 23): tokens for programs, safe retries, visible limits,
//! problem details, conditional requests, `Location` on 201.

use std::time::Duration;

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{TestApp, parts};

/// Makes a personal token with `scopes` from a session; returns (status, body).
async fn make_token(app: &TestApp, session: &str, scopes: &[&str]) -> (u16, Value) {
    app.post(session, "/api/v1/api-tokens", json!({ "name": "ci job", "scopes": scopes })).await
}

async fn secret(app: &TestApp, session: &str, scopes: &[&str]) -> String {
    let (status, body) = make_token(app, session, scopes).await;
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_personal_token_acts_as_its_owner_within_its_scopes_and_is_shown_once() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;

    let resp = app
        .http
        .post(app.url("/api/v1/api-tokens"))
        .bearer_auth(&admin)
        .json(&json!({ "name": "nightly export", "scopes": ["enterprises:read", "reports:read"] }))
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_owned();
    let (status, created) = parts(resp).await;
    assert_eq!(status, 201, "{created}");
    let token = created["token"].as_str().unwrap();
    assert!(token.starts_with("ept_") && token.len() > 40, "a recognisable prefix and enough secret: {token}");
    assert_eq!(created["prefix"].as_str().unwrap(), &token[..12]);
    assert_eq!(location, format!("/api/v1/api-tokens/{}", created["id"].as_str().unwrap()));
    assert_eq!(created["scopes"], json!(["enterprises:read", "reports:read"]));
    assert_eq!(created["lastUsedAt"], Value::Null);

    // Stored as a hash only.
    let stored: Vec<u8> = sqlx::query_scalar("select secret_hash from api_tokens").fetch_one(&db).await.unwrap();
    assert_eq!(stored.len(), 32);
    assert!(!stored.windows(8).any(|w| w == &token.as_bytes()[4..12]));

    let (status, me) = app.get(token, "/api/v1/auth/me").await;
    assert_eq!((status, me["email"].as_str()), (200, Some("admin@example.com")));
    assert_eq!(app.get(token, "/api/v1/enterprises").await.0, 200);

    // Outside its scopes, and what only a session does.
    let (status, body) = app
        .post(
            token,
            "/api/v1/enterprises",
            json!({ "name": "Nope", "ceoFullName": "C", "ceoEmail": "c@nope.example", "ceoPassword": "ceo-password" }),
        )
        .await;
    assert_eq!((status, body["code"].as_str()), (403, Some("insufficient_scope")), "{body}");
    assert_eq!(app.get(token, "/api/v1/messaging/conversations").await.0, 403, "no token reads the messenger");
    assert_eq!(make_token(&app, token, &["users:read"]).await.0, 403, "a token makes no tokens");
    assert_eq!(app.post(token, "/api/v1/auth/logout", json!({})).await.0, 403, "a token is no session");

    // Never the secret again; used, and not a session on the monitoring map.
    let (status, list) = app.get(&admin, "/api/v1/api-tokens").await;
    assert_eq!((status, list["total"].as_i64()), (200, Some(1)));
    assert!(list["items"][0].get("token").is_none(), "{list}");
    assert!(list["items"][0]["lastUsedAt"].is_string());
    let (_, sessions) = app.get(&admin, "/api/v1/monitoring/sessions").await;
    assert_eq!(sessions["total"], 1, "only the admin's own session: {sessions}");

    // Revoked: refused at once.
    assert_eq!(app.delete(&admin, &format!("/api/v1/api-tokens/{}", created["id"].as_str().unwrap())).await.0, 204);
    let (status, body) = app.get(token, "/api/v1/auth/me").await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unauthorized")));
    assert_eq!(app.get(&admin, "/api/v1/api-tokens").await.1["total"], 0);
}

#[tokio::test]
async fn token_fields_are_checked() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let cases = [
        (json!({ "name": " ", "scopes": ["users:read"] }), "name", "required"),
        (json!({ "name": "x".repeat(101), "scopes": ["users:read"] }), "name", "too_long"),
        (json!({ "name": "a", "scopes": [] }), "scopes", "required"),
        (json!({ "name": "a", "scopes": ["users:admin"] }), "scopes", "invalid"),
        (json!({ "name": "a", "scopes": ["messages:read"] }), "scopes", "invalid"),
        (json!({ "name": "a", "scopes": ["users:read"], "expiresAt": "2020-01-01T00:00:00Z" }), "expiresAt", "invalid"),
        (json!({ "name": "a", "scopes": ["users:read"], "expiresAt": "2099-01-01T00:00:00Z" }), "expiresAt", "invalid"),
    ];
    for (body, field, code) in cases {
        let (status, answer) = app.post(&admin, "/api/v1/api-tokens", body.clone()).await;
        assert_eq!((status, answer["fields"][field].as_str()), (400, Some(code)), "{body}: {answer}");
    }
    let in_a_month = (chrono::Utc::now() + chrono::Duration::days(30)).to_rfc3339();
    let (status, created) =
        app.post(&admin, "/api/v1/api-tokens", json!({ "name": "a", "scopes": ["users:read", "users:read"], "expiresAt": in_a_month })).await;
    assert_eq!((status, created["scopes"].clone()), (201, json!(["users:read"])), "{created}");
}

#[tokio::test]
async fn a_token_dies_with_its_owners_role_or_access_on_every_instance() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let other_instance = TestApp::spawn_like(&app, db).await;
    let admin = app.admin_token().await;
    let (enterprise, ceo) = app.enterprise(&admin, "Tokens Inc").await;
    let finance = app.department(&ceo, &enterprise, "finance").await;
    app.staff(&ceo, &enterprise, "head@tokens.example", "DepartmentHead", Some(&finance)).await;
    let user = app.staff(&ceo, &enterprise, "user@tokens.example", "DepartmentUser", Some(&finance)).await;

    let head = app.token("head@tokens.example", "staff-password").await;
    let head_token = secret(&app, &head, &["reports:read", "users:read"]).await;
    // Never more than the owner may do: a department head lists no users, whatever the scope.
    assert_eq!(other_instance.get(&head_token, "/api/v1/users").await.0, 403);
    assert_eq!(other_instance.get(&head_token, &format!("/api/v1/departments/{finance}/reports")).await.0, 200);

    let staff = app.token("user@tokens.example", "staff-password").await;
    let user_token = secret(&app, &staff, &["reports:read"]).await;
    assert_eq!(other_instance.get(&user_token, "/api/v1/auth/me").await.0, 200);

    // A new role: dead on the other instance at once.
    let head_id = app.get(&head, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{head_id}"), json!({ "role": "DepartmentUser" })).await.0, 200);
    assert_eq!(other_instance.get(&head_token, "/api/v1/auth/me").await.0, 401);
    // Changing back does not revive it.
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{head_id}"), json!({ "role": "DepartmentHead" })).await.0, 200);
    assert_eq!(other_instance.get(&head_token, "/api/v1/auth/me").await.0, 401);

    // Deactivated, then deleted.
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{user}"), json!({ "status": "inactive" })).await.0, 200);
    assert_eq!(other_instance.get(&user_token, "/api/v1/auth/me").await.0, 401);
    let staff2 = app.staff(&ceo, &enterprise, "user2@tokens.example", "DepartmentUser", Some(&finance)).await;
    let session2 = app.token("user2@tokens.example", "staff-password").await;
    let token2 = secret(&app, &session2, &["reports:read"]).await;
    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{staff2}")).await.0, 204);
    assert_eq!(other_instance.get(&token2, "/api/v1/auth/me").await.0, 401);

    // Their enterprise deactivated.
    let ceo_token = secret(&app, &ceo, &["reports:read"]).await;
    assert_eq!(app.put(&admin, &format!("/api/v1/enterprises/{enterprise}"), json!({ "isActive": false })).await.0, 200);
    assert_eq!(other_instance.get(&ceo_token, "/api/v1/auth/me").await.0, 401);
}

#[tokio::test]
async fn a_service_credential_outlives_its_maker_inside_its_enterprise() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (alpha, ceo) = app.enterprise(&admin, "Alpha Services").await;
    let (beta, _) = app.enterprise(&admin, "Beta Services").await;
    let finance = app.department(&ceo, &alpha, "finance").await;
    app.staff(&ceo, &alpha, "head@alpha-services.example", "DepartmentHead", Some(&finance)).await;
    let head = app.token("head@alpha-services.example", "staff-password").await;

    let path = format!("/api/v1/enterprises/{alpha}/service-tokens");
    let resp = app
        .http
        .post(app.url(&path))
        .bearer_auth(&ceo)
        .json(&json!({ "name": "BI sync", "scopes": ["reports:write", "users:read"] }))
        .send()
        .await
        .unwrap();
    let location = resp.headers()["location"].to_str().unwrap().to_owned();
    let (status, created) = parts(resp).await;
    assert_eq!(status, 201, "{created}");
    let service = created["token"].as_str().unwrap().to_owned();
    assert!(service.starts_with("eps_"));
    assert_eq!(location, format!("{path}/{}", created["id"].as_str().unwrap()));

    // Others may not make or see them.
    assert_eq!(app.post(&head, &path, json!({ "name": "x", "scopes": ["users:read"] })).await.0, 403);
    assert_eq!(app.get(&ceo, &format!("/api/v1/enterprises/{beta}/service-tokens")).await.0, 404);
    assert_eq!(app.get(&ceo, &path).await.1["total"], 1);
    assert_eq!(app.get(&admin, &path).await.1["total"], 1, "the admin sees them too");
    assert_eq!(app.get(&ceo, "/api/v1/api-tokens").await.1["total"], 0, "not the CEO's own token");

    // It acts inside its enterprise, as a CEO may, within its scopes.
    let (status, users) = app.get(&service, "/api/v1/users").await;
    assert_eq!(status, 200);
    assert!(users["items"].as_array().unwrap().iter().all(|u| u["enterpriseId"] == alpha.as_str()), "{users}");
    assert_eq!(app.get(&service, &format!("/api/v1/users?enterpriseId={beta}")).await.0, 404);
    assert_eq!(app.get(&service, "/api/v1/monitoring/sessions").await.1["code"], "insufficient_scope");
    assert_eq!(app.get(&service, "/api/v1/auth/me").await.0, 403, "no person behind it");

    // The CEO who made it leaves; it still works. Revoked by the admin: dead.
    let ceo_id = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.put(&admin, &format!("/api/v1/users/{ceo_id}"), json!({ "status": "inactive" })).await.0, 200);
    assert_eq!(app.get(&service, "/api/v1/users").await.0, 200);
    assert_eq!(app.delete(&admin, &format!("{path}/{}", created["id"].as_str().unwrap())).await.0, 204);
    assert_eq!(app.get(&service, "/api/v1/users").await.0, 401);
}

async fn post_with_key(app: &TestApp, token: &str, key: &str, body: &Value) -> reqwest::Response {
    app.http.post(app.url("/api/v1/enterprises")).bearer_auth(token).header("idempotency-key", key).json(body).send().await.unwrap()
}

#[tokio::test]
async fn a_post_repeated_with_its_idempotency_key_is_done_once() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let other_instance = TestApp::spawn_like(&app, db.clone()).await;
    let admin = app.admin_token().await;
    let body = json!({ "name": "Once Ltd", "ceoFullName": "C", "ceoEmail": "c@once.example", "ceoPassword": "ceo-password" });

    let first = post_with_key(&app, &admin, "retry-1", &body).await;
    assert!(first.headers().get("idempotent-replayed").is_none());
    let (status, created) = parts(first).await;
    assert_eq!(status, 201);
    let again = post_with_key(&other_instance, &admin, "retry-1", &body).await;
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.headers()["location"].to_str().unwrap(), format!("/api/v1/enterprises/{}", created["id"].as_str().unwrap()));
    let (status, replayed) = parts(again).await;
    assert_eq!((status, &replayed), (201, &created), "the first answer, on the other instance too");
    let count: i64 = sqlx::query_scalar("select count(*) from enterprises where name = 'Once Ltd'").fetch_one(&db).await.unwrap();
    assert_eq!(count, 1);

    // The same key with another body.
    let (status, reused) = parts(post_with_key(&app, &admin, "retry-1", &json!({ "name": "Other" })).await).await;
    assert_eq!((status, reused["code"].as_str()), (422, Some("idempotency_key_reused")));

    // An error answer is replayed too; a key is the caller's own.
    let bad = json!({ "name": "", "ceoFullName": "C", "ceoEmail": "bad", "ceoPassword": "x" });
    assert_eq!(parts(post_with_key(&app, &admin, "retry-2", &bad).await).await.0, 400);
    assert_eq!(post_with_key(&app, &admin, "retry-2", &bad).await.headers()["idempotent-replayed"], "true");
    let ceo = app.token("c@once.example", "ceo-password").await;
    let (status, _) = parts(post_with_key(&app, &ceo, "retry-1", &body).await).await;
    assert_eq!(status, 403, "another caller's key is not this caller's: the CEO's own request runs");

    // Five at once with one key: one enterprise; the others wait their turn (409) or replay it.
    let racing = json!({ "name": "Race Ltd", "ceoFullName": "C", "ceoEmail": "c@race.example", "ceoPassword": "ceo-password" });
    let answers = futures_util::future::join_all((0..5).map(|i| {
        let (app, admin, racing) = (if i % 2 == 0 { &app } else { &other_instance }, admin.clone(), racing.clone());
        async move { parts(post_with_key(app, &admin, "race", &racing).await).await }
    }))
    .await;
    let ids: Vec<&str> = answers.iter().filter(|(s, _)| *s == 201).map(|(_, b)| b["id"].as_str().unwrap()).collect();
    assert!(!ids.is_empty() && ids.iter().all(|id| *id == ids[0]), "{answers:?}");
    assert!(answers.iter().all(|(s, b)| *s == 201 || (*s == 409 && b["reason"] == "request_in_progress")), "{answers:?}");
    let count: i64 = sqlx::query_scalar("select count(*) from enterprises where name = 'Race Ltd'").fetch_one(&db).await.unwrap();
    assert_eq!(count, 1);

    let long = "k".repeat(256);
    let (status, refused) = parts(post_with_key(&app, &admin, &long, &body).await).await;
    assert_eq!((status, refused["fields"]["Idempotency-Key"].as_str()), (400, Some("invalid")));
}

#[tokio::test]
async fn every_answer_shows_the_limit_and_past_it_429_on_every_instance() {
    let (db, _dropped) = test_database().await;
    // Windows are fixed (aligned on the epoch): an hour long, and the calls start well inside one,
    // so they all count in the same window however slowly the machine serves them.
    let app = TestApp::spawn_with(db.clone(), |c| c.api_limits = backend::config::ApiLimits { requests: 4, window: Duration::from_secs(3600) }).await;
    let other_instance = TestApp::spawn_like(&app, db).await;
    app.admin().await;
    let into_window = chrono::Utc::now().timestamp() % 3600;
    if into_window > 3600 - 30 {
        tokio::time::sleep(Duration::from_secs((3600 - into_window + 1) as u64)).await;
    }
    let admin = app.token("admin@example.com", "admin-password-1").await;

    let mut remaining = Vec::new();
    for app in [&app, &other_instance, &app] {
        let resp = app.http.get(app.url("/api/v1/auth/me")).bearer_auth(&admin).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["ratelimit-policy"], "\"default\";q=4;w=3600");
        let current = resp.headers()["ratelimit"].to_str().unwrap().to_owned();
        let r: u32 = current.split(";r=").nth(1).unwrap().split(';').next().unwrap().parse().unwrap();
        let t: u32 = current.split(";t=").nth(1).unwrap().parse().unwrap();
        assert!((1..=3600).contains(&t), "{current}");
        remaining.push(r);
    }
    assert_eq!(remaining, [3, 2, 1], "the sign-in had no bearer: counted by address, not here");
    assert_eq!(app.get(&admin, "/api/v1/auth/me").await.0, 200);
    let resp = other_instance.http.get(other_instance.url("/api/v1/auth/me")).bearer_auth(&admin).send().await.unwrap();
    assert_eq!(resp.status(), 429);
    let wait: u64 = resp.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=3600).contains(&wait));
    assert!(resp.headers()["ratelimit"].to_str().unwrap().contains(";r=0;"));
    let (_, body) = parts(resp).await;
    assert_eq!(body["code"], "rate_limited");
    // Another credential has its own count.
    let other = app.token("admin@example.com", "admin-password-1").await;
    assert_eq!(app.get(&other, "/api/v1/auth/me").await.0, 200);
}

#[tokio::test]
async fn errors_are_problem_details_with_the_contract_members_and_the_request_id() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let resp = app
        .http
        .get(app.url("/api/v1/enterprises/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c"))
        .bearer_auth(&admin)
        .header("x-request-id", "trace-42")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "application/problem+json");
    assert_eq!(resp.headers()["x-request-id"], "trace-42");
    let (status, body) = parts(resp).await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({
            "type": "urn:enterprise-platform:problem:not_found", "title": "Not Found", "status": 404,
            "detail": "Resource not found", "instance": "/api/v1/enterprises/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c",
            "requestId": "trace-42", "code": "not_found", "message": "Resource not found"
        })
    );

    // Parse failures name the field in the contract's words.
    let cases = [
        ("/api/v1/enterprises?pageSize=500", "pageSize"),
        ("/api/v1/enterprises?page=0", "page"),
        ("/api/v1/enterprises/not-a-uuid", "id"),
        ("/api/v1/enterprises/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c/departments/nope", "deptId"),
        ("/api/v1/departments/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c/reports?status=lost", "status"),
    ];
    for (path, field) in cases {
        let (status, body) = app.get(&admin, path).await;
        assert_eq!(
            (status, body["code"].as_str(), body["fields"][field].as_str()),
            (400, Some("validation_failed"), Some("invalid")),
            "{path}: {body}"
        );
        let text = body.to_string();
        assert!(!text.contains("param0") && !text.contains("string_uuid") && !text.contains("failed to parse"), "{text}");
    }
    let bodies = [
        (json!({ "fullName": "A", "email": "a@example.com", "password": "long enough password", "role": "Boss" }), "role", "invalid"),
        (json!({ "email": "a@example.com", "role": "DepartmentUser" }), "fullName", "required"),
        (
            json!({ "fullName": "A", "email": "a@example.com", "password": "p", "role": "DepartmentUser", "departmentId": "x" }),
            "departmentId",
            "invalid",
        ),
    ];
    for (sent, field, code) in bodies {
        let (status, body) = app.post(&admin, "/api/v1/users", sent.clone()).await;
        assert_eq!((status, body["fields"][field].as_str()), (400, Some(code)), "{sent}: {body}");
    }
    let (status, body) = app.get("not-a-token", "/api/v1/auth/me").await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unauthorized")), "a garbage token is not an ended session");
}

#[tokio::test]
async fn conditional_requests_save_a_download_and_a_lost_update() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (enterprise, _) = app.enterprise(&admin, "Tagged Co").await;
    let path = format!("/api/v1/enterprises/{enterprise}");
    let get = |tag: Option<&str>| {
        let mut req = app.http.get(app.url(&path)).bearer_auth(&admin);
        if let Some(tag) = tag {
            req = req.header("if-none-match", tag);
        }
        req.send()
    };
    let first = get(None).await.unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    let not_modified = get(Some(&etag)).await.unwrap();
    assert_eq!(not_modified.status(), 304);
    assert_eq!(not_modified.headers()["etag"].to_str().unwrap(), etag);
    assert!(not_modified.text().await.unwrap().is_empty());

    // Someone else changes it: the tag read before no longer matches.
    assert_eq!(app.put(&admin, &path, json!({ "description": "Changed" })).await.0, 200);
    assert_eq!(get(Some(&etag)).await.unwrap().status(), 200);
    let stale =
        app.http.put(app.url(&path)).bearer_auth(&admin).header("if-match", &etag).json(&json!({ "description": "Mine" })).send().await.unwrap();
    let (status, body) = parts(stale).await;
    assert_eq!((status, body["code"].as_str()), (412, Some("precondition_failed")));
    let current = get(None).await.unwrap().headers()["etag"].to_str().unwrap().to_owned();
    let fresh =
        app.http.put(app.url(&path)).bearer_auth(&admin).header("if-match", &current).json(&json!({ "description": "Mine" })).send().await.unwrap();
    let (status, body) = parts(fresh).await;
    assert_eq!((status, body["description"].as_str()), (200, Some("Mine")));

    // An If-Match that lists no tag is malformed: a 400 naming the header.
    for malformed in ["", "mine"] {
        let sent = app
            .http
            .put(app.url(&path))
            .bearer_auth(&admin)
            .header("if-match", malformed)
            .json(&json!({ "description": "Mine" }))
            .send()
            .await
            .unwrap();
        let (status, body) = parts(sent).await;
        assert_eq!((status, body["fields"]["If-Match"].as_str()), (400, Some("invalid")), "{malformed:?}: {body}");
    }
    // A body the operation cannot take is refused as such, before any precondition is weighed.
    for (sent, status) in
        [(app.http.put(app.url(&path)).header("content-type", "application/json").body("{nope"), 400), (app.http.put(app.url(&path)), 415)]
    {
        let (got, body) = parts(sent.bearer_auth(&admin).header("if-match", "\"stale\"").send().await.unwrap()).await;
        assert_eq!(got, status, "{body}");
    }
}
