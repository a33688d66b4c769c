//! Department spreadsheets: the engine's bytes saved with optimistic concurrency, the server's
//! own evaluation for XLSX, CSV and report data, imports that refuse hostile files, and who may
//! do what.

use std::time::{Duration, Instant};

use base64::{Engine, engine::general_purpose::STANDARD as B64};
use calamine::{Data, Reader, Xlsx};
use ironcalc::base::Model;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::database::test_database;
use crate::helpers::TestApp;

/// A workbook of the engine, as the browser would save it (values the server must recompute).
pub fn workbook(inputs: &[(i32, i32, &str)]) -> Vec<u8> {
    let mut model = Model::new_empty("Budget", "en", "UTC", "en").unwrap();
    for (row, column, input) in inputs {
        model.set_user_input(0, *row, *column, (*input).to_owned()).unwrap();
    }
    model.to_bytes()
}

/// An XLSX made by the server's engine from a workbook.
pub fn xlsx(inputs: &[(i32, i32, &str)]) -> Vec<u8> {
    backend::spreadsheet::to_xlsx(&workbook(inputs)).unwrap()
}

pub async fn import(app: &TestApp, token: &str, department: &str, file: Vec<u8>, name: Option<&str>) -> (u16, Value) {
    let mut form = reqwest::multipart::Form::new().part("file", reqwest::multipart::Part::bytes(file).file_name("figures.xlsx"));
    if let Some(name) = name {
        form = form.text("name", name.to_owned());
    }
    let resp = app
        .http
        .post(app.url(&format!("/api/v1/departments/{department}/spreadsheets/import")))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    crate::helpers::parts(resp).await
}

struct Office {
    app: TestApp,
    admin: String,
    ceo: String,
    finance: String,
    user: String,
    other_department_user: String,
    outsider: String,
}

/// The tests of what the engine computes or refuses by its size are not tests of its deadline
/// (those set their own): 60 s, past what a debug build needs on two busy cores, so a slow machine
/// never answers `too_complex` where a count or a formula is meant to (a crafted import did so in a
/// run beside other work).
async fn office(db: PgPool) -> Office {
    office_with(db, |c| c.spreadsheet_engine.deadline = Duration::from_secs(60)).await
}

async fn office_with(db: PgPool, tweak: impl FnOnce(&mut backend::config::Config)) -> Office {
    let app = TestApp::spawn_with(db, tweak).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let sales = app.department(&ceo, &ent, "sales_marketing").await;
    app.staff(&ceo, &ent, "user@acme.example", "DepartmentUser", Some(&finance)).await;
    app.staff(&ceo, &ent, "seller@acme.example", "DepartmentUser", Some(&sales)).await;
    let (other, other_ceo) = app.enterprise(&admin, "Globex").await;
    let other_finance = app.department(&other_ceo, &other, "finance").await;
    app.staff(&other_ceo, &other, "user@globex.example", "DepartmentUser", Some(&other_finance)).await;
    Office {
        user: app.token("user@acme.example", "staff-password").await,
        other_department_user: app.token("seller@acme.example", "staff-password").await,
        outsider: app.token("user@globex.example", "staff-password").await,
        app,
        admin,
        ceo,
        finance,
    }
}

