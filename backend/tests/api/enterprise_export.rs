//! An enterprise's export (issue 46, point 2): asked for by its CEO or the platform admin, followed
//! by its progress, e-mailed when ready, downloaded as a zip whose manifest lists every file with
//! its checksum, holding the enterprise's data and none of its secrets; expired after its window.

use std::{
    collections::HashMap,
    io::{Cursor, Read as _},
    time::Duration,
};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Polls the export until it is no longer queued or running (60 s at most); returns every
/// progress seen and the last answer.
async fn finished(app: &TestApp, token: &str, path: &str) -> (Vec<i64>, Value) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let (status, export) = app.get(token, path).await;
        assert_eq!(status, 200, "{export}");
        seen.push(export["progress"].as_i64().unwrap());
        if !matches!(export["status"].as_str(), Some("queued" | "running")) {
            return (seen, export);
        }
        assert!(std::time::Instant::now() < deadline, "the export never finished: {export}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every file of a zip archive, by path.
fn unzip(bytes: &[u8]) -> HashMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("a zip archive");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).unwrap();
            let mut content = Vec::new();
            file.read_to_end(&mut content).unwrap();
            (file.name().to_owned(), content)
        })
        .collect()
}

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test]
async fn a_ceo_exports_their_enterprise_follows_it_downloads_it_and_the_archive_holds_its_data_without_secrets() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let name = format!("Exported {}", &uuid::Uuid::now_v7().simple().to_string()[20..]);
    let (ent, ceo) = app.enterprise(&admin, &name).await;
    let ceo_email = format!("ceo@{}.example", name.to_lowercase().replace(' ', "-"));
    let finance = app.department(&ceo, &ent, "finance").await;
    let staff_email = format!("staff-{}@acme.example", &ent[..8]);
    app.staff(&ceo, &ent, &staff_email, "DepartmentUser", Some(&finance)).await;
    let user = app.token(&staff_email, "staff-password").await;

    // A report through its whole review, with a table.
    let report = json!({
        "title": "Q1 close", "content": "Quarterly figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "submitted",
        "data": { "columns": ["Month", "Revenue"], "rows": [["Jan", 120], ["Feb", 95.5]] }
    });
    let (status, created) = app.post(&user, &format!("/api/v1/departments/{finance}/reports"), report).await;
    assert_eq!(status, 201, "{created}");
    let report_id = created["id"].as_str().unwrap().to_owned();
    let (status, reviewed) =
        app.post(&ceo, &format!("/api/v1/reports/{report_id}/review"), json!({ "status": "approved", "reviewNotes": "Well done" })).await;
    assert_eq!(status, 200, "{reviewed}");
    // A spreadsheet, and a webhook whose signing secret must not travel.
    let (status, sheet) = app.post(&user, &format!("/api/v1/departments/{finance}/spreadsheets"), json!({ "name": "Budget" })).await;
    assert_eq!(status, 201, "{sheet}");
    let sheet_id = sheet["id"].as_str().unwrap().to_owned();
    let (status, hook) = app.post(&ceo, "/api/v1/webhooks", json!({ "url": "http://127.0.0.1:9/hook", "events": ["report.submitted"] })).await;
    assert_eq!(status, 201, "{hook}");
    let secret = hook["secret"].as_str().unwrap().to_owned();

    // Asked for: 202, queued or already running; asking again answers the same export.
    let (status, export) = app.post(&ceo, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await;
    assert_eq!(status, 202, "{export}");
    assert!(matches!(export["status"].as_str(), Some("queued" | "running" | "ready")), "{export}");
    assert!(export["createdAt"].is_string() && export["stage"].is_string(), "{export}");
    let id = export["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/enterprises/{ent}/exports/{id}");
    let (seen, ready) = finished(&app, &ceo, &path).await;
    assert_eq!(ready["status"], "ready", "{ready}");
    assert_eq!((ready["progress"].as_i64(), ready["stage"].as_str()), (Some(100), Some("ready")));
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress only goes up: {seen:?}");
    assert_eq!(ready["downloadUrl"], format!("/api/v1/enterprises/{ent}/exports/{id}/download"));
    let expires: chrono::DateTime<chrono::Utc> = ready["expiresAt"].as_str().unwrap().parse().unwrap();
    let window = expires - chrono::Utc::now();
    assert!(window > chrono::Duration::hours(167) && window <= chrono::Duration::hours(168), "seven days to download it: {window}");
    let (_, listed) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/exports")).await;
    assert_eq!(listed[0]["id"], id.as_str(), "{listed}");

    // Told by e-mail, in their language, with the way back to it.
    let subject = format!("The export of {name} is ready on Enterprise Platform");
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let message = loop {
        let got = mail.received(&ceo_email).await;
        if let Some(m) = got.into_iter().find(|m| m["subject"] == subject.as_str()) {
            break m;
        }
        assert!(std::time::Instant::now() < deadline, "no {subject:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(message["text"].as_str().unwrap().contains("http://app.test/ceo"), "{message}");

    // The download: the archive whose size and checksum the export states.
    let resp = app.http.get(app.url(&format!("{path}/download"))).bearer_auth(&ceo).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/zip");
    assert!(resp.headers()["content-disposition"].to_str().unwrap().contains(".zip"));
    let bytes = resp.bytes().await.unwrap();
    assert_eq!(bytes.len() as i64, ready["sizeBytes"].as_i64().unwrap());
    assert_eq!(hex(&Sha256::digest(&bytes)), ready["sha256"].as_str().unwrap());
    let files = unzip(&bytes);

    // The manifest: its format, the enterprise, counts, and every other file with its SHA-256.
    let manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    assert_eq!(manifest["formatVersion"], 2);
    assert_eq!(manifest["enterprise"]["name"], name.as_str());
    assert!(manifest["exportedAt"].is_string());
    assert_eq!(manifest["counts"]["people"], 2, "{manifest}");
    assert_eq!(manifest["counts"]["departments"], 5);
    assert_eq!(manifest["counts"]["reports"], 1);
    assert_eq!(manifest["counts"]["spreadsheets"], 1);
    let listed: HashMap<String, String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_owned(), f["sha256"].as_str().unwrap().to_owned()))
        .collect();
    for (file, content) in &files {
        if file != "manifest.json" {
            assert_eq!(listed.get(file), Some(&hex(&Sha256::digest(content))), "{file} is listed with its checksum");
        }
    }
    assert_eq!(listed.len(), files.len() - 1, "the manifest lists exactly the other files");

    // Its data.
    let people = json_lines(&files["people.jsonl"]);
    assert_eq!(people.iter().filter(|p| p["email"] == staff_email.as_str()).count(), 1, "{people:?}");
    let reports = json_lines(&files["reports.jsonl"]);
    assert_eq!(reports.len(), 1);
    assert_eq!(
        (reports[0]["id"].as_str(), reports[0]["title"].as_str(), reports[0]["status"].as_str()),
        (Some(report_id.as_str()), Some("Q1 close"), Some("approved"))
    );
    assert_eq!(reports[0]["data"]["rows"][1][1], 95.5);
    let history: Vec<(Value, Value)> =
        reports[0]["history"].as_array().unwrap().iter().map(|e| (e["fromStatus"].clone(), e["toStatus"].clone())).collect();
    assert_eq!(history.last(), Some(&(json!("submitted"), json!("approved"))), "{history:?}");
    assert_eq!(reports[0]["reviewNotes"], "Well done");
    {
        use calamine::{Data, Reader, Xlsx};
        let mut book: Xlsx<_> = Xlsx::new(Cursor::new(files["reports.xlsx"].clone())).unwrap();
        let rows = book.worksheet_range("Reports").unwrap();
        assert_eq!(rows.get((0, 2)), Some(&Data::String("Title".into())));
        assert_eq!(rows.get((1, 2)), Some(&Data::String("Q1 close".into())));
        assert_eq!(rows.get((1, 5)), Some(&Data::String("approved".into())));
        let tables = book.worksheet_range("Tables").unwrap();
        assert_eq!(tables.get((1, 0)), Some(&Data::String(report_id.clone())));
        assert_eq!(tables.get((1, 2)), Some(&Data::String("Revenue".into())));
        assert_eq!(tables.get((3, 2)), Some(&Data::Float(95.5)));
        let sheet: Xlsx<_> = Xlsx::new(Cursor::new(files[&format!("spreadsheets/{sheet_id}.xlsx")].clone())).expect("the spreadsheet as XLSX");
        assert!(!sheet.sheet_names().is_empty());
    }
    let settings: Value = serde_json::from_slice(&files["settings.json"]).unwrap();
    assert_eq!(settings["webhooks"][0]["url"], "http://127.0.0.1:9/hook", "{settings}");
    let audit = json_lines(&files["audit.jsonl"]);
    assert!(audit.iter().any(|e| e["action"] == "report.reviewed" || e["action"] == "report.approved"), "{audit:?}");
    assert!(std::str::from_utf8(&files["README.txt"]).unwrap().contains("end-to-end encrypted"));
    assert!(files.contains_key("messenger/messages.jsonl") && files.contains_key("messenger/conversations.jsonl"));
    // No secret, whatever file: not the webhook's signing secret, not a password hash.
    for (file, content) in &files {
        let text = String::from_utf8_lossy(content);
        assert!(!text.contains(&secret), "{file} holds the webhook's secret");
        assert!(!text.contains("$argon2"), "{file} holds a password hash");
        assert!(!text.contains("password_hash") && !text.contains("passwordHash"), "{file}");
    }

    // Another enterprise sees none of it; the admin sees it all.
    let (_, other_ceo) = app.enterprise(&admin, &format!("Other {name}")).await;
    assert_eq!(app.get(&other_ceo, &path).await.0, 404);
    assert_eq!(app.http.get(app.url(&format!("{path}/download"))).bearer_auth(&other_ceo).send().await.unwrap().status(), 404);
    assert_eq!(app.get(&admin, &path).await.0, 200);
    let unknown = format!("/api/v1/enterprises/{ent}/exports/{}", uuid::Uuid::now_v7());
    assert_eq!(app.get(&ceo, &unknown).await.0, 404);

    // The audit log says who asked and who downloaded.
    let actions: Vec<String> =
        sqlx::query_scalar("select action from public.audit_events where enterprise_id = $1::uuid and action like 'enterprise.export%'")
            .bind(&ent)
            .fetch_all(&db)
            .await
            .unwrap();
    assert!(
        actions.contains(&"enterprise.export_requested".to_owned()) && actions.contains(&"enterprise.export_downloaded".to_owned()),
        "{actions:?}"
    );

    // After its window: expired, its archive gone, its download refused.
    let expired = backend::store::exports::expire_due(&db, expires + chrono::Duration::seconds(1)).await.unwrap();
    assert_eq!(expired, 1);
    let (_, gone) = app.get(&ceo, &path).await;
    assert_eq!((gone["status"].as_str(), gone["downloadUrl"].is_null()), (Some("expired"), true), "{gone}");
    let resp = app.http.get(app.url(&format!("{path}/download"))).bearer_auth(&ceo).send().await.unwrap();
    assert_eq!(resp.status(), 409);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["reason"], "export_not_ready", "{body}");
    let parts: i64 = sqlx::query_scalar("select count(*) from public.enterprise_export_parts").fetch_one(&db).await.unwrap();
    assert_eq!(parts, 0);
}

