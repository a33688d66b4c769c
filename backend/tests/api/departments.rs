use serde_json::json;

use crate::database::test_database;
use crate::helpers::TestApp;

#[tokio::test]
async fn a_ceo_sets_the_head_and_assigns_and_removes_members() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", None).await;
    let bob = app.staff(&ceo, &ent, "bob@acme.example", "DepartmentUser", None).await;
    let path = format!("/api/v1/enterprises/{ent}/departments/{finance}");

    let (status, dept) = app.put(&ceo, &path, json!({ "description": "Money", "headId": ann })).await;
    assert_eq!(status, 200, "{dept}");
    assert_eq!(dept["description"], "Money");
    assert_eq!(dept["head"]["id"], ann);
    assert_eq!(dept["head"]["role"], "DepartmentHead", "the head is promoted");
    assert_eq!(app.post(&ceo, &format!("{path}/users"), json!({ "userId": bob })).await.0, 204);

    let (_, dept) = app.get(&ceo, &path).await;
    let mut members: Vec<&str> = dept["members"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    members.sort();
    let mut expected = vec![ann.as_str(), bob.as_str()];
    expected.sort();
    assert_eq!(members, expected);

    // Staff read their own department, not another.
    let bob_token = app.token("bob@acme.example", "staff-password").await;
    assert_eq!(app.get(&bob_token, &path).await.0, 200);
    let sales = app.department(&ceo, &ent, "sales_marketing").await;
    assert_eq!(app.get(&bob_token, &format!("/api/v1/enterprises/{ent}/departments/{sales}")).await.0, 404);
    assert_eq!(app.put(&bob_token, &path, json!({ "description": "mine now" })).await.0, 403);

    assert_eq!(app.delete(&ceo, &format!("{path}/users/{ann}")).await.0, 204);
    let (_, dept) = app.get(&ceo, &path).await;
    assert_eq!(dept["head"], serde_json::Value::Null, "a head who leaves is no longer head");
    assert_eq!(dept["members"].as_array().unwrap().len(), 1);
    assert_eq!(app.delete(&ceo, &format!("{path}/users/{ann}")).await.0, 404);

    let (status, dept) = app.put(&ceo, &path, json!({ "headId": null })).await;
    assert_eq!((status, &dept["head"]), (200, &serde_json::Value::Null));
    // A CEO cannot head a department.
    let ceo_id = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    let (status, body) = app.put(&ceo, &path, json!({ "headId": ceo_id })).await;
    assert_eq!((status, body["fields"]["headId"].as_str()), (400, Some("invalid")));
}

