//! What an enterprise uses and its limits (issue 46, point 6): daily counters kept as they happen
//! on every instance, what the enterprise holds now, and limits refused with `limit_reached`.

use std::time::{Duration, Instant};

use base64::{Engine as _, engine::general_purpose::STANDARD as B64};
use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, mail_domain, parts};

/// The counts of every day of a usage answer, added up (a test run across midnight counts on two days).
fn summed(usage: &Value, field: &str) -> i64 {
    usage["daily"].as_array().unwrap().iter().map(|d| d[field].as_i64().unwrap()).sum()
}

/// Reads the enterprise's usage until `done` holds (30 s at most: another instance writes its
/// counts every 10 s).
async fn usage_until(app: &TestApp, token: &str, ent: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, usage) = app.get(token, &format!("/api/v1/enterprises/{ent}/usage")).await;
        assert_eq!(status, 200, "{usage}");
        if done(&usage) || Instant::now() > deadline {
            return usage;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn usage_counts_calls_sign_ins_emails_and_exports_from_every_instance_and_shows_what_the_enterprise_holds() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let other_instance = TestApp::spawn_like(&app, db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = mail_domain("u");
    let (ent, ceo) = app.enterprise(&admin, &format!("Usage {d}")).await;
    let ceo_email = format!("ceo@usage-{d}.example");
    let (quiet, _) = app.enterprise(&admin, &format!("Quiet {d}")).await;

    // The CEO signed in once (the helper); now three calls, an invitation, an export.
    for _ in 0..3 {
        assert_eq!(app.get(&ceo, "/api/v1/auth/me").await.0, 200);
    }
    let invitee = format!("invited@{d}");
    let (status, invited) =
        app.post(&ceo, "/api/v1/users", json!({ "fullName": "Ines Invited", "email": invitee, "role": "DepartmentUser", "enterpriseId": ent })).await;
    assert_eq!(status, 201, "{invited}");
    assert_eq!(app.post(&ceo, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await.0, 202);
    // Its directory's service credential (one more call), then two SCIM calls with it.
    let (status, made) =
        app.post(&ceo, &format!("/api/v1/enterprises/{ent}/service-tokens"), json!({ "name": "Okta", "scopes": ["scim:read"] })).await;
    assert_eq!(status, 201, "{made}");
    for _ in 0..2 {
        let resp = app.http.get(app.url("/api/v1/scim/v2/Users")).bearer_auth(made["token"].as_str().unwrap()).send().await.unwrap();
        assert_eq!(resp.status(), 200);
    }
    mail.wait_for(&invitee, 1).await;
    mail.wait_for(&ceo_email, 1).await;

    // The admin's own calls are nobody's usage.
    let usage = usage_until(&app, &admin, &ent, |u| summed(u, "emails") == 2).await;
    assert_eq!(summed(&usage, "apiCalls"), 8, "three reads, the invitation, the export, the credential, two SCIM calls: {usage}");
    assert_eq!(summed(&usage, "signIns"), 1, "{usage}");
    assert_eq!(summed(&usage, "emails"), 2, "the invitation, and the export's 'ready': {usage}");
    assert_eq!(summed(&usage, "exports"), 1, "{usage}");
    let daily = usage["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 30, "the 30 days up to today by default");
    assert!(daily.windows(2).all(|w| w[0]["date"].as_str() < w[1]["date"].as_str()), "oldest first: {usage}");
    let current = &usage["current"];
    assert_eq!((current["people"].as_i64(), current["reports"].as_i64(), current["spreadsheets"].as_i64()), (Some(2), Some(0), Some(0)), "{usage}");
    assert_eq!(current["activeSessions"], 1, "{usage}");
    assert!(current["storageBytes"].as_i64().is_some_and(|b| b > 0), "the schema's tables take room: {usage}");
    assert_eq!((&usage["limits"], &usage["ownLimits"]), (&json!({}), &json!({})), "no limits configured: {usage}");

    // Calls through another instance are counted there and written within seconds.
    for _ in 0..2 {
        assert_eq!(other_instance.get(&ceo, "/api/v1/auth/me").await.0, 200);
    }
    let usage = usage_until(&app, &admin, &ent, |u| summed(u, "apiCalls") >= 10).await;
    assert_eq!(summed(&usage, "apiCalls"), 10, "both instances' calls: {usage}");

    // Another enterprise's counts are its own; the CEO reads their own usage (and that read counts).
    let (_, theirs) = app.get(&admin, &format!("/api/v1/enterprises/{quiet}/usage")).await;
    assert_eq!((summed(&theirs, "apiCalls"), summed(&theirs, "signIns")), (0, 1), "{theirs}");
    let (status, own) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/usage")).await;
    assert_eq!(status, 200, "{own}");
    assert_eq!(summed(&own, "apiCalls"), 11, "{own}");
}

#[tokio::test]
async fn limits_refuse_a_person_new_data_and_calls_past_them_naming_the_limit() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Limited").await;
    let (other, other_ceo) = app.enterprise(&admin, "Unlimited").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let limits = format!("/api/v1/enterprises/{ent}/limits");

    // People: the CEO and one more.
    let (status, set) = app.put(&admin, &limits, json!({ "people": 2 })).await;
    assert_eq!(status, 200, "{set}");
    assert_eq!((&set["limits"], &set["ownLimits"]), (&json!({ "people": 2 }), &json!({ "people": 2 })));
    app.staff(&ceo, &ent, "first@limited.example", "DepartmentUser", Some(&finance)).await;
    let person = |email: &str| json!({ "fullName": "One Too Many", "email": email, "password": "staff-password", "role": "DepartmentUser", "enterpriseId": ent });
    let (status, refused) = app.post(&ceo, "/api/v1/users", person("second@limited.example")).await;
    assert_eq!((status, refused["code"].as_str(), refused["limit"].as_str()), (409, Some("limit_reached"), Some("people")), "{refused}");
    assert_eq!(app.post(&admin, "/api/v1/users", person("third@limited.example")).await.0, 409, "the admin is held to it too");
    let (_, usage) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/usage")).await;
    assert_eq!((usage["current"]["people"].as_i64(), usage["limits"]["people"].as_i64()), (Some(2), Some(2)), "{usage}");
    // Another enterprise is not held to it.
    app.staff(&other_ceo, &other, "free@unlimited.example", "DepartmentUser", None).await;

    // Storage: nothing new once the schema is at its limit; lifting it lets the report in.
    let author = app.token("first@limited.example", "staff-password").await;
    let (status, sheet) = app.post(&author, &format!("/api/v1/departments/{finance}/spreadsheets"), json!({ "name": "Budget" })).await;
    assert_eq!(status, 201, "{sheet}");
    let sheet = format!("/api/v1/spreadsheets/{}", sheet["id"].as_str().unwrap());
    let small = B64.encode(crate::spreadsheets::workbook(&[(1, 1, "1")]));
    let big = B64.encode(crate::spreadsheets::workbook(&(1..=200).map(|r| (r, 1, "a longer cell of text")).collect::<Vec<_>>()));
    let (status, saved) = app.put(&author, &sheet, json!({ "content": big, "version": 1 })).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(app.put(&admin, &limits, json!({ "storageBytes": 1 })).await.0, 200);
    // A save that makes the workbook smaller passes; one that makes it larger again is refused.
    let (status, saved) = app.put(&author, &sheet, json!({ "content": small, "version": 2 })).await;
    assert_eq!(status, 200, "{saved}");
    let (status, refused) = app.put(&author, &sheet, json!({ "content": big, "version": 3 })).await;
    assert_eq!((status, refused["code"].as_str(), refused["limit"].as_str()), (409, Some("limit_reached"), Some("storageBytes")), "{refused}");
    let report = json!({ "title": "Q1", "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31" });
    let (status, refused) = app.post(&author, &format!("/api/v1/departments/{finance}/reports"), report.clone()).await;
    assert_eq!((status, refused["code"].as_str(), refused["limit"].as_str()), (409, Some("limit_reached"), Some("storageBytes")), "{refused}");
    let (status, refused) = app.post(&author, &format!("/api/v1/departments/{finance}/spreadsheets"), json!({ "name": "Plan" })).await;
    assert_eq!((status, refused["limit"].as_str()), (409, Some("storageBytes")), "{refused}");
    // Setting the limits again replaces them: the people limit is gone with this body.
    let (_, set) = app.put(&admin, &limits, json!({})).await;
    assert_eq!(set["ownLimits"], json!({}));
    assert_eq!(app.post(&author, &format!("/api/v1/departments/{finance}/reports"), report).await.0, 201);
    app.staff(&ceo, &ent, "second@limited.example", "DepartmentUser", Some(&finance)).await;

    // API calls per minute, for the whole enterprise together. Fixed one-minute windows: seven
    // calls in a row put at least four in one window, whatever the clock says.
    assert_eq!(app.put(&admin, &limits, json!({ "apiCallsPerMinute": 3 })).await.0, 200);
    let mut answers = Vec::new();
    for i in 0..7 {
        let token = if i % 2 == 0 { &ceo } else { &author };
        let resp = app.http.get(app.url("/api/v1/auth/me")).bearer_auth(token).send().await.unwrap();
        let policy = resp.headers()["ratelimit-policy"].to_str().unwrap().to_owned();
        assert!(policy.contains("\"enterprise\";q=3;w=60"), "{policy}");
        let current = resp.headers()["ratelimit"].to_str().unwrap().to_owned();
        assert!(current.contains("\"enterprise\";r="), "{current}");
        let retry = resp.headers().get("retry-after").map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
        let (status, body) = parts(resp).await;
        answers.push((status, body, retry));
    }
    assert_eq!(answers[0].0, 200, "the first call of a window is within any limit");
    let (_, body, retry) = answers.iter().find(|(status, ..)| *status == 429).expect("a call past three a minute is refused");
    assert_eq!((body["code"].as_str(), body["limit"].as_str()), (Some("limit_reached"), Some("apiCallsPerMinute")), "{body}");
    assert!(retry.is_some_and(|s| (1..=60).contains(&s)), "{retry:?}");
    // Nobody else is held to it: another enterprise, the admin.
    let resp = app.http.get(app.url("/api/v1/auth/me")).bearer_auth(&other_ceo).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(!resp.headers()["ratelimit-policy"].to_str().unwrap().contains("enterprise"));
    assert_eq!(app.get(&admin, "/api/v1/auth/me").await.0, 200);
    // Lifted, it holds no more at once, on the same minute.
    assert_eq!(app.put(&admin, &limits, json!({ "apiCallsPerMinute": null })).await.0, 200);
    assert_eq!(app.get(&ceo, "/api/v1/auth/me").await.0, 200);

    // Every change is in the audit log with what was before and after.
    let (_, log) = app.get(&admin, &format!("/api/v1/audit-events?action=enterprise.limits_changed&enterpriseId={ent}&pageSize=100")).await;
    let entries = log["items"].as_array().unwrap();
    assert_eq!(entries.len(), 5, "{log}");
    assert!(entries.iter().any(|e| e["details"]["after"]["people"] == 2 && e["details"]["before"]["people"].is_null()), "{log}");
}

#[tokio::test]
async fn configured_defaults_hold_for_enterprises_without_limits_of_their_own() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.tenant_limits.people = Some(2)).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Defaults").await;
    app.staff(&ceo, &ent, "one@defaults.example", "DepartmentUser", None).await;
    let person =
        json!({ "fullName": "Two", "email": "two@defaults.example", "password": "staff-password", "role": "DepartmentUser", "enterpriseId": ent });
    let (status, refused) = app.post(&ceo, "/api/v1/users", person.clone()).await;
    assert_eq!((status, refused["limit"].as_str()), (409, Some("people")), "{refused}");
    let (_, usage) = app.get(&admin, &format!("/api/v1/enterprises/{ent}/usage")).await;
    assert_eq!((&usage["limits"], &usage["ownLimits"]), (&json!({ "people": 2 }), &json!({})), "{usage}");
    // Its own limit wins over the default.
    let (_, set) = app.put(&admin, &format!("/api/v1/enterprises/{ent}/limits"), json!({ "people": 3 })).await;
    assert_eq!(set["limits"], json!({ "people": 3 }));
    assert_eq!(app.post(&ceo, "/api/v1/users", person).await.0, 201);
}

