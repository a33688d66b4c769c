//! The third security review's findings (issue 41: the identity and integration layer), each
//! proved fixed through the API: a test here fails on the code the review probed.

use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, outbox_drained, parts};

/// A domain of its own for each test: the catcher is shared by every test running at once.
fn domain() -> String {
    crate::helpers::mail_domain("h")
}

async fn ask_reset(app: &TestApp, email: &str) {
    let resp = app.http.post(app.url("/api/v1/auth/password-reset")).json(&json!({ "email": email })).send().await.unwrap();
    assert_eq!(resp.status(), 202);
}

/// Finding 1: a name with a line break was taken everywhere a name enters, and then stopped the
/// only e-mail sender for every tenant. Every entry point now refuses it with one field code.
#[tokio::test]
async fn a_line_break_in_a_name_or_title_is_refused_wherever_it_enters() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (enterprise, ceo) = app.enterprise(&admin, &format!("Names {d}")).await;
    let user = app.staff(&ceo, &enterprise, &format!("mallory@{d}"), "DepartmentUser", None).await;
    let mallory = app.token(&format!("mallory@{d}"), "staff-password").await;

    let (status, body) = app.put(&mallory, "/api/v1/auth/me", json!({ "fullName": "Mallory\r\nX" })).await;
    assert_eq!((status, body["fields"]["fullName"].as_str()), (400, Some("invalid_character")), "{body}");
    let (status, body) = app.put(&ceo, &format!("/api/v1/users/{user}"), json!({ "fullName": "Mallory\nBcc: all@example.test" })).await;
    assert_eq!((status, body["fields"]["fullName"].as_str()), (400, Some("invalid_character")), "{body}");
    let (status, body) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "Eve\u{2028}Smith", "email": format!("eve@{d}"), "password": "staff-password", "role": "DepartmentUser" }),
        )
        .await;
    assert_eq!((status, body["fields"]["fullName"].as_str()), (400, Some("invalid_character")), "{body}");
    let (status, body) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({ "name": "Tab\tCo", "ceoFullName": "Carol\rX", "ceoEmail": format!("carol@{d}"), "ceoPassword": "ceo-password" }),
        )
        .await;
    assert_eq!(
        (status, body["fields"]["name"].as_str(), body["fields"]["ceoFullName"].as_str()),
        (400, Some("invalid_character"), Some("invalid_character")),
        "{body}"
    );
    // Descriptions keep their paragraphs, but no other control character.
    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{enterprise}"), json!({ "description": "One.\n\nTwo." })).await;
    assert_eq!((status, body["description"].as_str()), (200, Some("One.\n\nTwo.")), "{body}");
    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{enterprise}"), json!({ "description": "bell\u{7}" })).await;
    assert_eq!((status, body["fields"]["description"].as_str()), (400, Some("invalid_character")), "{body}");

    // SCIM's displayName, through an enterprise's service credential.
    let (status, made) =
        app.post(&ceo, &format!("/api/v1/enterprises/{enterprise}/service-tokens"), json!({ "name": "Okta", "scopes": ["scim:write"] })).await;
    assert_eq!(status, 201, "{made}");
    let scim = made["token"].as_str().unwrap();
    let resp = app
        .http
        .request(Method::POST, app.url("/api/v1/scim/v2/Users"))
        .bearer_auth(scim)
        .header("content-type", "application/scim+json")
        .body(
            json!({ "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": format!("scim@{d}"), "displayName": "Scim\r\nUser" })
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    let (status, body) = parts(resp).await;
    assert_eq!((status, body["scimType"].as_str()), (400, Some("invalidValue")), "{body}");

    // Nothing was stored.
    let (_, me) = app.get(&mallory, "/api/v1/auth/me").await;
    assert_eq!(me["fullName"], "Staff Member");
}

