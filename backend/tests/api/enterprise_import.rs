//! An enterprise re-created from its archive (issue 46, point 3): exported, purged, imported by
//! the platform admin (API and `backend import-enterprise`), and read again exactly as before;
//! archives that are not ours, newer or damaged refused with a reason, and nothing half-made.

use std::{collections::BTreeMap, io::Write as _, time::Duration};

use base64::Engine as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, link_token, parts};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A zip of these files and a `manifest.json` of format `format` listing each with its SHA-256
/// (`wrong_sum`: this file listed with another's checksum).
pub fn zipped(format: u64, files: &[(&str, Vec<u8>)], wrong_sum: Option<&str>) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::FileOptions::default();
    let listed: Vec<Value> = files
        .iter()
        .map(|(path, content)| {
            let sum = if wrong_sum == Some(*path) { hex(&Sha256::digest(b"something else")) } else { hex(&Sha256::digest(content)) };
            json!({ "path": path, "sha256": sum })
        })
        .collect();
    let manifest = json!({ "formatVersion": format, "exportedAt": "2026-12-01T10:00:00Z", "counts": {}, "files": listed });
    out.start_file("manifest.json", options).unwrap();
    out.write_all(manifest.to_string().as_bytes()).unwrap();
    for (path, content) in files {
        out.start_file(*path, options).unwrap();
        out.write_all(content).unwrap();
    }
    out.finish().unwrap().into_inner()
}

fn lines(rows: &[Value]) -> Vec<u8> {
    rows.iter().map(|r| format!("{r}\n")).collect::<String>().into_bytes()
}

/// The files of a small archive of format 2 as an export writes them: the enterprise `name` of
/// id `id`, and these people (camelCase, as exported) and reports.
pub fn small_files(id: &str, name: &str, people: &[Value], reports: &[Value]) -> Vec<(&'static str, Vec<u8>)> {
    let about = json!({ "id": id, "name": name, "description": "Made by hand", "isActive": true, "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" });
    let departments = json!([{ "id": uuid::Uuid::now_v7(), "type": "finance", "description": "Money", "headId": null, "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" }]);
    vec![
        ("enterprise.json", about.to_string().into_bytes()),
        ("departments.json", departments.to_string().into_bytes()),
        ("people.jsonl", lines(people)),
        ("reports.jsonl", lines(reports)),
        ("spreadsheets.json", b"[]".to_vec()),
        ("audit.jsonl", Vec::new()),
    ]
}

/// A small valid archive of an enterprise named `name` with no one in it.
pub fn small_archive(name: &str) -> Vec<u8> {
    zipped(2, &small_files(&uuid::Uuid::now_v7().to_string(), name, &[], &[]), None)
}

/// `POST /enterprises/imports` with this file as `archive`.
pub async fn upload(app: &TestApp, token: &str, archive: Vec<u8>, invite: Option<bool>) -> (u16, Value) {
    let mut form = reqwest::multipart::Form::new()
        .part("archive", reqwest::multipart::Part::bytes(archive).file_name("export.zip").mime_str("application/zip").unwrap());
    if let Some(invite) = invite {
        form = form.text("invite", invite.to_string());
    }
    parts(app.http.post(app.url("/api/v1/enterprises/imports")).bearer_auth(token).multipart(form).send().await.unwrap()).await
}

/// Polls the import until it is no longer queued or running (60 s at most); every progress seen
/// and the last answer.
pub async fn finished(app: &TestApp, token: &str, id: &str) -> (Vec<i64>, Value) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        let (status, import) = app.get(token, &format!("/api/v1/enterprises/imports/{id}")).await;
        assert_eq!(status, 200, "{import}");
        seen.push(import["progress"].as_i64().unwrap());
        if !matches!(import["status"].as_str(), Some("queued" | "running")) {
            return (seen, import);
        }
        assert!(std::time::Instant::now() < deadline, "the import never finished: {import}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Drops from every object, at any depth, the keys that say when someone last signed in
/// (an imported person signed in anew, as they accepted their invitation).
fn without_sign_ins(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter().filter(|(k, _)| !matches!(k.as_str(), "lastLogin" | "lastLoginAt")).map(|(k, v)| (k.clone(), without_sign_ins(v))).collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_sign_ins).collect()),
        other => other.clone(),
    }
}

