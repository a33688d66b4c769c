//! Erasure of a person (issue 46, point 5): `POST /users/{id}/erasure` removes what identifies
//! them and keeps what they wrote under "Former member #n".

use serde_json::{Value, json};
use uuid::Uuid;

use crate::database::test_database;
use crate::helpers::{TestApp, parts};

#[tokio::test]
async fn erasing_a_person_removes_what_identifies_them_and_keeps_their_work_under_a_pseudonym() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let email = "zoe.erased@acme.example";
    let zoe = app.staff(&ceo, &ent, email, "DepartmentHead", Some(&finance)).await;
    let zoe_id: Uuid = zoe.parse().unwrap();
    app.put(&ceo, &format!("/api/v1/users/{zoe}"), json!({ "fullName": "Zoé Lambert" })).await;
    let session = app.token(email, "staff-password").await;
    let (status, token) = app.post(&session, "/api/v1/api-tokens", json!({ "name": "mine", "scopes": ["reports:read"] })).await;
    assert_eq!(status, 201, "{token}");
    let token = token["token"].as_str().unwrap().to_owned();
    let report = json!({ "title": "Q3", "content": "Figures", "periodStart": "2026-07-01", "periodEnd": "2026-09-30", "status": "submitted" });
    let (status, report) = app.post(&session, &format!("/api/v1/departments/{finance}/reports"), report).await;
    assert_eq!(status, 201, "{report}");
    let report = report["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post(&ceo, &format!("/api/v1/reports/{report}/review"), json!({ "status": "approved" })).await.0, 200);
    // A conversation with a message of theirs and one of the CEO's (ciphertext, as the server holds it).
    let schema = format!("t_{}", ent.replace('-', ""));
    let ceo_id: Uuid = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().parse().unwrap();
    let conversation = Uuid::now_v7();
    for sql in [
        format!("insert into {schema}.conversations (id, kind, name, created_by) values ($1, 'group', 'Q3', $2)"),
        format!("insert into {schema}.conversation_members (conversation_id, user_id) values ($1, $2), ($1, $3)"),
        format!(
            "insert into {schema}.messages (id, conversation_id, sender_id, epoch, iv, ciphertext, signature) \
             values (gen_random_uuid(), $1, $2, 1, '\\x00', '\\x01', '\\x02'), (gen_random_uuid(), $1, $3, 1, '\\x00', '\\x03', '\\x02')"
        ),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql)).bind(conversation).bind(zoe_id).bind(ceo_id).execute(&db).await.unwrap();
    }

    let (status, erasure) = app.post(&ceo, &format!("/api/v1/users/{zoe}/erasure"), json!({})).await;
    assert_eq!(status, 200, "{erasure}");
    let listed = |key: &str| -> Vec<String> { erasure[key].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect() };
    for removed in ["name", "email", "password", "sessions", "api_tokens", "messages", "messenger_keys", "department_head"] {
        assert!(listed("removed").contains(&removed.to_owned()), "{removed} is said removed: {erasure}");
    }
    assert_eq!(listed("kept"), ["reports", "reviews", "spreadsheets", "audit_entries"]);

    // The person reads as a pseudonym, and nothing of theirs opens anything.
    let (status, person) = app.get(&ceo, &format!("/api/v1/users/{zoe}")).await;
    assert_eq!(status, 200, "{person}");
    assert_eq!(
        (&person["fullName"], &person["email"], &person["erased"], &person["status"]),
        (&json!("Former member #1"), &Value::Null, &json!(true), &json!("inactive"))
    );
    assert_eq!(person["invitation"], Value::Null, "no password, and no invitation either: {person}");
    assert_eq!(app.me(&session).await.status(), 401);
    assert_eq!(app.me(&token).await.status(), 401);
    assert_eq!(app.login(email, "staff-password").await.status(), 401);
    let (_, found) = app.get(&ceo, "/api/v1/users?q=Lambert").await;
    assert_eq!(found["total"], 0, "{found}");

    // Their report stays, by the pseudonym; the department has no head any more.
    let (status, read) = app.get(&ceo, &format!("/api/v1/reports/{report}")).await;
    assert_eq!((status, read["createdBy"]["fullName"].as_str()), (200, Some("Former member #1")), "{read}");
    let (_, department) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/departments/{finance}")).await;
    assert_eq!(department["head"], Value::Null, "{department}");
    // Their message's ciphertext is gone, the CEO's stays; they left the conversation.
    let left: (i64, i64) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select (select count(*) from {schema}.messages where sender_id = $1), (select count(*) from {schema}.messages where sender_id = $2)"
    )))
    .bind(zoe_id)
    .bind(ceo_id)
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!(left, (0, 1));
    let member: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("select count(*) from {schema}.conversation_members where user_id = $1")))
        .bind(zoe_id)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(member, 0);
    // Nothing in the shared tables names them but the pseudonymous account.
    for table in ["sessions", "api_tokens", "user_activity", "user_activity_places", "account_tokens", "user_totp", "user_passkeys"] {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("select count(*) from public.{table} where user_id = $1")))
            .bind(zoe_id)
            .fetch_one(&db)
            .await
            .unwrap();
        assert_eq!(n, 0, "{table} still holds rows of the erased person");
    }
    let row: (String, String) = sqlx::query_as("select full_name, email from public.users where id = $1").bind(zoe_id).fetch_one(&db).await.unwrap();
    assert!(!row.0.contains("Zo") && !row.1.contains("zoe"), "{row:?}");

    // The audit log keeps what they did and what was done to them, under the pseudonym, without
    // their address, browser, name or e-mail anywhere.
    let (_, log) = app.get(&admin, &format!("/api/v1/audit-events?enterpriseId={ent}&pageSize=100")).await;
    let text = log.to_string();
    for personal in ["Zoé", "Lambert", "zoe.erased"] {
        assert!(!text.contains(personal), "the audit log still shows {personal:?}: {log}");
    }
    let entries = log["items"].as_array().unwrap();
    let theirs: Vec<&Value> = entries.iter().filter(|e| e["actor"]["id"] == zoe.as_str()).collect();
    assert!(!theirs.is_empty(), "their sign-in and report are kept: {log}");
    assert!(theirs.iter().all(|e| e["actor"]["name"] == "Former member #1" && e["ipAddress"].is_null()), "{theirs:?}");
    let erased = entries.iter().find(|e| e["action"] == "user.erased").expect("the erasure is audited");
    assert_eq!((erased["targetId"].as_str(), erased["actor"]["id"].as_str()), (Some(zoe.as_str()), Some(ceo_id.to_string().as_str())));

    // Once erased, the account takes no change; the next one erased is the second.
    let (status, body) = app.post(&ceo, &format!("/api/v1/users/{zoe}/erasure"), json!({})).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("erased")), "{body}");
    let (status, body) = app.put(&ceo, &format!("/api/v1/users/{zoe}"), json!({ "status": "active" })).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("erased")), "{body}");
    let (status, body) = app.post(&ceo, &format!("/api/v1/users/{zoe}/invitation"), json!({})).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("erased")), "{body}");
    let other = app.staff(&ceo, &ent, "yann@acme.example", "DepartmentUser", Some(&finance)).await;
    assert_eq!(app.post(&admin, &format!("/api/v1/users/{other}/erasure"), json!({})).await.0, 200);
    assert_eq!(app.get(&ceo, &format!("/api/v1/users/{other}")).await.1["fullName"], "Former member #2");
}

#[tokio::test]
async fn erasure_refuses_oneself_unknown_ids_and_other_enterprises_people() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, other_ceo) = app.enterprise(&admin, "Globex").await;
    let staff = app.staff(&ceo, &ent, "sam@acme.example", "DepartmentUser", None).await;
    let admin_id = app.get(&admin, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();

    let (status, body) = app.post(&admin, &format!("/api/v1/users/{admin_id}/erasure"), json!({})).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("own_account")), "{body}");
    assert_eq!(app.post(&admin, &format!("/api/v1/users/{}/erasure", Uuid::now_v7()), json!({})).await.0, 404);
    let (status, body) = parts(app.http.post(app.url("/api/v1/users/not-an-id/erasure")).bearer_auth(&admin).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(app.post(&other_ceo, &format!("/api/v1/users/{staff}/erasure"), json!({})).await.0, 404, "another enterprise's person");
    let ceo_id = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post(&ceo, &format!("/api/v1/users/{ceo_id}/erasure"), json!({})).await.0, 404, "a CEO erases their staff, not themself");
    assert_eq!(app.get(&admin, &format!("/api/v1/users/{staff}")).await.1["erased"], false, "nothing was erased");
}