/// Finding 1, the sender: a name stored before the rule (or by any path that slips past it) no
/// longer stops e-mail. The person still gets theirs (to the bare address), and another
/// tenant's reset queued after it is delivered.
#[tokio::test]
async fn a_stored_name_with_a_line_break_stops_no_one_s_email() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = domain();
    let (enterprise, ceo) = app.enterprise(&admin, &format!("Mallory {d}")).await;
    let mallory = format!("mallory@{d}");
    app.staff(&ceo, &enterprise, &mallory, "DepartmentUser", None).await;
    sqlx::query("update users set full_name = $1 where email = $2").bind("Mallory\r\nX").bind(&mallory).execute(&db).await.unwrap();
    ask_reset(&app, &mallory).await;
    let (_, other) = app.enterprise(&admin, &format!("Other {d}")).await;
    let (_, me) = app.get(&other, "/api/v1/auth/me").await;
    let other_ceo = me["email"].as_str().unwrap().to_owned();
    ask_reset(&app, &other_ceo).await;

    let theirs = mail.wait_for(&other_ceo, 1).await;
    assert!(theirs[0]["subject"].as_str().unwrap().starts_with("Reset your Enterprise Platform password"), "{}", theirs[0]);
    let mine = mail.wait_for(&mallory, 1).await;
    let raw = &mail.source(&mine[0]).await;
    let to = raw.lines().find(|l| l.to_ascii_lowercase().starts_with("to:")).unwrap();
    assert_eq!(to.trim(), format!("To: {mallory}"), "the header holds the address alone: {raw}");
    assert!(!raw.lines().any(|l| l == "X"), "no header line was injected: {raw}");
    outbox_drained(&db).await;
}

/// Finding 2: the request limit counted per hash of whatever bearer was sent, so a made-up bearer
/// on each call bought a fresh budget (and a fresh Redis counter). A bearer that does not verify
/// now counts against the caller's address, as no bearer does.
#[tokio::test]
async fn a_made_up_bearer_buys_no_budget_of_its_own() {
    let (db, _dropped) = test_database().await;
    // A window of a day: the calls below never straddle two.
    let limits = backend::config::ApiLimits { requests: 5, window: std::time::Duration::from_secs(86_400) };
    let app = TestApp::spawn_with(db, |c| c.api_limits = limits).await;
    let mut statuses = Vec::new();
    for n in 0..8 {
        let resp = app
            .http
            .post(app.url("/api/v1/auth/sso/discover"))
            .bearer_auth(format!("junk{n}"))
            .json(&json!({ "email": "someone@example.test" }))
            .send()
            .await
            .unwrap();
        statuses.push(resp.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
    // A program's made-up token the same.
    let resp = app.http.post(app.url("/api/v1/auth/webauthn/login/options")).bearer_auth("ept_madeup").json(&json!({})).send().await.unwrap();
    assert_eq!(resp.status(), 429);
}

/// Weakness: a NUL in a multipart text part that carries a file name (which the edge's NUL check
/// leaves to the operation, as a file may hold any byte) reached PostgreSQL and answered 500. The
/// name passes the same text rule as every other name.
#[tokio::test]
async fn a_nul_in_a_named_multipart_part_is_refused_not_stored() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (enterprise, ceo) = app.enterprise(&admin, &format!("Nul {d}")).await;
    let department = app.department(&ceo, &enterprise, "finance").await;
    app.staff(&ceo, &enterprise, &format!("fay@{d}"), "DepartmentUser", Some(&department)).await;
    let fay = app.token(&format!("fay@{d}"), "staff-password").await;
    let file = crate::spreadsheets::xlsx(&[(1, 1, "42")]);
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(file).file_name("figures.xlsx"))
        .part("name", reqwest::multipart::Part::text("Q1\0figures").file_name("name.txt"));
    let resp = app
        .http
        .post(app.url(&format!("/api/v1/departments/{department}/spreadsheets/import")))
        .bearer_auth(&fay)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (status, body) = parts(resp).await;
    assert_eq!((status, body["fields"]["name"].as_str()), (400, Some("invalid_character")), "{body}");
}

