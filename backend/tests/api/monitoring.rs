//! Live sessions: the monitors' lists, heartbeats, anomaly flags, ending sessions, and the
//! real-time socket, on one instance and across two.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{Message, protocol::frame::coding::CloseCode};

use crate::database::test_database;
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp, slow_redis};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

pub(crate) type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn sign_in_from(app: &TestApp, email: &str, password: &str, ip: &str) -> String {
    let resp = app
        .http
        .post(app.url("/api/v1/auth/login"))
        .header("x-forwarded-for", ip)
        .header("user-agent", CHROME)
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_owned()
}

fn trusting_loopback(c: &mut backend::config::Config) {
    c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
}

/// A socket past its first message: `ready`.
pub(crate) async fn socket(app: &TestApp, token: &str) -> Socket {
    let (mut ws, _) = tokio_tungstenite::connect_async(app.base.replace("http", "ws") + "/api/v1/ws").await.unwrap();
    ws.send(Message::text(json!({ "type": "auth", "token": token }).to_string())).await.unwrap();
    assert_eq!(next_json(&mut ws).await, json!({ "type": "ready" }));
    ws
}

/// The next JSON message. Monitors hear of sessions once a second (`Hub::flush_monitors`); 15 s
/// leaves room for a machine busy with the other suites (5 s ran out once beside the browser
/// tests).
pub(crate) async fn next_json(ws: &mut Socket) -> Value {
    loop {
        match tokio::time::timeout(Duration::from_secs(15), ws.next()).await.expect("a message within 15 s").expect("open").unwrap() {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Close(frame) => panic!("closed: {frame:?}"),
            _ => {}
        }
    }
}

/// Reads until `n` sign-ins of `user` were announced, each on its own or counted in a summary
/// (`monitoring.sessions_changed`'s `started`, which may count others' too).
async fn announced_starts(ws: &mut Socket, user: &str, n: u64) {
    let mut seen = 0;
    while seen < n {
        let event = next_json(ws).await;
        if event["type"] == "monitoring.session_started" && event["userId"] == user {
            seen += 1;
        } else if event["type"] == "monitoring.sessions_changed" {
            seen += event["started"].as_u64().unwrap_or(0);
        }
    }
}

/// The next `monitoring.session_started` of `user`, past other events.
async fn started_by(ws: &mut Socket, user: &str) -> Value {
    loop {
        let event = next_of_type(ws, "monitoring.session_started").await;
        if event["userId"] == user {
            return event;
        }
    }
}

/// The next event of this type, past others (activity updates arrive at any time).
pub(crate) async fn next_of_type(ws: &mut Socket, kind: &str) -> Value {
    loop {
        let event = next_json(ws).await;
        if event["type"] == kind {
            return event;
        }
    }
}

/// Reads until the server closes the socket; returns the close code and how long it took.
async fn closed_with(ws: &mut Socket) -> (u16, Duration, Vec<Value>) {
    let start = Instant::now();
    let mut events = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(5), ws.next()).await.expect("closed within 5 s") {
            Some(Ok(Message::Close(Some(frame)))) => return (u16::from(frame.code), start.elapsed(), events),
            Some(Ok(Message::Text(text))) => events.push(serde_json::from_str(&text).unwrap()),
            Some(Ok(_)) => {}
            other => panic!("closed without a code: {other:?}"),
        }
    }
}

#[tokio::test]
async fn monitors_see_where_and_on_what_sessions_run_and_the_anomalies() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, trusting_loopback).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, other_ceo) = app.enterprise(&admin, "Globex").await;
    app.staff(&ceo, &acme, "ann@acme.example", "DepartmentUser", None).await;
    // Ann's first sign-in ever, in London; then Linköping (Sweden) moments later: a new country,
    // faster than a plane; then Linköping again: nothing new.
    sign_in_from(&app, "ann@acme.example", "staff-password", "81.2.69.142").await;
    sign_in_from(&app, "ann@acme.example", "staff-password", "89.160.20.112").await;
    sign_in_from(&app, "ann@acme.example", "staff-password", "89.160.20.128").await;

    let (status, page) = app.get(&ceo, "/api/v1/monitoring/sessions?q=ann").await;
    assert_eq!(status, 200, "{page}");
    let sessions = page["items"].as_array().unwrap();
    assert_eq!(page["total"], 3, "{page}");
    let (again, sweden, london) = (&sessions[0], &sessions[1], &sessions[2]);
    assert_eq!((sweden["city"].as_str(), sweden["country"].as_str()), (Some("Linköping"), Some("SE")));
    assert_eq!(sweden["flags"], json!(["new_country", "impossible_travel"]));
    assert_eq!(again["flags"], json!([]));
    assert_eq!(
        (sweden["browser"].as_str(), sweden["os"].as_str(), sweden["deviceType"].as_str()),
        (Some("Chrome 120.0.0.0"), Some("Windows 10"), Some("desktop"))
    );
    assert_eq!(sweden["ipAddress"], "89.160.20.112");
    assert_eq!((london["city"].as_str(), london["latitude"].as_f64()), (Some("London"), Some(51.5142)));
    assert_eq!(london["flags"], json!([]), "no flag on a first sign-in");
    assert!(sessions.iter().all(|s| s["user"]["email"] == "ann@acme.example" && s["current"] == false));
    let (_, own) = app.get(&ceo, "/api/v1/monitoring/sessions").await;
    assert_eq!(own["total"], 4, "Ann's three and the CEO's own: {own}");
    assert_eq!(own["items"].as_array().unwrap().iter().filter(|s| s["current"] == true).count(), 1);

    let (_, flagged) = app.get(&ceo, "/api/v1/monitoring/sessions?flagged=true").await;
    assert_eq!(flagged["total"], 1);
    let (_, activity) = app.get(&ceo, "/api/v1/monitoring/user-activity").await;
    assert_eq!(activity["total"], 2, "{activity}");
    let ann = activity["items"].as_array().unwrap().iter().find(|a| a["user"]["email"] == "ann@acme.example").unwrap();
    assert_eq!((ann["sessionCount"].as_i64(), ann["activeSessions"].as_i64()), (Some(3), Some(3)));
    let mut places: Vec<String> = ann["places"].as_array().unwrap().iter().map(|p| p["country"].as_str().unwrap().to_owned()).collect();
    places.sort();
    assert_eq!(places, ["GB", "SE"]);

    // The admin sees every enterprise's; another CEO only theirs.
    let (_, all) = app.get(&admin, "/api/v1/monitoring/sessions").await;
    assert_eq!(all["total"], 6, "the admin's, both CEOs' and Ann's three: {all}");
    let (_, theirs) = app.get(&other_ceo, "/api/v1/monitoring/sessions").await;
    assert_eq!(theirs["total"], 1);
    let acme_session = sweden["id"].as_str().unwrap();
    assert_eq!(app.post(&other_ceo, &format!("/api/v1/monitoring/sessions/{acme_session}/logout"), json!({})).await.0, 404);
}

