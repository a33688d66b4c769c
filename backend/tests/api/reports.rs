use serde_json::{Value, json};
use sqlx::PgPool;

use crate::database::test_database;
use crate::helpers::TestApp;

struct World {
    app: TestApp,
    admin: String,
    ent: String,
    ceo: String,
    finance: String,
    /// A department user of finance, and its head.
    user: String,
    head: String,
    /// A user of another department.
    outsider: String,
}

async fn world(db: PgPool) -> World {
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let sales = app.department(&ceo, &ent, "sales_marketing").await;
    app.staff(&ceo, &ent, "user@acme.example", "DepartmentUser", Some(&finance)).await;
    let head_id = app.staff(&ceo, &ent, "head@acme.example", "DepartmentHead", Some(&finance)).await;
    let finance_path = format!("/api/v1/enterprises/{ent}/departments/{finance}");
    assert_eq!(app.put(&ceo, &finance_path, json!({ "headId": head_id })).await.0, 200);
    app.staff(&ceo, &ent, "out@acme.example", "DepartmentUser", Some(&sales)).await;
    let user = app.token("user@acme.example", "staff-password").await;
    let head = app.token("head@acme.example", "staff-password").await;
    let outsider = app.token("out@acme.example", "staff-password").await;
    World { app, admin, ent, ceo, finance, user, head, outsider }
}

fn report(title: &str, status: &str) -> Value {
    json!({
        "title": title, "content": "Quarterly figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31",
        "status": status, "data": { "columns": ["Month", "Revenue"], "rows": [["Jan", 120], ["Feb", 95.5], ["Mar", null]] }
    })
}

fn statuses(history: &Value) -> Vec<(Option<String>, String)> {
    history.as_array().unwrap().iter().map(|e| (e["fromStatus"].as_str().map(str::to_owned), e["toStatus"].as_str().unwrap().to_owned())).collect()
}

#[tokio::test]
async fn the_review_workflow_from_draft_to_approval_with_a_rejection() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let app = &w.app;
    let (status, draft) = app.post(&w.user, &format!("/api/v1/departments/{}/reports", w.finance), report("Q1", "draft")).await;
    assert_eq!(status, 201, "{draft}");
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["data"]["rows"][1][1], 95.5);
    assert_eq!(draft["createdBy"]["email"], "user@acme.example");
    let id = draft["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/reports/{id}");

    // The CEO never sees drafts.
    assert_eq!(app.get(&w.ceo, &path).await.0, 404);
    let (_, list) = app.get(&w.ceo, &format!("/api/v1/enterprises/{}/reports", w.ent)).await;
    assert_eq!(list["total"], 0);

    let (status, submitted) = app.put(&w.user, &path, json!({ "status": "submitted" })).await;
    assert_eq!((status, submitted["status"].as_str()), (200, Some("submitted")), "{submitted}");
    assert!(submitted["submittedAt"].is_string());
    assert_eq!(app.get(&w.ceo, &path).await.0, 200);

    let (status, body) = app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "rejected" })).await;
    assert_eq!((status, body["fields"]["reviewNotes"].as_str()), (400, Some("required")));
    let (status, rejected) = app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "rejected", "reviewNotes": "Add March" })).await;
    assert_eq!((status, rejected["status"].as_str(), rejected["reviewNotes"].as_str()), (200, Some("rejected"), Some("Add March")));
    assert_eq!(rejected["reviewedBy"]["email"], "ceo@acme.example");

    // Its author edits it: back to draft, then resubmits.
    let (status, edited) = app.put(&w.user, &path, json!({ "data": { "columns": ["Month", "Revenue"], "rows": [["Mar", 101]] } })).await;
    assert_eq!((status, edited["status"].as_str()), (200, Some("draft")));
    let (status, resubmitted) = app.put(&w.user, &path, json!({ "status": "submitted" })).await;
    assert_eq!(status, 200);
    // The rejection is history now, not the report's current review.
    assert_eq!(
        (&resubmitted["reviewNotes"], &resubmitted["reviewedBy"], &resubmitted["reviewedAt"]),
        (&Value::Null, &Value::Null, &Value::Null),
        "{resubmitted}"
    );
    let (status, reviewed) = app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "reviewed" })).await;
    assert_eq!((status, reviewed["status"].as_str()), (200, Some("reviewed")));
    let (status, approved) = app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "approved", "reviewNotes": "Good" })).await;
    assert_eq!((status, approved["status"].as_str()), (200, Some("approved")));

    // Approved is final.
    let (status, body) = app.put(&w.user, &path, json!({ "title": "Q1 v3" })).await;
    assert_eq!((status, body["code"].as_str()), (409, Some("invalid_transition")));
    assert_eq!(app.delete(&w.user, &path).await.0, 409);
    assert_eq!(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "rejected", "reviewNotes": "no" })).await.0, 409);

    let (_, detail) = app.get(&w.user, &path).await;
    assert_eq!(
        statuses(&detail["history"]),
        [
            (None, "draft".to_owned()),
            (Some("draft".into()), "submitted".into()),
            (Some("submitted".into()), "rejected".into()),
            (Some("rejected".into()), "draft".into()),
            (Some("draft".into()), "submitted".into()),
            (Some("submitted".into()), "reviewed".into()),
            (Some("reviewed".into()), "approved".into()),
        ]
    );
    assert_eq!(detail["history"][2]["notes"], "Add March");
    assert_eq!(detail["history"][2]["actor"]["email"], "ceo@acme.example");
}

