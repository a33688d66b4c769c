use backend::domain::Role;
use serde_json::json;

use crate::database::test_database;
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp, parts};

#[tokio::test]
async fn login_returns_a_token_and_the_user() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let id = app.admin().await;

    let (status, body) = parts(app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await).await;

    assert_eq!(status, 200);
    assert!(body["token"].as_str().unwrap().len() > 20);
    let user = &body["user"];
    assert_eq!(user["id"], id.to_string());
    assert_eq!(user["role"], "PlatformAdmin");
    assert_eq!(user["email"], ADMIN_EMAIL);
    assert_eq!(user["status"], "active");
    assert_eq!(user["enterpriseId"], serde_json::Value::Null);
    assert!(user["lastLogin"].is_string(), "lastLogin is set by the sign-in: {user}");
    assert!(user.get("passwordHash").is_none());
}

#[tokio::test]
async fn email_is_matched_case_insensitively() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;
    assert_eq!(app.login(" ADMIN@Example.COM ", ADMIN_PASSWORD).await.status(), 200);
}

#[tokio::test]
async fn wrong_password_and_unknown_email_get_the_same_401() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;

    for (email, password) in [(ADMIN_EMAIL, "wrong-password"), ("nobody@example.com", ADMIN_PASSWORD)] {
        let (status, body) = parts(app.login(email, password).await).await;
        assert_eq!(status, 401);
        let mut body = body;
        body.as_object_mut().unwrap().remove("requestId");
        assert_eq!(
            body,
            json!({
                "type": "urn:enterprise-platform:problem:invalid_credentials", "title": "Unauthorized", "status": 401,
                "detail": "Invalid email or password", "instance": "/api/v1/auth/login",
                "code": "invalid_credentials", "message": "Invalid email or password"
            }),
            "the same answer, whether the account exists or not"
        );
    }
}

#[tokio::test]
async fn empty_and_malformed_fields_are_named() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;

    let (status, body) = parts(app.login("", "").await).await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "validation_failed");
    assert_eq!(body["fields"], json!({ "email": "required", "password": "required" }));

    let (status, body) = parts(app.login("not-an-email", "whatever1").await).await;
    assert_eq!(status, 400);
    assert_eq!(body["fields"], json!({ "email": "invalid_email" }));
}

#[tokio::test]
async fn inactive_users_and_enterprises_cannot_sign_in() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let user = app.create_user(Role::DepartmentUser, "staff@example.com", "staff-password").await;
    sqlx::query("update users set status = 'inactive' where id = $1").bind(user).execute(&app.db).await.unwrap();
    let (status, body) = parts(app.login("staff@example.com", "staff-password").await).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("account_inactive")));
    // A wrong password still says only "invalid credentials": the status is not revealed.
    assert_eq!(app.login("staff@example.com", "wrong-password").await.status(), 401);

    let ceo = app.create_user(Role::EnterpriseCeo, "ceo@example.com", "ceo-password").await;
    sqlx::query("update enterprises set is_active = false where id = (select enterprise_id from users where id = $1)")
        .bind(ceo)
        .execute(&app.db)
        .await
        .unwrap();
    let (status, body) = parts(app.login("ceo@example.com", "ceo-password").await).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("account_inactive")));
}

#[tokio::test]
async fn me_returns_the_caller() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let id = app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;

    let (status, body) = parts(app.me(&token).await).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], id.to_string());
    assert_eq!(body["fullName"], "Test Person");
}

#[tokio::test]
async fn me_without_a_valid_token_is_401() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;

    let (status, body) = parts(app.http.get(app.url("/api/v1/auth/me")).send().await.unwrap()).await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unauthorized")));

    // Never a token of ours: not an ended session either.
    let (status, body) = parts(app.me("garbage.token.here").await).await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unauthorized")));

    // Signed with another secret.
    let other = TestApp::spawn(app.db.clone()).await;
    app.admin().await;
    let foreign = other.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(app.me(&foreign).await.status(), 401);
}

#[tokio::test]
async fn logout_kills_the_token_at_once() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let other_session = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(app.me(&token).await.status(), 200);

    assert_eq!(app.logout(&token).await.status(), 204);

    let (status, body) = parts(app.me(&token).await).await;
    assert_eq!(status, 401);
    assert_eq!(body["code"], "session_expired");
    assert_eq!(app.logout(&token).await.status(), 401);
    // Only that session ended.
    assert_eq!(app.me(&other_session).await.status(), 200);
    let reason: String = sqlx::query_scalar("select end_reason from sessions where ended_at is not null").fetch_one(&app.db).await.unwrap();
    assert_eq!(reason, "logout");
}

