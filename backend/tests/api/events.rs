//! Events out (issue 24): the audit log of who did what, and webhooks that receive an
//! enterprise's events signed, at least once.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::TestApp;

#[tokio::test]
async fn a_role_change_is_in_the_ceos_audit_log_with_who_what_and_from_where() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (alpha, alpha_ceo) = app.enterprise(&admin, "Alpha").await;
    let (_beta, beta_ceo) = app.enterprise(&admin, "Beta").await;
    let finance = app.department(&alpha_ceo, &alpha, "finance").await;
    let sam = app.staff(&alpha_ceo, &alpha, "sam@alpha.example", "DepartmentUser", Some(&finance)).await;

    let (status, body) = app.put(&alpha_ceo, &format!("/api/v1/users/{sam}"), json!({ "role": "DepartmentHead" })).await;
    assert_eq!(status, 200, "{body}");
    // A wrong password for Sam: recorded, without the password.
    assert_eq!(app.login("sam@alpha.example", "not-the-password-at-all").await.status(), 401);

    let (status, page) = app.get(&alpha_ceo, "/api/v1/audit-events?action=user.role_changed").await;
    assert_eq!(status, 200, "{page}");
    let entries = page["items"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{page}");
    let entry = &entries[0];
    assert_eq!(entry["actor"]["type"], "user");
    assert_eq!(entry["actor"]["name"], "Alpha CEO");
    assert_eq!(entry["targetType"], "user");
    assert_eq!(entry["targetId"], sam.as_str());
    assert_eq!(entry["changes"]["role"], json!(["DepartmentUser", "DepartmentHead"]));
    assert_eq!(entry["enterpriseId"], alpha.as_str());
    assert_eq!(entry["ip"], "127.0.0.1");

    let (_, failed) = app.get(&alpha_ceo, "/api/v1/audit-events?action=auth.sign_in_failed").await;
    let failed = &failed["items"][0];
    assert_eq!(failed["targetId"], sam.as_str(), "{failed}");
    assert_eq!(failed["changes"], json!({ "email": "sam@alpha.example", "reason": "wrong_password" }));
    assert!(!failed.to_string().contains("not-the-password-at-all"));

    // Every user action, by its area; the free text finds the entry by a name.
    let (_, users) = app.get(&alpha_ceo, "/api/v1/audit-events?action=user").await;
    let actions: Vec<&str> = users["items"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert!(actions.contains(&"user.created") && actions.contains(&"user.updated") && actions.contains(&"user.role_changed"), "{actions:?}");
    assert!(actions.iter().all(|a| a.starts_with("user.")), "{actions:?}");

    // Another enterprise's CEO sees none of it, and asking for it is 404.
    let (status, _) = app.get(&beta_ceo, &format!("/api/v1/audit-events?enterpriseId={alpha}")).await;
    assert_eq!(status, 404);
    let (_, theirs) = app.get(&beta_ceo, "/api/v1/audit-events?pageSize=100").await;
    assert!(!theirs.to_string().contains(&sam), "{theirs}");

    // The admin reads it too, and exports it as CSV.
    let (status, all) = app.get(&admin, &format!("/api/v1/audit-events?enterpriseId={alpha}&q=member")).await;
    assert_eq!(status, 200);
    assert!(all["items"].as_array().unwrap().iter().any(|e| e["action"] == "user.role_changed"), "{all}");
    let csv = app
        .http
        .get(app.url(&format!("/api/v1/audit-events/export?format=csv&enterpriseId={alpha}&action=user.role_changed")))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("id,at,enterpriseId,actorType,actorId,actorName,action"));
    let row = lines.next().unwrap();
    assert!(row.contains("user.role_changed") && row.contains("Alpha CEO"), "{csv}");
    assert_eq!(lines.next(), None);
}