#[tokio::test]
async fn who_may_touch_a_report() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let app = &w.app;
    let create = format!("/api/v1/departments/{}/reports", w.finance);
    let (_, r) = app.post(&w.user, &create, report("Mine", "draft")).await;
    let path = format!("/api/v1/reports/{}", r["id"].as_str().unwrap());

    assert_eq!(app.post(&w.ceo, &create, report("CEO", "draft")).await.0, 403, "the CEO does not write reports");
    assert_eq!(app.post(&w.admin, &create, report("Admin", "draft")).await.0, 403);
    assert_eq!(app.post(&w.outsider, &create, report("Other dept", "draft")).await.0, 404);
    assert_eq!(app.get(&w.outsider, &path).await.0, 404, "another department's report does not exist for them");
    assert_eq!(app.get(&w.outsider, &format!("/api/v1/departments/{}/reports", w.finance)).await.0, 404);
    // The head of the department may edit and submit a colleague's report.
    assert_eq!(app.get(&w.head, &path).await.0, 200);
    assert_eq!(app.put(&w.head, &path, json!({ "title": "Edited by head" })).await.0, 200);
    // Another plain user of the department may not.
    app.staff(&w.ceo, &w.ent, "peer@acme.example", "DepartmentUser", Some(&w.finance)).await;
    let peer = app.token("peer@acme.example", "staff-password").await;
    assert_eq!(app.get(&peer, &path).await.0, 200);
    assert_eq!(app.put(&peer, &path, json!({ "title": "Hijack" })).await.0, 403);
    assert_eq!(app.delete(&peer, &path).await.0, 403);
    // Nobody reviews a draft: the CEO does not even see it.
    let (status, body) = app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "approved" })).await;
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")), "{body}");
    assert_eq!(app.get(&w.ceo, &format!("{path}/export?format=pdf")).await.0, 404, "nor exports it");
    assert_eq!(app.get(&w.ceo, &path).await.0, 404, "nor reads it");
    // Only the CEO reviews.
    let (status, body) = app.put(&w.user, &path, json!({ "status": "submitted" })).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("submitted")), "{body}");
    assert_eq!(app.post(&w.head, &format!("{path}/review"), json!({ "status": "approved" })).await.0, 403);
    assert_eq!(app.post(&w.admin, &format!("{path}/review"), json!({ "status": "approved" })).await.0, 403);
    // The platform admin reads it by its id alone (any link to a report works), or naming the
    // enterprise; naming another enterprise is 404.
    let (status, body) = app.get(&w.admin, &path).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("submitted")), "{body}");
    let export = app.http.get(app.url(&format!("{path}/export?format=csv"))).bearer_auth(&w.admin).send().await.unwrap();
    assert_eq!(export.status(), 200);
    assert_eq!(app.get(&w.admin, &format!("{path}?enterpriseId={}", w.ent)).await.0, 200);
    assert_eq!(app.get(&w.admin, &format!("/api/v1/reports/{}", uuid::Uuid::new_v4())).await.0, 404);
    // A user who wrote reports cannot be deleted, only deactivated.
    let me: String = app.get(&w.user, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    let (status, body) = app.delete(&w.ceo, &format!("/api/v1/users/{me}")).await;
    assert_eq!((status, body["code"].as_str()), (409, Some("conflict")));
}