#[tokio::test]
async fn remember_me_gives_a_longer_session() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;
    for remember in [false, true] {
        let resp = app
            .http
            .post(app.url("/api/v1/auth/login"))
            .json(&json!({ "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "rememberMe": remember }))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
    }
    let hours: Vec<f64> = sqlx::query_scalar("select extract(epoch from expires_at - created_at)::float8 / 3600 from sessions order by remember_me")
        .fetch_all(&app.db)
        .await
        .unwrap();
    assert!((hours[0] - 12.0).abs() < 0.1, "{hours:?}");
    assert!((hours[1] - 720.0).abs() < 0.1, "{hours:?}");
}

#[tokio::test]
async fn repeated_failures_are_rate_limited_per_account_and_client() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_account_and_ip = 3;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    app.admin().await;
    let attacker = Some("203.0.113.7");

    for _ in 0..3 {
        assert_eq!(app.login_from(ADMIN_EMAIL, "wrong-password", attacker).await.status(), 401);
    }
    let resp = app.login_from(ADMIN_EMAIL, ADMIN_PASSWORD, attacker).await;
    let retry_after: u64 = resp.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    let (status, body) = parts(resp).await;
    assert_eq!((status, body["code"].as_str()), (429, Some("rate_limited")));
    assert!((1..=900).contains(&retry_after), "{retry_after}");

    // The account's owner, elsewhere, is not locked out.
    assert_eq!(app.login_from(ADMIN_EMAIL, ADMIN_PASSWORD, Some("198.51.100.2")).await.status(), 200);
}

#[tokio::test]
async fn one_client_spraying_many_accounts_is_rate_limited() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_ip = 4;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    app.admin().await;
    for i in 0..4 {
        let email = format!("user{i}@example.com");
        assert_eq!(app.login_from(&email, "wrong-password", Some("203.0.113.8")).await.status(), 401);
    }
    assert_eq!(app.login_from("user9@example.com", "wrong-password", Some("203.0.113.8")).await.status(), 429);
    assert_eq!(app.login_from(ADMIN_EMAIL, ADMIN_PASSWORD, Some("203.0.113.9")).await.status(), 200);
}

#[tokio::test]
async fn sessions_are_still_checked_when_redis_is_down() {
    let (db, _dropped) = test_database().await;
    // Nothing listens on port 1: every Redis call fails fast.
    let app = TestApp::spawn_with(db, |c| c.redis_url = "redis://127.0.0.1:1".into()).await;
    app.admin().await;

    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(app.me(&token).await.status(), 200);
    assert_eq!(app.logout(&token).await.status(), 204);
    let (status, body) = parts(app.me(&token).await).await;
    assert_eq!((status, body["code"].as_str()), (401, Some("session_expired")));
}

/// The session check is served from Redis, then from the instance's memory (the hot path makes no
/// round trip), and ending a session still wins over whatever either holds.
#[tokio::test]
async fn session_checks_are_served_from_the_redis_cache_and_an_end_wins_over_it() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    app.listening().await;
    assert_eq!(app.me(&token).await.status(), 200);
    let sid: uuid::Uuid = sqlx::query_scalar("select id from sessions").fetch_one(&app.db).await.unwrap();
    let cache = backend::cache::Cache::new(&app.config.redis_url, &app.config.redis_prefix).unwrap();
    let cached = || async {
        let mut conn = cache.conn().await.unwrap();
        deadpool_redis::redis::cmd("GET").arg(cache.key(&["session", &sid.to_string()])).query_async::<Option<String>>(&mut *conn).await.unwrap()
    };
    assert_eq!(cached().await.as_deref(), Some("1"));

    // Ended behind the server's back (PostgreSQL only): the cached answer is what requests see.
    sqlx::query("update sessions set ended_at = now(), end_reason = 'revoked' where id = $1").bind(sid).execute(&app.db).await.unwrap();
    assert_eq!(app.me(&token).await.status(), 200, "served from the cache, not PostgreSQL");
    // And once known live, from memory: Redis is not asked (an "ended" put there behind the
    // server's back is not seen; only an end the instances hear of counts).
    let mut conn = cache.conn().await.unwrap();
    deadpool_redis::redis::cmd("SET").arg(cache.key(&["session", &sid.to_string()])).arg("0").query_async::<()>(&mut *conn).await.unwrap();
    assert_eq!(app.me(&token).await.status(), 200, "served from memory, not Redis");
    deadpool_redis::redis::cmd("SET")
        .arg(cache.key(&["session", &sid.to_string()]))
        .arg("1")
        .arg("EX")
        .arg(60)
        .query_async::<()>(&mut *conn)
        .await
        .unwrap();

    // Ended through the server: refused at once, whatever was cached.
    assert_eq!(app.logout(&token).await.status(), 204);
    assert_eq!(cached().await.as_deref(), Some("0"));
    assert_eq!(app.me(&token).await.status(), 401);

    // A check that read "live" before the end and caches it late cannot undo the end.
    let hub = backend::realtime::Hub::new(cache.clone(), &app.config.redis_url, &app.config.jwt_secret);
    let guard = backend::auth::sessions::SessionGuard::new(app.db.clone(), cache.clone(), app.config.idle_timeouts, hub);
    guard.started(sid, chrono::Utc::now() + chrono::Duration::hours(1), false).await;
    assert_eq!(cached().await.as_deref(), Some("0"));
    assert!(!guard.is_live(sid).await.unwrap());
}

