use crate::database::test_database;
use crate::helpers::TestApp;

fn spa_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("spa-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>app</title>").unwrap();
    std::fs::write(dir.join("assets/app.js"), "console.log(1)").unwrap();
    dir
}

/// A built asset and its precompressed copies, as the frontend build writes them.
fn precompressed(dir: &std::path::Path) -> Vec<u8> {
    let js = "export const answer = 42;\n".repeat(200);
    std::fs::write(dir.join("assets/big-abc123.js"), &js).unwrap();
    std::fs::write(dir.join("assets/big-abc123.js.br"), b"brotli bytes").unwrap();
    std::fs::write(dir.join("assets/big-abc123.js.gz"), b"gzip bytes").unwrap();
    js.into_bytes()
}

#[tokio::test]
async fn assets_are_served_precompressed_and_cached_by_their_hash() {
    let (db, _dropped) = test_database().await;
    let dir = spa_dir();
    let js = precompressed(&dir);
    let app = TestApp::spawn_with(db, |c| c.static_dir = Some(dir.clone())).await;
    let get = |p: &str, encodings: &str| app.http.get(app.url(p)).header("accept-encoding", encodings).send();

    let resp = get("/assets/big-abc123.js", "gzip, deflate, br").await.unwrap();
    assert_eq!(resp.headers()["content-encoding"], "br");
    assert!(resp.headers()["content-type"].to_str().unwrap().contains("javascript"));
    assert_eq!(resp.headers()["cache-control"], "public, max-age=31536000, immutable");
    assert_eq!(resp.bytes().await.unwrap().as_ref(), b"brotli bytes");
    let resp = get("/assets/big-abc123.js", "gzip").await.unwrap();
    assert_eq!(resp.headers()["content-encoding"], "gzip");
    let resp = get("/assets/big-abc123.js", "identity").await.unwrap();
    assert!(resp.headers().get("content-encoding").is_none());
    assert_eq!(resp.bytes().await.unwrap().as_ref(), js.as_slice());

    let index = get("/login", "br").await.unwrap();
    assert_eq!(index.headers()["cache-control"], "no-cache", "index.html is revalidated, so a release is seen at once");
    let missing = get("/assets/gone-123.js", "br").await.unwrap();
    assert_eq!(missing.status(), 404);
    assert_ne!(missing.headers().get("cache-control").map(|v| v.to_str().unwrap()), Some("public, max-age=31536000, immutable"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn head_is_answered_wherever_get_is() {
    let (db, _dropped) = test_database().await;
    let dir = spa_dir();
    let app = TestApp::spawn_with(db, |c| c.static_dir = Some(dir.clone())).await;
    for path in ["/login", "/assets/app.js", "/healthz", "/api/openapi.json"] {
        let resp = app.http.head(app.url(path)).send().await.unwrap();
        assert_eq!(resp.status(), 200, "HEAD {path}");
        assert!(resp.bytes().await.unwrap().is_empty(), "HEAD {path} has no body");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn json_is_compressed_when_the_client_accepts_it() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let plain = app.http.get(app.url("/api/openapi.json")).send().await.unwrap();
    assert!(plain.headers().get("content-encoding").is_none());
    let plain_len = plain.bytes().await.unwrap().len();
    for (accept, coding) in [("br, gzip", "br"), ("gzip", "gzip")] {
        let resp = app.http.get(app.url("/api/openapi.json")).header("accept-encoding", accept).send().await.unwrap();
        assert_eq!(resp.headers()["content-encoding"], coding);
        assert!(resp.headers()["vary"].to_str().unwrap().contains("accept-encoding"));
        let len = resp.bytes().await.unwrap().len();
        assert!(len * 4 < plain_len, "{coding}: {len} bytes of {plain_len}");
    }
    // Small answers are not worth it.
    let resp = app.http.get(app.url("/healthz")).header("accept-encoding", "br").send().await.unwrap();
    assert!(resp.headers().get("content-encoding").is_none());
}

#[tokio::test]
async fn every_response_carries_the_security_headers_and_hsts_behind_a_https_proxy() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    for path in ["/api/v1/auth/me", "/api/v1/nope", "/healthz"] {
        let resp = app.http.get(app.url(path)).send().await.unwrap();
        let csp = resp.headers()["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("connect-src 'self';"), "{path}: {csp}");
        assert_eq!(resp.headers()["x-content-type-options"], "nosniff", "{path}");
        assert!(resp.headers().get("strict-transport-security").is_none(), "{path}: plain HTTP gets no HSTS");
    }
    let resp = app.http.get(app.url("/healthz")).header("x-forwarded-proto", "https").send().await.unwrap();
    assert_eq!(resp.headers()["strict-transport-security"], "max-age=31536000; includeSubDomains");
}

#[tokio::test]
async fn the_map_tile_server_is_configuration_the_app_reads_and_the_policy_allows() {
    let (db, _dropped) = test_database().await;
    let plain = TestApp::spawn(db.clone()).await;
    let config: serde_json::Value = plain.http.get(plain.url("/app-config.json")).send().await.unwrap().json().await.unwrap();
    assert_eq!(config, serde_json::json!({ "mapTileUrl": null, "mapAttribution": null }), "offline outlines by default");
    let csp = plain.http.get(plain.url("/healthz")).send().await.unwrap().headers()["content-security-policy"].to_str().unwrap().to_owned();
    assert!(csp.contains("img-src 'self' data: blob:;"), "{csp}");

    let url = "https://tiles.example.org:8443/osm/{z}/{x}/{y}.png";
    let tiles = backend::config::MapTiles::parse(url, Some("© OpenStreetMap contributors".into())).unwrap();
    let app = TestApp::spawn_with(db, |c| c.map_tiles = Some(tiles)).await;
    let resp = app.http.get(app.url("/app-config.json")).send().await.unwrap();
    assert!(resp.headers()["content-security-policy"].to_str().unwrap().contains("img-src 'self' data: blob: https://tiles.example.org:8443;"));
    let config: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(config, serde_json::json!({ "mapTileUrl": url, "mapAttribution": "© OpenStreetMap contributors" }));
}

#[tokio::test]
async fn the_spa_is_served_with_a_fallback_for_client_routes() {
    let (db, _dropped) = test_database().await;
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

#[tokio::test]
async fn health_checks_and_the_api_document_are_served() {
    let (db, _dropped) = test_database().await;
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

#[tokio::test]
async fn readiness_fails_when_redis_is_down() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.redis_url = "redis://127.0.0.1:1".into()).await;
    let resp = app.http.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(resp.status(), 503);
    // Which dependency is down, never the error (hosts, ports, messages) to whoever asks.
    assert_eq!(resp.text().await.unwrap(), "unavailable: redis");
}

#[tokio::test]
async fn metrics_are_for_the_scraper_alone_and_name_routes_not_ids() {
    let (db, _dropped) = test_database().await;
    let hidden = TestApp::spawn(db.clone()).await;
    assert_eq!(hidden.http.get(hidden.url("/metrics")).send().await.unwrap().status(), 404, "no METRICS_TOKEN: no route");
    let app = TestApp::spawn_with(db, |c| c.metrics_token = Some("scrape-secret".into())).await;
    let admin = app.admin_token().await;
    let id = uuid::Uuid::new_v4();
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{id}")).await.0, 404);
    assert_eq!(app.login("nobody@example.com", "wrong-password").await.status(), 401);
    assert_eq!(app.http.get(app.url("/metrics")).send().await.unwrap().status(), 401);
    assert_eq!(app.http.get(app.url("/metrics")).bearer_auth("guess").send().await.unwrap().status(), 401);
    let resp = app.http.get(app.url("/metrics")).bearer_auth("scrape-secret").send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    for expected in [
        r#"http_requests_total{method="GET",route="getEnterprise",status="404"}"#,
        r#"http_request_duration_seconds_bucket{method="GET",route="getEnterprise",le="0.005"}"#,
        r#"sign_in_failures_total{reason="invalid_credentials"}"#,
        r#"db_pool_connections{pool="requests",state="idle"}"#,
        "websocket_connections ",
        "tenant_migrations_pending 0",
    ] {
        assert!(text.contains(expected), "{expected} missing from:\n{text}");
    }
    assert!(!text.contains(&id.to_string()), "ids never become labels");
}

/// Made-up paths must not become label values: the series a scrape shows are fixed by the code
/// (each route label an operation of the API document or one of a few fixed paths), whatever
/// clients send.
#[tokio::test]
async fn made_up_paths_never_grow_the_metrics() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.metrics_token = Some("scrape-secret".into())).await;
    let scrape = || async { app.http.get(app.url("/metrics")).bearer_auth("scrape-secret").send().await.unwrap().text().await.unwrap() };
    let series = |text: &str| text.lines().filter(|l| l.starts_with("http_requests_total{")).count();
    let segment = |i: usize| format!("made-up-{i}-{}", "x".repeat(200));
    for i in 0..5 {
        app.http.get(app.url(&format!("/api/v1/{}", segment(i)))).send().await.unwrap();
    }
    let before = scrape().await;
    for i in 5..300 {
        let method = if i % 2 == 0 { reqwest::Method::GET } else { reqwest::Method::POST };
        app.http.request(method, app.url(&format!("/api/v1/{}/{}", segment(i), uuid::Uuid::new_v4()))).send().await.unwrap();
    }
    let after = scrape().await;
    assert!(!after.contains("made-up-"), "a client's path became a label");
    // Other tests share the process's recorder, so only the unmatched series are counted here.
    let unmatched = |text: &str| text.lines().filter(|l| l.starts_with("http_requests_total{") && l.contains(r#"route="unmatched""#)).count();
    assert!(unmatched(&after) <= unmatched(&before) + 1, "{}", after);
    assert!(series(&after) < 2_000, "{} series", series(&after));

    let document: serde_json::Value = app.http.get(app.url("/api/openapi.json")).send().await.unwrap().json().await.unwrap();
    let operations: std::collections::HashSet<String> = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p.as_object().unwrap().values().filter_map(|o| o["operationId"].as_str().map(str::to_owned)))
        .collect();
    let fixed = ["unmatched", "(app)", "/healthz", "/readyz", "/metrics", "/api/openapi.json", "/api/docs", "/api/v1/ws"];
    for line in after.lines().filter(|l| l.starts_with("http_requests_total{")) {
        let route = line.split(r#"route=""#).nth(1).and_then(|r| r.split('"').next()).unwrap();
        assert!(operations.contains(route) || fixed.contains(&route), "unexpected route label {route:?}");
    }
}
