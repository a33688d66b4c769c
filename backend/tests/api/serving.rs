use sqlx::PgPool;

use crate::helpers::TestApp;

fn spa_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("spa-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    std::fs::write(dir.join("assets/app.js"), "console.log(1)").unwrap();
    dir
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn the_spa_is_served_with_a_fallback_for_client_routes(db: PgPool) {
    let dir = spa_dir();
    let app = TestApp::spawn_with(db, |c| c.static_dir = Some(dir.clone())).await;
    let get = |p: &str| app.http.get(app.url(p)).send();

    for route in ["/", "/login", "/dashboard", "/admin/enterprises/123"] {
        let resp = get(route).await.unwrap();
        assert_eq!(resp.status(), 200, "{route}");
        assert!(resp.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
        assert!(resp.text().await.unwrap().contains("<title>app</title>"), "{route}");
    }
    assert_eq!(get("/assets/app.js").await.unwrap().text().await.unwrap(), "console.log(1)");
    assert_eq!(get("/assets/missing.js").await.unwrap().status(), 404, "a missing asset is not index.html");
    std::fs::remove_dir_all(dir).unwrap();
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn health_checks_and_the_api_document_are_served(db: PgPool) {
    let app = TestApp::spawn(db).await;
    let get = |p: &str| app.http.get(app.url(p)).send();

    assert_eq!(get("/healthz").await.unwrap().text().await.unwrap(), "ok");
    assert_eq!(get("/readyz").await.unwrap().status(), 200);
    let spec: serde_json::Value = get("/api/openapi.json").await.unwrap().json().await.unwrap();
    assert_eq!(spec["paths"]["/auth/login"]["post"]["operationId"], "login");
    let docs = get("/api/docs").await.unwrap();
    assert_eq!(docs.status(), 200);
    assert!(docs.text().await.unwrap().contains("swagger"));
    let resp = get("/healthz").await.unwrap();
    assert!(resp.headers().contains_key("x-request-id"));
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn readiness_fails_when_redis_is_down(db: PgPool) {
    let app = TestApp::spawn_with(db, |c| c.redis_url = "redis://127.0.0.1:1".into()).await;
    let resp = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(resp.status(), 503);
    // Which dependency is down, never the error (hosts, ports, messages) to whoever asks.
    assert_eq!(resp.text().await.unwrap(), "unavailable: redis");
}