/// A place of the map as the test compares it: city, country, total, active, flagged, has a point.
type PlaceRow = (Option<String>, Option<String>, i64, i64, i64, bool);

#[tokio::test]
async fn the_map_counts_every_session_in_scope_per_place_and_a_place_opens_to_its_sessions() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, trusting_loopback).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, other_ceo) = app.enterprise(&admin, "Globex").await;
    app.staff(&ceo, &acme, "ann@acme.example", "DepartmentUser", None).await;
    app.staff(&ceo, &acme, "bob@acme.example", "DepartmentUser", None).await;
    // London twice, Boxford (England, 100 km away) once, Linköping once (a new country, too fast:
    // flagged); the CEO's own session has no known place (a loopback address).
    sign_in_from(&app, "ann@acme.example", "staff-password", "81.2.69.142").await;
    sign_in_from(&app, "bob@acme.example", "staff-password", "81.2.69.160").await;
    sign_in_from(&app, "bob@acme.example", "staff-password", "2.125.160.216").await;
    sign_in_from(&app, "ann@acme.example", "staff-password", "89.160.20.112").await;

    let (status, places) = app.get(&ceo, "/api/v1/monitoring/places").await;
    assert_eq!(status, 200, "{places}");
    let summary = |places: &Value| -> Vec<PlaceRow> {
        let mut rows: Vec<_> = places
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["city"].as_str().map(str::to_owned),
                    p["country"].as_str().map(str::to_owned),
                    p["total"].as_i64().unwrap(),
                    p["active"].as_i64().unwrap(),
                    p["flagged"].as_i64().unwrap(),
                    p["latitude"].is_f64() && p["longitude"].is_f64(),
                )
            })
            .collect();
        rows.sort();
        rows
    };
    let s = |v: &str| Some(v.to_owned());
    assert_eq!(
        summary(&places),
        vec![
            (None, None, 1, 1, 0, false),
            (s("Boxford"), s("GB"), 1, 1, 0, true),
            (s("Linköping"), s("SE"), 1, 1, 1, true),
            (s("London"), s("GB"), 2, 2, 0, true),
        ],
        "{places}"
    );
    // The map and the list agree: every session of the scope is on the map once.
    let (_, list) = app.get(&ceo, "/api/v1/monitoring/sessions").await;
    assert_eq!(list["total"], 5);
    // Zoomed out, London and Boxford share a cell of the grid: one marker, no single city.
    let (_, world) = app.get(&ceo, "/api/v1/monitoring/places?zoom=0").await;
    assert_eq!(
        summary(&world),
        vec![(None, None, 1, 1, 0, false), (None, s("GB"), 3, 3, 0, true), (s("Linköping"), s("SE"), 1, 1, 1, true)],
        "{world}"
    );
    let england = world.as_array().unwrap().iter().find(|p| p["country"] == "GB").unwrap();
    let latitude = england["latitude"].as_f64().unwrap();
    assert!((51.5..51.7).contains(&latitude), "the cell's marker sits at its sessions' mean: {england}");
    // Filters narrow the map as they narrow the list.
    let (_, flagged) = app.get(&ceo, "/api/v1/monitoring/places?flagged=true").await;
    assert_eq!(summary(&flagged), vec![(s("Linköping"), s("SE"), 1, 1, 1, true)]);
    let (_, bob) = app.get(&ceo, "/api/v1/monitoring/places?q=bob").await;
    assert_eq!(summary(&bob).iter().map(|p| p.2).sum::<i64>(), 2, "{bob}");

    // A place opens to its sessions; the unknown place is the one without a city.
    let (_, london) = app.get(&ceo, "/api/v1/monitoring/sessions?city=London&country=gb").await;
    assert_eq!(london["total"], 2, "{london}");
    assert!(london["items"].as_array().unwrap().iter().all(|s| s["city"] == "London"));
    let (_, nowhere) = app.get(&ceo, "/api/v1/monitoring/sessions?city=").await;
    assert_eq!((nowhere["total"].clone(), nowhere["items"][0]["user"]["email"].clone()), (json!(1), json!("ceo@acme.example")), "{nowhere}");

    // Another CEO sees their own map only; the admin everyone's.
    let (_, theirs) = app.get(&other_ceo, "/api/v1/monitoring/places").await;
    assert_eq!(summary(&theirs), vec![(None, None, 1, 1, 0, false)]);
    assert_eq!(app.get(&other_ceo, &format!("/api/v1/monitoring/places?enterpriseId={acme}")).await.0, 404);
    let (_, all) = app.get(&admin, "/api/v1/monitoring/places").await;
    assert_eq!(summary(&all).iter().map(|p| p.2).sum::<i64>(), 7, "every session: {all}");
    let (_, one) = app.get(&admin, &format!("/api/v1/monitoring/places?enterpriseId={acme}")).await;
    assert_eq!(summary(&one), summary(&places));
    assert_eq!(app.get(&ceo, "/api/v1/monitoring/places?zoom=19").await.0, 400);
    assert_eq!(app.get(&ceo, "/api/v1/monitoring/sessions?country=GBR").await.0, 400);
}