#[tokio::test]
async fn the_client_address_comes_from_the_socket_unless_a_trusted_proxy_forwards_it() {
    let (db, _dropped) = test_database().await;
    let direct = TestApp::spawn(db.clone()).await;
    direct.admin().await;
    assert_eq!(direct.login_from(ADMIN_EMAIL, ADMIN_PASSWORD, Some("81.2.69.142")).await.status(), 200);
    let proxied = TestApp::spawn_with(db, |c| c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    assert_eq!(proxied.login_from(ADMIN_EMAIL, ADMIN_PASSWORD, Some("81.2.69.142")).await.status(), 200);

    type Row = (String, Option<String>, Option<String>, Option<f64>);
    let rows: Vec<Row> =
        sqlx::query_as("select host(ip_address), city, country, latitude from sessions order by created_at").fetch_all(&direct.db).await.unwrap();
    assert_eq!(rows[0], ("127.0.0.1".into(), None, None, None), "a spoofed header is ignored");
    assert_eq!(rows[1], ("81.2.69.142".into(), Some("London".into()), Some("GB".into()), Some(51.5142)));
}

async fn login_with_device(app: &TestApp, password: &str, forwarded_for: &str, device: Option<&str>) -> reqwest::Response {
    app.http
        .post(app.url("/api/v1/auth/login"))
        .header("x-forwarded-for", forwarded_for)
        .json(&json!({ "email": ADMIN_EMAIL, "password": password, "deviceToken": device }))
        .send()
        .await
        .unwrap()
}

/// OWASP's device cookies: guesses at one account from many addresses hit an account-wide
/// limit, and the owner's browser, which signed in before, is not locked out by it.
#[tokio::test]
async fn one_account_guessed_from_many_addresses_is_stopped_but_its_owners_browser_is_not() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_account = 6;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    app.admin().await;
    // The owner signs in once from their browser and keeps its device token.
    let resp = login_with_device(&app, ADMIN_PASSWORD, "198.51.100.2", None).await;
    let device = resp.json::<serde_json::Value>().await.unwrap()["deviceToken"].as_str().unwrap().to_owned();

    // An attacker spreads guesses over many addresses: each address stays under its own limit.
    for i in 0..6 {
        assert_eq!(login_with_device(&app, "wrong-password", &format!("203.0.113.{i}"), None).await.status(), 401);
    }
    let resp = login_with_device(&app, ADMIN_PASSWORD, "203.0.113.99", None).await;
    assert_eq!(resp.status(), 429, "the account-wide limit stops even a right guess from a new address");
    // A forged or foreign device token does not help the attacker.
    assert_eq!(login_with_device(&app, ADMIN_PASSWORD, "203.0.113.98", Some("not-a-token")).await.status(), 429);

    // The owner's browser, with its device token, still signs in.
    let resp = login_with_device(&app, ADMIN_PASSWORD, "198.51.100.2", Some(&device)).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.json::<serde_json::Value>().await.unwrap()["deviceToken"].is_string());
}

/// Attempts that carry a device token are limited on their own: a stolen device token is no
/// way around the limit.
#[tokio::test]
async fn a_device_has_a_limit_of_its_own() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_device = 3;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    app.admin().await;
    let resp = login_with_device(&app, ADMIN_PASSWORD, "198.51.100.2", None).await;
    let device = resp.json::<serde_json::Value>().await.unwrap()["deviceToken"].as_str().unwrap().to_owned();
    for i in 0..3 {
        assert_eq!(login_with_device(&app, "wrong-password", &format!("203.0.113.{i}"), Some(&device)).await.status(), 401);
    }
    assert_eq!(login_with_device(&app, ADMIN_PASSWORD, "203.0.113.9", Some(&device)).await.status(), 429);
}