/// Finding 7: the replay store kept a new token's secret in clear for 24 hours, replayed to a
/// bearer whose session had ended, and ignored the query string.
#[tokio::test]
async fn an_idempotency_key_replays_no_secret_to_no_stale_caller_for_no_other_query() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (a, ceo) = app.enterprise(&admin, &format!("Keys A {d}")).await;
    let (b, _) = app.enterprise(&admin, &format!("Keys B {d}")).await;
    let post = |token: &str, path: &str, key: &str, body: serde_json::Value| {
        let req = app.http.post(app.url(path)).bearer_auth(token).header("idempotency-key", key).json(&body);
        async move { parts(req.send().await.unwrap()).await }
    };

    // A new token's answer is not kept: its repeat is refused, and no second token is made.
    let token_body = json!({ "name": "CI", "scopes": ["reports:read"] });
    let (status, made) = post(&ceo, "/api/v1/api-tokens", "token-1", token_body.clone()).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["token"].as_str().unwrap().to_owned();
    let (status, again) = post(&ceo, "/api/v1/api-tokens", "token-1", token_body).await;
    assert_eq!((status, again["reason"].as_str()), (409, Some("answer_withheld")), "{again}");
    assert!(!again.to_string().contains(&secret));
    let (_, tokens) = app.get(&ceo, "/api/v1/api-tokens").await;
    assert_eq!(tokens["items"].as_array().or(tokens.as_array()).map(Vec::len), Some(1), "{tokens}");
    // Nothing in Redis holds the secret.
    let cache = backend::cache::Cache::new(&app.config.redis_url, &app.config.redis_prefix).unwrap();
    let mut redis = cache.conn().await.unwrap();
    let keys: Vec<String> = deadpool_redis::redis::cmd("KEYS").arg(format!("{}*", app.config.redis_prefix)).query_async(&mut *redis).await.unwrap();
    assert!(!keys.is_empty());
    for key in keys {
        let value: Option<String> = deadpool_redis::redis::cmd("GET").arg(&key).query_async(&mut *redis).await.unwrap_or(None);
        assert!(!value.unwrap_or_default().contains(&secret), "{key} holds the token's secret");
    }

    // The same key on another query is another request: refused, never the first answer.
    let hook = json!({ "url": "http://127.0.0.1:9/hook", "events": ["user.created"] });
    let (status, first) = post(&admin, &format!("/api/v1/webhooks?enterpriseId={a}"), "hook-1", hook.clone()).await;
    assert_eq!(status, 201, "{first}");
    let (status, other) = post(&admin, &format!("/api/v1/webhooks?enterpriseId={b}"), "hook-1", hook).await;
    assert_eq!((status, other["code"].as_str()), (422, Some("idempotency_key_reused")), "{other}");

    // A kept answer is replayed only to a credential that still verifies.
    let person =
        json!({ "fullName": "Kept Answer", "email": format!("kept@{d}"), "password": "staff-password", "role": "DepartmentUser", "enterpriseId": a });
    let (status, _) = post(&ceo, "/api/v1/users", "user-1", person.clone()).await;
    assert_eq!(status, 201);
    let (status, _) = post(&ceo, "/api/v1/users", "user-1", person.clone()).await;
    assert_eq!(status, 201, "replayed while the session lives");
    assert_eq!(app.logout(&ceo).await.status(), 204);
    let (status, refused) = post(&ceo, "/api/v1/users", "user-1", person).await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("session_expired")), "{refused}");
}

/// Weakness: a sign-in challenge worked more than once within its five minutes (a used challenge
/// plus the next code opened a second session), and from any client. It now opens one session,
/// for the client that started it.
#[tokio::test]
async fn a_sign_in_challenge_opens_one_session_for_the_client_that_started_it() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (_, ceo) = app.enterprise(&admin, &format!("Challenge {d}")).await;
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let email = me["email"].as_str().unwrap().to_owned();
    let (secret, recovery_codes) = crate::mfa::enrol(&app, &ceo).await;
    let verify = |challenge: String, code: String, agent: &'static str| {
        let req =
            app.http.post(app.url("/api/v1/auth/login/verify")).header("user-agent", agent).json(&json!({ "challenge": challenge, "code": code }));
        async move { parts(req.send().await.unwrap()).await }
    };
    let login = || {
        let req = app
            .http
            .post(app.url("/api/v1/auth/login"))
            .header("user-agent", "Browser A")
            .json(&json!({ "email": email, "password": "ceo-password" }));
        async move { parts(req.send().await.unwrap()).await.1["challenge"].as_str().unwrap().to_owned() }
    };

    let challenge = login().await;
    let (status, refused) = verify(challenge.clone(), crate::mfa::code_at(&secret, 30), "Browser B").await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("challenge_expired")), "another client: {refused}");
    let (status, signed_in) = verify(challenge.clone(), crate::mfa::code_at(&secret, 30), "Browser A").await;
    assert_eq!(status, 200, "{signed_in}");
    // A proof that is good on its own (a recovery code) does not make the spent challenge good.
    let (status, again) = verify(challenge, recovery_codes[0].clone(), "Browser A").await;
    assert_eq!((status, again["code"].as_str()), (401, Some("challenge_expired")), "a spent challenge: {again}");
}

