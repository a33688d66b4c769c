use sqlx::PgPool;

use crate::helpers::{TestApp, parts};

async fn post_raw(app: &TestApp, content_type: &str, body: impl Into<reqwest::Body>) -> (u16, serde_json::Value) {
    let resp = app
        .http
        .post(app.url("/api/v1/auth/login"))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    parts(resp).await
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn malformed_bodies_are_4xx_json_errors_never_500(db: PgPool) {
    let app = TestApp::spawn(db).await;

    for body in ["{", "[]", "null", r#"{"email": {"a": 1}, "password": "x"}"#, r#"{"email": "a@example.com"}"#, "\u{0}"] {
        let (status, json) = post_raw(&app, "application/json", body).await;
        assert_eq!(status, 400, "{body}: {json}");
        assert_eq!(json["code"], "bad_request", "{body}");
        assert!(json["message"].as_str().unwrap().starts_with("Please check your input"));
    }

    let (status, json) = post_raw(&app, "text/plain", "hello").await;
    assert_eq!((status, json["code"].as_str()), (415, Some("unsupported_media_type")));
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn huge_bodies_are_refused_with_413(db: PgPool) {
    let app = TestApp::spawn(db).await;
    let huge = format!(r#"{{"email": "{}", "password": "x"}}"#, "a".repeat(200 * 1024));

    let (status, json) = post_raw(&app, "application/json", huge.clone()).await;
    assert_eq!((status, json["code"].as_str()), (413, Some("payload_too_large")));

    // Without a Content-Length (chunked), the limit still holds.
    let stream = futures_util::stream::iter(vec![Ok::<_, std::io::Error>(huge.into_bytes())]);
    let (status, json) = post_raw(&app, "application/json", reqwest::Body::wrap_stream(stream)).await;
    assert_eq!((status, json["code"].as_str()), (413, Some("payload_too_large")));
}

#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn unknown_api_paths_and_methods_are_json_errors(db: PgPool) {
    let app = TestApp::spawn(db).await;

    let (status, json) = parts(app.http.get(app.url("/api/v1/nope")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (404, Some("not_found")));
    let (status, json) = parts(app.http.get(app.url("/api/elsewhere")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (404, Some("not_found")));
    let (status, json) = parts(app.http.get(app.url("/api/v1/auth/login")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (405, Some("method_not_allowed")));
}