#[tokio::test]
async fn the_audit_log_answers_with_the_contracts_names_for_its_filters_and_fields() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (alpha, ceo) = app.enterprise(&admin, "Audit Names").await;
    let ann = app.staff(&ceo, &alpha, "ann@audit-names.example", "DepartmentUser", None).await;
    app.staff(&ceo, &alpha, "bo@audit-names.example", "DepartmentUser", None).await;
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{ann}"), json!({ "fullName": "Ann Renamed" })).await.0, 200);
    let ceo_id = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();

    let (status, page) = app.get(&ceo, &format!("/api/v1/audit-events?targetId={ann}&targetType=user&actorId={ceo_id}")).await;
    assert_eq!(status, 200, "{page}");
    let items = page["items"].as_array().unwrap();
    let mut actions: Vec<&str> = items.iter().map(|e| e["action"].as_str().unwrap()).collect();
    actions.sort_unstable();
    assert_eq!(actions, ["user.created", "user.updated"], "Ann's entries by the CEO, and no one else's: {page}");
    for e in items {
        assert_eq!((&e["occurredAt"], &e["actorType"], &e["ipAddress"], &e["details"]), (&e["at"], &json!("user"), &e["ip"], &e["changes"]), "{e}");
        assert_eq!((&e["actor"]["id"], &e["actor"]["fullName"]), (&json!(ceo_id), &json!("Audit Names CEO")), "{e}");
        assert_eq!((&e["targetType"], &e["targetId"]), (&json!("user"), &json!(ann)), "{e}");
    }
    // A target type that matches nothing, and the older names of the filters.
    assert_eq!(app.get(&ceo, &format!("/api/v1/audit-events?targetId={ann}&targetType=report")).await.1["items"], json!([]));
    assert_eq!(app.get(&ceo, &format!("/api/v1/audit-events?target={ann}&actor={ceo_id}")).await.1["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_audit_log_cannot_be_rewritten_and_only_retention_deletes() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    app.enterprise(&admin, "Alpha").await;
    let count = || async { sqlx::query_scalar::<_, i64>("select count(*) from audit_events").fetch_one(&db).await.unwrap() };
    let before = count().await;
    assert!(before > 0);

    let update = sqlx::query("update audit_events set action = 'nothing.happened'").execute(&db).await;
    assert!(update.unwrap_err().to_string().contains("insert-only"));
    let delete = sqlx::query("delete from audit_events").execute(&db).await;
    assert!(delete.unwrap_err().to_string().contains("insert-only"));
    let truncate = sqlx::query("truncate audit_events").execute(&db).await;
    assert!(truncate.is_err());
    assert_eq!(count().await, before);

    // An entry from 401 days ago goes; today's stay.
    sqlx::query(
        "insert into audit_events (id, at, actor_type, action) values (gen_random_uuid(), now() - interval '401 days', 'system', 'old.thing')",
    )
    .execute(&db)
    .await
    .unwrap();
    assert_eq!(backend::store::audit::delete_older_than(&db, 400).await.unwrap(), 1);
    assert_eq!(count().await, before);
    // And the grant the job took is gone again.
    assert!(sqlx::query("delete from audit_events").execute(&db).await.is_err());
}

/// A receiver on 127.0.0.1 that answers 500 to the first `failures` deliveries of each message,
/// then 204; it keeps (headers, body) of every request.
pub(crate) async fn receiver(failures: usize) -> (String, Arc<Mutex<Vec<(poem::http::HeaderMap, String)>>>) {
    use poem::{EndpointExt, Route, handler, http::StatusCode, listener::TcpListener, web::Data};
    type Seen = Arc<Mutex<Vec<(poem::http::HeaderMap, String)>>>;
    #[handler]
    fn hook(req: &poem::Request, body: String, seen: Data<&Seen>, failures: Data<&usize>) -> StatusCode {
        let mut seen = seen.lock().unwrap();
        let id = req.headers().get("webhook-id").cloned();
        let earlier = seen.iter().filter(|(h, _)| h.get("webhook-id") == id.as_ref()).count();
        seen.push((req.headers().clone(), body));
        if earlier < **failures { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::NO_CONTENT }
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let seen: Seen = Arc::default();
    let app = Route::new().at("/hook", poem::post(hook)).data(seen.clone()).data(failures);
    tokio::spawn(poem::Server::new(TcpListener::bind(format!("127.0.0.1:{port}"))).run(app));
    // Listening once a connection is accepted.
    for _ in 0..500 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (format!("http://127.0.0.1:{port}/hook"), seen)
}

/// Whether a delivery carries a signature by `secret` as the Standard Webhooks specification
/// defines it, computed here from the specification with HMAC-SHA256 rather than with the
/// `standardwebhooks` crate the server signs with: base64 of HMAC-SHA256, keyed with the base64
/// after `whsec_`, over `{webhook-id}.{webhook-timestamp}.{body}`, among the space-separated
/// `v1,<signature>` entries of `webhook-signature`.
fn signed_with(secret: &str, headers: &poem::http::HeaderMap, body: &str) -> bool {
    use base64::{Engine, engine::general_purpose::STANDARD};
    use hmac::{Hmac, Mac};
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let key = STANDARD.decode(secret.strip_prefix("whsec_").expect("a whsec_ secret")).expect("base64 after whsec_");
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{}.{}.{body}", header("webhook-id"), header("webhook-timestamp")).as_bytes());
    let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
    header("webhook-signature").split(' ').any(|signature| signature == expected)
}

#[tokio::test]
async fn an_approved_report_reaches_a_receiver_signed_once_acknowledged_after_two_failures() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.events.dispatch = true).await;
    let admin = app.admin_token().await;
    let (alpha, ceo) = app.enterprise(&admin, "Alpha").await;
    let finance = app.department(&ceo, &alpha, "finance").await;
    app.staff(&ceo, &alpha, "hana@alpha.example", "DepartmentHead", Some(&finance)).await;
    let head = app.token("hana@alpha.example", "staff-password").await;
    let (url, seen) = receiver(2).await;
    let (status, hook) = app.post(&ceo, "/api/v1/webhooks", json!({ "url": url, "events": ["report.approved"] })).await;
    assert_eq!(status, 201, "{hook}");
    let secret = hook["secret"].as_str().unwrap().to_owned();

    let (status, report) = app
        .post(
            &head,
            &format!("/api/v1/departments/{finance}/reports"),
            json!({ "title": "Q3", "content": "x", "periodStart": "2026-07-01", "periodEnd": "2026-09-30", "status": "submitted" }),
        )
        .await;
    assert_eq!(status, 201, "{report}");
    let report_id = report["id"].as_str().unwrap().to_owned();
    let (status, _) = app.post(&ceo, &format!("/api/v1/reports/{report_id}/review"), json!({ "status": "approved" })).await;
    assert_eq!(status, 200);

    let hook_id = hook["id"].as_str().unwrap();
    let mut delivered = Value::Null;
    for _ in 0..100 {
        let (_, page) = app.get(&ceo, &format!("/api/v1/webhooks/{hook_id}/deliveries")).await;
        if page["items"][0]["status"] == "delivered" {
            delivered = page["items"][0].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(delivered["attempts"], 3, "two failures, then acknowledged: {delivered}");
    assert_eq!(delivered["eventType"], "report.approved");
    assert_eq!(delivered["lastStatus"], 204);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "only the approval was subscribed to, and it was acknowledged once");
    for (headers, body) in &seen {
        assert!(signed_with(&secret, headers, body), "every attempt is signed with the webhook's secret: {headers:?}");
        assert_eq!(headers["webhook-id"], seen[0].0["webhook-id"], "one message id across retries");
    }
    let body: Value = serde_json::from_str(&seen[0].1).unwrap();
    assert_eq!(body["type"], "report.approved");
    assert_eq!(body["data"]["reportId"], report_id.as_str());
    assert_eq!(body["data"]["status"], "approved");
    assert_eq!(body["data"]["enterpriseId"], alpha.as_str());
}

#[tokio::test]
async fn webhook_urls_into_private_networks_are_refused_outside_development() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.events.allow_private_networks = false).await;
    let admin = app.admin_token().await;
    // The form reads the rules it is about to apply.
    let (status, rules) = app.get(&admin, "/api/v1/webhooks/url-rules").await;
    assert_eq!((status, rules), (200, json!({ "schemes": ["https"], "ports": [443, 8443], "privateNetworks": false })));
    let (status, _) = app.post(&admin, "/api/v1/webhooks", json!({ "url": "https://example.com:8080/hook", "events": ["user.created"] })).await;
    assert_eq!(status, 400, "a port outside the rules");
    for (url, message) in [
        ("http://example.com/hook", "https"),
        ("https://127.0.0.1/hook", "private network"),
        ("https://169.254.169.254/latest/meta-data", "private network"),
        ("https://[::1]/hook", "private network"),
        ("https://localhost/hook", "private network"),
    ] {
        let (status, body) = app.post(&admin, "/api/v1/webhooks", json!({ "url": url, "events": ["user.created"] })).await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_eq!(body["fields"]["url"], "invalid", "{url}: {body}");
        assert!(body["message"].as_str().unwrap().contains(message), "{url}: {body}");
    }
    let (status, body) = app.post(&admin, "/api/v1/webhooks", json!({ "url": "https://127.0.0.1/x", "events": ["nope.never"] })).await;
    assert_eq!((status, &body["fields"]["events"]), (400, &json!("invalid")), "{body}");
}

