//! An enterprise's deletion with a recovery window (issue 46, point 4): `DELETE` suspends it and
//! schedules its purge, `restore` brings it back as it was, `purge` (typed name) or the window's
//! end drops everything it owned; its CEO is told at each step.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, outbox_drained, parts};

fn unique(prefix: &str) -> String {
    format!("{prefix} {}", &Uuid::now_v7().simple().to_string()[20..])
}

/// Creates an enterprise with a unique name (the mail catcher is shared); returns its id, name,
/// CEO address and CEO session.
async fn enterprise(app: &TestApp, admin: &str, locale: &str) -> (String, String, String, String) {
    let name = unique("Doomed");
    let email = format!("ceo@{}.test", name.to_lowercase().replace(' ', "-"));
    let body = json!({ "name": name, "ceoFullName": "Dana Ceo", "ceoEmail": email, "ceoPassword": "ceo-password", "ceoLocale": locale });
    let (status, created) = app.post(admin, "/api/v1/enterprises", body).await;
    assert_eq!(status, 201, "{created}");
    let token = app.token(&email, "ceo-password").await;
    (created["id"].as_str().unwrap().to_owned(), name, email, token)
}

/// Waits (15 s at most) for a message to `to` with `subject`, among whatever else they get.
async fn arrives(mail: &Mailbox, to: &str, subject: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let got = mail.received(to).await;
        if let Some(message) = got.iter().find(|m| m["subject"] == subject) {
            return message.clone();
        }
        assert!(std::time::Instant::now() < deadline, "no {subject:?} to {to}: {got:#?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn time(v: &Value) -> DateTime<Utc> {
    v.as_str().unwrap_or_else(|| panic!("a time: {v}")).parse().unwrap()
}

#[tokio::test]
async fn deleting_an_enterprise_suspends_it_for_thirty_days_and_restoring_brings_it_back_as_it_was() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let (id, name, email, ceo) = enterprise(&app, &admin, "en").await;
    let (status, token) = app.post(&ceo, "/api/v1/api-tokens", json!({ "name": "ci", "scopes": ["reports:read"] })).await;
    assert_eq!(status, 201, "{token}");
    let token = token["token"].as_str().unwrap().to_owned();
    let (status, hook) = app.post(&ceo, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/x", "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{hook}");
    let hook = hook["id"].as_str().unwrap().to_owned();
    assert_eq!(app.me(&token).await.status(), 200);

    let asked = Utc::now();
    let (status, scheduled) = app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await;
    assert_eq!(status, 202, "{scheduled}");
    assert_eq!(scheduled["status"], "scheduled");
    let purge_after = time(&scheduled["purgeAfter"]);
    let window = purge_after - asked;
    assert!(
        window > chrono::Duration::days(30) - chrono::Duration::minutes(1) && window <= chrono::Duration::days(30) + chrono::Duration::minutes(1),
        "{window}"
    );

    // Suspended at once: the session, the password and the token no longer open anything.
    assert_eq!(app.me(&ceo).await.status(), 401);
    let (status, refused) = parts(app.login(&email, "ceo-password").await).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("account_inactive")));
    assert_eq!(app.me(&token).await.status(), 401);
    let (status, detail) = app.get(&admin, &format!("/api/v1/enterprises/{id}")).await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["isActive"], false);
    assert_eq!(time(&detail["purgeAfter"]), purge_after);
    assert!(time(&detail["deletionScheduledAt"]) >= asked - chrono::Duration::seconds(1), "{detail}");
    // In the list too, and a second DELETE answers the same schedule.
    let (_, list) = app.get(&admin, &format!("/api/v1/enterprises?q={}", name.replace(' ', "%20"))).await;
    assert_eq!(time(&list["items"][0]["purgeAfter"]), purge_after, "{list}");
    let (status, again) = app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await;
    assert_eq!((status, time(&again["purgeAfter"])), (202, purge_after));
    // Reactivating is not the way back: restoring is.
    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{id}"), json!({ "isActive": true })).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("deletion_scheduled")), "{body}");

    // Its webhooks hear nothing while it is suspended.
    let hears = || async {
        backend::store::outbox::fan_out_webhooks(&db, 100).await.unwrap();
        sqlx::query_scalar::<_, i64>("select count(*) from webhook_deliveries where webhook_id = $1::uuid").bind(&hook).fetch_one(&db).await.unwrap()
    };
    let body = json!({ "fullName": "Eve", "email": format!("eve@{}.test", Uuid::now_v7().simple()), "password": "staff-password", "role": "DepartmentUser", "enterpriseId": id });
    assert_eq!(app.post(&admin, "/api/v1/users", body).await.0, 201);
    assert_eq!(hears().await, 0, "an event of a suspended enterprise was delivered");

    // The CEO was told, with the date.
    let told = arrives(&mail, &email, &format!("{name} is scheduled for deletion on Enterprise Platform")).await;
    let date = purge_after.format("%-d %B %Y").to_string();
    assert!(told["text"].as_str().unwrap().contains(&format!("erased for good on {date}")), "{}", told["text"]);

    let (status, restored) = app.post(&admin, &format!("/api/v1/enterprises/{id}/restore"), json!({})).await;
    assert_eq!(status, 200, "{restored}");
    assert_eq!((restored["isActive"].as_bool(), &restored["purgeAfter"], &restored["deletionScheduledAt"]), (Some(true), &Value::Null, &Value::Null));
    // As it was: the same password, the same token, its webhooks again.
    assert_eq!(app.login(&email, "ceo-password").await.status(), 200);
    assert_eq!(app.me(&token).await.status(), 200);
    let body = json!({ "fullName": "Finn", "email": format!("finn@{}.test", Uuid::now_v7().simple()), "password": "staff-password", "role": "DepartmentUser", "enterpriseId": id });
    assert_eq!(app.post(&admin, "/api/v1/users", body).await.0, 201);
    assert_eq!(hears().await, 1, "the restored enterprise's webhook hears its events again");
    arrives(&mail, &email, &format!("{name} was restored on Enterprise Platform")).await;

    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/restore"), json!({})).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("deletion_not_scheduled")), "{body}");
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": name })).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("deletion_not_scheduled")), "not without a deletion first: {body}");

    // Each step is in the audit log, by the admin.
    let (_, log) = app.get(&admin, &format!("/api/v1/audit-events?enterpriseId={id}&pageSize=100")).await;
    let actions: Vec<&str> = log["items"].as_array().unwrap().iter().filter_map(|e| e["action"].as_str()).collect();
    assert!(actions.contains(&"enterprise.deletion_scheduled") && actions.contains(&"enterprise.restored"), "{actions:?}");
}