#[tokio::test]
async fn a_workbook_is_saved_by_version_and_evaluated_by_the_server() {
    let (db, _dropped) = test_database().await;
    let o = office(db).await;
    let (app, user) = (&o.app, &o.user);
    let (status, created) = app.post(user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": " Budget 2026 " })).await;
    assert_eq!((status, created["name"].as_str(), created["version"].as_i64()), (201, Some("Budget 2026"), Some(1)), "{created}");
    assert_eq!(created["engineVersion"], "ironcalc-0.8.3");
    let id = created["id"].as_str().unwrap().to_owned();
    let (_, sheet) = app.get(user, &format!("/api/v1/spreadsheets/{id}")).await;
    assert!(Model::from_bytes(&B64.decode(sheet["content"].as_str().unwrap()).unwrap(), "en").is_ok(), "an empty workbook of the engine");

    let content =
        B64.encode(workbook(&[(1, 1, "Month"), (1, 2, "Sales"), (2, 1, "Jan"), (2, 2, "10"), (3, 1, "Feb"), (3, 2, "32"), (4, 2, "=SUM(B2:B3)")]));
    let (status, saved) = app.put(user, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": content, "version": 1 })).await;
    assert_eq!((status, saved["version"].as_i64()), (200, Some(2)), "{saved}");
    let (status, stale) = app.put(user, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": content, "version": 1, "name": "Mine" })).await;
    assert_eq!((status, stale["code"].as_str(), stale["reason"].as_str()), (409, Some("conflict"), Some("stale_version")));

    // The XLSX holds the formula and the value the server computed (the browser saved none).
    let resp = app.http.get(app.url(&format!("/api/v1/spreadsheets/{id}/export?format=xlsx"))).bearer_auth(user).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-disposition"].to_str().unwrap().contains("budget-2026.xlsx"));
    let file = resp.bytes().await.unwrap().to_vec();
    let mut book: Xlsx<_> = calamine::open_workbook_from_rs(std::io::Cursor::new(file.clone())).unwrap();
    let sheet_name = book.sheet_names()[0].clone();
    assert_eq!(book.worksheet_range(&sheet_name).unwrap().get_value((3, 1)), Some(&Data::Float(42.0)));
    assert_eq!(book.worksheet_formula(&sheet_name).unwrap().get_value((3, 1)).map(String::as_str), Some("SUM(B2:B3)"));
    let resp = app.http.get(app.url(&format!("/api/v1/spreadsheets/{id}/export?format=csv"))).bearer_auth(user).send().await.unwrap();
    assert_eq!(resp.text().await.unwrap(), "Month,Sales\nJan,10\nFeb,32\n,42\n");
    let (status, body) = app.get(user, &format!("/api/v1/spreadsheets/{id}/export?format=csv&sheet=Nope")).await;
    assert_eq!((status, &body["fields"]["sheet"]), (400, &json!("invalid")));

    // Imported back, it gives the same values; a range becomes a report's data table.
    let (status, imported) = import(app, user, &o.finance, file, None).await;
    assert_eq!((status, imported["name"].as_str()), (201, Some("figures")), "{imported}");
    let (status, data) = app.get(user, &format!("/api/v1/spreadsheets/{}/range?range=a1:b4", imported["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{data}");
    assert_eq!(data, json!({ "columns": ["Month", "Sales"], "rows": [["Jan", 10.0], ["Feb", 32.0], [null, 42.0]] }));
    let report = json!({ "title": "From the sheet", "content": "", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "data": data });
    let (status, made) = app.post(user, &format!("/api/v1/departments/{}/reports", o.finance), report).await;
    assert_eq!((status, &made["data"]["rows"][2][1]), (201, &json!(42.0)), "{made}");

    let (_, list) = app.get(user, &format!("/api/v1/departments/{}/spreadsheets", o.finance)).await;
    assert_eq!(list["total"], 2);
    assert_eq!(app.delete(user, &format!("/api/v1/spreadsheets/{id}")).await.0, 204);
    assert_eq!(app.get(user, &format!("/api/v1/spreadsheets/{id}")).await.0, 404);
}

#[tokio::test]
async fn staff_work_in_their_department_the_ceo_reads_and_others_see_nothing() {
    let (db, _dropped) = test_database().await;
    let o = office(db).await;
    let app = &o.app;
    let (_, created) = app.post(&o.user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "Ledger" })).await;
    let id = created["id"].as_str().unwrap();
    let (status, seen) = app.get(&o.ceo, &format!("/api/v1/spreadsheets/{id}")).await;
    assert_eq!((status, seen["editable"].as_bool()), (200, Some(false)));
    assert_eq!(app.get(&o.ceo, &format!("/api/v1/departments/{}/spreadsheets", o.finance)).await.0, 200);
    let content = seen["content"].clone();
    assert_eq!(app.put(&o.ceo, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": content, "version": 1 })).await.0, 403);
    assert_eq!(app.delete(&o.ceo, &format!("/api/v1/spreadsheets/{id}")).await.0, 403);
    for (who, token) in [("another department", &o.other_department_user), ("another tenant", &o.outsider)] {
        assert_eq!(app.get(token, &format!("/api/v1/spreadsheets/{id}")).await.0, 404, "{who}");
        assert_eq!(app.get(token, &format!("/api/v1/departments/{}/spreadsheets", o.finance)).await.0, 404, "{who}");
        assert_eq!(app.put(token, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": content, "version": 1 })).await.0, 404, "{who}");
    }
    assert_eq!(app.get(&o.admin, &format!("/api/v1/spreadsheets/{id}")).await.0, 403);
}

#[tokio::test]
async fn hostile_files_and_bytes_are_refused_in_bounded_time() {
    let (db, _dropped) = test_database().await;
    use std::io::Write;
    // The bounds proven here are of bytes and cells (the engine's deadline is `office`'s).
    let o = office(db).await;
    let (app, user) = (&o.app, &o.user);
    let started = Instant::now();
    let (status, body) = import(app, user, &o.finance, b"not a spreadsheet".to_vec(), Some("Junk")).await;
    assert_eq!((status, &body["fields"]["file"]), (400, &json!("invalid")));

    // 128 MiB of zeros in a small zip: refused once 64 MiB have been counted, never held in memory.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("xl/worksheets/sheet1.xml", zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Deflated)).unwrap();
    let chunk = vec![0u8; 1024 * 1024];
    for _ in 0..128 {
        zip.write_all(&chunk).unwrap();
    }
    let bomb = zip.finish().unwrap().into_inner();
    let (status, body) = import(app, user, &o.finance, bomb, Some("Bomb")).await;
    assert_eq!((status, &body["fields"]["file"]), (400, &json!("too_long")), "{body}");

    // A sheet of 300,000 cells is over the limit.
    let mut model = Model::new_empty("Huge", "en", "UTC", "en").unwrap();
    for row in 1..=3000 {
        for column in 1..=100 {
            model.set_user_input(0, row, column, "1".into()).unwrap();
        }
    }
    let huge = model.to_bytes();
    let (status, body) =
        app.put(user, "/api/v1/spreadsheets/00000000-0000-0000-0000-000000000000", json!({ "content": B64.encode(&huge), "version": 1 })).await;
    assert_eq!((status, &body["fields"]["content"]), (400, &json!("too_long")), "{body}");
    let (_, created) = app.post(user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "Target" })).await;
    let id = created["id"].as_str().unwrap();
    let (status, body) = app.put(user, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": B64.encode(b"garbage bytes"), "version": 1 })).await;
    assert_eq!((status, &body["fields"]["content"]), (400, &json!("invalid")));
    let (status, body) = app.get(user, &format!("/api/v1/spreadsheets/{id}/range?range=A1")).await;
    assert_eq!((status, &body["fields"]["range"]), (400, &json!("invalid")));
    assert!(started.elapsed() < Duration::from_secs(120), "bounded: {:?}", started.elapsed());
    let (_, sheet) = app.get(user, &format!("/api/v1/spreadsheets/{id}")).await;
    assert_eq!(sheet["version"], 1, "nothing refused was saved");
}

#[tokio::test]
async fn bad_input_to_every_spreadsheet_call_is_a_400_and_unknown_ids_are_404() {
    let (db, _dropped) = test_database().await;
    let o = office(db).await;
    let (app, user) = (&o.app, &o.user);
    let (_, created) = app.post(user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "Sheet" })).await;
    let id = created["id"].as_str().unwrap().to_owned();
    for path in [
        format!("/api/v1/departments/{}/spreadsheets?pageSize=0", o.finance),
        "/api/v1/departments/nope/spreadsheets".to_owned(),
        "/api/v1/spreadsheets/42".to_owned(),
        format!("/api/v1/spreadsheets/{id}/export"),
        format!("/api/v1/spreadsheets/{id}/export?format=docx"),
        format!("/api/v1/spreadsheets/{id}/range"),
        format!("/api/v1/spreadsheets/{id}/range?range=Z9:A1:B2"),
        format!("/api/v1/spreadsheets/{id}/range?range=A1:B2&sheet={}", "s".repeat(201)),
    ] {
        let (status, body) = app.get(user, &path).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    for (path, body) in [
        (format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "   " })),
        (format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "n".repeat(201) })),
        (format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({})),
    ] {
        assert_eq!(app.post(user, &path, body).await.0, 400, "{path}");
    }
    for body in [json!({ "version": 1 }), json!({ "content": "@@", "version": 1 }), json!({ "content": "", "version": 1, "name": "" })] {
        let (status, answer) = app.put(user, &format!("/api/v1/spreadsheets/{id}"), body).await;
        assert_eq!(status, 400, "{answer}");
    }
    let resp = app
        .http
        .post(app.url(&format!("/api/v1/departments/{}/spreadsheets/import", o.finance)))
        .bearer_auth(user)
        .json(&json!({ "file": "x" }))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_client_error(), "an import that is not multipart: {}", resp.status());
    let unknown = uuid::Uuid::new_v4();
    assert_eq!(app.get(user, &format!("/api/v1/spreadsheets/{unknown}")).await.0, 404);
    assert_eq!(app.get(user, &format!("/api/v1/spreadsheets/{unknown}/range?range=A1:B2")).await.0, 404);
    assert_eq!(app.delete(user, &format!("/api/v1/spreadsheets/{unknown}")).await.0, 404);
    assert_eq!(app.get(user, &format!("/api/v1/departments/{unknown}/spreadsheets")).await.0, 404);
}

