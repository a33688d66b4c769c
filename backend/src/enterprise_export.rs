//! An enterprise's export: a background job that writes everything the enterprise holds into one
//! zip archive (its format is in docs/architecture.md, "An enterprise's archive").
//!
//! `POST /enterprises/{id}/exports` queues a row (`store::exports`) and asks this instance to run
//! it; every instance also looks for queued jobs, and for jobs whose instance stopped beating, every
//! `LOOK_EVERY`. One job runs at a time per instance. The archive is written to a temporary file
//! by a blocking thread that the reads feed through a bounded channel, page by page, so memory
//! stays flat however large the enterprise; then it is stored in 1 MiB parts in PostgreSQL, so
//! that any instance serves the download, and the requester is told by e-mail.

use std::{
    collections::HashMap,
    io::{Read as _, Seek as _, Write as _},
    sync::LazyLock,
    time::Duration,
};

use anyhow::Context as _;
use chrono::Utc;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::{
    audit::{Audit, Changes, Target},
    domain::{DepartmentType, Lang},
    mail,
    spreadsheet::worker::{Engine, EngineError, Job, Output},
    store::{
        self,
        exports::{ExportRecord, Tenanted},
    },
    tenancy::{self, SchemaName},
};

/// The archive's format; a reader refuses a newer one than it knows.
pub const FORMAT_VERSION: u32 = 2;

/// How often each instance looks for jobs nobody runs, and for archives whose download expired.
const LOOK_EVERY: Duration = Duration::from_secs(30);

/// A running job whose instance has not written progress for this long is taken by another.
const STALE_AFTER: chrono::Duration = chrono::Duration::minutes(3);

/// Rows read per statement.
const PAGE: i64 = 500;

/// The archive's bytes are stored in parts of this size.
const PART: usize = 1 << 20;

/// How many exports one instance writes at once.
static RUNNING: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(1));

/// What the archive explains to whoever opens it.
const README: &str = "This archive holds everything the platform keeps of one enterprise (format version 2).\n\n\
manifest.json    the enterprise, when it was exported, how many of each thing, and every file with its SHA-256\n\
enterprise.json  the enterprise itself\n\
people.jsonl     its people, one per line (never a password, a second factor or a key)\n\
departments.json its five departments\n\
reports.jsonl    its reports, one per line, each with its whole review history and its data table\n\
reports.xlsx     the same reports as a workbook: one row per report, and every data table on the Tables sheets\n\
dashboard.json   the dashboard's figures: reports per department and status\n\
spreadsheets.json, spreadsheets/<id>.xlsx  its spreadsheets, evaluated, as XLSX\n\
spreadsheets/<id>.content  each spreadsheet as the server stores it (the engine's format, engineVersion), for an import\n\
audit.jsonl      its audit log, one entry per line\n\
settings.json    its webhooks and single sign-on settings and domains, without any secret\n\
messenger/       its conversations with their members, and their messages as the server holds them.\n\n\
The messenger is end-to-end encrypted: the server never had the keys, so messages are ciphertext here and\n\
only the people's own devices can read them. Their private key backups are not in the archive.\n";

/// What an export touches: the database it reads and writes the archive to, the spreadsheet
/// engine that writes a workbook's XLSX, and how long a ready archive is kept
/// (`TENANT_EXPORT_TTL_HOURS`).
#[derive(Clone)]
pub struct Exporter {
    pub db: sqlx::PgPool,
    pub engine: std::sync::Arc<Engine>,
    pub ttl: std::time::Duration,
}

/// Runs export `id` on this instance now, unless another took it first.
pub fn start(state: &Exporter, id: Uuid) {
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(err) = take_and_run(&state, Some(id)).await {
            tracing::warn!(error = %err, export_id = %id, "an enterprise export could not start");
        }
    });
}