#[tokio::test]
async fn usage_and_limits_refuse_bad_input_and_unknown_enterprises() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Checked").await;
    let usage = format!("/api/v1/enterprises/{ent}/usage");
    for query in ["?from=2026-02-01&to=2026-01-01", "?from=2024-01-01&to=2026-01-01", "?from=yesterday", "?to=2026-13-01"] {
        let (status, body) = app.get(&admin, &format!("{usage}{query}")).await;
        assert_eq!((status, body["code"].as_str()), (400, Some("validation_failed")), "{query}: {body}");
    }
    let (status, body) = app.get(&admin, &format!("{usage}?from=2026-01-01&to=2026-01-31")).await;
    assert_eq!((status, body["daily"].as_array().map(Vec::len)), (200, Some(31)), "{body}");
    assert_eq!(body["daily"][0]["date"], "2026-01-01");

    let limits = format!("/api/v1/enterprises/{ent}/limits");
    for (body, field) in [
        (json!({ "people": 0 }), "people"),
        (json!({ "storageBytes": -1 }), "storageBytes"),
        (json!({ "apiCallsPerMinute": 1_000_001 }), "apiCallsPerMinute"),
        (json!({ "people": "many" }), "people"),
        (json!({ "people": 1.5 }), "people"),
    ] {
        let (status, refused) = app.put(&admin, &limits, body.clone()).await;
        assert_eq!(status, 400, "{body}: {refused}");
        assert!(refused["fields"][field].is_string(), "{body}: {refused}");
    }
    let (_, kept) = app.get(&admin, &usage).await;
    assert_eq!(kept["ownLimits"], json!({}), "a refused change changes nothing");
    assert_eq!(app.put(&ceo, &limits, json!({ "people": 100 })).await.0, 403, "the CEO reads limits, never sets them");

    let unknown = "0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c";
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{unknown}/usage")).await.0, 404);
    assert_eq!(app.put(&admin, &format!("/api/v1/enterprises/{unknown}/limits"), json!({})).await.0, 404);
    assert_eq!(app.get(&admin, "/api/v1/enterprises/not-a-uuid/usage").await.0, 400);
}