#[tokio::test]
async fn a_monitor_hears_of_a_mass_end_as_one_summary_and_of_a_single_sign_in_as_itself() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let (_, globex_ceo) = app.enterprise(&admin, "Globex").await;
    let ann_id = app.staff(&ceo, &acme, "ann@acme.example", "DepartmentUser", None).await;
    let mut monitor = socket(&app, &admin).await;
    let mut acme_monitor = socket(&app, &ceo).await;
    let mut globex_monitor = socket(&app, &globex_ceo).await;
    let mut ann = Vec::new();
    for _ in 0..25 {
        ann.push(app.token("ann@acme.example", "staff-password").await);
    }
    // Ann's sign-ins are announced (one by one, or summed up past 20 in a second) before Bob's:
    // Bob's must not share a second with a crowd of them, or it is summed up too.
    announced_starts(&mut monitor, &ann_id, 25).await;
    announced_starts(&mut acme_monitor, &ann_id, 25).await;
    // One sign-in: its own event, as before.
    let bob = app.staff(&ceo, &acme, "bob@acme.example", "DepartmentUser", None).await;
    app.token("bob@acme.example", "staff-password").await;
    let started = started_by(&mut monitor, &bob).await;
    assert_eq!(started["enterpriseId"], acme.as_str());
    assert_eq!(started_by(&mut acme_monitor, &bob).await["enterpriseId"], acme.as_str());

    // Ann's 24 other sessions end at once.
    let kept = backend::auth::token::TokenKeys::new(&app.config.jwt_secret).verify(&ann[0]).unwrap().sid;
    let (status, body) = app.post(&ceo, &format!("/api/v1/monitoring/sessions/{kept}/logout-others"), json!({})).await;
    assert_eq!(status, 204, "{body}");
    // The same second may also count sessions seen again (the CEO's own request is one), so
    // `updated` is not pinned; the 24 ends and no start are.
    let summary = next_of_type(&mut monitor, "monitoring.sessions_changed").await;
    assert_eq!((&summary["enterpriseId"], &summary["started"], &summary["ended"]), (&json!(null), &json!(0), &json!(24)), "{summary}");
    let acme_summary = next_of_type(&mut acme_monitor, "monitoring.sessions_changed").await;
    assert_eq!(
        (&acme_summary["enterpriseId"], &acme_summary["started"], &acme_summary["ended"]),
        (&json!(acme), &json!(0), &json!(24)),
        "{acme_summary}"
    );
    // Another enterprise's CEO hears nothing of it (their own session's activity, perhaps).
    let quiet_until = Instant::now() + Duration::from_millis(2500);
    while let Ok(Some(Ok(Message::Text(text)))) = tokio::time::timeout_at(quiet_until.into(), globex_monitor.next()).await {
        let event: Value = serde_json::from_str(&text).unwrap();
        assert!(event["enterpriseId"] != acme.as_str() && event["type"] != "monitoring.sessions_changed", "Globex's CEO heard {event}");
    }
    // Nothing per session follows for the admin: up to a new sign-in, no `monitoring.session_ended`.
    app.token("bob@acme.example", "staff-password").await;
    loop {
        let event = next_json(&mut monitor).await;
        assert_ne!(event["type"], "monitoring.session_ended", "{event}");
        if event["type"] == "monitoring.session_started" {
            break;
        }
    }
}

#[tokio::test]
async fn a_heartbeat_moves_last_seen_and_a_monitor_ends_a_session_everywhere() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Acme").await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // The session is read with the other token: a request with this one would itself be a use
    // of it, moving `lastSeenAt` (once a minute) perhaps before the answer is read, and the
    // heartbeat below would then not be due.
    let sid = backend::auth::token::TokenKeys::new(&app.config.jwt_secret).verify(&token).unwrap().sid.to_string();
    let (_, page) = app.get(&admin, "/api/v1/monitoring/sessions?pageSize=100").await;
    let mine = page["items"].as_array().unwrap().iter().find(|s| s["id"] == sid.as_str()).unwrap_or_else(|| panic!("{page}")).clone();
    let started: chrono::DateTime<chrono::Utc> = mine["lastSeenAt"].as_str().unwrap().parse().unwrap();

    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(app.post(&token, "/api/v1/monitoring/sessions/activity", json!({})).await.0, 204);
    // The flush runs every 200 ms here; 15 s leaves room for a machine busy with other suites
    // (5 s ran out once in a full `make test` with the frontend's checks beside it).
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (_, page) = app.get(&admin, &format!("/api/v1/monitoring/sessions?userId={}", mine["user"]["id"].as_str().unwrap())).await;
        let seen: chrono::DateTime<chrono::Utc> =
            page["items"].as_array().unwrap().iter().find(|s| s["id"] == mine["id"]).unwrap()["lastSeenAt"].as_str().unwrap().parse().unwrap();
        if seen > started {
            break;
        }
        assert!(Instant::now() < deadline, "lastSeenAt never moved");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // The admin ends that session: its token is dead and its socket closes with 4401.
    let mut ws = socket(&app, &token).await;
    let id = mine["id"].as_str().unwrap();
    assert_eq!(app.post(&admin, &format!("/api/v1/monitoring/sessions/{id}/logout"), json!({})).await.0, 204);
    let (code, took, events) = closed_with(&mut ws).await;
    assert_eq!(code, 4401);
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(events.iter().any(|e| e["type"] == "session.ended" && e["sessionId"] == id), "{events:?}");
    assert_eq!(app.me(&token).await.status(), 401);
    assert_eq!(app.post(&token, "/api/v1/monitoring/sessions/activity", json!({})).await.0, 401);
    let _ = ceo;
}