/// Finding 6: a reset link's secret sat in the outbox in clear until it was sent (forever
/// without a mail server), and a database reader reset a CEO's password with it. Nothing in the
/// database now opens an account: not the outbox row, not the link's row.
#[tokio::test]
async fn a_copy_of_the_database_opens_no_account() {
    let (db, _dropped) = test_database().await;
    // No mail server: the messages wait in the outbox, as they did in the probe.
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (enterprise, ceo) = app.enterprise(&admin, &format!("Copy {d}")).await;
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    ask_reset(&app, me["email"].as_str().unwrap()).await;
    let (status, _) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "Ivy Invited", "email": format!("ivy@{d}"), "role": "DepartmentUser", "enterpriseId": enterprise }),
        )
        .await;
    assert_eq!(status, 201);
    // The reset is queued after the answer: wait for its row.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let rows: Vec<serde_json::Value> = loop {
        let rows: Vec<serde_json::Value> =
            sqlx::query_scalar("select payload from outbox where kind = 'email' and event_type in ('password_reset', 'invitation')")
                .fetch_all(&db)
                .await
                .unwrap();
        if rows.len() == 2 || std::time::Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(rows.len(), 2, "{rows:?}");
    // Every text the database holds about the links, tried as a link's secret.
    let mut candidates: Vec<String> =
        rows.iter().flat_map(|p| p.as_object().unwrap().values().filter_map(|v| v.as_str().map(str::to_owned)).collect::<Vec<_>>()).collect();
    let hashes: Vec<Vec<u8>> = sqlx::query_scalar("select token_hash from account_tokens").fetch_all(&db).await.unwrap();
    assert_eq!(hashes.len(), 2);
    candidates.extend(hashes.iter().map(|h| base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, h)));
    assert!(!candidates.is_empty());
    for candidate in candidates {
        let (status, _) =
            app.post("", "/api/v1/auth/password-reset/confirm", json!({ "token": candidate, "password": "taken-over-by-a-reader" })).await;
        assert_eq!(status, 400, "{candidate} reset a password");
        let (status, _) = app.post("", "/api/v1/auth/invitations/accept", json!({ "token": candidate, "password": "taken-over-by-a-reader" })).await;
        assert_eq!(status, 400, "{candidate} accepted an invitation");
    }
}

/// A receiver that takes each delivery and answers none until `release` is set (then 204); it
/// counts the deliveries that reached it.
async fn hanging_receiver() -> (String, std::sync::Arc<std::sync::atomic::AtomicBool>, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use poem::{EndpointExt, Route, handler, http::StatusCode, listener::TcpListener, web::Data};
    use std::sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    };
    #[handler]
    async fn hook(release: Data<&Arc<AtomicBool>>, reached: Data<&Arc<AtomicUsize>>) -> StatusCode {
        reached.fetch_add(1, Ordering::SeqCst);
        while !release.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        StatusCode::NO_CONTENT
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let (release, reached) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let app = Route::new().at("/hook", poem::post(hook)).data(release.clone()).data(reached.clone());
    tokio::spawn(poem::Server::new(TcpListener::bind(format!("127.0.0.1:{port}"))).run(app));
    (format!("http://127.0.0.1:{port}/hook"), release, reached)
}