#[tokio::test]
async fn the_admin_sees_every_enterprise_s_usage_sorted_by_any_figure_a_page_at_a_time() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (big, big_ceo) = app.enterprise(&admin, "Big Usage").await;
    let (small, _) = app.enterprise(&admin, "Small Usage").await;
    let (quiet, _) = app.enterprise(&admin, "Another Usage").await;
    // Big: two more people, a spreadsheet with a workbook, calls; a limit of its own.
    let finance = app.department(&big_ceo, &big, "finance").await;
    for n in 0..2 {
        app.staff(&big_ceo, &big, &format!("p{n}@big-usage.example"), "DepartmentUser", Some(&finance)).await;
    }
    let writer = app.token("p0@big-usage.example", "staff-password").await;
    let (status, sheet) = app.post(&writer, &format!("/api/v1/departments/{finance}/spreadsheets"), json!({ "name": "Plan" })).await;
    assert_eq!(status, 201, "{sheet}");
    let content = B64.encode(crate::spreadsheets::workbook(&(1..=300).map(|r| (r, 1, "some text in a cell")).collect::<Vec<_>>()));
    let (status, saved) =
        app.put(&writer, &format!("/api/v1/spreadsheets/{}", sheet["id"].as_str().unwrap()), json!({ "content": content, "version": 1 })).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(app.put(&admin, &format!("/api/v1/enterprises/{big}/limits"), json!({ "people": 40 })).await.0, 200);

    let (status, page) = app.get(&admin, "/api/v1/enterprises/usage?sort=people").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!((page["total"].as_i64(), page["page"].as_i64(), page["pageSize"].as_i64()), (Some(3), Some(1), Some(20)), "{page}");
    let items = page["items"].as_array().unwrap();
    let names: Vec<&str> = items.iter().map(|i| i["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Big Usage", "Another Usage", "Small Usage"], "most people first, ties by name: {page}");
    let top = &items[0];
    assert_eq!((top["enterpriseId"].as_str(), top["people"].as_i64(), top["isActive"].as_bool()), (Some(big.as_str()), Some(3), Some(true)), "{top}");
    assert_eq!(top["limits"], json!({ "people": 40 }), "{top}");
    assert!(top["spreadsheetBytes"].as_i64().unwrap() > 0 && top["storageBytes"].as_i64() > top["spreadsheetBytes"].as_i64(), "{top}");
    assert!(top["apiCalls"].as_i64().unwrap() >= 5, "its CEO's calls, counted: {top}");
    assert_eq!(top["activeSessions"], 2, "its CEO's and its writer's: {top}");

    // By name, both ways; by spreadsheet bytes, least first; a page of one.
    let order = |path: &str| {
        let app = &app;
        let admin = &admin;
        let path = path.to_owned();
        async move {
            let (status, page) = app.get(admin, &path).await;
            assert_eq!(status, 200, "{page}");
            page["items"].as_array().unwrap().iter().map(|i| i["enterpriseId"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
        }
    };
    assert_eq!(order("/api/v1/enterprises/usage?sort=name&order=asc").await, [quiet.clone(), big.clone(), small.clone()]);
    assert_eq!(order("/api/v1/enterprises/usage?sort=name&order=desc").await, [small.clone(), big.clone(), quiet.clone()]);
    assert_eq!(order("/api/v1/enterprises/usage?sort=spreadsheetBytes&order=desc").await[0], big);
    assert_eq!(order("/api/v1/enterprises/usage?sort=name&order=asc&page=2&pageSize=1").await, vec![big.clone()]);
    assert_eq!(order("/api/v1/enterprises/usage?sort=name&page=9").await, Vec::<String>::new());
    let (_, one_day) = app.get(&admin, "/api/v1/enterprises/usage?sort=apiCalls&days=1").await;
    assert_eq!(one_day["items"][0]["enterpriseId"], big.as_str(), "{one_day}");

    // Bad input is a 400; only the admin sees it.
    for bad in ["sort=size", "order=up", "days=0", "days=367", "page=0", "pageSize=101"] {
        assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/usage?{bad}")).await.0, 400, "{bad}");
    }
    assert_eq!(app.get(&big_ceo, "/api/v1/enterprises/usage").await.0, 403);
}
