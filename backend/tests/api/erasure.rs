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

/// Polls an export until it is no longer queued or running (60 s at most).
async fn export_settled(app: &TestApp, token: &str, path: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (status, export) = app.get(token, path).await;
        assert_eq!(status, 200, "{export}");
        if !matches!(export["status"].as_str(), Some("queued" | "running")) {
            return export;
        }
        assert!(std::time::Instant::now() < deadline, "the export never finished: {export}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_erasure_deletes_the_enterprise_s_ready_archives_which_held_the_person() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Archived Co").await;
    let leaver = app.staff(&ceo, &ent, "leaver@archived.example", "DepartmentUser", None).await;
    let (status, export) = app.post(&ceo, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await;
    assert_eq!(status, 202, "{export}");
    let path = format!("/api/v1/enterprises/{ent}/exports/{}", export["id"].as_str().unwrap());
    assert_eq!(export_settled(&app, &ceo, &path).await["status"], "ready");
    let download = format!("{path}/download");
    assert_eq!(app.http.get(app.url(&download)).bearer_auth(&ceo).send().await.unwrap().status(), 200);
    // Another enterprise's export is not touched.
    let (other, other_ceo) = app.enterprise(&admin, "Untouched Co").await;
    let (_, untouched) = app.post(&other_ceo, &format!("/api/v1/enterprises/{other}/exports"), json!({})).await;
    let untouched = format!("/api/v1/enterprises/{other}/exports/{}", untouched["id"].as_str().unwrap());
    assert_eq!(export_settled(&app, &other_ceo, &untouched).await["status"], "ready");

    // One being written as the person is erased (its writer, on another instance, far from done):
    // a row as the job's claim leaves it, heartbeat fresh, a first part stored.
    let writing = Uuid::now_v7();
    let now = chrono::Utc::now();
    sqlx::query(
        "insert into public.enterprise_exports (id, enterprise_id, status, progress, stage, created_at, started_at, heartbeat_at) \
         values ($1, $2::uuid, 'running', 40, 'reports', $3, $3, $3)",
    )
    .bind(writing)
    .bind(&ent)
    .bind(now)
    .execute(&db)
    .await
    .unwrap();
    backend::store::exports::put_part(&db, writing, 0, b"PK").await.unwrap();

    let (status, erasure) = app.post(&ceo, &format!("/api/v1/users/{leaver}/erasure"), json!({})).await;
    assert_eq!(status, 200, "{erasure}");
    assert!(erasure["removed"].as_array().unwrap().contains(&json!("exports")), "{erasure}");
    // That one failed, saying why; when its writer ends, its archive is discarded, not made ready.
    let (_, failed) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/exports/{writing}")).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"].as_str().unwrap().contains("erased while this archive was written"), "{failed}");
    backend::store::exports::put_part(&db, writing, 1, b"late").await.unwrap();
    let made_ready = backend::store::exports::ready(&db, writing, 6, "00", now, now + chrono::Duration::days(7)).await.unwrap();
    assert!(!made_ready, "a withdrawn export is not made ready by its writer");
    assert_eq!(app.get(&ceo, &format!("/api/v1/enterprises/{ent}/exports/{writing}")).await.1["status"], "failed");
    let (_, gone) = app.get(&ceo, &path).await;
    assert_eq!((gone["status"].as_str(), gone["downloadUrl"].is_null()), (Some("expired"), true), "{gone}");
    let resp = app.http.get(app.url(&download)).bearer_auth(&ceo).send().await.unwrap();
    assert_eq!(resp.status(), 409);
    let parts: i64 = sqlx::query_scalar("select count(*) from public.enterprise_export_parts p join public.enterprise_exports e on e.id = p.export_id where e.enterprise_id = $1::uuid")
        .bind(&ent)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(parts, 0, "no part of the archive is left");
    assert_eq!(app.get(&other_ceo, &untouched).await.1["status"], "ready");

    // A new export no longer holds them.
    let (_, again) = app.post(&ceo, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await;
    let again = format!("/api/v1/enterprises/{ent}/exports/{}", again["id"].as_str().unwrap());
    assert_eq!(export_settled(&app, &ceo, &again).await["status"], "ready");
    let bytes = app.http.get(app.url(&format!("{again}/download"))).bearer_auth(&ceo).send().await.unwrap().bytes().await.unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut people = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("people.jsonl").unwrap(), &mut people).unwrap();
    assert!(!people.contains("leaver@archived.example") && people.contains("Former member #1"), "{people}");
}