/// Finding 4: one tenant's receiver that hangs delayed every tenant's webhooks (the dispatcher
/// waited for its whole batch, slowest call included), and test events were unlimited. A webhook
/// now has at most two deliveries in flight, each delivery ends on its own, and test events are
/// limited to ten a minute per webhook.
#[tokio::test]
async fn a_receiver_that_hangs_holds_up_no_other_tenant_s_webhook() {
    use std::sync::atomic::Ordering;
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.events.dispatch = true).await;
    let admin = app.admin_token().await;
    let d = domain();
    let (_, slow_ceo) = app.enterprise(&admin, &format!("Slow {d}")).await;
    let (_, fast_ceo) = app.enterprise(&admin, &format!("Fast {d}")).await;
    let (hang_url, release, reached) = hanging_receiver().await;
    let (ok_url, seen) = crate::events::receiver(0).await;
    let (status, slow) = app.post(&slow_ceo, "/api/v1/webhooks", json!({ "url": hang_url, "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{slow}");
    let (status, fast) = app.post(&fast_ceo, "/api/v1/webhooks", json!({ "url": ok_url, "events": ["user.created"] })).await;
    assert_eq!(status, 201, "{fast}");

    // Ten test events to the receiver that hangs (the eleventh in a minute is refused).
    let slow_test = format!("/api/v1/webhooks/{}/test", slow["id"].as_str().unwrap());
    for _ in 0..10 {
        assert_eq!(app.post(&slow_ceo, &slow_test, json!({})).await.0, 202);
    }
    let resp = app.http.post(app.url(&slow_test)).bearer_auth(&slow_ceo).send().await.unwrap();
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().get("retry-after").is_some());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while reached.load(Ordering::SeqCst) < 2 {
        assert!(std::time::Instant::now() < deadline, "the dispatcher never reached the receiver that hangs");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // While it hangs, another tenant's event is delivered (long before the hung calls' 10 s deadline).
    let (status, _) = app.post(&fast_ceo, &format!("/api/v1/webhooks/{}/test", fast["id"].as_str().unwrap()), json!({})).await;
    assert_eq!(status, 202);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(8);
    while seen.lock().unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "another tenant's delivery waited for the receiver that hangs");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!release.load(Ordering::SeqCst));
    assert_eq!(reached.load(Ordering::SeqCst), 2, "two deliveries in flight to the webhook that hangs, no more");
    release.store(true, Ordering::SeqCst);
}