#[tokio::test]
async fn the_socket_wants_a_live_token_first_and_never_in_the_url() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    app.admin().await;
    let url = app.base.replace("http", "ws") + "/api/v1/ws";
    for first in [json!({ "type": "auth", "token": "not-a-token" }).to_string(), "hello".to_owned()] {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        ws.send(Message::text(first)).await.unwrap();
        let (code, _, events) = closed_with(&mut ws).await;
        assert_eq!((code, events), (4401, vec![]), "a token that names no session is told nothing");
    }
    // A tab that was away when its session ended (asleep, reloading) is told why on connecting,
    // then closed: the sign-in page then says what happened, not only that the token is dead.
    let dead = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let sid = backend::auth::token::TokenKeys::new(&app.config.jwt_secret).verify(&dead).unwrap().sid.to_string();
    app.logout(&dead).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    ws.send(Message::text(json!({ "type": "auth", "token": dead }).to_string())).await.unwrap();
    let (code, _, events) = closed_with(&mut ws).await;
    assert_eq!((code, events), (4401, vec![json!({ "type": "session.ended", "sessionId": sid, "reason": "logout" })]));
    // Silence: closed after the 5 s the client has to authenticate.
    let (mut silent, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let start = Instant::now();
    let frame = tokio::time::timeout(Duration::from_secs(7), silent.next()).await.unwrap();
    assert!(matches!(frame, Some(Ok(Message::Close(Some(ref f)))) if f.code == CloseCode::from(4401)), "{frame:?}");
    assert!(start.elapsed() >= Duration::from_secs(4));
}

/// Two instances sharing PostgreSQL and Redis: a session ended through one is refused by the
/// other and its socket there closes within a second; events reach sockets on the other
/// instance, but never another tenant's.
#[tokio::test]
async fn events_cross_instances_but_never_tenants() {
    let (db, _dropped) = test_database().await;
    let one = TestApp::spawn(db.clone()).await;
    let two = TestApp::spawn_like(&one, db).await;
    let admin = one.admin_token().await;
    let (acme, acme_ceo) = one.enterprise(&admin, "Acme").await;
    let (_, globex_ceo) = one.enterprise(&admin, "Globex").await;
    let finance = one.department(&acme_ceo, &acme, "finance").await;
    one.staff(&acme_ceo, &acme, "author@acme.example", "DepartmentUser", Some(&finance)).await;

    let mut acme_monitor = socket(&two, &acme_ceo).await;
    let mut globex_monitor = socket(&two, &globex_ceo).await;
    let author = one.token("author@acme.example", "staff-password").await;
    let started = next_of_type(&mut acme_monitor, "monitoring.session_started").await;
    assert_eq!((started["type"].as_str(), started["enterpriseId"].as_str()), (Some("monitoring.session_started"), Some(acme.as_str())));

    // A report reviewed through instance one reaches its author's socket on instance two.
    let mut author_socket = socket(&two, &author).await;
    let (_, report) = one
        .post(
            &author,
            &format!("/api/v1/departments/{finance}/reports"),
            json!({
                "title": "Q1", "content": "", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "submitted"
            }),
        )
        .await;
    let report_id = report["id"].as_str().unwrap();
    assert_eq!(one.post(&acme_ceo, &format!("/api/v1/reports/{report_id}/review"), json!({ "status": "approved" })).await.0, 200);
    let changed = next_of_type(&mut author_socket, "report.status_changed").await;
    assert_eq!(
        (changed["type"].as_str(), changed["reportId"].as_str(), changed["status"].as_str(), changed["title"].as_str()),
        (Some("report.status_changed"), Some(report_id), Some("approved"), Some("Q1"))
    );
    let (_, reviewer) = one.get(&acme_ceo, "/api/v1/auth/me").await;
    assert_eq!(changed["actorId"], reviewer["id"], "who moved it: their own tab need not be told");

    // Signed out through instance one: dead on two, and its socket on two closes within a second
    // of the sign-out's answer (a slow sign-out on a loaded machine is not the socket's delay).
    assert_eq!(one.logout(&author).await.status(), 204);
    let (code, took, _) = closed_with(&mut author_socket).await;
    assert_eq!(code, 4401);
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(two.me(&author).await.status(), 401);

    // Globex's CEO heard nothing of Acme's sessions or reports (only of Globex's own).
    while let Ok(Some(Ok(Message::Text(text)))) = tokio::time::timeout(Duration::from_millis(500), globex_monitor.next()).await {
        let event: Value = serde_json::from_str(&text).unwrap();
        assert!(event["type"].as_str().unwrap().starts_with("monitoring.") && event["enterpriseId"] != acme.as_str(), "{event}");
    }
    let mut heard_the_logout = false;
    while let Ok(Some(Ok(Message::Text(text)))) = tokio::time::timeout(Duration::from_millis(500), acme_monitor.next()).await {
        let event: Value = serde_json::from_str(&text).unwrap();
        heard_the_logout |= event["type"] == "monitoring.session_ended" && event["reason"] == "logout";
    }
    assert!(heard_the_logout, "Acme's CEO sees the author's session end");
}