/// Every read of the enterprise, by the admin and by its CEO, by path.
/// (`user` reads the draft, `drafts`, which only its author sees.)
async fn reads(
    app: &TestApp,
    [admin, ceo, user]: [&str; 3],
    ent: &str,
    departments: &[String],
    reports: &[String],
    drafts: &[String],
    sheets: &[String],
) -> BTreeMap<String, Value> {
    let mut paths: Vec<(&str, String)> = vec![
        (admin, format!("/api/v1/enterprises/{ent}")),
        (admin, format!("/api/v1/enterprises/{ent}/users?pageSize=100")),
        (admin, format!("/api/v1/users?enterpriseId={ent}&pageSize=100")),
        (admin, format!("/api/v1/enterprises/{ent}/reports?pageSize=100")),
        (admin, format!("/api/v1/enterprises/{ent}/departments")),
        (ceo, "/api/v1/dashboard/ceo".to_owned()),
        (ceo, "/api/v1/dashboard/reports?pageSize=100".to_owned()),
    ];
    for d in departments {
        paths.push((admin, format!("/api/v1/enterprises/{ent}/departments/{d}")));
        paths.push((ceo, format!("/api/v1/departments/{d}/reports?pageSize=100")));
        paths.push((ceo, format!("/api/v1/departments/{d}/spreadsheets?pageSize=100")));
    }
    for r in reports {
        paths.push((admin, format!("/api/v1/reports/{r}?enterpriseId={ent}")));
        paths.push((admin, format!("/api/v1/reports/{r}/export?format=csv&enterpriseId={ent}")));
    }
    for r in drafts {
        paths.push((user, format!("/api/v1/reports/{r}")));
    }
    for s in sheets {
        paths.push((ceo, format!("/api/v1/spreadsheets/{s}")));
        paths.push((ceo, format!("/api/v1/spreadsheets/{s}/export?format=csv")));
    }
    let mut out = BTreeMap::new();
    for (token, path) in paths {
        let resp = app.http.get(app.url(&path)).bearer_auth(token).send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        assert_eq!(status, 200, "{path}: {text}");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        out.insert(path, without_sign_ins(&body));
    }
    out
}