/// Finding 8: the application's own role could rewrite the audit log (it owned the table: it
/// granted itself DELETE after setting `audit.retention`, or turned the triggers off). Run as a
/// role that does not own the database, as `MIGRATION_DATABASE_URL` deploys it, every way around
/// is refused; retention still works, through the owner's function, and keeps 30 days; and the
/// server does its work as that role.
#[tokio::test]
async fn the_server_s_role_cannot_rewrite_the_audit_log() {
    use sqlx::{Executor, postgres::PgConnectOptions};
    let (owner, _dropped) = test_database().await;
    // What the owner does after migrating (on Citus, the shared tables become Citus tables: only
    // their owner may).
    backend::db::prepare(&owner).await.unwrap();
    // A login role of its own (cluster-wide, so made once and kept), granted as `backend migrate`
    // grants the server's role.
    // A statement of its own, not inside a DO block: on Citus, that is how the role reaches the
    // workers too.
    let exists: bool = sqlx::query_scalar("select exists (select from pg_roles where rolname = 'emp_test_server')").fetch_one(&owner).await.unwrap();
    if !exists {
        owner.execute("create role emp_test_server login nosuperuser nocreatedb nocreaterole password 'emp_test_server'").await.unwrap();
    }
    backend::db::grant_server_role(&owner, "emp_test_server").await.unwrap();
    let options: PgConnectOptions = (*owner.connect_options()).clone().username("emp_test_server").password("emp_test_server");
    let server = sqlx::postgres::PgPoolOptions::new().max_connections(2).connect_with(options).await.expect("connect as the server's role");

    let entry = |days: i32| {
        format!(
            "insert into audit_events (id, at, actor_type, action) values (gen_random_uuid(), now() - make_interval(days => {days}), 'system', 'aged.{days}')"
        )
    };
    for days in [400, 40, 10] {
        owner.execute(sqlx::AssertSqlSafe(entry(days))).await.unwrap();
    }
    // It reads and appends.
    server.execute(sqlx::AssertSqlSafe(entry(1))).await.expect("the server appends to the log");
    let count = |pool: &sqlx::PgPool| {
        let pool = pool.clone();
        async move { sqlx::query_scalar::<_, i64>("select count(*) from audit_events where action like 'aged.%'").fetch_one(&pool).await.unwrap() }
    };
    assert_eq!(count(&server).await, 4);
    // Every way around, refused.
    for attack in [
        "update audit_events set action = 'nothing.happened'",
        "delete from audit_events",
        "truncate audit_events",
        "begin; select set_config('audit.retention', 'on', true); delete from audit_events; commit",
        "begin; grant delete on audit_events to current_user; delete from audit_events; commit",
        "alter table audit_events disable trigger user",
        "alter table audit_events owner to emp_test_server",
        "drop table audit_events",
        "create or replace function audit_events_insert_only() returns trigger language plpgsql as $$ begin return null; end $$",
        "create or replace function audit_retention(days integer) returns bigint language sql as $$ select 0::bigint $$",
    ] {
        let mut conn = server.acquire().await.unwrap();
        let refused = conn.execute(attack).await.expect_err(attack);
        let code = refused.as_database_error().and_then(|e| e.code()).map(|c| c.into_owned());
        assert!(matches!(code.as_deref(), Some("42501") | Some("42809")), "{attack}: {refused}");
        conn.execute("rollback").await.ok();
    }
    assert_eq!(count(&owner).await, 4, "nothing was changed");
    // Retention, asked for 0 days by the server's role: only what is past 30 days goes.
    let deleted: i64 = sqlx::query_scalar("select audit_retention(0)").fetch_one(&server).await.unwrap();
    assert_eq!(deleted, 2);
    let left: Vec<String> =
        sqlx::query_scalar("select action from audit_events where action like 'aged.%' order by at").fetch_all(&owner).await.unwrap();
    assert_eq!(left, ["aged.10", "aged.1"]);

    // The server, as that role: an enterprise (a tenant schema it creates and owns), a sign-in,
    // and the audit log they wrote.
    let app = TestApp::spawn(server.clone()).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, &format!("Roles {}", domain())).await;
    let (status, audit) = app.get(&ceo, "/api/v1/audit-events").await;
    assert_eq!(status, 200, "{audit}");
    assert!(audit["items"].as_array().is_some_and(|items| !items.is_empty()), "{audit}");
    server.close().await;
}

#[tokio::test]
async fn without_a_credential_a_key_answers_401_whatever_it_was_used_for_and_learns_nothing_of_other_operations() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let anonymous = |path: &str, key: &str, body: serde_json::Value| {
        let req = app.http.post(app.url(path)).header("idempotency-key", key).json(&body);
        async move {
            let resp = req.send().await.unwrap();
            (resp.status().as_u16(), resp.text().await.unwrap())
        }
    };
    let review = format!("/api/v1/reports/{}/review", Uuid::now_v7());
    // The same key on an operation that needs a credential, with two bodies: 401 both times (the
    // first refusal is not kept, so the second is not "another request with this key").
    for body in [json!({ "status": "approved" }), json!({ "status": "rejected", "reviewNotes": "x" })] {
        let (status, refused) = anonymous(&review, "same-key", body).await;
        assert_eq!(status, 401, "{refused}");
    }
    // The key used on a public operation by the same address says nothing of it elsewhere.
    let (status, _) = anonymous("/api/v1/auth/password-reset", "same-key", json!({ "email": "nobody@keys.example" })).await;
    assert_eq!(status, 202);
    let (status, refused) = anonymous(&review, "same-key", json!({ "status": "approved" })).await;
    assert_eq!(status, 401, "{refused}");
    // On the public operation itself, the key still replays its first answer.
    let (status, _) = anonymous("/api/v1/auth/password-reset", "same-key", json!({ "email": "other@keys.example" })).await;
    assert_eq!(status, 422, "the same key with another request on the same operation");
}