/// Looks for jobs nobody runs and expired archives every `LOOK_EVERY` while the server runs.
pub fn spawn(state: &Exporter) {
    let state = state.clone();
    crate::supervise::spawn("enterprise_exports", move || {
        let state = state.clone();
        async move {
            let mut every = tokio::time::interval(LOOK_EVERY);
            loop {
                every.tick().await;
                if let Err(err) = store::exports::expire_due(&state.db, Utc::now()).await {
                    tracing::warn!(error = %err, "expiring enterprise exports failed");
                }
                if let Err(err) = take_and_run(&state, None).await {
                    tracing::warn!(error = %err, "running a waiting enterprise export failed");
                }
            }
        }
    });
}

/// Takes a job (`id`, or any waiting one) once this instance is free, and runs it.
async fn take_and_run(state: &Exporter, id: Option<Uuid>) -> anyhow::Result<()> {
    let _running = RUNNING.acquire().await?;
    let now = Utc::now();
    let Some(export) = store::exports::claim(&state.db, id, now, now - STALE_AFTER).await? else { return Ok(()) };
    let started = std::time::Instant::now();
    match run(state, &export).await {
        Ok(size) => {
            metrics::counter!("enterprise_exports_total", "result" => "ready").increment(1);
            tracing::info!(export_id = %export.id, enterprise_id = %export.enterprise_id, size, elapsed_ms = started.elapsed().as_millis() as u64, "enterprise export ready");
        }
        Err(err) => {
            metrics::counter!("enterprise_exports_total", "result" => "failed").increment(1);
            tracing::error!(export_id = %export.id, enterprise_id = %export.enterprise_id, error = ?err, "enterprise export failed");
            store::exports::failed(
                &state.db,
                export.id,
                "The archive could not be written. Try again; if it fails again, tell the platform's operators.",
                Utc::now(),
            )
            .await?;
        }
    }
    Ok(())
}

/// What the writer thread is given, in order.
enum Piece {
    /// A new file in the archive (the one before it ends).
    File(String),
    /// More of the current file.
    Bytes(Vec<u8>),
    /// A report's row in reports.xlsx (written there as well as into reports.jsonl).
    Report(Box<ReportRow>),
    /// The end: reports.xlsx, then manifest.json with these fields and the files' list.
    Finish(Value),
}

struct ReportRow {
    cells: [String; 12],
    /// The data table: its columns, then its rows.
    table: Option<(Vec<String>, Vec<Vec<Value>>)>,
    id: String,
}

/// Sends pieces to the writer, with back-pressure (the channel holds a few pages at most).
struct Archive {
    tx: mpsc::Sender<Piece>,
}

impl Archive {
    async fn send(&self, piece: Piece) -> anyhow::Result<()> {
        self.tx.send(piece).await.map_err(|_| anyhow::anyhow!("the archive's writer stopped"))
    }

    async fn file(&self, path: impl Into<String>, bytes: Vec<u8>) -> anyhow::Result<()> {
        self.send(Piece::File(path.into())).await?;
        self.send(Piece::Bytes(bytes)).await
    }

    async fn json(&self, path: &str, value: &Value) -> anyhow::Result<()> {
        self.file(path, serde_json::to_vec_pretty(value)?).await
    }
}

/// One JSON value per line.
fn lines<'a>(values: impl IntoIterator<Item = &'a Value>) -> Vec<u8> {
    let mut out = Vec::new();
    for value in values {
        serde_json::to_writer(&mut out, value).expect("JSON values serialise");
        out.push(b'\n');
    }
    out
}

/// `snake_case` keys as the API writes them (`camelCase`), on an object's first level.
fn camel(value: Value) -> Value {
    let Value::Object(map) = value else { return value };
    Value::Object(
        map.into_iter()
            .map(|(key, value)| {
                let mut out = String::with_capacity(key.len());
                let mut upper = false;
                for c in key.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                let value = match value {
                    Value::Array(items) if out == "history" || out == "members" => Value::Array(items.into_iter().map(camel).collect()),
                    other => other,
                };
                (out, value)
            })
            .collect(),
    )
}