/// Each instance answers a known-live session from memory, and a session ended through one
/// instance is refused by the other from the very answer that ended it (a sign-out, a
/// deactivation): the ending instance answers once every instance has heard (or, one too slow to
/// say so, cannot trust what it knows any more: `realtime::live`'s unit tests). The other instance
/// hears Redis 400 ms late (a loaded or distant one), so an answer that did not wait for it would
/// show.
#[tokio::test]
async fn a_session_ended_through_one_instance_is_refused_at_once_by_another_that_knew_it_live() {
    let (db, _dropped) = test_database().await;
    let one = TestApp::spawn(db.clone()).await;
    let late = slow_redis(&one.config.redis_url, Duration::from_millis(400)).await;
    let two = TestApp::spawn_like_with(&one, db, |config| config.redis_url = late).await;
    let admin = one.admin_token().await;
    let (acme, acme_ceo) = one.enterprise(&admin, "Acme").await;
    let finance = one.department(&acme_ceo, &acme, "finance").await;
    let author = one.staff(&acme_ceo, &acme, "author@acme.example", "DepartmentUser", Some(&finance)).await;
    one.listening().await;
    two.listening().await;
    for round in 0..3 {
        let token = one.token("author@acme.example", "staff-password").await;
        for _ in 0..3 {
            assert_eq!((two.me(&token).await.status().as_u16(), one.me(&token).await.status().as_u16()), (200, 200), "round {round}");
        }
        assert!(!two.realtime.live().is_empty(), "round {round}: the late instance answers the session from memory");
        assert_eq!(one.logout(&token).await.status(), 204);
        assert_eq!((two.me(&token).await.status().as_u16(), one.me(&token).await.status().as_u16()), (401, 401), "round {round}");
    }
    let token = one.token("author@acme.example", "staff-password").await;
    assert_eq!(two.me(&token).await.status(), 200);
    assert_eq!(two.me(&token).await.status(), 200);
    assert_eq!(one.put(&acme_ceo, &format!("/api/v1/users/{author}"), json!({ "status": "inactive" })).await.0, 200);
    assert_eq!(two.me(&token).await.status(), 401, "deactivated");
}

/// Whoever can reach Redis but lacks the deployment's secret cannot speak for the instances: a
/// forged message on the events channel (a `session.ended` to every monitor would close their
/// sockets) is ignored, while what the instances publish still arrives.
#[tokio::test]
async fn forged_messages_on_the_events_channel_are_ignored() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let mut monitor = socket(&app, &admin).await;
    let forged = json!([{
        "audience": { "Monitors": { "enterprise": null } },
        "event": { "type": "session.ended", "sessionId": uuid::Uuid::new_v4(), "reason": "forged" },
    }])
    .to_string();
    use deadpool_redis::redis;
    let redis = redis::Client::open(app.config.redis_url.as_str()).unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let channel = format!("{}realtime", app.config.redis_prefix);
    for payload in [forged.clone(), format!("{}.{}.{forged}", "0".repeat(64), chrono::Utc::now().timestamp())] {
        let receivers: i64 = redis::cmd("PUBLISH").arg(&channel).arg(payload).query_async(&mut conn).await.unwrap();
        assert!(receivers >= 1, "the instance listens on {channel}");
    }
    // The instances' own events still arrive: a CEO signs in, the monitor hears of it.
    let (_, _ceo) = app.enterprise(&admin, "Acme").await;
    let started = next_of_type(&mut monitor, "monitoring.session_started").await;
    assert_eq!(started["type"], "monitoring.session_started", "the socket is open and served: {started}");
}

/// Expired sessions are ended by the sweep, which closes their sockets.
#[tokio::test]
async fn the_sweep_ends_expired_sessions_and_closes_their_sockets() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.session_ttl = Duration::from_secs(2)).await;
    app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let mut ws = socket(&app, &token).await;
    let (code, _, _) = closed_with(&mut ws).await;
    assert_eq!(code, 4401);
    let reason: Option<String> = sqlx::query_scalar("select end_reason from sessions").fetch_one(&app.db).await.unwrap();
    assert_eq!(reason.as_deref(), Some("expired"));
}

/// An open socket re-checks its session, but that is not a use of it: a tab left open with
/// nothing done in it lets the session end at its idle timeout (and the socket is closed).
#[tokio::test]
async fn an_open_socket_alone_does_not_keep_an_idle_session_alive() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| {
        c.idle_timeouts.session = Duration::from_secs(3);
        c.intervals.socket_recheck = Duration::from_millis(300);
    })
    .await;
    app.admin().await;
    let token = app.token(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let mut ws = socket(&app, &token).await;
    let start = Instant::now();
    let code = loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("the idle session's socket is closed within 10 s") {
            Some(Ok(Message::Close(Some(frame)))) => break u16::from(frame.code),
            Some(Ok(_)) => {}
            other => panic!("closed without a code: {other:?}"),
        }
    };
    assert_eq!(code, 4401, "closed as ended after {:?}", start.elapsed());
    let reason: Option<String> = sqlx::query_scalar("select end_reason from sessions").fetch_one(&app.db).await.unwrap();
    assert_eq!(reason.as_deref(), Some("idle"));
    assert_eq!(app.me(&token).await.status(), 401);
}