/// A new password voids the device tokens issued before it: a browser that knew the old password
/// no longer gets the known-browser budget, while one that signs in with the new password does.
#[tokio::test]
async fn a_password_change_voids_earlier_device_tokens() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.login_limits.per_account = 3;
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    })
    .await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let login = |password: &str, ip: &str, device: Option<&str>| {
        app.http
            .post(app.url("/api/v1/auth/login"))
            .header("x-forwarded-for", ip)
            .json(&json!({ "email": "ceo@acme.example", "password": password, "deviceToken": device }))
            .send()
    };
    let device_of =
        |resp: reqwest::Response| async move { resp.json::<serde_json::Value>().await.unwrap()["deviceToken"].as_str().unwrap().to_owned() };
    let old_device = device_of(login("ceo-password", "198.51.100.2", None).await.unwrap()).await;
    // A second passes so the new password is set after the old token's issue time (in seconds).
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, body) = app.put(&admin, &format!("/api/v1/users/{}", me["id"].as_str().unwrap()), json!({ "password": "new-ceo-password" })).await;
    assert_eq!(status, 200, "{body}");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let new_device = device_of(login("new-ceo-password", "198.51.100.3", None).await.unwrap()).await;

    // Guesses from many addresses use up the account-wide budget.
    for i in 0..3 {
        assert_eq!(login("wrong-password", &format!("203.0.113.{i}"), None).await.unwrap().status(), 401);
    }
    assert_eq!(login("new-ceo-password", "203.0.113.99", None).await.unwrap().status(), 429);
    assert_eq!(login("new-ceo-password", "198.51.100.2", Some(&old_device)).await.unwrap().status(), 429, "issued before the new password");
    assert_eq!(login("new-ceo-password", "198.51.100.3", Some(&new_device)).await.unwrap().status(), 200);
}

/// Without Redis each instance still limits sign-in attempts by itself.
#[tokio::test]
async fn without_redis_sign_in_attempts_are_limited_by_the_instance() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.redis_url = "redis://127.0.0.1:1".into();
        c.login_limits.per_account_and_ip = 3;
    })
    .await;
    app.admin().await;
    for _ in 0..3 {
        assert_eq!(app.login(ADMIN_EMAIL, "wrong-password").await.status(), 401);
    }
    let resp = app.login(ADMIN_EMAIL, "wrong-password").await;
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().contains_key("retry-after"));
}

/// A request with a session the server ended is told why (`reason`, as the session's `endReason`
/// and the socket's `session.ended` say), so that a tab that learns of the end from a request
/// before its socket hears it says the same: the person's own sign-out, the CEO ending it, a
/// deactivation. A bearer that is no session of this server's is told no reason.
#[tokio::test]
async fn a_request_with_a_session_the_server_ended_is_told_why() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let author = app.staff(&ceo, &acme, "author@acme.example", "DepartmentUser", None).await;
    let refusal = |(status, body): (u16, serde_json::Value)| (status, body["code"].as_str().unwrap_or("").to_owned(), body["reason"].clone());

    let token = app.token("author@acme.example", "staff-password").await;
    assert_eq!(app.logout(&token).await.status(), 204);
    assert_eq!(refusal(parts(app.me(&token).await).await), (401, "session_expired".into(), json!("logout")));

    let token = app.token("author@acme.example", "staff-password").await;
    let (_, sessions) = app.get(&ceo, "/api/v1/monitoring/sessions?active=true&q=author%40acme.example").await;
    let id = sessions["items"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post(&ceo, &format!("/api/v1/monitoring/sessions/{id}/logout"), json!({})).await.0, 204);
    assert_eq!(refusal(app.get(&token, "/api/v1/users").await), (401, "session_expired".into(), json!("revoked")));

    let token = app.token("author@acme.example", "staff-password").await;
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{author}"), json!({ "status": "inactive" })).await.0, 200);
    assert_eq!(refusal(parts(app.me(&token).await).await), (401, "session_expired".into(), json!("user_deactivated")));

    // Not a session of this server's at all: no reason to give.
    let (status, body) = parts(app.me("not-a-token").await).await;
    assert_eq!((status, body.get("reason")), (401, None));
}