#[tokio::test]
async fn bad_reports_are_refused_field_by_field() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let create = format!("/api/v1/departments/{}/reports", w.finance);
    let mut bad = report(" ", "approved");
    bad["periodEnd"] = json!("2025-12-31");
    bad["data"]["rows"] = json!([["Jan"], ["Feb", {"nested": true}]]);
    let (status, body) = w.app.post(&w.user, &create, bad).await;
    assert_eq!(status, 400);
    assert_eq!(body["fields"], json!({ "title": "required", "periodEnd": "invalid", "status": "invalid", "data": "invalid" }));
    let mut bad_date = report("x", "draft");
    bad_date["periodStart"] = json!("2026-02-30");
    assert_eq!(w.app.post(&w.user, &create, bad_date).await.0, 400);

    // Text in a number column is refused at its cell; text in the labels or a text column is not.
    let mut text_in_numbers = report("Numbers", "draft");
    text_in_numbers["data"] = json!({ "columns": ["Month", "Revenue", "Note"], "rows": [["Jan", 10, "ok"], ["abc", "abc", null], ["Mar", null, "fine"], ["Apr", "12a", "x"]] });
    let (status, body) = w.app.post(&w.user, &create, text_in_numbers).await;
    assert_eq!((status, &body["fields"]), (400, &json!({ "data.rows.1.1": "invalid", "data.rows.3.1": "invalid" })), "{body}");
    let mut fine = report("Numbers", "draft");
    fine["data"] = json!({ "columns": ["Month", "Revenue", "Note"], "rows": [["Jan", 10, "ok"], ["Feb", null, "12"]] });
    assert_eq!(w.app.post(&w.user, &create, fine).await.0, 201);
}

#[tokio::test]
async fn lists_filter_sort_and_page() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let app = &w.app;
    let create = format!("/api/v1/departments/{}/reports", w.finance);
    for (title, status, start, end) in [
        ("Budget Q1", "submitted", "2026-01-01", "2026-03-31"),
        ("Budget Q2", "submitted", "2026-04-01", "2026-06-30"),
        ("Payroll notes", "draft", "2026-04-01", "2026-04-30"),
        ("Audit", "submitted", "2026-07-01", "2026-09-30"),
    ] {
        let mut r = report(title, status);
        r["periodStart"] = json!(start);
        r["periodEnd"] = json!(end);
        assert_eq!(app.post(&w.user, &create, r).await.0, 201);
    }
    let titles =
        |page: &Value| -> Vec<String> { page["items"].as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap().to_owned()).collect() };

    let (_, staff) = app.get(&w.user, &format!("{create}?sort=title")).await;
    assert_eq!(titles(&staff), ["Audit", "Budget Q1", "Budget Q2", "Payroll notes"]);
    let (_, ceo) = app.get(&w.ceo, &format!("{create}?sort=periodStart")).await;
    assert_eq!(titles(&ceo), ["Budget Q1", "Budget Q2", "Audit"], "no drafts for the CEO");
    let (_, q) = app.get(&w.user, &format!("{create}?q=budget&sort=-periodStart")).await;
    assert_eq!(titles(&q), ["Budget Q2", "Budget Q1"]);
    let (_, period) = app.get(&w.user, &format!("{create}?from=2026-04-15&to=2026-05-01&sort=title")).await;
    assert_eq!(titles(&period), ["Budget Q2", "Payroll notes"]);
    let (_, drafts) = app.get(&w.user, &format!("{create}?status=draft")).await;
    assert_eq!(titles(&drafts), ["Payroll notes"]);
    let (_, page) = app.get(&w.user, &format!("{create}?pageSize=3&page=2&sort=title")).await;
    assert_eq!((titles(&page), page["total"].as_i64()), (vec!["Payroll notes".to_owned()], Some(4)));
    let (_, all) = app.get(&w.ceo, &format!("/api/v1/enterprises/{}/reports?status=submitted&q=audit", w.ent)).await;
    assert_eq!(titles(&all), ["Audit"]);
    let (_, detail) = app.get(&w.admin, &format!("/api/v1/enterprises/{}", w.ent)).await;
    assert_eq!(detail["reportCount"], 3);
    assert_eq!(app.get(&w.user, &format!("{create}?sort=sideways")).await.0, 400);
}

#[tokio::test]
async fn another_tenants_reports_are_404() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let app = &w.app;
    let (_, r) = app.post(&w.user, &format!("/api/v1/departments/{}/reports", w.finance), report("Secret", "submitted")).await;
    let id = r["id"].as_str().unwrap();
    let (other, other_ceo) = app.enterprise(&w.admin, "Other").await;

    for path in [
        format!("/api/v1/reports/{id}"),
        format!("/api/v1/reports/{id}?enterpriseId={}", w.ent),
        format!("/api/v1/enterprises/{}/reports", w.ent),
        format!("/api/v1/departments/{}/reports", w.finance),
    ] {
        assert_eq!(app.get(&other_ceo, &path).await.0, 404, "{path}");
    }
    assert_eq!(app.post(&other_ceo, &format!("/api/v1/reports/{id}/review"), json!({ "status": "approved" })).await.0, 404);
    assert_eq!(app.get(&w.admin, &format!("/api/v1/reports/{id}?enterpriseId={other}")).await.0, 404);
}