/// Every enterprise-scoped endpoint, called by one tenant's CEO with another tenant's ids.
#[tokio::test]
async fn another_tenants_ids_are_404_on_every_endpoint() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (a, ceo_a) = app.enterprise(&admin, "Alpha").await;
    let (b, ceo_b) = app.enterprise(&admin, "Beta").await;
    let dept_a = app.department(&ceo_a, &a, "finance").await;
    let dept_b = app.department(&ceo_b, &b, "finance").await;
    let user_b = app.staff(&ceo_b, &b, "bea@beta.example", "DepartmentUser", Some(&dept_b)).await;
    let user_a = app.staff(&ceo_a, &a, "abe@alpha.example", "DepartmentUser", None).await;

    let body = json!({ "description": "x" });
    let checks: Vec<(&str, String, Option<serde_json::Value>)> = vec![
        ("GET", format!("/api/v1/enterprises/{b}"), None),
        ("GET", format!("/api/v1/enterprises/{b}/users"), None),
        ("GET", format!("/api/v1/enterprises/{b}/departments"), None),
        ("GET", format!("/api/v1/enterprises/{b}/departments/{dept_b}"), None),
        ("PUT", format!("/api/v1/enterprises/{b}/departments/{dept_b}"), Some(body.clone())),
        ("POST", format!("/api/v1/enterprises/{b}/departments/{dept_b}/users"), Some(json!({ "userId": user_b }))),
        ("DELETE", format!("/api/v1/enterprises/{b}/departments/{dept_b}/users/{user_b}"), None),
        // Own enterprise, other tenant's department or user.
        ("GET", format!("/api/v1/enterprises/{a}/departments/{dept_b}"), None),
        ("PUT", format!("/api/v1/enterprises/{a}/departments/{dept_b}"), Some(body.clone())),
        ("POST", format!("/api/v1/enterprises/{a}/departments/{dept_a}/users"), Some(json!({ "userId": user_b }))),
        ("DELETE", format!("/api/v1/enterprises/{a}/departments/{dept_b}/users/{user_b}"), None),
        ("PUT", format!("/api/v1/enterprises/{a}/departments/{dept_a}"), Some(json!({ "headId": user_b }))),
        ("GET", format!("/api/v1/users/{user_b}"), None),
        ("PUT", format!("/api/v1/users/{user_b}"), Some(json!({ "fullName": "Hijacked" }))),
        ("DELETE", format!("/api/v1/users/{user_b}"), None),
    ];
    for (method, path, body) in checks {
        let (status, resp) = match method {
            "GET" => app.get(&ceo_a, &path).await,
            "PUT" => app.put(&ceo_a, &path, body.unwrap()).await,
            "POST" => app.post(&ceo_a, &path, body.unwrap()).await,
            _ => app.delete(&ceo_a, &path).await,
        };
        assert_eq!(status, 404, "{method} {path}: {resp}");
        assert_eq!(resp["code"], "not_found", "{method} {path}");
    }
    // Nothing of Beta changed.
    let (_, bea) = app.get(&ceo_b, &format!("/api/v1/users/{user_b}")).await;
    assert_eq!((bea["fullName"].as_str(), bea["departmentId"].as_str()), (Some("Staff Member"), Some(dept_b.as_str())));
    // Staff of one tenant get 404 for the other's department too.
    let abe = app.token("abe@alpha.example", "staff-password").await;
    assert_eq!(app.get(&abe, &format!("/api/v1/enterprises/{b}/departments/{dept_b}")).await.0, 404);
    let _ = user_a;
}

/// Concurrent changes of one person's department queue on their row: whatever the order, they
/// head at most one department, and it is the one they are a member of.
#[tokio::test]
async fn racing_head_assignments_leave_one_head_who_is_a_member() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let sales = app.department(&ceo, &ent, "sales_marketing").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", None).await;
    let (finance_path, sales_path, ann_path) = (
        format!("/api/v1/enterprises/{ent}/departments/{finance}"),
        format!("/api/v1/enterprises/{ent}/departments/{sales}"),
        format!("/api/v1/users/{ann}"),
    );
    for _ in 0..10 {
        let (a, b, c) = tokio::join!(
            app.put(&ceo, &finance_path, json!({ "headId": ann })),
            app.put(&ceo, &sales_path, json!({ "headId": ann })),
            app.put(&ceo, &ann_path, json!({ "departmentId": finance })),
        );
        assert_eq!((a.0, b.0, c.0), (200, 200, 200), "{a:?} {b:?} {c:?}");
        let (_, departments) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/departments")).await;
        let (_, user) = app.get(&ceo, &format!("/api/v1/users/{ann}")).await;
        let headed: Vec<&str> =
            departments.as_array().unwrap().iter().filter(|d| d["head"]["id"] == ann.as_str()).map(|d| d["id"].as_str().unwrap()).collect();
        let heads_in_db: i64 =
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!("select count(*) from t_{}.departments where head_id = '{ann}'", ent.replace('-', ""))))
                .fetch_one(&app.db)
                .await
                .unwrap();
        assert!(heads_in_db <= 1, "{heads_in_db} departments name them as head");
        assert_eq!(heads_in_db as usize, headed.len(), "a head the API does not show");
        if let Some(headed) = headed.first() {
            assert_eq!(user["departmentId"].as_str(), Some(*headed));
        }
    }
}
