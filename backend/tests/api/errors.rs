use crate::database::test_database;
use crate::helpers::{TestApp, parts};

async fn post_raw(app: &TestApp, content_type: &str, body: impl Into<reqwest::Body>) -> (u16, serde_json::Value) {
    let resp = app.http.post(app.url("/api/v1/auth/login")).header("content-type", content_type).body(body).send().await.unwrap();
    parts(resp).await
}

#[tokio::test]
async fn malformed_bodies_are_4xx_json_errors_never_500() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;

    // Each names what it refuses: the whole body, or the member at fault.
    let cases = [
        ("{", "body", "invalid"),
        ("[]", "body", "invalid"),
        ("null", "body", "required"),
        (r#"{"email": {"a": 1}, "password": "x"}"#, "email", "invalid"),
        (r#"{"email": "a@example.com"}"#, "password", "required"),
        ("\u{0}", "body", "invalid"),
    ];
    for (body, field, issue) in cases {
        let (status, json) = post_raw(&app, "application/json", body).await;
        assert_eq!(status, 400, "{body}: {json}");
        assert_eq!((json["code"].as_str(), json["fields"][field].as_str()), (Some("validation_failed"), Some(issue)), "{body}: {json}");
        assert_eq!(json["message"], "Please check your input");
    }

    let (status, json) = post_raw(&app, "text/plain", "hello").await;
    assert_eq!((status, json["code"].as_str()), (415, Some("unsupported_media_type")));
}

/// The contract's types are the server's: a number or a boolean where a string is expected is
/// refused (poem-openapi alone would read `false` as the text "false"), also inside an array's
/// objects, and nothing is made.
#[tokio::test]
async fn a_number_or_boolean_for_a_string_is_refused_and_makes_nothing() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let ceo = r#""ceoFullName": "Ada", "ceoEmail": "ada@typed.test", "ceoPassword": "a-long-password-1""#;
    for (body, field) in [
        (format!(r#"{{"name": false, {ceo}}}"#), "name"),
        (format!(r#"{{"name": 2026, {ceo}}}"#), "name"),
        (r#"{"name": "Typed", "ceoFullName": "Ada", "ceoEmail": true, "ceoPassword": "a-long-password-1"}"#.to_owned(), "ceoEmail"),
    ] {
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        let (status, json) = app.post(&admin, "/api/v1/enterprises", body.clone()).await;
        assert_eq!(status, 400, "{body}: {json}");
        assert_eq!((json["code"].as_str(), json["fields"][field].as_str()), (Some("validation_failed"), Some("invalid")), "{body}: {json}");
    }
    let (made,): (i64,) = sqlx::query_as("select count(*) from enterprises").fetch_one(&app.db).await.unwrap();
    assert_eq!(made, 0, "no enterprise was made");
    // An optional member sent as null is absent, as before.
    let (status, json) =
        app.post(&admin, "/api/v1/enterprises", serde_json::from_str(&format!(r#"{{"name": "Typed", "ceoLocale": null, {ceo}}}"#)).unwrap()).await;
    assert_eq!(status, 201, "{json}");
}

#[tokio::test]
async fn huge_bodies_are_refused_with_413() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let huge = format!(r#"{{"email": "{}", "password": "x"}}"#, "a".repeat(200 * 1024));

    let (status, json) = post_raw(&app, "application/json", huge.clone()).await;
    assert_eq!((status, json["code"].as_str()), (413, Some("payload_too_large")));

    // Without a Content-Length (chunked), the limit still holds.
    let stream = futures_util::stream::iter(vec![Ok::<_, std::io::Error>(huge.into_bytes())]);
    let (status, json) = post_raw(&app, "application/json", reqwest::Body::wrap_stream(stream)).await;
    assert_eq!((status, json["code"].as_str()), (413, Some("payload_too_large")));
}

/// HTTP/2 with prior knowledge (h2c) carries neither `Content-Length` nor `Transfer-Encoding`:
/// the limit must still bound what the server reads, on JSON and multipart routes alike.
#[tokio::test]
async fn the_body_limit_holds_over_cleartext_http2_without_a_length() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let h2 = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let without_length = |bytes: Vec<u8>| {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = bytes.chunks(16 * 1024).map(|c| Ok(c.to_vec())).collect();
        reqwest::Body::wrap_stream(futures_util::stream::iter(chunks))
    };

    let huge = format!(r#"{{"email": "{}", "password": "x"}}"#, "a".repeat(200 * 1024)).into_bytes();
    let resp = h2.post(app.url("/api/v1/auth/login")).header("content-type", "application/json").body(without_length(huge)).send().await.unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_2);
    let (status, json) = parts(resp).await;
    assert_eq!((status, json["code"].as_str()), (413, Some("payload_too_large")), "{json}");

    // Under the limit, the same framing is served as usual (the credentials are wrong: 401).
    let small = br#"{"email": "nobody@example.com", "password": "wrong-password"}"#.to_vec();
    let resp = h2.post(app.url("/api/v1/auth/login")).header("content-type", "application/json").body(without_length(small)).send().await.unwrap();
    assert_eq!(resp.status(), 401);

    // A multipart import past the spreadsheet limit (12 MiB here), with no length declared.
    let admin = app.admin_token().await;
    let (ent, _) = app.enterprise(&admin, "Acme").await;
    let dept = app.department(&admin, &ent, "finance").await;
    let boundary = "xBOUNDARYx";
    let mut body = format!("--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.xlsx\"\r\n\r\n").into_bytes();
    body.extend(std::iter::repeat_n(b'A', 13 * 1024 * 1024));
    body.extend(format!("\r\n--{boundary}--\r\n").into_bytes());
    let resp = h2
        .post(app.url(&format!("/api/v1/departments/{dept}/spreadsheets/import")))
        .bearer_auth(&admin)
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .body(without_length(body))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 413);
}

/// The NUL rule holds whatever media type carries the body: JSON in capitals or with a `+json`
/// suffix, and multipart text fields. (A NUL in a part's headers, its name or file name, is
/// refused by the multipart parser itself as a 400.)
#[tokio::test]
async fn a_nul_under_any_media_type_or_in_multipart_is_a_400() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let dept = app.department(&ceo, &ent, "finance").await;
    app.staff(&ceo, &ent, "writer@acme.example", "DepartmentUser", Some(&dept)).await;
    let writer = app.token("writer@acme.example", "staff-password").await;
    let create = format!("/api/v1/departments/{dept}/spreadsheets");

    for media_type in ["APPLICATION/JSON", "application/merge-patch+json", "application/vnd.x+json", "Application/Json; charset=utf-8"] {
        let resp = app
            .http
            .post(app.url(&create))
            .bearer_auth(&writer)
            .header("content-type", media_type)
            .body(r#"{"name": "Budget\u0000"}"#)
            .send()
            .await
            .unwrap();
        let (status, body) = parts(resp).await;
        assert_eq!((status, body["fields"]["name"].as_str()), (400, Some("invalid_character")), "{media_type}: {body}");
    }

    let import = format!("/api/v1/departments/{dept}/spreadsheets/import");
    let file_part =
        |file_name: &str| format!("--B\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\r\nPK not really\r\n");
    let body = format!("{}--B\r\ncontent-disposition: form-data; name=\"name\"\r\n\r\nBud\u{0}get\r\n--B--\r\n", file_part("a.xlsx"));
    let resp = app
        .http
        .post(app.url(&import))
        .bearer_auth(&writer)
        .header("content-type", "multipart/form-data; boundary=B")
        .body(body)
        .send()
        .await
        .unwrap();
    let (status, body) = parts(resp).await;
    assert_eq!((status, body["fields"]["name"].as_str()), (400, Some("invalid_character")), "{body}");
    let (_, list) = app.get(&writer, &create).await;
    assert_eq!(list["total"], 0, "nothing was written: {list}");
}

#[tokio::test]
async fn unknown_api_paths_and_methods_are_json_errors() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;

    let (status, json) = parts(app.http.get(app.url("/api/v1/nope")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (404, Some("not_found")));
    let (status, json) = parts(app.http.get(app.url("/api/elsewhere")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (404, Some("not_found")));
    let (status, json) = parts(app.http.get(app.url("/api/v1/auth/login")).send().await.unwrap()).await;
    assert_eq!((status, json["code"].as_str()), (405, Some("method_not_allowed")));
}

/// PostgreSQL refuses NUL in text: wherever a client can put one, it is a 400 naming the field,
/// never a 500.
#[tokio::test]
async fn a_nul_character_anywhere_is_a_400_naming_the_field() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, _) = app.enterprise(&admin, "Acme").await;

    for (path, field) in [("/api/v1/enterprises?q=%00", "q"), ("/api/v1/users?q=ab%00cd", "q"), ("/api/v1/enterprises?page=1&q=x%00", "q")] {
        let (status, body) = app.get(&admin, path).await;
        assert_eq!((status, body["code"].as_str()), (400, Some("validation_failed")), "{path}: {body}");
        assert_eq!(body["fields"][field], "invalid_character", "{path}: {body}");
    }
    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{ent}"), serde_json::json!({ "description": "a\u{0}b" })).await;
    assert_eq!((status, body["fields"]["description"].as_str()), (400, Some("invalid_character")), "{body}");
    let (status, body) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            serde_json::json!({ "name": "N\u{0}", "ceoFullName": "C", "ceoEmail": "c@n.example", "ceoPassword": "ceo-password" }),
        )
        .await;
    assert_eq!((status, body["fields"]["name"].as_str()), (400, Some("invalid_character")), "{body}");
    let (status, _) = app.get(&admin, "/api/v1/enterprises/%00").await;
    assert_eq!(status, 400);
    // Nothing was written.
    let (_, detail) = app.get(&admin, &format!("/api/v1/enterprises/{ent}")).await;
    assert_eq!(detail["description"], "Test");
}

/// poem answers 413 and 415 itself, before an operation runs: every operation with a body
/// declares them.
#[tokio::test]
async fn every_operation_with_a_body_declares_413_and_415() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let spec: serde_json::Value = app.http.get(app.url("/api/openapi.json")).send().await.unwrap().json().await.unwrap();
    let mut with_body = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op.get("requestBody").is_some() {
                with_body += 1;
                for status in ["400", "413", "415"] {
                    assert!(op["responses"].get(status).is_some(), "{method} {path} does not declare {status}");
                }
            }
        }
    }
    assert!(with_body >= 10, "{with_body}");
}

/// A path id that is not a UUID is a 400, on every kind of resource.
#[tokio::test]
async fn a_path_id_that_is_not_a_uuid_is_400() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    for path in ["/api/v1/enterprises/42", "/api/v1/users/not-a-uuid", "/api/v1/reports/1234/export?format=pdf", "/api/v1/departments/x/reports"] {
        let (status, body) = app.get(&admin, path).await;
        assert_eq!(
            (status, body["code"].as_str(), body["fields"]["id"].as_str()),
            (400, Some("validation_failed"), Some("invalid")),
            "{path}: {body}"
        );
    }
}