/// Creates a spreadsheet holding `content`; returns its id.
async fn saved(o: &Office, name: &str, content: &[u8]) -> String {
    let (status, created) = o.app.post(&o.user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": name })).await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    let (status, body) = o.app.put(&o.user, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": B64.encode(content), "version": 1 })).await;
    assert_eq!(status, 200, "{body}");
    id
}

/// A formula whose ranges read a whole sheet is refused when saved, naming it; one whose range
/// is built while computing (OFFSET), which no count can see in advance, is stopped at the
/// deadline; either way the answer says why, and the engine serves the next job at once.
#[tokio::test]
async fn runaway_formulas_are_refused_when_saved_or_stopped_at_the_deadline() {
    let (db, _dropped) = test_database().await;
    let o = office_with(db, |c| c.spreadsheet_engine.deadline = Duration::from_secs(2)).await;
    let (app, user) = (&o.app, &o.user);
    let (_, created) = app.post(user, &format!("/api/v1/departments/{}/spreadsheets", o.finance), json!({ "name": "Runaway" })).await;
    let id = created["id"].as_str().unwrap();
    let whole_sheet = workbook(&[(1, 1, "=COUNTBLANK(B1:XFD1048576)")]);
    let (status, body) = app.put(user, &format!("/api/v1/spreadsheets/{id}"), json!({ "content": B64.encode(&whole_sheet), "version": 1 })).await;
    assert_eq!((status, &body["code"], &body["fields"]["content"]), (400, &json!("validation_failed"), &json!("too_complex")), "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("Sheet1!A1") && message.contains("COUNTBLANK(B1:XFD1048576)") && message.contains("20000000"), "{message}");

    let dynamic = saved(&o, "Dynamic", &workbook(&[(1, 1, "=COUNTBLANK(OFFSET(B1,0,0,1048576,16000))")])).await;
    for path in [format!("/api/v1/spreadsheets/{dynamic}/export?format=csv"), format!("/api/v1/spreadsheets/{dynamic}/range?range=A1:A2")] {
        let field = if path.contains("range") { "range" } else { "content" };
        let (status, body) = app.get(user, &path).await;
        assert_eq!((status, &body["fields"][field]), (400, &json!("too_complex")), "{path}: {body}");
        assert_eq!(body["message"], "The workbook takes too long to compute: simplify its formulas");
    }

    let fine = saved(&o, "Fine", &workbook(&[(1, 1, "Total"), (2, 1, "=6*7")])).await;
    let resp = app.http.get(app.url(&format!("/api/v1/spreadsheets/{fine}/export?format=csv"))).bearer_auth(user).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.text().await.unwrap(), "Total\n42\n");
}