#[tokio::test]
async fn bad_export_ids_are_400_or_404_and_never_reach_the_job() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Bad Ids Export").await;
    let base = format!("/api/v1/enterprises/{ent}/exports");
    for bad in ["not-a-uuid", "1", "%00", &"x".repeat(300)] {
        assert_eq!(app.get(&ceo, &format!("{base}/{bad}")).await.0, 400, "{bad}");
        assert_eq!(app.get(&ceo, &format!("{base}/{bad}/download")).await.0, 400, "{bad}");
    }
    assert_eq!(app.post(&ceo, "/api/v1/enterprises/not-a-uuid/exports", json!({})).await.0, 400);
    let unknown = uuid::Uuid::now_v7();
    assert_eq!(app.get(&ceo, &format!("{base}/{unknown}")).await.0, 404);
    assert_eq!(app.get(&ceo, &format!("{base}/{unknown}/download")).await.0, 404);
    assert_eq!(app.post(&admin, &format!("/api/v1/enterprises/{unknown}/exports"), json!({})).await.0, 404);
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{unknown}/exports")).await.0, 404);
    let (status, listed) = app.get(&ceo, &base).await;
    assert_eq!((status, listed), (200, json!([])), "nothing was queued by refused calls");
    let queued: i64 = sqlx::query_scalar("select count(*) from public.enterprise_exports").fetch_one(&db).await.unwrap();
    assert_eq!(queued, 0);
}