/// Updates are validated like creations: every bad field named, nothing written.
#[tokio::test]
async fn updates_are_validated_and_a_taken_email_is_409() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", Some(&finance)).await;
    app.staff(&ceo, &ent, "bob@acme.example", "DepartmentUser", Some(&finance)).await;

    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{ent}"), serde_json::json!({ "name": "  " })).await;
    assert_eq!((status, body["fields"]["name"].as_str()), (400, Some("required")), "{body}");

    let user = format!("/api/v1/users/{ann}");
    let (status, body) = app.put(&ceo, &user, serde_json::json!({ "fullName": "", "email": "nope", "password": "short" })).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["fields"], serde_json::json!({ "fullName": "required", "email": "invalid_email", "password": "too_short" }));
    let (status, body) = app.put(&ceo, &user, serde_json::json!({ "email": "BOB@acme.example" })).await;
    assert_eq!((status, body["code"].as_str(), body["fields"]["email"].as_str()), (409, Some("conflict"), Some("taken")), "{body}");
    let (_, unchanged) = app.get(&ceo, &user).await;
    assert_eq!((unchanged["fullName"].as_str(), unchanged["email"].as_str()), (Some("Staff Member"), Some("ann@acme.example")));

    let ann_token = app.token("ann@acme.example", "staff-password").await;
    let (_, draft) = app
        .post(
            &ann_token,
            &format!("/api/v1/departments/{finance}/reports"),
            serde_json::json!({
                "title": "Q1", "content": "", "periodStart": "2026-01-01", "periodEnd": "2026-03-31"
            }),
        )
        .await;
    let report = format!("/api/v1/reports/{}", draft["id"].as_str().unwrap());
    let (status, body) = app.put(&ann_token, &report, serde_json::json!({ "title": " ", "periodEnd": "2025-12-31" })).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["fields"], serde_json::json!({ "title": "required", "periodEnd": "invalid" }));
    let (status, body) = app.put(&ann_token, &report, serde_json::json!({ "data": { "columns": ["A"], "rows": [[1, 2]] } })).await;
    assert_eq!((status, body["fields"]["data"].as_str()), (400, Some("invalid")), "a row wider than its columns: {body}");
}