/// Bad input to the monitoring calls is a 400 naming what is wrong, never a 500.
#[tokio::test]
async fn bad_input_to_the_monitoring_calls_is_400() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    for path in [
        "/api/v1/monitoring/sessions?pageSize=0",
        "/api/v1/monitoring/sessions?pageSize=101",
        "/api/v1/monitoring/sessions?userId=not-a-uuid",
        "/api/v1/monitoring/sessions?from=2026-13-01",
        "/api/v1/monitoring/sessions?active=maybe",
        "/api/v1/monitoring/sessions?q=%00",
        "/api/v1/monitoring/user-activity?page=0",
        "/api/v1/monitoring/user-activity?enterpriseId=42",
        "/api/v1/auth/sessions?pageSize=1000",
    ] {
        let (status, body) = app.get(&admin, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["code"] == "bad_request" || body["code"] == "validation_failed", "{path}: {body}");
    }
    let long = "x".repeat(201);
    assert_eq!(app.get(&admin, &format!("/api/v1/monitoring/sessions?q={long}")).await.0, 400);
    for path in ["/api/v1/monitoring/sessions/42/logout", "/api/v1/monitoring/sessions/x/logout-others", "/api/v1/auth/sessions/nope/logout"] {
        assert_eq!(app.post(&admin, path, json!({})).await.0, 400, "{path}");
    }
    let unknown = uuid::Uuid::now_v7();
    assert_eq!(app.post(&admin, &format!("/api/v1/monitoring/sessions/{unknown}/logout"), json!({})).await.0, 404);
    assert_eq!(app.post(&admin, &format!("/api/v1/auth/sessions/{unknown}/logout"), json!({})).await.0, 404);
}