/// The state machine's refusals, through the API: a submitted or reviewed report cannot be
/// edited or deleted, an approved one is final, and a report cannot be reviewed twice into the
/// same state.
#[tokio::test]
async fn the_review_workflow_refuses_what_the_state_machine_forbids() {
    let (db, _dropped) = test_database().await;
    let w = world(db).await;
    let app = &w.app;
    let (_, r) = app.post(&w.user, &format!("/api/v1/departments/{}/reports", w.finance), report("Locked", "submitted")).await;
    let path = format!("/api/v1/reports/{}", r["id"].as_str().unwrap());

    let refused = |(status, body): (u16, Value)| {
        assert_eq!((status, body["code"].as_str()), (409, Some("invalid_transition")), "{body}");
    };
    refused(app.put(&w.user, &path, json!({ "title": "Edited while submitted" })).await);
    refused(app.delete(&w.user, &path).await);
    refused(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "submitted" })).await);
    assert_eq!(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "reviewed" })).await.0, 200);
    refused(app.put(&w.head, &path, json!({ "title": "Edited while reviewed" })).await);
    refused(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "reviewed" })).await);
    assert_eq!(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "approved" })).await.0, 200);
    refused(app.put(&w.user, &path, json!({ "title": "Edited while approved" })).await);
    refused(app.delete(&w.head, &path).await);
    refused(app.post(&w.ceo, &format!("{path}/review"), json!({ "status": "rejected", "reviewNotes": "Too late" })).await);
    let (_, detail) = app.get(&w.user, &path).await;
    assert_eq!((detail["title"].as_str(), detail["status"].as_str()), (Some("Locked"), Some("approved")));
}

/// A report read again comes from the instance's memory while nothing in its enterprise has
/// changed (a change made behind the server's back is not seen), and any change made through the
/// API, through either instance, is seen by the very next read on both: an edit, its author's new
/// name, its reader moved to another department.
#[tokio::test]
async fn a_report_read_again_comes_from_memory_until_anything_in_its_enterprise_changes() {
    let (db, _dropped) = test_database().await;
    let w = world(db.clone()).await;
    let one = &w.app;
    let two = TestApp::spawn_like(one, db).await;
    let (_, created) = one.post(&w.user, &format!("/api/v1/departments/{}/reports", w.finance), report("Q1", "draft")).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let author = created["createdBy"]["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/reports/{id}");
    let title = |body: Value| body["title"].as_str().unwrap_or_default().to_owned();
    // Read twice on each instance: the first read of a new Redis sets the generations.
    for instance in [one, &two] {
        for reader in [&w.head, &w.user] {
            for _ in 0..2 {
                assert_eq!(title(instance.get(reader, &path).await.1), "Q1");
            }
        }
    }

    let schema = backend::tenancy::SchemaName::for_enterprise(w.ent.parse().unwrap());
    sqlx::query(sqlx::AssertSqlSafe(format!("update \"{}\".reports set title = 'Changed behind' where id = $1", schema.as_str())))
        .bind(uuid::Uuid::parse_str(&id).unwrap())
        .execute(&one.db)
        .await
        .unwrap();
    for instance in [one, &two] {
        assert_eq!(title(instance.get(&w.head, &path).await.1), "Q1", "served from memory");
    }

    // An edit through one: the next read on two sees it (and the change made behind, too).
    assert_eq!(one.put(&w.user, &path, json!({ "content": "Final figures" })).await.0, 200);
    let (status, read) = two.get(&w.head, &path).await;
    assert_eq!((status, title(read.clone()), read["content"].as_str()), (200, "Changed behind".to_owned(), Some("Final figures")));
    assert_eq!(one.get(&w.head, &path).await.1["content"], "Final figures");

    // The author renamed through two: the next read on one names them so.
    assert_eq!(two.get(&w.head, &path).await.1["createdBy"]["fullName"], "Staff Member");
    assert_eq!(two.put(&w.ceo, &format!("/api/v1/users/{author}"), json!({ "fullName": "Ada Lovelace" })).await.0, 200);
    assert_eq!(one.get(&w.head, &path).await.1["createdBy"]["fullName"], "Ada Lovelace");

    // The reader moved to another department: the report is no longer theirs to read.
    assert_eq!(one.get(&w.user, &path).await.0, 200);
    let sales = two.get(&w.ceo, &format!("/api/v1/enterprises/{}/departments", w.ent)).await.1;
    let sales = sales.as_array().unwrap().iter().find(|d| d["type"] == "sales_marketing").unwrap()["id"].as_str().unwrap().to_owned();
    assert_eq!(two.put(&w.ceo, &format!("/api/v1/users/{author}"), json!({ "departmentId": sales })).await.0, 200);
    assert_eq!(one.get(&w.user, &path).await.0, 404);
}