#[tokio::test]
async fn a_webhook_failing_for_days_is_turned_off_and_its_owner_told() {
    let (db, _dropped) = test_database().await;
    // Days shrink to seconds: five days of failures take about 4.3 s here.
    // The dispatcher looks at a quiet outbox every 20 ms, so that a retry is sent close to when
    // it is due (at the usual 250 ms, eight retries drifted 2 s, half the limit below).
    let app = TestApp::spawn_with(db, |c| {
        c.events.dispatch = true;
        c.events.retry_scale = 0.000_01;
        c.events.outbox_poll = Duration::from_millis(20);
    })
    .await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Alpha").await;
    // Nothing listens on the discard port: every attempt is refused.
    let (status, hook) = app.post(&ceo, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/down", "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{hook}");
    let id = hook["id"].as_str().unwrap();
    assert_eq!(app.post(&ceo, &format!("/api/v1/webhooks/{id}/test"), json!({})).await.0, 202);
    // Its retries run out (the delivery is given up), and the failing streak grows older than
    // the five days after which a failure turns the webhook off (4.32 s at this scale).
    let limit = chrono::Duration::milliseconds(4_320 + 200);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (_, deliveries) = app.get(&ceo, &format!("/api/v1/webhooks/{id}/deliveries")).await;
        let (_, hook) = app.get(&ceo, &format!("/api/v1/webhooks/{id}")).await;
        let since = hook["failingSince"].as_str().and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok());
        if deliveries["items"][0]["status"] == "failed" && since.is_some_and(|since| chrono::Utc::now() - since.to_utc() > limit) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the test event's retries never ran out: {deliveries} {hook}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, failing) = app.get(&ceo, &format!("/api/v1/webhooks/{id}")).await;
    assert!(failing["failingSince"].is_string(), "failing: {failing}");
    // Still on, as its failures all came within the limit; then the next failure, after it,
    // turns it off and gives its pending work up. (On a machine so loaded that the last retry
    // itself came after the limit, that retry turned it off: the same rule, met earlier.)
    if failing["enabled"] == true {
        assert_eq!(app.post(&ceo, &format!("/api/v1/webhooks/{id}/test"), json!({})).await.0, 202);
    }
    let mut off = Value::Null;
    for _ in 0..50 {
        let (_, now) = app.get(&ceo, &format!("/api/v1/webhooks/{id}")).await;
        if now["enabled"] == false {
            off = now;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(off["disabledReason"], "failing", "{off}");
    let (_, deliveries) = app.get(&ceo, &format!("/api/v1/webhooks/{id}/deliveries")).await;
    assert!(deliveries["items"].as_array().unwrap().iter().all(|d| d["status"] == "failed"), "{deliveries}");
    let (_, log) = app.get(&ceo, "/api/v1/audit-events?action=webhook.disabled").await;
    assert_eq!(log["items"][0]["actor"]["type"], "system", "{log}");
    assert_eq!(log["items"][0]["targetName"], "http://127.0.0.1:9/down", "{log}");

    // Turned back on, it is healthy again until it fails anew.
    let (status, on) = app.put(&ceo, &format!("/api/v1/webhooks/{id}"), json!({ "enabled": true })).await;
    assert_eq!((status, &on["enabled"], &on["disabledReason"], &on["failingSince"]), (200, &json!(true), &Value::Null, &Value::Null), "{on}");
}

#[tokio::test]
async fn deliveries_that_ended_a_month_ago_are_pruned_pending_ones_never() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (status, hook) = app.post(&admin, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/x", "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{hook}");
    let id: uuid::Uuid = hook["id"].as_str().unwrap().parse().unwrap();
    for (status, age) in [("delivered", 31), ("failed", 31), ("pending", 31), ("delivered", 29)] {
        sqlx::query(
            "insert into webhook_deliveries (id, webhook_id, event_type, body, status, created_at)
             values (gen_random_uuid(), $1, 'user.created', '{}', $2, now() - make_interval(days => $3))",
        )
        .bind(id)
        .bind(status)
        .bind(age)
        .execute(&db)
        .await
        .unwrap();
    }
    assert_eq!(backend::store::webhooks::prune_deliveries(&db, 30).await.unwrap(), 2);
    let left: Vec<(String,)> = sqlx::query_as("select status from webhook_deliveries order by status").fetch_all(&db).await.unwrap();
    assert_eq!(left, [("delivered".to_owned(),), ("pending".to_owned(),)]);
}

/// Three instances' dispatchers race for the same due deliveries: each is leased to one of them
/// only. (A lease committed by one while another's statement was already running was taken a
/// second time: the other locked the row afterwards and PostgreSQL re-checked only the row's own
/// conditions, not the snapshot the candidates were ranked from. The fault run caught two
/// messages delivered twice.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatchers_racing_for_due_deliveries_lease_each_to_one_of_them() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (status, hook) = app.post(&admin, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/x", "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{hook}");
    let id: uuid::Uuid = hook["id"].as_str().unwrap().parse().unwrap();
    let mut taken = std::collections::HashMap::<uuid::Uuid, usize>::new();
    for _round in 0..20 {
        sqlx::query(
            "insert into webhook_deliveries (id, webhook_id, event_type, body, next_attempt_at)
             select gen_random_uuid(), $1, 'user.created', '{}', now() from generate_series(1, 30)",
        )
        .bind(id)
        .execute(&db)
        .await
        .unwrap();
        let racers: Vec<_> = (0..6)
            .map(|_| {
                let (db, keys) = (db.clone(), app.config.data_keys.clone());
                tokio::spawn(async move {
                    let mut mine = Vec::new();
                    for _ in 0..10 {
                        let due = backend::store::webhooks::take_due(&db, &keys, 3, 60.0, 1000).await.unwrap();
                        mine.extend(due.into_iter().map(|d| d.id));
                    }
                    mine
                })
            })
            .collect();
        for racer in racers {
            for delivery in racer.await.unwrap() {
                *taken.entry(delivery).or_default() += 1;
            }
        }
    }
    let twice: Vec<_> = taken.iter().filter(|(_, n)| **n > 1).collect();
    assert_eq!(taken.len(), 600, "every due delivery was taken");
    assert!(twice.is_empty(), "deliveries leased to two dispatchers at once: {twice:?}");
}

#[tokio::test]
async fn every_webhook_operation_refuses_bad_input_and_unknown_ids() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (alpha, ceo) = app.enterprise(&admin, "Alpha").await;
    let (_, other_ceo) = app.enterprise(&admin, "Beta").await;
    let field = |body: &Value, name: &str| body["fields"][name].clone();
    let unknown = uuid::Uuid::now_v7();

    // Making one: every field checked, by name.
    let good = || json!({ "url": "http://127.0.0.1:9/ok", "events": ["user.created"] });
    for (body, name, reason) in [
        (json!({ "events": ["user.created"] }), "url", "required"),
        (json!({ "url": "not a url", "events": ["user.created"] }), "url", "invalid"),
        (json!({ "url": "http://127.0.0.1:9/ok" }), "events", "required"),
        // At least one event.
        (json!({ "url": "http://127.0.0.1:9/ok", "events": [] }), "events", "required"),
        (json!({ "url": "http://127.0.0.1:9/ok", "events": ["user.created", "user.exploded"] }), "events", "invalid"),
        (json!({ "url": "http://127.0.0.1:9/ok", "events": ["user.created"], "description": "d".repeat(201) }), "description", "too_long"),
    ] {
        let (status, answer) = app.post(&ceo, "/api/v1/webhooks", body.clone()).await;
        assert_eq!((status, field(&answer, name)), (400, json!(reason)), "{body}: {answer}");
    }
    let (status, answer) = app.post(&ceo, "/api/v1/webhooks", json!({ "url": 5, "events": ["user.created"] })).await;
    assert_eq!(status, 400, "a number for the url: {answer}");
    let (status, answer) = app.post(&admin, &format!("/api/v1/webhooks?enterpriseId={unknown}"), good()).await;
    assert_eq!(status, 404, "an enterprise that does not exist: {answer}");

    let (status, hook) = app.post(&ceo, "/api/v1/webhooks", good()).await;
    assert_eq!(status, 201, "{hook}");
    let id = hook["id"].as_str().unwrap().to_owned();
    // Twenty per enterprise: the twenty-first is a conflict that says why.
    for _ in 1..20 {
        assert_eq!(app.post(&ceo, "/api/v1/webhooks", good()).await.0, 201);
    }
    let (status, answer) = app.post(&ceo, "/api/v1/webhooks", good()).await;
    assert_eq!((status, &answer["code"], &answer["reason"]), (409, &json!("conflict"), &json!("too_many_webhooks")), "{answer}");

    // Listing: page bounds; another enterprise's list is not there for a CEO.
    for query in ["pageSize=0", "pageSize=101", "page=0", "page=x"] {
        let (status, answer) = app.get(&ceo, &format!("/api/v1/webhooks?{query}")).await;
        assert_eq!(status, 400, "{query}: {answer}");
    }
    let (status, _) = app.get(&other_ceo, &format!("/api/v1/webhooks?enterpriseId={alpha}")).await;
    assert_eq!(status, 404, "another enterprise's webhooks");

    // One webhook: an id that is not one is 400; an unknown one, or another enterprise's, 404.
    for (method, suffix, body) in [
        (reqwest::Method::GET, "", None),
        (reqwest::Method::PUT, "", Some(json!({ "enabled": false }))),
        (reqwest::Method::DELETE, "", None),
        (reqwest::Method::POST, "/rotate-secret", None),
        (reqwest::Method::POST, "/test", Some(json!({}))),
        (reqwest::Method::GET, "/deliveries", None),
    ] {
        let send = |token: &str, target: String| {
            let mut request = app.http.request(method.clone(), app.url(&format!("/api/v1/webhooks/{target}{suffix}"))).bearer_auth(token);
            if let Some(body) = &body {
                request = request.json(body);
            }
            request.send()
        };
        assert_eq!(send(&ceo, "not-an-id".into()).await.unwrap().status(), 400, "{method} not-an-id{suffix}");
        assert_eq!(send(&ceo, unknown.to_string()).await.unwrap().status(), 404, "{method} unknown{suffix}");
        assert_eq!(send(&other_ceo, id.clone()).await.unwrap().status(), 404, "{method} another enterprise's{suffix}");
    }

    // Changing one: the fields are checked as when it is made, and nothing changes on a refusal.
    for (body, name, reason) in [
        (json!({ "url": "not a url" }), "url", "invalid"),
        (json!({ "events": [] }), "events", "required"),
        (json!({ "events": ["user.exploded"] }), "events", "invalid"),
        (json!({ "description": "d".repeat(201) }), "description", "too_long"),
    ] {
        let (status, answer) = app.put(&ceo, &format!("/api/v1/webhooks/{id}"), body.clone()).await;
        assert_eq!((status, field(&answer, name)), (400, json!(reason)), "{body}: {answer}");
    }
    let (status, answer) = app.put(&ceo, &format!("/api/v1/webhooks/{id}"), json!({ "enabled": "no" })).await;
    assert_eq!(status, 400, "a string for a switch: {answer}");
    let (_, unchanged) = app.get(&ceo, &format!("/api/v1/webhooks/{id}")).await;
    assert_eq!((&unchanged["url"], &unchanged["events"], &unchanged["enabled"]), (&hook["url"], &hook["events"], &json!(true)), "{unchanged}");

    // Rotating: the previous secret's lifetime is bounded (0 to 168 hours).
    let (status, answer) = app.post(&ceo, &format!("/api/v1/webhooks/{id}/rotate-secret?previousSecretHours=169"), json!({})).await;
    assert_eq!(status, 400, "{answer}");

    // Deliveries: page bounds; redelivering an unknown delivery, or another webhook's, is 404.
    let (status, answer) = app.get(&ceo, &format!("/api/v1/webhooks/{id}/deliveries?pageSize=0")).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(app.post(&ceo, &format!("/api/v1/webhooks/{id}/test"), json!({})).await.0, 202);
    let (_, deliveries) = app.get(&ceo, &format!("/api/v1/webhooks/{id}/deliveries")).await;
    let delivery = deliveries["items"][0]["id"].as_str().unwrap().to_owned();
    let (status, _) = app.post(&ceo, &format!("/api/v1/webhooks/{id}/deliveries/{unknown}/redeliver"), json!({})).await;
    assert_eq!(status, 404, "an unknown delivery");
    let (_, list) = app.get(&ceo, "/api/v1/webhooks?pageSize=100").await;
    let sibling = list["items"].as_array().unwrap().iter().map(|w| w["id"].as_str().unwrap()).find(|w| *w != id).unwrap().to_owned();
    let (status, _) = app.post(&ceo, &format!("/api/v1/webhooks/{sibling}/deliveries/{delivery}/redeliver"), json!({})).await;
    assert_eq!(status, 404, "another webhook's delivery");

    // Deleted: gone for every operation, and a second delete is 404.
    assert_eq!(app.delete(&ceo, &format!("/api/v1/webhooks/{id}")).await.0, 204);
    assert_eq!(app.delete(&ceo, &format!("/api/v1/webhooks/{id}")).await.0, 404);
    assert_eq!(app.get(&ceo, &format!("/api/v1/webhooks/{id}")).await.0, 404);
    assert_eq!(app.post(&ceo, &format!("/api/v1/webhooks/{id}/deliveries/{delivery}/redeliver"), json!({})).await.0, 404);
}