#[tokio::test]
async fn the_demo_seed_tells_a_story_once_sessions_on_the_map_reports_and_spreadsheets() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    backend::seed::seed_demo(&db, &app.config.data_keys).await.unwrap();
    backend::seed::seed_demo(&db, &app.config.data_keys).await.unwrap();
    let (count,): (i64,) = sqlx::query_as("select count(*) from public.sessions").fetch_one(&db).await.unwrap();
    assert_eq!(count, 2 * 5 + 1 + 2 * 4 + 1, "a second run adds nothing: {count}");
    let (never,): (i64,) =
        sqlx::query_as("select count(*) from public.users where enterprise_id is not null and last_login_at is null and password_hash is not null")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(never, 0, "every demo person on the map has signed in before");
    // Nobody signed in before their account existed, nor an account before its enterprise
    // (issue 45, point 17: the seeded sessions were older than the accounts that made them).
    for (what, query) in [
        (
            "a session before its account",
            "select count(*) from public.sessions s join public.users u on u.id = s.user_id where s.created_at < u.created_at",
        ),
        ("a sign-in before its account", "select count(*) from public.users where last_login_at < created_at"),
        (
            "an account before its enterprise",
            "select count(*) from public.users u join public.enterprises e on e.id = u.enterprise_id where u.created_at < e.created_at",
        ),
        (
            "an audit entry before its actor",
            "select count(*) from public.audit_events a join public.users u on u.id = a.actor_id where a.at < u.created_at",
        ),
    ] {
        let (early,): (i64,) = sqlx::query_as(query).fetch_one(&db).await.unwrap();
        assert_eq!(early, 0, "{what}");
    }

    let ceo = app.token("ceo@acme.example", backend::seed::DEMO_PASSWORD).await;
    let (status, page) = app.get(&ceo, "/api/v1/monitoring/sessions?active=true&pageSize=100").await;
    assert_eq!(status, 200, "{page}");
    let live: Vec<&Value> = page["items"].as_array().unwrap().iter().filter(|s| !s["current"].as_bool().unwrap()).collect();
    assert_eq!(live.len(), 5, "everyone of Acme is signed in somewhere: {page}");
    assert!(live.iter().all(|s| s["latitude"].is_f64() && s["city"].is_string() && s["browser"].is_string()), "{page}");
    let maxmind = ["81.2.69.", "2.125.160.", "89.160.20.", "216.160.83.", "214.78.0.", "175.16.199."];
    assert!(
        live.iter().all(|s| maxmind.iter().any(|p| s["ipAddress"].as_str().unwrap_or_default().starts_with(p))),
        "test-database addresses: {page}"
    );
    assert!(live.iter().any(|s| s["flags"] == json!(["new_country", "impossible_travel"])), "one flagged session to show");
    let (_, flagged) = app.get(&ceo, "/api/v1/monitoring/sessions?flagged=true").await;
    assert_eq!(flagged["total"], 1, "{flagged}");

    // Six months of reports in every status, with data and review notes, and spreadsheets.
    let (_, ent) = app.get(&ceo, "/api/v1/auth/me").await;
    let ent = ent["enterpriseId"].as_str().unwrap().to_owned();
    let (_, reports) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/reports?pageSize=100")).await;
    let items = reports["items"].as_array().unwrap();
    let statuses: std::collections::BTreeSet<&str> = items.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses.into_iter().collect::<Vec<_>>(), ["approved", "rejected", "reviewed", "submitted"], "drafts are the authors' own");
    assert!(items.iter().all(|r| r["data"]["rows"].as_array().is_some_and(|rows| rows.len() == 4)), "every report has a data table");
    assert_eq!(reports["total"], 3 * 7, "three departments with staff at Acme, seven visible reports each");
    let bruno = app.token("bruno@acme.example", backend::seed::DEMO_PASSWORD).await;
    let (_, me) = app.get(&bruno, "/api/v1/auth/me").await;
    let finance = me["departmentId"].as_str().unwrap();
    let (_, own) = app.get(&bruno, &format!("/api/v1/departments/{finance}/reports?pageSize=100")).await;
    let titles: Vec<&str> = own["items"].as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap()).collect();
    let distinct: std::collections::BTreeSet<&&str> = titles.iter().collect();
    assert_eq!((titles.len(), distinct.len()), (8, 8), "no two demo reports share a title: {titles:?}");
    let (_, sheets) = app.get(&bruno, &format!("/api/v1/departments/{finance}/spreadsheets")).await;
    assert_eq!(sheets["total"], 1, "{sheets}");
    let sheet = sheets["items"][0]["id"].as_str().unwrap();
    let (status, totals) = app.get(&bruno, &format!("/api/v1/spreadsheets/{sheet}/range?range=A1:D15")).await;
    assert_eq!((status, totals["rows"].as_array().map(Vec::len)), (200, Some(14)), "{totals}");
    assert!(totals["rows"][12][1].as_f64().is_some_and(|sum| sum > 12_000.0), "totals computed: {totals}");

    // The audit log tells the reports' story as it happened (months ago), with where from, and
    // the CEO's integrations include a webhook to show.
    let (_, approvals) = app.get(&ceo, "/api/v1/audit-events?action=report.approved&pageSize=100").await;
    let approvals = approvals["items"].as_array().unwrap();
    assert_eq!(approvals.len(), 3 * 4, "four approved reports per department with staff: {approvals:?}");
    let month_ago = (chrono::Utc::now() - chrono::Duration::days(30)).to_rfc3339();
    assert!(approvals.iter().all(|e| e["actor"]["name"] == "Alice Martin" && e["place"] == "London, GB"), "{approvals:?}");
    assert!(approvals.iter().any(|e| e["at"].as_str().unwrap() < month_ago.as_str()), "{approvals:?}");
    let (_, hooks) = app.get(&ceo, "/api/v1/webhooks").await;
    assert_eq!(hooks["total"], 1, "{hooks}");
    // Someone invited who has not accepted yet, whose invitation waits in the outbox for the mail
    // catcher of `make run`.
    let (_, invited) = app.get(&ceo, "/api/v1/users?q=lea@acme.example").await;
    assert_eq!(
        (invited["items"][0]["invitation"]["status"].as_str(), invited["items"][0]["locale"].as_str()),
        (Some("pending"), Some("fr")),
        "{invited}"
    );
    let (mails,): (i64,) =
        sqlx::query_as("select count(*) from public.outbox where kind = 'email' and event_type = 'invitation'").fetch_one(&db).await.unwrap();
    assert_eq!(mails, 1, "one invitation, made once");
    // Four weeks of usage to chart, and limits to show against.
    let acme = app.get(&ceo, "/api/v1/auth/me").await.1["enterpriseId"].as_str().unwrap().to_owned();
    let (_, usage) = app.get(&ceo, &format!("/api/v1/enterprises/{acme}/usage")).await;
    let busy = usage["daily"].as_array().unwrap().iter().filter(|d| d["apiCalls"].as_i64().unwrap() > 50).count();
    assert!(busy >= 27, "nearly every day of the last 30 had calls: {usage}");
    assert_eq!(usage["limits"], json!({ "people": 25, "storageBytes": 500_000_000, "apiCallsPerMinute": 600 }), "{usage}");
}

