use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};
use serde_json::json;

use crate::database::test_database;
use crate::helpers::TestApp;

async fn reviewed_report(app: &TestApp) -> (String, String, String, String) {
    let admin = app.admin_token().await;
    let (ent, ceo) = app.enterprise(&admin, "Acme").await;
    let finance = app.department(&ceo, &ent, "finance").await;
    app.staff(&ceo, &ent, "fin@acme.example", "DepartmentUser", Some(&finance)).await;
    let fin = app.token("fin@acme.example", "staff-password").await;
    let body = json!({
        "title": "Q1 Budget", "content": "Revenue grew.\nCosts fell.", "periodStart": "2026-01-01", "periodEnd": "2026-03-31",
        "status": "submitted",
        "data": { "columns": ["Month", "Revenue", "Costs"], "rows": [["January", 120, 80.5], ["February", 95, null], ["March, late", 130, 70]] }
    });
    let (_, r) = app.post(&fin, &format!("/api/v1/departments/{finance}/reports"), body).await;
    let id = r["id"].as_str().unwrap().to_owned();
    app.post(&ceo, &format!("/api/v1/reports/{id}/review"), json!({ "status": "rejected", "reviewNotes": "Explain February" })).await;
    (id, ceo, fin, ent)
}

async fn download(app: &TestApp, token: &str, path: &str) -> (u16, String, String, Vec<u8>) {
    let resp = app.http.get(app.url(path)).bearer_auth(token).send().await.unwrap();
    let header = |name: &str| resp.headers().get(name).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let (status, kind, disposition) = (resp.status().as_u16(), header("content-type"), header("content-disposition"));
    (status, kind, disposition, resp.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn the_xlsx_holds_the_fields_the_table_and_a_native_chart() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let (id, ceo, _, _) = reviewed_report(&app).await;

    let (status, kind, disposition, bytes) = download(&app, &ceo, &format!("/api/v1/reports/{id}/export?format=xlsx")).await;
    assert_eq!(status, 200);
    assert_eq!(kind, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    assert!(disposition.contains("finance-q1-budget-2026-01-01.xlsx"), "{disposition}");

    let mut book: Xlsx<_> = Xlsx::new(Cursor::new(bytes.clone())).unwrap();
    let report = book.worksheet_range("Report").unwrap();
    let cells: Vec<String> = report.cells().map(|(_, _, c)| c.to_string()).collect();
    for expected in ["Q1 Budget", "Finance", "2026-01-01 to 2026-03-31", "Rejected", "Explain February", "Revenue grew.\nCosts fell."] {
        assert!(cells.iter().any(|c| c == expected), "{expected} missing from {cells:?}");
    }
    let data = book.worksheet_range("Data").unwrap();
    assert_eq!(data.get_value((0, 1)), Some(&Data::String("Revenue".into())));
    assert_eq!(data.get_value((1, 2)), Some(&Data::Float(80.5)));
    assert_eq!(data.get_value((3, 0)), Some(&Data::String("March, late".into())));
    // The chart is a part of the package (file names are stored in clear in a zip).
    assert!(bytes.windows(20).any(|w| w == b"xl/charts/chart1.xml"), "no chart in the workbook");
}

#[tokio::test]
async fn the_csv_is_the_data_table() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let (id, _, fin, _) = reviewed_report(&app).await;
    let (status, kind, disposition, bytes) = download(&app, &fin, &format!("/api/v1/reports/{id}/export?format=csv")).await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("text/csv"), "{kind}");
    assert!(disposition.ends_with(".csv\""), "{disposition}");
    assert_eq!(String::from_utf8(bytes).unwrap(), "Month,Revenue,Costs\nJanuary,120,80.5\nFebruary,95,\n\"March, late\",130,70\n");
}