#[tokio::test]
async fn an_enterprise_deactivated_before_its_deletion_is_restored_inactive() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, _, _, _) = enterprise(&app, &admin, "en").await;
    assert_eq!(app.put(&admin, &format!("/api/v1/enterprises/{id}"), json!({ "isActive": false })).await.0, 200);
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 202);
    let (status, restored) = app.post(&admin, &format!("/api/v1/enterprises/{id}/restore"), json!({})).await;
    assert_eq!((status, restored["isActive"].as_bool()), (200, Some(false)), "{restored}");
}

/// Every row of the shared tables that names `ids` in a uuid column: (table, column, count).
async fn rows_naming(db: &sqlx::PgPool, ids: &[Uuid]) -> Vec<(String, String, i64)> {
    let columns: Vec<(String, String)> = sqlx::query_as(
        "select table_name::text, column_name::text from information_schema.columns \
         where table_schema = 'public' and data_type = 'uuid' order by 1, 2",
    )
    .fetch_all(db)
    .await
    .unwrap();
    assert!(columns.len() > 20, "the shared tables' uuid columns: {columns:?}");
    let mut found = Vec::new();
    for (table, column) in columns {
        let sql = format!("select count(*) from public.\"{table}\" where \"{column}\" = any($1)");
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(ids).fetch_one(db).await.unwrap();
        if n > 0 {
            found.push((table, column, n));
        }
    }
    found
}