/// Engine work whose request is gone is stopped (its worker killed), and so is any still running
/// when the server stops: nothing outlives its request or holds the process.
#[tokio::test]
async fn engine_work_ends_with_its_request_and_with_the_server() {
    let (db, _dropped) = test_database().await;
    let o = office_with(db.clone(), |c| c.spreadsheet_engine.deadline = Duration::from_secs(600)).await;
    let dynamic = saved(&o, "Dynamic", &workbook(&[(1, 1, "=COUNTBLANK(OFFSET(B1,0,0,1048576,16000))")])).await;

    let state = backend::state::AppState::with_pool(o.app.config.clone(), db).unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (addr, server) = backend::app::listen_until(state.clone(), async move {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    let server = tokio::spawn(server);
    let export = format!("http://{addr}/api/v1/spreadsheets/{dynamic}/export?format=csv");

    // The client hangs up after a second: the worker goes with the request.
    {
        use tokio::io::AsyncWriteExt;
        let mut socket = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request =
            format!("GET /api/v1/spreadsheets/{dynamic}/export?format=csv HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {}\r\n\r\n", o.user);
        socket.write_all(request.as_bytes()).await.unwrap();
        while state.engine.running() == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while state.engine.running() > 0 {
        assert!(Instant::now() < deadline, "the worker of a request that is gone still runs");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A stop while a job runs: the server finishes within its grace, and the worker is gone.
    let waiting = tokio::spawn(reqwest::Client::new().get(export).bearer_auth(o.user.clone()).send());
    while state.engine.running() == 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(30), server).await.expect("the server stops within its grace").unwrap().unwrap();
    let _ = waiting.await;
    assert_eq!(state.engine.running(), 0, "no worker outlives the server");
}

/// A job that needs more memory than allowed is stopped and answered as such.
#[tokio::test]
async fn engine_work_past_its_memory_bound_is_stopped() {
    let (db, _dropped) = test_database().await;
    let o = office(db.clone()).await;
    let mut model = Model::new_empty("Big", "en", "UTC", "en").unwrap();
    for row in 1..=1300 {
        for column in 1..=150 {
            model.set_user_input(0, row, column, format!("{}", row * column)).unwrap();
        }
    }
    let big = saved(&o, "Big", &model.to_bytes()).await;
    let tight = TestApp::spawn_like_with(&o.app, db, |c| c.spreadsheet_engine.max_memory_bytes = 32 * 1024 * 1024).await;
    let (status, body) = tight.get(&o.user, &format!("/api/v1/spreadsheets/{big}/export?format=xlsx")).await;
    assert_eq!((status, &body["fields"]["content"]), (400, &json!("too_long")), "{body}");
    assert_eq!(body["message"], "The workbook needs more memory to compute than the server allows");
}

/// Crafted imports are refused by counting while the zip streams, before the engine builds
/// anything: a sheet of 250,000 empty cells, 250,000 empty shared strings.
#[tokio::test]
async fn crafted_imports_are_refused_by_streaming_counts() {
    let (db, _dropped) = test_database().await;
    use std::io::Write;
    let o = office(db).await;
    let crafted = |part: &str, element: &str| {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        zip.start_file(part, zip::write::FileOptions::default().compression_method(zip::CompressionMethod::Deflated)).unwrap();
        zip.write_all(b"<?xml version=\"1.0\"?><root>").unwrap();
        for _ in 0..250_000 {
            zip.write_all(element.as_bytes()).unwrap();
        }
        zip.write_all(b"</root>").unwrap();
        zip.finish().unwrap().into_inner()
    };
    for (part, element) in [("xl/worksheets/sheet1.xml", "<c r=\"A1\"/>"), ("xl/sharedStrings.xml", "<si><t></t></si>")] {
        let file = crafted(part, element);
        assert!(file.len() < 1024 * 1024, "a small file: {} bytes", file.len());
        let (status, body) = import(&o.app, &o.user, &o.finance, file, Some("Crafted")).await;
        assert_eq!((status, &body["fields"]["file"]), (400, &json!("too_long")), "{part}: {body}");
    }
}