fn text(value: &Value, key: &str) -> String {
    match value.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Writes the archive and stores it; returns its size in bytes.
async fn run(state: &Exporter, export: &ExportRecord) -> anyhow::Result<i64> {
    let enterprise = store::enterprises::find(&state.db, export.enterprise_id).await?.context("the enterprise is gone")?;
    let schema = SchemaName::for_enterprise(enterprise.id);
    let dir = tempfile::tempdir().context("no temporary directory for the archive")?;
    let path = dir.path().join("archive.zip");
    let (tx, rx) = mpsc::channel::<Piece>(8);
    let writer = {
        let path = path.clone();
        let scratch = dir.path().to_owned();
        tokio::task::spawn_blocking(move || write_archive(&path, &scratch, rx))
    };
    let archive = Archive { tx };
    let filled = fill(state, export, &enterprise, &schema, &archive).await;
    drop(archive);
    let written = writer.await.context("the archive's writer panicked")?;
    filled?;
    written?;

    store::exports::progress(&state.db, export.id, 97, "storing", Utc::now()).await?;
    let (size, sha256) = store_parts(state, export.id, &path).await?;
    let now = Utc::now();
    let expires_at = now + chrono::Duration::from_std(state.ttl)?;
    if !store::exports::ready(&state.db, export.id, size, &sha256, now, expires_at).await? {
        tracing::info!(export_id = %export.id, "an enterprise export was withdrawn while it was written (someone was erased)");
        return Ok(size);
    }
    if let Some(requester) = export.requested_by {
        let mut conn = state.db.acquire().await?;
        let path = match store::users::find_by_id(&state.db, requester).await? {
            Some(user) if user.enterprise_id.is_none() => format!("/admin/enterprises/{}", enterprise.id),
            _ => "/ceo".to_owned(),
        };
        let data = json!({ "enterprise": enterprise.name, "expiresAt": expires_at, "sizeBytes": size, "path": path });
        mail::enqueue(&mut conn, Some(enterprise.id), requester, mail::Kind::ExportReady, data).await?;
    }
    Ok(size)
}

/// Reads the enterprise into the archive, stage by stage, writing progress as it goes.
async fn fill(
    state: &Exporter,
    export: &ExportRecord,
    enterprise: &store::enterprises::EnterpriseRecord,
    schema: &SchemaName,
    archive: &Archive,
) -> anyhow::Result<()> {
    let beat = |progress: i32, stage: &'static str| store::exports::progress(&state.db, export.id, progress, stage, Utc::now());
    let mut tx = tenancy::begin(&state.db, schema).await?;
    let sizes = store::exports::sizes(&mut tx, enterprise.id).await?;
    let departments = store::exports::rows(&mut tx, Tenanted::Departments, &[]).await?;
    let spreadsheets = store::exports::rows(&mut tx, Tenanted::Spreadsheets, &["content"]).await?;
    let conversations = store::exports::rows(&mut tx, Tenanted::Conversations, &[]).await?;
    let counts_by_status = store::dashboards::report_counts(&mut tx).await?;
    tx.commit().await?;

    archive.file("README.txt", README.as_bytes().to_vec()).await?;
    let about = json!({
        "id": enterprise.id,
        "name": enterprise.name,
        "description": enterprise.description,
        "isActive": enterprise.is_active,
        "createdAt": enterprise.created_at,
        "updatedAt": enterprise.updated_at,
        "ceoId": enterprise.ceo_id,
    });
    archive.json("enterprise.json", &about).await?;

    beat(2, "people").await?;
    let people = store::exports::people(&state.db, enterprise.id).await?;
    let names: HashMap<String, String> = people.iter().map(|p| (text(p, "id"), text(p, "fullName"))).collect();
    archive.file("people.jsonl", lines(&people)).await?;

    beat(5, "departments").await?;
    let departments: Vec<Value> = departments.into_iter().map(camel).collect();
    let department_names: HashMap<String, &'static str> = departments
        .iter()
        .filter_map(|d| Some((text(d, "id"), crate::export::department_label(text(d, "type").parse::<DepartmentType>().ok()?, Lang::En))))
        .collect();
    archive.json("departments.json", &Value::Array(departments.clone())).await?;
    let dashboard: Vec<Value> = counts_by_status
        .iter()
        .map(|(department, status, count)| json!({ "departmentId": department, "status": status, "reports": count }))
        .collect();
    archive.json("dashboard.json", &json!({ "reportsByDepartmentAndStatus": dashboard })).await?;

    // Reports: 5-60%.
    archive.send(Piece::File("reports.jsonl".to_owned())).await?;
    let (mut after, mut reports_done) = (None, 0i64);
    loop {
        let mut tx = tenancy::begin(&state.db, schema).await?;
        let page = store::exports::reports_page(&mut tx, after, PAGE).await?;
        tx.commit().await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        let reports: Vec<Value> = page.into_iter().map(|(_, r)| camel(r)).collect();
        archive.send(Piece::Bytes(lines(&reports))).await?;
        for report in &reports {
            archive.send(Piece::Report(Box::new(report_row(report, &names, &department_names)))).await?;
        }
        reports_done += reports.len() as i64;
        beat(5 + (55 * reports_done / sizes.reports.max(1)) as i32, "reports").await?;
    }

    // Spreadsheets: 60-80%, each evaluated by the engine as its download is.
    beat(60, "spreadsheets").await?;
    let spreadsheets: Vec<Value> = spreadsheets.into_iter().map(camel).collect();
    let mut problems = Vec::new();
    for (n, sheet) in spreadsheets.iter().enumerate() {
        let id: Uuid = text(sheet, "id").parse()?;
        let mut tx = tenancy::begin(&state.db, schema).await?;
        let content = store::exports::spreadsheet_content(&mut tx, id).await?;
        tx.commit().await?;
        let Some(content) = content else { continue };
        archive.file(format!("spreadsheets/{id}.content"), content.clone()).await?;
        match xlsx(state, enterprise.id, &content).await {
            Ok(bytes) => archive.file(format!("spreadsheets/{id}.xlsx"), bytes).await?,
            Err(err) => {
                tracing::warn!(spreadsheet_id = %id, error = %err, "a spreadsheet could not be exported");
                problems.push(json!({ "path": format!("spreadsheets/{id}.xlsx"), "problem": "the spreadsheet could not be evaluated" }));
            }
        }
        beat(60 + (20 * (n as i64 + 1) / sizes.spreadsheets.max(1)) as i32, "spreadsheets").await?;
    }
    archive.json("spreadsheets.json", &Value::Array(spreadsheets.clone())).await?;

    // The audit log: 80-90%.
    beat(80, "audit").await?;
    archive.send(Piece::File("audit.jsonl".to_owned())).await?;
    let (mut after, mut audit_events) = (None, 0i64);
    loop {
        let page = store::exports::audit_page(&state.db, enterprise.id, after, PAGE).await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        audit_events += page.len() as i64;
        archive.send(Piece::Bytes(lines(page.iter().map(|(_, e)| e)))).await?;
        beat(80 + (10 * audit_events / sizes.audit_events.max(1)) as i32, "audit").await?;
    }

    // The messenger: 90-96%.
    beat(90, "messenger").await?;
    let conversations: Vec<Value> = conversations.into_iter().map(camel).collect();
    archive.file("messenger/conversations.jsonl", lines(&conversations)).await?;
    archive.send(Piece::File("messenger/messages.jsonl".to_owned())).await?;
    let (mut after, mut messages_done) = (None, 0i64);
    loop {
        let mut tx = tenancy::begin(&state.db, schema).await?;
        let page = store::exports::messages_page(&mut tx, after, PAGE).await?;
        tx.commit().await?;
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        messages_done += page.len() as i64;
        let messages: Vec<Value> = page.into_iter().map(|(_, m)| camel(m)).collect();
        archive.send(Piece::Bytes(lines(&messages))).await?;
        beat(90 + (6 * messages_done / sizes.messages.max(1)) as i32, "messenger").await?;
    }

    let settings = store::exports::settings(&state.db, enterprise.id).await?;
    archive.json("settings.json", &camel(settings)).await?;

    let exported_at = Utc::now();
    let counts = json!({
        "people": people.len(),
        "departments": departments.len(),
        "reports": reports_done,
        "spreadsheets": spreadsheets.len() - problems.len(),
        "auditEvents": audit_events,
        "conversations": conversations.len(),
        "messages": messages_done,
    });
    let head = json!({
        "formatVersion": FORMAT_VERSION,
        "enterprise": { "id": enterprise.id, "name": enterprise.name },
        "exportedAt": exported_at,
        "exportId": export.id,
        "platformVersion": env!("CARGO_PKG_VERSION"),
        "counts": counts,
        "problems": problems,
    });
    archive.send(Piece::Finish(head)).await?;
    Audit::system()
        .record_alone(
            &state.db,
            Some(enterprise.id),
            "enterprise.exported",
            Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
            Changes::new().with("exportId", export.id.to_string()),
        )
        .await?;
    Ok(())
}

fn report_row(report: &Value, names: &HashMap<String, String>, departments: &HashMap<String, &'static str>) -> ReportRow {
    let name = |key: &str| names.get(&text(report, key)).cloned().unwrap_or_default();
    let table = report.get("data").and_then(|data| {
        let columns = data.get("columns")?.as_array()?.iter().map(|c| c.as_str().unwrap_or_default().to_owned()).collect();
        let rows = data.get("rows")?.as_array()?.iter().map(|r| r.as_array().cloned().unwrap_or_default()).collect();
        Some((columns, rows))
    });
    ReportRow {
        id: text(report, "id"),
        cells: [
            text(report, "id"),
            departments.get(&text(report, "departmentId")).copied().unwrap_or_default().to_owned(),
            text(report, "title"),
            text(report, "periodStart"),
            text(report, "periodEnd"),
            text(report, "status"),
            name("createdBy"),
            text(report, "createdAt"),
            text(report, "submittedAt"),
            name("reviewedBy"),
            text(report, "reviewedAt"),
            text(report, "reviewNotes"),
        ],
        table,
    }
}

/// A spreadsheet as XLSX, waiting for the engine while it is busy with people's requests.
async fn xlsx(state: &Exporter, enterprise: Uuid, content: &[u8]) -> anyhow::Result<Vec<u8>> {
    let never = CancellationToken::new();
    for _ in 0..30 {
        match state.engine.run(Some(enterprise), Job::Xlsx, content, &never).await {
            Ok(Output::Bytes(bytes)) => return Ok(bytes),
            Ok(Output::Range(..)) => anyhow::bail!("the engine answered a range where a file was asked"),
            Err(EngineError::Busy) => tokio::time::sleep(Duration::from_secs(2)).await,
            Err(err) => return Err(anyhow::anyhow!("{err}")),
        }
    }
    anyhow::bail!("the spreadsheet engine stayed busy")
}

/// Copies the archive into its parts; returns its size and SHA-256.
async fn store_parts(state: &Exporter, id: Uuid, path: &std::path::Path) -> anyhow::Result<(i64, String)> {
    use tokio::io::AsyncReadExt as _;
    let mut file = tokio::fs::File::open(path).await?;
    let mut hash = Sha256::new();
    let (mut size, mut seq) = (0i64, 0i32);
    let mut buffer = vec![0u8; PART];
    loop {
        let mut filled = 0;
        while filled < PART {
            let n = file.read(&mut buffer[filled..]).await?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        hash.update(&buffer[..filled]);
        store::exports::put_part(&state.db, id, seq, &buffer[..filled]).await?;
        size += filled as i64;
        seq += 1;
    }
    Ok((size, hex(&hash.finalize())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const REPORT_COLUMNS: [&str; 12] =
    ["Id", "Department", "Title", "Period start", "Period end", "Status", "Author", "Created", "Submitted", "Reviewer", "Reviewed", "Review notes"];

/// The last row a worksheet has (Excel's limit); the tables go on to a next sheet.
const LAST_ROW: u32 = 1_048_575;

/// The writer thread: the zip file, every file's SHA-256, and reports.xlsx built row by row in
/// constant memory (its sheets' rows wait in temporary files, not in memory).
fn write_archive(path: &std::path::Path, scratch: &std::path::Path, mut rx: mpsc::Receiver<Piece>) -> anyhow::Result<()> {
    use rust_xlsxwriter::Workbook;
    use zip::{CompressionMethod, ZipWriter, write::FileOptions};

    let options = FileOptions::default().compression_method(CompressionMethod::Deflated).large_file(true);
    let mut zip = ZipWriter::new(std::fs::File::create(path)?);
    let mut files: Vec<Value> = Vec::new();
    let mut current: Option<(String, Sha256)> = None;
    let end = |current: &mut Option<(String, Sha256)>, files: &mut Vec<Value>| {
        if let Some((path, hash)) = current.take() {
            files.push(json!({ "path": path, "sha256": hex(&hash.finalize()) }));
        }
    };

    let mut book = Workbook::new();
    book.set_tempdir(scratch)?;
    book.add_worksheet_with_constant_memory()?.set_name("Reports")?;
    book.add_worksheet_with_constant_memory()?.set_name("Tables")?;
    for (col, title) in REPORT_COLUMNS.iter().enumerate() {
        book.worksheet_from_index(0)?.write_string(0, col as u16, *title)?;
    }
    book.worksheet_from_index(1)?.write_string(0, 0, "Report id")?;
    let (mut report_row, mut table_row, mut table_sheet) = (0u32, 0u32, 1usize);

    while let Some(piece) = rx.blocking_recv() {
        match piece {
            Piece::File(name) => {
                end(&mut current, &mut files);
                zip.start_file(name.clone(), options)?;
                current = Some((name, Sha256::new()));
            }
            Piece::Bytes(bytes) => {
                let (_, hash) = current.as_mut().context("bytes before any file")?;
                hash.update(&bytes);
                zip.write_all(&bytes)?;
            }
            Piece::Report(report) => {
                report_row += 1;
                let sheet = book.worksheet_from_index(0)?;
                for (col, cell) in report.cells.iter().enumerate() {
                    if !cell.is_empty() {
                        sheet.write_string(report_row, col as u16, cell)?;
                    }
                }
                if let Some((columns, rows)) = &report.table {
                    for cells in std::iter::once(columns.iter().map(|c| Value::String(c.clone())).collect::<Vec<_>>()).chain(rows.iter().cloned()) {
                        if table_row == LAST_ROW {
                            table_sheet += 1;
                            book.add_worksheet_with_constant_memory()?.set_name(format!("Tables {table_sheet}"))?;
                            table_row = 0;
                        }
                        table_row += 1;
                        let sheet = book.worksheet_from_index(table_sheet)?;
                        sheet.write_string(table_row, 0, &report.id)?;
                        for (col, cell) in cells.iter().take(16_000).enumerate() {
                            let col = col as u16 + 1;
                            match cell {
                                Value::Number(n) => {
                                    sheet.write_number(table_row, col, n.as_f64().unwrap_or_default())?;
                                }
                                Value::String(s) => {
                                    sheet.write_string(table_row, col, s)?;
                                }
                                Value::Null => {}
                                other => {
                                    sheet.write_string(table_row, col, other.to_string())?;
                                }
                            }
                        }
                    }
                }
            }
            Piece::Finish(mut head) => {
                end(&mut current, &mut files);
                let xlsx = scratch.join("reports.xlsx");
                book.save(&xlsx)?;
                zip.start_file("reports.xlsx", options)?;
                let mut hash = Sha256::new();
                let mut source = std::fs::File::open(&xlsx)?;
                let mut buffer = vec![0u8; 64 * 1024];
                loop {
                    let n = source.read(&mut buffer)?;
                    if n == 0 {
                        break;
                    }
                    hash.update(&buffer[..n]);
                    zip.write_all(&buffer[..n])?;
                }
                files.push(json!({ "path": "reports.xlsx", "sha256": hex(&hash.finalize()) }));
                head["files"] = Value::Array(std::mem::take(&mut files));
                zip.start_file("manifest.json", options)?;
                zip.write_all(&serde_json::to_vec_pretty(&head)?)?;
                let mut file = zip.finish()?;
                file.flush()?;
                file.rewind()?;
                return Ok(());
            }
        }
    }
    anyhow::bail!("the archive ended before its manifest")
}