#[tokio::test]
async fn a_graceful_stop_closes_sockets_as_going_away_and_writes_the_last_heartbeats() {
    let (db, _dropped) = test_database().await;
    // A flush interval that never comes: only the stop can write the heartbeat.
    let mut config = crate::helpers::test_config();
    config.intervals.heartbeat_flush = Duration::from_secs(3600);
    backend::db::prepare(&db).await.unwrap();
    let app = TestApp::spawn_with(db.clone(), |c| *c = config.clone()).await;
    app.admin().await;
    let state = backend::state::AppState::with_pool(config, db.clone()).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (addr, server) = backend::app::listen_until(state, async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    let server = tokio::spawn(server);
    let base = format!("http://{addr}");
    let token = sign_in_at(&base, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    sqlx::query("update public.sessions set last_seen_at = now() - interval '10 minutes'").execute(&db).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::connect_async(base.replace("http", "ws") + "/api/v1/ws").await.unwrap();
    ws.send(Message::text(json!({ "type": "auth", "token": token }).to_string())).await.unwrap();
    assert_eq!(next_json(&mut ws).await, json!({ "type": "ready" }));
    let beat = reqwest::Client::new().post(format!("{base}/api/v1/monitoring/sessions/activity")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(beat.status(), 204);

    stop.send(()).unwrap();
    let (code, _, _) = closed_with(&mut ws).await;
    assert_eq!(code, 1001, "going away: reconnect elsewhere");
    tokio::time::timeout(Duration::from_secs(15), server).await.expect("stops within its grace").unwrap().unwrap();
    let (recent,): (bool,) =
        sqlx::query_as("select bool_and(last_seen_at > now() - interval '1 minute') from public.sessions").fetch_one(&db).await.unwrap();
    assert!(recent, "the buffered heartbeat was written at the stop");
}

async fn sign_in_at(base: &str, email: &str, password: &str) -> String {
    let resp =
        reqwest::Client::new().post(format!("{base}/api/v1/auth/login")).json(&json!({ "email": email, "password": password })).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_owned()
}

/// Ann's line of the activity table, with or without a period.
async fn ann_activity(app: &TestApp, ceo: &str, period: &str) -> Value {
    let (status, page) = app.get(ceo, &format!("/api/v1/monitoring/user-activity?q=ann{period}")).await;
    assert_eq!(status, 200, "{page}");
    page["items"].as_array().unwrap().iter().find(|a| a["user"]["email"] == "ann@acme.example").cloned().unwrap_or_else(|| panic!("{page}"))
}

/// Ann's line of activity once `done` holds of it (read again every 100 ms, for at most 15 s).
async fn until(app: &TestApp, ceo: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let ann = ann_activity(app, ceo, "").await;
        if done(&ann) {
            return ann;
        }
        assert!(Instant::now() < deadline, "{what}: never, {ann}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn activity_per_user_follows_sessions_as_they_start_move_and_end_and_agrees_with_the_sessions_themselves() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, trusting_loopback).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    app.staff(&ceo, &acme, "ann@acme.example", "DepartmentUser", None).await;
    let london = sign_in_from(&app, "ann@acme.example", "staff-password", "81.2.69.142").await;
    sign_in_from(&app, "ann@acme.example", "staff-password", "89.160.20.112").await;
    let third = sign_in_from(&app, "ann@acme.example", "staff-password", "89.160.20.128").await;
    let ann = ann_activity(&app, &ceo, "").await;
    assert_eq!((ann["sessionCount"].as_i64(), ann["activeSessions"].as_i64()), (Some(3), Some(3)), "{ann}");
    let places: Vec<&str> = ann["places"].as_array().unwrap().iter().map(|p| p["city"].as_str().unwrap()).collect();
    assert_eq!(places, ["Linköping", "London"], "the busiest place first: {ann}");

    // A heartbeat two seconds in moves the last activity and the time active.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(app.post(&london, "/api/v1/monitoring/sessions/activity", json!({})).await.0, 204);
    // Heartbeats are flushed every 200 ms here.
    until(&app, &ceo, "the heartbeat counted", |ann| ann["activeSeconds"].as_i64().unwrap() >= 2).await;

    // One signs out, one expires (moved past its end from outside; the sweep ends it).
    assert_eq!(app.logout(&third).await.status(), 204);
    sqlx::query("update sessions set expires_at = now() - interval '1 second' where id = (select id from sessions where city = 'London')")
        .execute(&app.db)
        .await
        .unwrap();
    // The sweep (every 500 ms here) ends the expired one.
    let ann = until(&app, &ceo, "one session left active", |ann| ann["activeSessions"].as_i64() == Some(1)).await;
    assert_eq!(ann["sessionCount"].as_i64(), Some(3), "{ann}");

    // The same line computed from the sessions of a period that holds them all.
    let scanned = ann_activity(&app, &ceo, "&from=2000-01-01").await;
    for field in ["sessionCount", "activeSessions", "places", "user"] {
        assert_eq!(ann[field], scanned[field], "{field}: {ann} / {scanned}");
    }
    let seconds = |a: &Value| a["activeSeconds"].as_i64().unwrap();
    assert!((seconds(&ann) - seconds(&scanned)).abs() <= 1, "{ann} / {scanned}");
    let at = |a: &Value| chrono::DateTime::parse_from_rfc3339(a["lastSeenAt"].as_str().unwrap()).unwrap();
    assert!((at(&ann) - at(&scanned)).num_milliseconds().abs() < 1000, "{ann} / {scanned}");
    // Searching by a city of theirs finds them too.
    let (_, by_city) = app.get(&ceo, "/api/v1/monitoring/user-activity?q=linköping").await;
    assert_eq!(by_city["total"], 1, "{by_city}");
}

#[tokio::test]
async fn a_person_hears_when_one_of_their_own_sessions_starts_or_ends_and_no_one_else_does() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Acme").await;
    let ann_id = app.staff(&ceo, &acme, "ann@acme.example", "DepartmentUser", None).await;
    app.staff(&ceo, &acme, "bob@acme.example", "DepartmentUser", None).await;
    let laptop = app.token("ann@acme.example", "staff-password").await;
    let bob = app.token("bob@acme.example", "staff-password").await;
    let mut ann_socket = socket(&app, &laptop).await;
    let mut bob_socket = socket(&app, &bob).await;
    // Ann signs in on her phone: her laptop's tab hears it.
    let phone = app.token("ann@acme.example", "staff-password").await;
    assert_eq!(next_of_type(&mut ann_socket, "own_sessions.changed").await, json!({ "type": "own_sessions.changed", "userId": ann_id }));
    // She signs the phone out: again.
    assert_eq!(app.logout(&phone).await.status(), 204);
    assert_eq!(next_of_type(&mut ann_socket, "own_sessions.changed").await["userId"], ann_id.as_str());
    // Bob hears nothing of Ann's sessions.
    let quiet_until = Instant::now() + Duration::from_millis(1500);
    while let Ok(Some(Ok(Message::Text(text)))) = tokio::time::timeout_at(quiet_until.into(), bob_socket.next()).await {
        let event: Value = serde_json::from_str(&text).unwrap();
        assert_ne!(event["type"], "own_sessions.changed", "Bob heard {event}");
    }
}