#[tokio::test]
async fn purging_an_enterprise_leaves_no_row_of_it_in_any_shared_table_but_the_platforms_record() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let (id, name, email, ceo) = enterprise(&app, &admin, "fr").await;
    let (keep, _, _, _) = enterprise(&app, &admin, "en").await;
    // What an enterprise in use owns: people, a report, tokens, a webhook and its delivery,
    // sessions, sign-in activity, audit entries.
    let finance = app.department(&ceo, &id, "finance").await;
    let head_email = format!("head@{}.test", Uuid::now_v7().simple());
    let head = app.staff(&ceo, &id, &head_email, "DepartmentHead", Some(&finance)).await;
    let head_token = app.token(&head_email, "staff-password").await;
    let report = json!({ "title": "Q3", "content": "x", "periodStart": "2026-07-01", "periodEnd": "2026-09-30", "status": "submitted" });
    assert_eq!(app.post(&head_token, &format!("/api/v1/departments/{finance}/reports"), report).await.0, 201);
    assert_eq!(app.post(&ceo, "/api/v1/api-tokens", json!({ "name": "ci", "scopes": ["reports:read"] })).await.0, 201);
    let service = json!({ "name": "Okta", "scopes": ["scim:write"] });
    assert_eq!(app.post(&ceo, &format!("/api/v1/enterprises/{id}/service-tokens"), service).await.0, 201);
    assert_eq!(app.post(&ceo, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/x", "events": ["report.submitted"] })).await.0, 201);
    let ceo_id: Uuid = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().parse().unwrap();
    let ids = [id.parse::<Uuid>().unwrap(), ceo_id, head.parse().unwrap()];
    assert!(rows_naming(&db, &ids).await.len() >= 6, "the enterprise owns rows before: {:?}", rows_naming(&db, &ids).await);

    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": name })).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("deletion_not_scheduled")), "{body}");
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 202);
    arrives(&mail, &email, &format!("La suppression de {name} est programmée sur Enterprise Platform")).await;
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": "Doomed" })).await;
    assert_eq!(
        (status, body["code"].as_str(), body["fields"]["confirmName"].as_str()),
        (400, Some("confirmation_mismatch"), Some("mismatch")),
        "{body}"
    );
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({})).await;
    assert_eq!(status, 400, "the name is required: {body}");
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 200, "a refused purge purges nothing");

    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": name })).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 404);
    assert_eq!(app.post(&admin, &format!("/api/v1/enterprises/{id}/restore"), json!({})).await.0, 404);
    assert_eq!(app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": name })).await.0, 404);
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 404);
    assert_eq!(app.login(&email, "ceo-password").await.status(), 401);

    // The CEO was told in their language, at the address the purged account had.
    let told = arrives(&mail, &email, &format!("{name} a été supprimée de Enterprise Platform")).await;
    assert!(told["text"].as_str().unwrap().starts_with("Bonjour Dana Ceo,"), "{}", told["text"]);
    outbox_drained(&db).await;

    // Nothing of it in any shared table, but the platform's record of the purge.
    let schemas: Vec<String> =
        sqlx::query_scalar("select nspname::text from pg_namespace where nspname like 't\\_%' order by 1").fetch_all(&db).await.unwrap();
    assert_eq!(schemas, vec![format!("t_{}", keep.replace('-', ""))]);
    assert_eq!(rows_naming(&db, &ids).await, vec![("audit_events".to_owned(), "target_id".to_owned(), 1)]);
    let record: (Option<Uuid>, String, Option<String>) =
        sqlx::query_as("select enterprise_id, action, target_name from audit_events where target_id = $1").bind(ids[0]).fetch_one(&db).await.unwrap();
    assert_eq!(record, (None, "enterprise.purged".to_owned(), Some(name.clone())));
    // The other enterprise is untouched.
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{keep}")).await.0, 200);
}

#[tokio::test]
async fn an_enterprise_whose_window_has_ended_is_purged_by_the_task_and_one_within_it_is_not() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db.clone(), |c| c.tenant_deletion_grace = Duration::from_secs(3600)).await;
    let admin = app.admin_token().await;
    let (due, _, _, _) = enterprise(&app, &admin, "en").await;
    let (waiting, _, _, _) = enterprise(&app, &admin, "en").await;
    let (status, scheduled) = app.delete(&admin, &format!("/api/v1/enterprises/{waiting}")).await;
    assert_eq!(status, 202);
    let hour = time(&scheduled["purgeAfter"]) - Utc::now();
    assert!(hour > chrono::Duration::minutes(59) && hour <= chrono::Duration::minutes(60), "TENANT_DELETION_GRACE_DAYS sets the window: {hour}");
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{due}")).await.0, 202);
    sqlx::query("update enterprises set purge_after = now() - interval '1 second' where id = $1::uuid").bind(&due).execute(&db).await.unwrap();

    let state = backend::state::AppState::with_pool(app.config.clone(), db.clone()).unwrap();
    assert_eq!(backend::enterprise_deletion::purge_due(&state.db, &state.tenant_ddl, &state.sessions).await.unwrap(), 1);
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{due}")).await.0, 404);
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{waiting}")).await.0, 200);
    assert_eq!(backend::enterprise_deletion::purge_due(&state.db, &state.tenant_ddl, &state.sessions).await.unwrap(), 0, "nothing else is due");
    let (actor,): (String,) = sqlx::query_as("select actor_type from audit_events where action = 'enterprise.purged'").fetch_one(&db).await.unwrap();
    assert_eq!(actor, "system");
}

#[tokio::test]
async fn restore_and_purge_refuse_bad_ids_unknown_ones_and_oversized_names() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, _, _, _) = enterprise(&app, &admin, "en").await;
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 202);
    for path in ["/api/v1/enterprises/not-an-id/restore", "/api/v1/enterprises/not-an-id/purge"] {
        let (status, body) = app.post(&admin, path, json!({ "confirmName": "x" })).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    let unknown = Uuid::now_v7();
    assert_eq!(app.post(&admin, &format!("/api/v1/enterprises/{unknown}/restore"), json!({})).await.0, 404);
    assert_eq!(app.post(&admin, &format!("/api/v1/enterprises/{unknown}/purge"), json!({ "confirmName": "x" })).await.0, 404);
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{unknown}")).await.0, 404);
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": "x".repeat(201) })).await;
    assert_eq!(status, 400, "a name past 200 characters: {body}");
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{id}/purge"), json!({ "confirmName": 5 })).await;
    assert_eq!(status, 400, "a number for the name: {body}");
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 200, "nothing was purged");
}