#[tokio::test]
async fn revoking_a_token_refuses_bad_ids_unknown_ones_and_others_tokens() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (alpha, ceo) = app.enterprise(&admin, "Alpha").await;
    let (beta, other_ceo) = app.enterprise(&admin, "Beta").await;
    let unknown = uuid::Uuid::now_v7();
    let token = json!({ "name": "ci", "scopes": ["reports:read"] });

    let (status, mine) = app.post(&ceo, "/api/v1/api-tokens", token.clone()).await;
    assert_eq!(status, 201, "{mine}");
    let mine = mine["id"].as_str().unwrap().to_owned();
    assert_eq!(app.delete(&ceo, "/api/v1/api-tokens/not-an-id").await.0, 400);
    assert_eq!(app.delete(&ceo, &format!("/api/v1/api-tokens/{unknown}")).await.0, 404);
    assert_eq!(app.delete(&other_ceo, &format!("/api/v1/api-tokens/{mine}")).await.0, 404, "another person's token");
    assert_eq!(app.delete(&admin, &format!("/api/v1/api-tokens/{mine}")).await.0, 404, "even to the admin");
    assert_eq!(app.delete(&ceo, &format!("/api/v1/api-tokens/{mine}")).await.0, 204);
    assert_eq!(app.delete(&ceo, &format!("/api/v1/api-tokens/{mine}")).await.0, 404, "revoked already");

    let path = format!("/api/v1/enterprises/{alpha}/service-tokens");
    let (status, service) = app.post(&ceo, &path, token).await;
    assert_eq!(status, 201, "{service}");
    let service = service["id"].as_str().unwrap().to_owned();
    assert_eq!(app.delete(&ceo, &format!("{path}/not-an-id")).await.0, 400);
    assert_eq!(app.delete(&ceo, &format!("{path}/{unknown}")).await.0, 404);
    assert_eq!(app.delete(&other_ceo, &format!("{path}/{service}")).await.0, 404, "another enterprise's");
    assert_eq!(app.delete(&other_ceo, &format!("/api/v1/enterprises/{beta}/service-tokens/{service}")).await.0, 404, "named under another");
    assert_eq!(app.delete(&ceo, &format!("{path}/{service}")).await.0, 204);
    assert_eq!(app.delete(&admin, &format!("{path}/{service}")).await.0, 404, "revoked already");
}