#[tokio::test]
async fn the_pdf_reads_as_the_report() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let (id, ceo, _, _) = reviewed_report(&app).await;
    let (status, kind, _, bytes) = download(&app, &ceo, &format!("/api/v1/reports/{id}/export?format=pdf")).await;
    assert_eq!((status, kind.as_str()), (200, "application/pdf"));
    let path = std::env::temp_dir().join(format!("report-{id}.pdf"));
    std::fs::write(&path, &bytes).unwrap();
    let out = std::process::Command::new("pdftotext").arg("-layout").arg(&path).arg("-").output().expect("pdftotext (poppler-utils)");
    let text = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "Enterprise Platform · Finance",
        "Q1 Budget",
        "Department: Finance",
        "Period: 1 January 2026 to 31 March 2026",
        "Status: Rejected",
        "Revenue grew.",
        "Costs fell.",
        "January",
        "80.5",
        "Review notes",
        "Explain February",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from:\n{text}");
    }
    std::fs::remove_file(path).unwrap();

    // The chart as the screen draws it: a bar for each number of Revenue and Costs (5: one is
    // empty), a legend square for each, and the band at the top.
    let pdf = lopdf::Document::load_mem(&bytes).unwrap();
    let first = *pdf.get_pages().values().next().unwrap();
    let content = pdf.get_and_decode_page_content(first).unwrap();
    let rectangles = content.operations.iter().filter(|op| op.operator == "re").count();
    assert_eq!(rectangles, 5 + 2 + 1, "{:?}", content.operations.iter().map(|op| &op.operator).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_pdf_speaks_the_reader_s_language() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let (id, ceo, _, _) = reviewed_report(&app).await;
    let pdf_text = |bytes: Vec<u8>| {
        let path = std::env::temp_dir().join(format!("report-{}.pdf", uuid::Uuid::new_v4()));
        std::fs::write(&path, bytes).unwrap();
        let out = std::process::Command::new("pdftotext").arg("-layout").arg(&path).arg("-").output().expect("pdftotext (poppler-utils)");
        std::fs::remove_file(path).unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let resp = app
        .http
        .get(app.url(&format!("/api/v1/reports/{id}/export?format=pdf")))
        .bearer_auth(&ceo)
        .header("accept-language", "fr-FR,fr;q=0.9")
        .send()
        .await
        .unwrap();
    let text = pdf_text(resp.bytes().await.unwrap().to_vec());
    // French typography: a (no-break) space before the colon; dates as a French reader writes them.
    for expected in ["Département : Finance", "Période : 1er janvier 2026 au 31 mars 2026", "Statut : Rejeté", "Contenu", "Notes d'examen"] {
        assert!(text.contains(expected), "{expected:?} missing from:\n{text}");
    }
    let (_, _, _, english) = download(&app, &ceo, &format!("/api/v1/reports/{id}/export?format=pdf&lang=en")).await;
    assert!(pdf_text(english).contains("Status: Rejected"), "lang= wins");
    // Neither asked nor sent by the browser: the language on the reader's account.
    assert_eq!(app.put(&ceo, "/api/v1/auth/me", serde_json::json!({ "locale": "fr" })).await.0, 200);
    let (_, _, _, account) = download(&app, &ceo, &format!("/api/v1/reports/{id}/export?format=pdf")).await;
    assert!(pdf_text(account).contains("Statut : Rejeté"), "the account's language");
}

#[tokio::test]
async fn exports_follow_the_read_rules() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let (id, ceo, _, ent) = reviewed_report(&app).await;
    let admin = app.token(crate::helpers::ADMIN_EMAIL, crate::helpers::ADMIN_PASSWORD).await;
    assert_eq!(download(&app, &admin, &format!("/api/v1/reports/{id}/export?format=pdf&enterpriseId={ent}")).await.0, 200);
    let (other, other_ceo) = app.enterprise(&admin, "Other").await;
    assert_eq!(download(&app, &other_ceo, &format!("/api/v1/reports/{id}/export?format=pdf")).await.0, 404);
    assert_eq!(download(&app, &admin, &format!("/api/v1/reports/{id}/export?format=pdf&enterpriseId={other}")).await.0, 404);
    assert_eq!(download(&app, &ceo, &format!("/api/v1/reports/{id}/export?format=docx")).await.0, 400);
}
