use serde_json::{Value, json};
use sqlx::PgPool;

use crate::database::test_database;
use crate::helpers::TestApp;

fn report(title: &str) -> Value {
    json!({ "title": title, "content": "", "periodStart": "2026-01-01", "periodEnd": "2026-01-31", "status": "submitted" })
}

/// Acme: finance has one submitted, one approved, one rejected report and a draft; sales one
/// reviewed. Globex: one submitted.
async fn populated(db: PgPool) -> (TestApp, String, String, String, String) {
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &acme, "finance").await;
    let sales = app.department(&ceo, &acme, "sales_marketing").await;
    app.staff(&ceo, &acme, "fin@acme.example", "DepartmentHead", Some(&finance)).await;
    app.staff(&ceo, &acme, "sal@acme.example", "DepartmentUser", Some(&sales)).await;
    let fin = app.token("fin@acme.example", "staff-password").await;
    let sal = app.token("sal@acme.example", "staff-password").await;
    let mut ids = Vec::new();
    for title in ["Pending", "Approved", "Rejected"] {
        let (_, r) = app.post(&fin, &format!("/api/v1/departments/{finance}/reports"), report(title)).await;
        ids.push(r["id"].as_str().unwrap().to_owned());
    }
    let mut draft = report("Draft");
    draft["status"] = json!("draft");
    app.post(&fin, &format!("/api/v1/departments/{finance}/reports"), draft).await;
    app.post(&ceo, &format!("/api/v1/reports/{}/review", ids[1]), json!({ "status": "approved" })).await;
    app.post(&ceo, &format!("/api/v1/reports/{}/review", ids[2]), json!({ "status": "rejected", "reviewNotes": "Redo" })).await;
    let (_, s) = app.post(&sal, &format!("/api/v1/departments/{sales}/reports"), report("Campaign")).await;
    app.post(&ceo, &format!("/api/v1/reports/{}/review", s["id"].as_str().unwrap()), json!({ "status": "reviewed" })).await;

    let (globex, globex_ceo) = app.enterprise(&admin, "Globex").await;
    let it = app.department(&globex_ceo, &globex, "information_technology").await;
    app.staff(&globex_ceo, &globex, "it@globex.example", "DepartmentUser", Some(&it)).await;
    let it_user = app.token("it@globex.example", "staff-password").await;
    app.post(&it_user, &format!("/api/v1/departments/{it}/reports"), report("Servers")).await;
    (app, admin, ceo, fin, finance)
}

#[tokio::test]
async fn the_ceo_dashboard_counts_reports_by_department_without_drafts() {
    let (db, _dropped) = test_database().await;
    let (app, admin, ceo, fin, finance) = populated(db).await;

    let (status, d) = app.get(&ceo, "/api/v1/dashboard/ceo").await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["enterpriseName"], "Acme");
    assert_eq!(d["totals"], json!({ "submitted": 1, "reviewed": 1, "approved": 1, "rejected": 1 }));
    assert_eq!(d["pendingReviews"], 2);
    let fin_dept = d["departments"].as_array().unwrap().iter().find(|x| x["id"] == finance.as_str()).unwrap();
    assert_eq!(fin_dept["reports"], json!({ "submitted": 1, "reviewed": 0, "approved": 1, "rejected": 1 }));
    assert_eq!(fin_dept["memberCount"], 1);
    assert_eq!(d["departments"].as_array().unwrap().len(), 5);
    let activity = d["recentActivity"].as_array().unwrap();
    assert!(activity.iter().all(|a| a["toStatus"] != "draft" && a["reportTitle"] != "Draft"));
    assert_eq!(activity[0]["toStatus"], "reviewed", "newest first");
    assert!(activity.iter().any(|a| a["notes"] == "Redo"));

    let (status, list) = app.get(&ceo, &format!("/api/v1/dashboard/reports?departmentId={finance}&sort=title")).await;
    assert_eq!(status, 200);
    let titles: Vec<&str> = list["items"].as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Approved", "Pending", "Rejected"]);

    assert_eq!(app.get(&fin, "/api/v1/dashboard/ceo").await.0, 403);
    assert_eq!(app.get(&admin, "/api/v1/dashboard/ceo").await.0, 403);
    assert_eq!(app.get(&fin, "/api/v1/dashboard/reports").await.0, 403);
}

#[tokio::test]
async fn the_admin_dashboard_and_statistics_cover_every_tenant() {
    let (db, _dropped) = test_database().await;
    let (app, admin, ceo, _, _) = populated(db).await;

    let (status, d) = app.get(&admin, "/api/v1/admin/dashboard").await;
    assert_eq!(status, 200, "{d}");
    assert_eq!(d["enterprises"], json!({ "active": 2, "inactive": 0 }));
    assert_eq!(d["usersByRole"], json!({ "platformAdmin": 1, "enterpriseCeo": 2, "departmentHead": 1, "departmentUser": 2 }));
    assert_eq!(d["reportsByStatus"], json!({ "submitted": 2, "reviewed": 1, "approved": 1, "rejected": 1 }));
    // Six sign-ins: the admin, two CEOs and three staff (populated), all still live.
    assert_eq!(d["activeSessions"], 6);

    let (status, s) = app.get(&admin, "/api/v1/admin/statistics?days=7").await;
    assert_eq!(status, 200);
    let days = s["days"].as_array().unwrap();
    assert_eq!(days.len(), 7);
    // Summed over the week, so a run that crosses midnight UTC counts the same.
    let total = |field: &str| days.iter().map(|d| d[field].as_i64().unwrap()).sum::<i64>();
    let total_reports = |status: &str| days.iter().map(|d| d["reports"][status].as_i64().unwrap()).sum::<i64>();
    assert_eq!(total("enterprisesCreated"), 2);
    assert_eq!(total("signIns"), 6);
    assert_eq!(
        ["submitted", "reviewed", "approved", "rejected"].map(total_reports),
        [5, 1, 1, 1],
        "every submission counts, including those later reviewed: {days:?}"
    );
    assert_eq!(days[0]["signIns"], 0);

    assert_eq!(app.get(&ceo, "/api/v1/admin/dashboard").await.0, 403);
    assert_eq!(app.get(&ceo, "/api/v1/admin/statistics").await.0, 403);
    assert_eq!(app.get(&admin, "/api/v1/admin/statistics?days=400").await.0, 400);
}