/// A new password works at once, the old one no longer does, and the sessions opened with the
/// old one end.
#[tokio::test]
async fn a_password_change_takes_effect_and_ends_the_old_sessions() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let ann = app.staff(&ceo, &ent, "ann@acme.example", "DepartmentUser", None).await;
    let old_session = app.token("ann@acme.example", "staff-password").await;

    let (status, _) = app.put(&ceo, &format!("/api/v1/users/{ann}"), serde_json::json!({ "password": "a-brand-new-passphrase" })).await;
    assert_eq!(status, 200);
    assert_eq!(app.me(&old_session).await.status(), 401);
    assert_eq!(app.login("ann@acme.example", "staff-password").await.status(), 401);
    assert_eq!(app.login("ann@acme.example", "a-brand-new-passphrase").await.status(), 200);
}

#[tokio::test]
async fn a_database_that_does_not_answer_is_a_quick_503_not_a_hang_or_a_500() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    assert_eq!(app.get(&admin, "/api/v1/enterprises").await.0, 200);
    app.db.close().await;
    let started = std::time::Instant::now();
    let resp = app.http.get(app.url("/api/v1/enterprises")).bearer_auth(&admin).send().await.unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "unavailable");
    let (status, body) = parts(app.login(crate::helpers::ADMIN_EMAIL, crate::helpers::ADMIN_PASSWORD).await).await;
    assert_eq!((status, body["code"].as_str()), (503, Some("unavailable")), "sign-in too");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
}