#[tokio::test]
async fn an_enterprise_exported_purged_and_imported_reads_as_it_did_and_its_people_choose_a_password_again() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let tag = &uuid::Uuid::now_v7().simple().to_string()[20..];
    let name = format!("Round Trip {tag}");
    let (ent, ceo) = app.enterprise(&admin, &name).await;
    let ceo_email = format!("ceo@round-trip-{tag}.example");
    let finance = app.department(&ceo, &ent, "finance").await;
    let sales = app.department(&ceo, &ent, "sales_marketing").await;
    let staff_email = format!("staff-{tag}@round.example");
    let staff_id = app.staff(&ceo, &ent, &staff_email, "DepartmentUser", Some(&finance)).await;
    let head_email = format!("head-{tag}@round.example");
    app.staff(&ceo, &ent, &head_email, "DepartmentHead", Some(&sales)).await;
    let (status, body) = app
        .put(&ceo, &format!("/api/v1/enterprises/{ent}/departments/{finance}"), json!({ "description": "Books and budgets", "headId": staff_id }))
        .await;
    assert_eq!(status, 200, "{body}");
    let user = app.token(&staff_email, "staff-password").await;
    let head = app.token(&head_email, "staff-password").await;

    // Reports: one through its whole review with a table, one sent back, one a draft.
    let mut reports = Vec::new();
    for (token, dept, title, review) in [
        (&user, &finance, "Q1 close", Some(("approved", "Well done"))),
        (&head, &sales, "Campaign results", Some(("rejected", "Numbers missing"))),
        (&user, &finance, "Q2 draft", None),
    ] {
        let status_of = if review.is_some() { "submitted" } else { "draft" };
        let report = json!({
            "title": title, "content": format!("About {title}"), "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": status_of,
            "data": { "columns": ["Month", "Revenue"], "rows": [["Jan", 120], ["Feb", 95.5]] }
        });
        let (status, created) = app.post(token, &format!("/api/v1/departments/{dept}/reports"), report).await;
        assert_eq!(status, 201, "{created}");
        let id = created["id"].as_str().unwrap().to_owned();
        if let Some((verdict, notes)) = review {
            let (status, reviewed) =
                app.post(&ceo, &format!("/api/v1/reports/{id}/review"), json!({ "status": verdict, "reviewNotes": notes })).await;
            assert_eq!(status, 200, "{reviewed}");
        }
        reports.push(id);
    }
    // A spreadsheet with a formula the server computed.
    let (status, sheet) = app.post(&user, &format!("/api/v1/departments/{finance}/spreadsheets"), json!({ "name": "Budget" })).await;
    assert_eq!(status, 201, "{sheet}");
    let sheet_id = sheet["id"].as_str().unwrap().to_owned();
    let content = base64::engine::general_purpose::STANDARD.encode(crate::spreadsheets::workbook(&[(1, 1, "2"), (1, 2, "=A1*21")]));
    let (status, saved) = app.put(&user, &format!("/api/v1/spreadsheets/{sheet_id}"), json!({ "content": content, "version": 1 })).await;
    assert_eq!(status, 200, "{saved}");

    let (_, listed) = app.get(&admin, &format!("/api/v1/enterprises/{ent}/departments")).await;
    let departments: Vec<String> = listed.as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(departments.len(), 5);
    let sheets = vec![sheet_id.clone()];
    let drafts = vec![reports.pop().unwrap()];
    let before = reads(&app, [&admin, &ceo, &user], &ent, &departments, &reports, &drafts, &sheets).await;
    let (_, audit_before) = app.get(&admin, &format!("/api/v1/audit-events?enterpriseId={ent}&pageSize=100")).await;
    let audit_before = audit_before["items"].as_array().cloned().unwrap_or_default();
    assert!(audit_before.len() >= 5, "{audit_before:?}");

    // Exported, then deleted and purged: nothing of it is left.
    let (status, export) = app.post(&admin, &format!("/api/v1/enterprises/{ent}/exports"), json!({})).await;
    assert_eq!(status, 202, "{export}");
    let export_path = format!("/api/v1/enterprises/{ent}/exports/{}", export["id"].as_str().unwrap());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while app.get(&admin, &export_path).await.1["status"] != "ready" {
        assert!(std::time::Instant::now() < deadline, "the export never became ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let archive = app.http.get(app.url(&format!("{export_path}/download"))).bearer_auth(&admin).send().await.unwrap().bytes().await.unwrap().to_vec();
    assert_eq!(app.delete(&admin, &format!("/api/v1/enterprises/{ent}")).await.0, 202);
    let (status, body) = app.post(&admin, &format!("/api/v1/enterprises/{ent}/purge"), json!({ "confirmName": name })).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{ent}")).await.0, 404);

    // Imported: 202 with the progress shape, then followed to its end.
    let (status, import) = upload(&app, &admin, archive, None).await;
    assert_eq!(status, 202, "{import}");
    assert!(import["id"].is_string() && import["createdAt"].is_string() && import["stage"].is_string(), "{import}");
    assert!(matches!(import["status"].as_str(), Some("queued" | "running")), "{import}");
    assert_eq!(import["enterpriseName"], name.as_str());
    let id = import["id"].as_str().unwrap().to_owned();
    let (seen, done) = finished(&app, &admin, &id).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!((done["progress"].as_i64(), done["stage"].as_str()), (Some(100), Some("ready")), "{done}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "progress only goes up: {seen:?}");
    assert_eq!(done["enterpriseId"], ent.as_str(), "the archive's ids are kept when none is used here");
    let result = &done["result"];
    assert_eq!(result["idsKept"], true, "{done}");
    assert_eq!(
        (
            result["counts"]["people"].as_i64(),
            result["counts"]["departments"].as_i64(),
            result["counts"]["reports"].as_i64(),
            result["counts"]["spreadsheets"].as_i64()
        ),
        (Some(3), Some(5), Some(3), Some(1)),
        "{done}"
    );
    assert_eq!(result["invited"], 3, "{done}");
    let left: Vec<&str> = result["leftOut"].as_array().unwrap().iter().map(|l| l["what"].as_str().unwrap()).collect();
    assert_eq!(left, ["messenger", "webhooks", "singleSignOn"], "{done}");
    let (_, list) = app.get(&admin, "/api/v1/enterprises/imports").await;
    assert_eq!(list[0]["id"], id.as_str(), "{list}");

    // No old password opens anything: each person is invited to choose one again.
    assert_eq!(app.login(&ceo_email, "ceo-password").await.status(), 401);
    let mut tokens = BTreeMap::new();
    for (email, password) in [(&ceo_email, "ceo-new-password"), (&staff_email, "staff-new-password"), (&head_email, "head-new-password")] {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        let invitation = loop {
            let got = mail.received(email).await;
            if let Some(m) = got.into_iter().find(|m| m["text"].as_str().unwrap_or_default().contains("/accept-invitation?token=")) {
                break m;
            }
            assert!(std::time::Instant::now() < deadline, "no invitation for {email}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let token = link_token(invitation["text"].as_str().unwrap(), "accept-invitation");
        let (status, signed_in) = parts(
            app.http.post(app.url("/api/v1/auth/invitations/accept")).json(&json!({ "token": token, "password": password })).send().await.unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{signed_in}");
        tokens.insert(email.clone(), signed_in["token"].as_str().unwrap().to_owned());
    }

    // Every read as it was.
    let after = reads(&app, [&admin, &tokens[&ceo_email], &tokens[&staff_email]], &ent, &departments, &reports, &drafts, &sheets).await;
    for (path, was) in &before {
        assert_eq!(&after[path], was, "{path} reads differently after the import");
    }
    // The audit log as it was, with the import said in it.
    let (_, audit_after) = app.get(&admin, &format!("/api/v1/audit-events?enterpriseId={ent}&pageSize=100")).await;
    let audit_after = audit_after["items"].as_array().cloned().unwrap();
    for entry in &audit_before {
        assert!(audit_after.contains(entry), "{entry} is not in the audit log after the import");
    }
    let imported = audit_after.iter().find(|e| e["action"] == "enterprise.imported").expect("the import audited");
    assert_eq!(imported["targetId"], ent.as_str(), "{imported}");
    // The imported spreadsheet still computes and saves.
    let (status, saved) =
        app.put(&tokens[&staff_email], &format!("/api/v1/spreadsheets/{sheet_id}"), json!({ "content": content, "version": 2 })).await;
    assert_eq!(status, 200, "{saved}");
}

#[tokio::test]
async fn an_archive_whose_ids_are_used_here_is_imported_under_new_ids_consistently() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Still Here").await;
    let (_, people) = app.get(&ceo, &format!("/api/v1/enterprises/{ent}/users")).await;
    let person = people["items"].as_array().or(people.as_array()).unwrap()[0]["id"].as_str().unwrap().to_owned();

    // An archive naming that enterprise's id and its CEO's id, under another name and address.
    let mover = json!({ "id": person, "fullName": "Moved Person", "email": "moved@elsewhere.example", "role": "EnterpriseCeo", "departmentId": null, "status": "active", "locale": "en", "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" });
    let report = json!({ "id": uuid::Uuid::now_v7(), "title": "Moved report", "content": "x", "status": "approved", "departmentId": null, "createdBy": person, "reviewedBy": person,
        "periodStart": "2026-01-01", "periodEnd": "2026-01-31", "createdAt": "2026-02-01T09:00:00Z", "updatedAt": "2026-02-01T09:00:00Z",
        "history": [{ "id": uuid::Uuid::now_v7(), "actorId": person, "fromStatus": "submitted", "toStatus": "approved", "createdAt": "2026-02-01T09:00:00Z" }] });
    let mut files = small_files(&ent, "Moved Elsewhere", &[mover], &[]);
    // The report belongs to the archive's one department.
    let departments: Value = serde_json::from_slice(&files[1].1).unwrap();
    let mut report = report;
    report["departmentId"] = departments[0]["id"].clone();
    files[3].1 = lines(&[report]);
    let (status, import) = upload(&app, &admin, zipped(2, &files, None), Some(false)).await;
    assert_eq!(status, 202, "{import}");
    let (_, done) = finished(&app, &admin, import["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!((done["result"]["idsKept"].as_bool(), done["result"]["invited"].as_i64()), (Some(false), Some(0)), "{done}");
    let made = done["enterpriseId"].as_str().unwrap().to_owned();
    assert_ne!(made, ent, "a new id, since the archive's is used");

    // The original is untouched; the new enterprise's report names its new person.
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/{ent}")).await.1["name"], "Still Here");
    let (_, users) = app.get(&admin, &format!("/api/v1/enterprises/{made}/users")).await;
    let users = users["items"].as_array().or(users.as_array()).cloned().unwrap();
    assert_eq!(users.len(), 1, "{users:?}");
    let moved = users[0]["id"].as_str().unwrap().to_owned();
    assert_ne!(moved, person);
    assert_eq!(users[0]["email"], "moved@elsewhere.example");
    let (_, listed) = app.get(&admin, &format!("/api/v1/enterprises/{made}/reports")).await;
    let listed = listed["items"].as_array().or(listed.as_array()).cloned().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let (_, report) = app.get(&admin, &format!("/api/v1/reports/{}", listed[0]["id"].as_str().unwrap())).await;
    let named: Vec<&Value> = vec![&report["createdBy"], &report["reviewedBy"]];
    for n in named {
        let id = n.as_str().or_else(|| n["id"].as_str()).unwrap_or_default();
        assert_eq!(id, moved, "{report}");
    }
    // Nobody was e-mailed (invite false), and the original's CEO still signs in.
    assert_eq!(app.get(&ceo, "/api/v1/auth/me").await.0, 200);
}

#[tokio::test]
async fn archives_that_are_not_ours_newer_damaged_or_already_here_are_refused_with_a_reason_and_nothing_is_kept() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Already Here").await;
    let count =
        |db: sqlx::PgPool| async move { sqlx::query_scalar::<_, i64>("select count(*) from public.enterprises").fetch_one(&db).await.unwrap() };
    let enterprises = count(db.clone()).await;

    let refused = |body: &Value, words: &str| {
        assert_eq!(body["code"], "validation_failed", "{body}");
        assert_eq!(body["fields"]["archive"], "invalid", "{body}");
        assert!(body["detail"].as_str().unwrap_or_default().contains(words), "{body}");
    };
    let (status, body) = upload(&app, &admin, b"this is not a zip".to_vec(), None).await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "not a zip file");
    let (status, body) = upload(&app, &admin, zipped(2, &[("readme.txt", b"hello".to_vec())], None), None).await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "enterprise.json");
    let (status, body) = upload(&app, &admin, zipped(99, &small_files(&uuid::Uuid::now_v7().to_string(), "Future", &[], &[]), None), None).await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "newer platform (format version 99)");
    let (status, body) =
        upload(&app, &admin, zipped(2, &small_files(&uuid::Uuid::now_v7().to_string(), "Damaged", &[], &[]), Some("enterprise.json")), None).await;
    assert_eq!(status, 400, "{body}");
    refused(&body, "checksum");
    // A name or an address already used here: 409.
    let (status, body) = upload(&app, &admin, small_archive("Already Here"), None).await;
    assert_eq!((status, body["code"].as_str(), body["fields"]["name"].as_str()), (409, Some("conflict"), Some("taken")), "{body}");
    let taken = json!({ "id": uuid::Uuid::now_v7(), "fullName": "Twin", "email": "CEO@already-here.example", "role": "EnterpriseCeo", "status": "active", "locale": "en", "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" });
    let (status, body) = upload(&app, &admin, zipped(2, &small_files(&uuid::Uuid::now_v7().to_string(), "Twin Co", &[taken], &[]), None), None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!((body["code"].as_str(), body["fields"]["archive"].as_str()), (Some("conflict"), Some("taken")), "{body}");
    // Only the platform admin imports.
    assert_eq!(upload(&app, &ceo, small_archive("By A CEO"), None).await.0, 403);
    assert_eq!(app.get(&ceo, "/api/v1/enterprises/imports").await.0, 403);
    assert_eq!(count(db.clone()).await, enterprises, "nothing was made");
    let (_, list) = app.get(&admin, "/api/v1/enterprises/imports").await;
    assert_eq!(list, json!([]), "refused uploads start no import");

    // Damaged beyond its first files: the import fails with the reason, and nothing of it is kept.
    let files = small_files(&uuid::Uuid::now_v7().to_string(), "Half Damaged", &[], &[json!({ "id": uuid::Uuid::now_v7(), "title": "x" })]);
    let (status, import) = upload(&app, &admin, zipped(2, &files, Some("reports.jsonl")), None).await;
    assert_eq!(status, 202, "{import}");
    let (_, done) = finished(&app, &admin, import["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert!(done["error"].as_str().unwrap().contains("reports.jsonl does not match its checksum"), "{done}");
    assert!(done["enterpriseId"].is_null() && done["result"].is_null(), "{done}");
    assert_eq!(count(db.clone()).await, enterprises, "nothing of a failed import is kept");
    let schemas: i64 = sqlx::query_scalar("select count(*) from public.tenant_schemas").fetch_one(&db).await.unwrap();
    let made: i64 = sqlx::query_scalar("select count(*) from public.enterprises").fetch_one(&db).await.unwrap();
    assert_eq!(schemas, made + 1, "one schema per enterprise and the platform's: {schemas}");

    // Rows this platform's rules refuse (a role it does not have): failed, saying so, nothing kept.
    let emperor = json!({ "id": uuid::Uuid::now_v7(), "fullName": "Nero", "email": "nero@rome.example", "role": "Emperor", "status": "active", "locale": "la", "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" });
    let (status, import) =
        upload(&app, &admin, zipped(2, &small_files(&uuid::Uuid::now_v7().to_string(), "Rome", &[emperor], &[]), None), None).await;
    assert_eq!(status, 202, "{import}");
    let (_, done) = finished(&app, &admin, import["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert!(done["error"].as_str().unwrap().contains("does not fit this platform"), "{done}");
    assert_eq!(count(db.clone()).await, enterprises, "nothing of a refused import is kept");

    // Ids that are not ids.
    for bad in ["not-a-uuid", "1"] {
        assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/imports/{bad}")).await.0, 400, "{bad}");
    }
    assert_eq!(app.get(&admin, &format!("/api/v1/enterprises/imports/{}", uuid::Uuid::now_v7())).await.0, 404);
}

#[tokio::test]
async fn the_command_line_imports_an_archive_and_prints_the_enterprise_s_id() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.zip");
    let id = uuid::Uuid::now_v7().to_string();
    let person = json!({ "id": uuid::Uuid::now_v7(), "fullName": "Cli Person", "email": "cli@cli-import.example", "role": "EnterpriseCeo", "status": "active", "locale": "fr", "createdAt": "2026-01-05T09:00:00Z", "updatedAt": "2026-01-05T09:00:00Z" });
    std::fs::write(&path, zipped(2, &small_files(&id, "From The Shell", &[person], &[]), None)).unwrap();
    let mut url = url::Url::parse(&std::env::var("DATABASE_URL").unwrap()).unwrap();
    url.set_path(&format!("/{}", db.connect_options().get_database().unwrap()));
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_backend")).args(args).env("DATABASE_URL", url.as_str()).output().expect("the backend runs")
    };
    let out = run(&["import-enterprise", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), id, "it prints the enterprise's id");
    let (status, made) = app.get(&admin, &format!("/api/v1/enterprises/{id}")).await;
    assert_eq!((status, made["name"].as_str()), (200, Some("From The Shell")), "{made}");
    let invitations: i64 =
        sqlx::query_scalar("select count(*) from public.account_tokens where purpose = 'invitation'").fetch_one(&db).await.unwrap();
    assert_eq!(invitations, 1, "its one person is invited");
    // Again: refused, with the reason, and a failing status.
    let out = run(&["import-enterprise", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"), "{}", String::from_utf8_lossy(&out.stderr));
}
