//! An enterprise re-created from its archive (`enterprise_export` writes it; docs/architecture.md,
//! "An enterprise's archive"): `POST /enterprises/imports` and `backend import-enterprise`.
//!
//! `inspect` reads what the archive says it is (its manifest, the enterprise, its people's
//! addresses and ids) before anything is written, so a wrong file, a newer format or a taken
//! name is refused at once. `run` then reads the archive in a blocking thread, file by file,
//! checking each file's SHA-256 against the manifest as it goes, and feeds the rows in batches
//! through a bounded channel to one transaction that writes them: the enterprise, its schema,
//! departments, people, reports with their history, spreadsheets and audit log. Either all of it
//! is kept or nothing. People are invited to choose a password again (their passwords, second
//! factors and keys were never exported). Ids are kept; when any of the enterprise's or its
//! people's ids is already used here (the enterprise still exists, say), every one of them is
//! replaced by a new id, consistently in every row that names it.

use std::{
    collections::HashMap,
    io::{BufRead as _, BufReader, Read},
    path::{Path, PathBuf},
};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use sqlx::PgPool;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::{
    enterprise_export::FORMAT_VERSION,
    store::{self, audit::Actor},
    tenancy::{self, SchemaName},
};

/// Rows written per statement.
const BATCH: usize = 500;
/// The largest JSON file read whole (manifest, enterprise, departments, spreadsheets, settings).
const MAX_JSON: u64 = 16 << 20;
/// The longest line of a JSON-lines file (one report with its table, say).
const MAX_LINE: u64 = 32 << 20;
/// The largest stored spreadsheet.
const MAX_SPREADSHEET: u64 = 64 << 20;

/// Why an archive is refused before anything is written, in words for whoever uploaded it.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("This file is not an enterprise archive: {0}")]
    NotAnArchive(String),
    #[error("This archive was written by a newer platform (format version {0}); this one reads versions 1 to {FORMAT_VERSION}")]
    TooNew(u64),
}

fn not_archive(what: impl std::fmt::Display) -> Refused {
    Refused::NotAnArchive(what.to_string())
}

/// What an archive says it holds.
#[derive(Debug, Clone)]
pub struct Inspected {
    pub format: u64,
    /// `enterprise.json`.
    pub about: Value,
    pub name: String,
    pub enterprise_id: Uuid,
    pub people_ids: Vec<Uuid>,
    pub emails: Vec<String>,
    /// `counts` of the manifest.
    pub counts: Value,
    /// Every file's SHA-256, by path.
    sums: HashMap<String, String>,
}

/// Reads the archive's manifest, enterprise and people (blocking: call it off the runtime).
pub fn inspect(path: &Path) -> Result<Inspected, Refused> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).map_err(not_archive)?).map_err(|_| not_archive("it is not a zip file"))?;
    let manifest: Value = {
        let file = zip.by_name("manifest.json").map_err(|_| not_archive("it has no manifest.json"))?;
        let mut bytes = Vec::new();
        file.take(MAX_JSON).read_to_end(&mut bytes).map_err(not_archive)?;
        serde_json::from_slice(&bytes).map_err(|_| not_archive("its manifest.json is not JSON"))?
    };
    let format = manifest["formatVersion"].as_u64().ok_or_else(|| not_archive("its manifest has no formatVersion"))?;
    if format > u64::from(FORMAT_VERSION) {
        return Err(Refused::TooNew(format));
    }
    let sums: HashMap<String, String> = manifest["files"]
        .as_array()
        .ok_or_else(|| not_archive("its manifest lists no files"))?
        .iter()
        .filter_map(|f| Some((f["path"].as_str()?.to_owned(), f["sha256"].as_str()?.to_owned())))
        .collect();
    let about = read_json(&mut zip, &sums, "enterprise.json").map_err(not_archive)?;
    let name = about["name"].as_str().filter(|n| !n.trim().is_empty()).ok_or_else(|| not_archive("its enterprise has no name"))?.to_owned();
    let enterprise_id = about["id"].as_str().and_then(|id| id.parse().ok()).ok_or_else(|| not_archive("its enterprise has no id"))?;
    let (mut people_ids, mut emails) = (Vec::new(), Vec::new());
    read_lines(&mut zip, &sums, "people.jsonl", |person| {
        people_ids.push(uuid_of(&person, "id")?);
        if let Some(email) = person["email"].as_str() {
            emails.push(email.to_owned());
        }
        Ok(())
    })
    .map_err(not_archive)?;
    Ok(Inspected { format, about, name, enterprise_id, people_ids, emails, counts: manifest["counts"].clone(), sums })
}

fn uuid_of(value: &Value, key: &str) -> anyhow::Result<Uuid> {
    value[key].as_str().and_then(|id| id.parse().ok()).with_context(|| format!("a row without a valid `{key}`"))
}

/// A file of the archive, read through its SHA-256, which must be the manifest's.
fn checked<'a, R: Read + std::io::Seek>(
    zip: &'a mut zip::ZipArchive<R>,
    sums: &HashMap<String, String>,
    path: &str,
) -> anyhow::Result<Option<Hashing<zip::read::ZipFile<'a>>>> {
    let Some(sum) = sums.get(path) else { return Ok(None) };
    let file = match zip.by_name(path) {
        Ok(file) => file,
        Err(zip::result::ZipError::FileNotFound) => anyhow::bail!("{path} is listed in the manifest but missing"),
        Err(err) => return Err(err.into()),
    };
    Ok(Some(Hashing { inner: file, hash: Sha256::new(), expected: sum.clone(), path: path.to_owned() }))
}

/// A reader that hashes what it reads; `finish` compares the hash with the manifest's.
struct Hashing<R> {
    inner: R,
    hash: Sha256,
    expected: String,
    path: String,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

impl<R: Read> Hashing<R> {
    fn finish(mut self) -> anyhow::Result<()> {
        std::io::copy(&mut self, &mut std::io::sink())?;
        let sum: String = self.hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        anyhow::ensure!(sum == self.expected, "{} does not match its checksum in the manifest (the archive was changed or damaged)", self.path);
        Ok(())
    }
}

fn read_json<R: Read + std::io::Seek>(zip: &mut zip::ZipArchive<R>, sums: &HashMap<String, String>, path: &str) -> anyhow::Result<Value> {
    let mut file = checked(zip, sums, path)?.with_context(|| format!("it has no {path}"))?;
    let mut bytes = Vec::new();
    (&mut file).take(MAX_JSON).read_to_end(&mut bytes)?;
    file.finish()?;
    serde_json::from_slice(&bytes).with_context(|| format!("{path} is not JSON"))
}

fn read_bytes<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    sums: &HashMap<String, String>,
    path: &str,
    max: u64,
) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(mut file) = checked(zip, sums, path)? else { return Ok(None) };
    let mut bytes = Vec::new();
    (&mut file).take(max + 1).read_to_end(&mut bytes)?;
    anyhow::ensure!(bytes.len() as u64 <= max, "{path} is larger than {max} bytes");
    file.finish()?;
    Ok(Some(bytes))
}

/// Each line of a JSON-lines file (a missing file has none).
fn read_lines<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    sums: &HashMap<String, String>,
    path: &str,
    mut each: impl FnMut(Value) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let Some(file) = checked(zip, sums, path)? else { return Ok(()) };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let read = (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line)?;
        if read == 0 {
            break;
        }
        anyhow::ensure!(line.ends_with(b"\n") || (read as u64) < MAX_LINE, "line {n} of {path} is too long");
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        each(serde_json::from_slice(&line).with_context(|| format!("line {n} of {path} is not JSON"))?)?;
    }
    reader.into_inner().finish()
}

/// What the reader thread sends, in order.
enum Batch {
    Departments(Vec<Value>),
    People(Vec<Value>),
    Reports(Vec<Value>),
    /// A spreadsheet's details, and its stored workbook (`None`: this archive has only its XLSX).
    Spreadsheet(Value, Option<Vec<u8>>),
    Audit(Vec<Value>),
}

/// Reads the archive's rows, in the order they are written.
fn read_rows(path: &Path, sums: &HashMap<String, String>, tx: &mpsc::Sender<anyhow::Result<Batch>>) -> anyhow::Result<()> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path)?)?;
    let send = |batch: Batch| tx.blocking_send(Ok(batch)).map_err(|_| anyhow::anyhow!("the import stopped"));
    let departments = read_json(&mut zip, sums, "departments.json")?;
    send(Batch::Departments(departments.as_array().cloned().context("departments.json is not a list")?))?;
    for (path, make) in [("people.jsonl", Batch::People as fn(Vec<Value>) -> Batch), ("reports.jsonl", Batch::Reports)] {
        let mut rows = Vec::with_capacity(BATCH);
        read_lines(&mut zip, sums, path, |row| {
            rows.push(row);
            if rows.len() == BATCH {
                send(make(std::mem::take(&mut rows)))?;
            }
            Ok(())
        })?;
        send(make(rows))?;
    }
    let sheets = read_json(&mut zip, sums, "spreadsheets.json")?;
    for sheet in sheets.as_array().cloned().context("spreadsheets.json is not a list")? {
        let id = uuid_of(&sheet, "id")?;
        let content = read_bytes(&mut zip, sums, &format!("spreadsheets/{id}.content"), MAX_SPREADSHEET)?;
        send(Batch::Spreadsheet(sheet, content))?;
    }
    let mut rows = Vec::with_capacity(BATCH);
    read_lines(&mut zip, sums, "audit.jsonl", |row| {
        rows.push(row);
        if rows.len() == BATCH {
            send(Batch::Audit(std::mem::take(&mut rows)))?;
        }
        Ok(())
    })?;
    send(Batch::Audit(rows))
}

/// The archive's ids, kept or consistently replaced.
struct Ids(HashMap<Uuid, Uuid>);

impl Ids {
    fn new(remap: bool, ids: impl IntoIterator<Item = Uuid>) -> Self {
        Self(if remap { ids.into_iter().map(|id| (id, Uuid::now_v7())).collect() } else { HashMap::new() })
    }

    fn id(&self, id: Uuid) -> Uuid {
        self.0.get(&id).copied().unwrap_or(id)
    }

    /// Replaces the ids under these keys.
    fn fix(&self, row: &mut Value, keys: &[&str]) {
        for key in keys {
            if let Some(id) = row.get(*key).and_then(Value::as_str).and_then(|s| s.parse::<Uuid>().ok()) {
                row[*key] = json!(self.id(id));
            }
        }
    }
}

/// `camelCase` keys (as the archive writes them) back to the columns' `snake_case`.
fn snake(value: Value) -> Value {
    let Value::Object(map) = value else { return value };
    Value::Object(
        map.into_iter()
            .map(|(key, value)| {
                let mut out = String::with_capacity(key.len() + 4);
                for c in key.chars() {
                    if c.is_ascii_uppercase() {
                        out.push('_');
                        out.push(c.to_ascii_lowercase());
                    } else {
                        out.push(c);
                    }
                }
                (out, value)
            })
            .collect(),
    )
}

/// Who asked for an import, and how.
pub struct Options {
    pub actor: Actor,
    /// Their name, as the invitations say it.
    pub inviter: String,
    /// Whether people are e-mailed an invitation to choose a password again.
    pub invite: bool,
}

/// What an import made (`ImportResult` in the API).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub enterprise_id: Uuid,
    pub ids_kept: bool,
    pub counts: HashMap<&'static str, u64>,
    pub invited: u64,
    /// What the archive holds that is not imported, and why.
    pub left_out: Vec<LeftOut>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct LeftOut {
    pub what: &'static str,
    pub why: &'static str,
}

/// What is never imported, and why.
const LEFT_OUT: [LeftOut; 3] = [
    LeftOut {
        what: "messenger",
        why: "The messenger is end-to-end encrypted and the archive holds no one's keys: its messages could not be read again.",
    },
    LeftOut { what: "webhooks", why: "The archive holds no signing secret: add the webhooks again, so that each gets a new secret." },
    LeftOut { what: "singleSignOn", why: "The archive holds no client secret, and domains must be proven again: set single sign-on up again." },
];

/// Progress, as `(percent, stage)`.
pub type Beat<'a> = &'a (dyn Fn(i32, &'static str) -> futures_util::future::BoxFuture<'static, ()> + Sync);

/// Re-creates the enterprise from the archive at `path` (already `inspect`ed) in one
/// transaction. A format-1 archive carries spreadsheets only evaluated, as XLSX: they are left
/// out, and said so.
pub async fn run(db: &PgPool, path: PathBuf, inspected: &Inspected, options: &Options, beat: Beat<'_>) -> anyhow::Result<Outcome> {
    let mut taken_ids = inspected.people_ids.clone();
    taken_ids.push(inspected.enterprise_id);
    let remap = !store::imports::ids_taken(db, &taken_ids).await?.is_empty();
    let ids = Ids::new(remap, taken_ids);
    let enterprise = ids.id(inspected.enterprise_id);
    let schema = SchemaName::for_enterprise(enterprise);

    let (tx_rows, mut rows) = mpsc::channel::<anyhow::Result<Batch>>(4);
    let reader = {
        let sums = inspected.sums.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(err) = read_rows(&path, &sums, &tx_rows) {
                let _ = tx_rows.blocking_send(Err(err));
            }
        })
    };

    let mut tx = db.begin().await?;
    store::imports::insert_enterprise(&mut tx, &inspected.about, enterprise, schema.as_str()).await?;
    tenancy::create_schema(&mut tx, &schema, Some(enterprise)).await?;
    tenancy::set_search_path(&mut tx, &schema).await?;
    let mut counts: HashMap<&'static str, u64> = HashMap::new();
    let mut invitees = Vec::new();
    let mut left_out: Vec<LeftOut> = LEFT_OUT.to_vec();
    let reports_expected = inspected.counts["reports"].as_u64().unwrap_or(0).max(1);
    let mut reports_done = 0u64;
    beat(5, "departments").await;
    while let Some(batch) = rows.recv().await {
        match batch? {
            Batch::Departments(list) => {
                let list: Vec<Value> = list
                    .into_iter()
                    .map(snake)
                    .map(|mut d| {
                        ids.fix(&mut d, &["head_id"]);
                        d
                    })
                    .collect();
                *counts.entry("departments").or_default() += store::imports::insert_rows(&mut tx, schema.as_str(), "departments", &list).await?;
                beat(8, "people").await;
            }
            Batch::People(list) => {
                let mut people = Vec::with_capacity(list.len());
                for person in list {
                    let mut p = snake(person);
                    ids.fix(&mut p, &["id"]);
                    p["enterprise_id"] = json!(enterprise);
                    // Format 1 did not say who was erased: their address says it.
                    if p["erased_at"].is_null() && p["email"].as_str().is_some_and(|e| e.ends_with("@erased.invalid")) {
                        p["erased_at"] = p["updated_at"].clone();
                    }
                    if let Some(object) = p.as_object_mut() {
                        object.remove("password_hash");
                    }
                    if p["status"] == "active" && p["erased_at"].is_null() {
                        invitees.push(uuid_of(&p, "id")?);
                    }
                    people.push(p);
                }
                *counts.entry("people").or_default() += store::imports::insert_rows(&mut tx, "public", "users", &people).await?;
            }
            Batch::Reports(list) => {
                // The platform's ledger of report transitions (`public.report_transitions`, which
                // finds a report's enterprise and counts reports across tenants) is rebuilt from
                // each report's history.
                let (mut reports, mut events, mut transitions) = (Vec::with_capacity(list.len()), Vec::new(), Vec::new());
                for report in list {
                    let mut r = snake(report);
                    ids.fix(&mut r, &["created_by", "reviewed_by"]);
                    let id = r["id"].clone();
                    let history = match r.as_object_mut().and_then(|o| o.remove("history")) {
                        Some(Value::Array(history)) => history,
                        _ => Vec::new(),
                    };
                    if history.is_empty() {
                        transitions.push(json!({ "id": Uuid::now_v7(), "enterprise_id": enterprise, "report_id": id, "to_status": r["status"], "at": r["created_at"] }));
                    }
                    for event in history {
                        let mut e = snake(event);
                        ids.fix(&mut e, &["actor_id"]);
                        e["report_id"] = id.clone();
                        transitions.push(json!({ "id": Uuid::now_v7(), "enterprise_id": enterprise, "report_id": id, "to_status": e["to_status"], "at": e["created_at"] }));
                        events.push(e);
                    }
                    reports.push(r);
                }
                reports_done += store::imports::insert_rows(&mut tx, schema.as_str(), "reports", &reports).await?;
                *counts.entry("reportEvents").or_default() += store::imports::insert_rows(&mut tx, schema.as_str(), "report_events", &events).await?;
                store::imports::insert_rows(&mut tx, "public", "report_transitions", &transitions).await?;
                beat(10 + (60 * reports_done / reports_expected) as i32, "reports").await;
            }
            Batch::Spreadsheet(sheet, content) => {
                let mut s = snake(sheet);
                ids.fix(&mut s, &["created_by", "updated_by"]);
                let Some(content) = content else {
                    left_out.push(LeftOut {
                        what: "spreadsheet",
                        why: "This archive (format 1) holds its spreadsheets only as XLSX files: import them from spreadsheets/ by hand.",
                    });
                    continue;
                };
                if s["engine_version"].is_null() {
                    s["engine_version"] = json!(crate::spreadsheet::ENGINE_VERSION);
                }
                s["content"] = json!(format!("\\x{}", hex(&content)));
                *counts.entry("spreadsheets").or_default() += store::imports::insert_rows(&mut tx, schema.as_str(), "spreadsheets", &[s]).await?;
                beat(75, "spreadsheets").await;
            }
            Batch::Audit(list) => {
                let entries: Vec<Value> = list
                    .into_iter()
                    .map(|entry| {
                        let mut e = snake(entry);
                        ids.fix(&mut e, &["actor_id", "target_id"]);
                        if remap {
                            let at = e["at"].as_str().and_then(|at| at.parse::<DateTime<Utc>>().ok()).unwrap_or_else(Utc::now);
                            let ts = uuid::Timestamp::from_unix(uuid::NoContext, at.timestamp().max(0) as u64, at.timestamp_subsec_nanos());
                            e["id"] = json!(Uuid::new_v7(ts));
                        }
                        e["enterprise_id"] = json!(enterprise);
                        e
                    })
                    .collect();
                *counts.entry("auditEvents").or_default() += store::imports::insert_rows(&mut tx, "public", "audit_events", &entries).await?;
                beat(85, "audit").await;
            }
        }
    }
    reader.await.context("the archive's reader panicked")?;
    counts.insert("reports", reports_done);

    beat(90, "invitations").await;
    sqlx::query("select set_config('search_path', 'public', true)").execute(&mut *tx).await?;
    if options.invite {
        let inviter = crate::accounts::Inviter { id: options.actor.id, name: &options.inviter };
        for person in &invitees {
            crate::accounts::invite(&mut tx, *person, Some((enterprise, &inspected.name)), &inviter).await?;
        }
    }
    let outcome =
        Outcome { enterprise_id: enterprise, ids_kept: !remap, counts, invited: if options.invite { invitees.len() as u64 } else { 0 }, left_out };
    let target = store::audit::Target::new("enterprise", enterprise, &inspected.name);
    store::audit::insert(
        &mut tx,
        &options.actor,
        Some(enterprise),
        "enterprise.imported",
        Some(target),
        json!({
            "formatVersion": inspected.format, "idsKept": outcome.ids_kept, "counts": outcome.counts, "invited": outcome.invited,
        }),
    )
    .await?;
    tx.commit().await?;
    Ok(outcome)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A running import whose instance has not written progress for this long failed with it.
pub const STALE_AFTER: chrono::Duration = chrono::Duration::minutes(3);

/// Runs import `job` on this instance, from its own copy of the archive (deleted afterwards).
pub fn start(db: &sqlx::PgPool, job: Uuid, archive: tempfile::TempPath, inspected: Inspected, options: Options) {
    let db = db.clone();
    tokio::spawn(async move {
        let beat_db = db.clone();
        let beat = move |progress: i32, stage: &'static str| -> futures_util::future::BoxFuture<'static, ()> {
            let db = beat_db.clone();
            Box::pin(async move {
                if let Err(err) = store::imports::progress(&db, job, progress, stage, Utc::now()).await {
                    tracing::warn!(error = %err, import_id = %job, "an import's progress could not be written");
                }
            })
        };
        let started = std::time::Instant::now();
        let outcome = run(&db, archive.to_path_buf(), &inspected, &options, &beat).await;
        drop(archive);
        let written = match outcome {
            Ok(outcome) => {
                metrics::counter!("enterprise_imports_total", "result" => "ready").increment(1);
                tracing::info!(import_id = %job, enterprise_id = %outcome.enterprise_id, elapsed_ms = started.elapsed().as_millis() as u64, "enterprise imported");
                let result = serde_json::to_value(&outcome).unwrap_or_default();
                store::imports::ready(&db, job, outcome.enterprise_id, &result, Utc::now()).await
            }
            Err(err) => {
                metrics::counter!("enterprise_imports_total", "result" => "failed").increment(1);
                // A damaged archive is the uploader's to fix (a warning); the platform failing, ours.
                if err.downcast_ref::<sqlx::Error>().is_some_and(|db| !bad_data(db)) {
                    tracing::error!(import_id = %job, error = ?err, "an enterprise import failed");
                } else {
                    tracing::warn!(import_id = %job, error = %format!("{err:#}"), "an enterprise archive could not be imported");
                }
                store::imports::failed(&db, job, &explain(&err), Utc::now()).await
            }
        };
        if let Err(err) = written {
            tracing::error!(import_id = %job, error = %err, "an import's outcome could not be written");
        }
    });
}

/// Why an import failed, in words for the admin: what is wrong with the archive, or that the
/// platform failed (its details go to the log only).
pub fn explain(err: &anyhow::Error) -> String {
    match err.downcast_ref::<sqlx::Error>() {
        Some(db) if store::enterprises::is_duplicate_name(db) => "An enterprise with this name already exists.".to_owned(),
        Some(db) if store::users::is_duplicate_email(db) => "An address of the archive's people is already used by an account here.".to_owned(),
        Some(db) if bad_data(db) => format!(
            "The archive's data does not fit this platform, and nothing of it was kept: {}.",
            db.as_database_error().map(|e| e.message().to_owned()).unwrap_or_default()
        ),
        Some(_) => {
            "The enterprise could not be written, and nothing of it was kept. Try again; if it fails again, tell the platform's operators.".to_owned()
        }
        None => format!("The archive could not be imported, and nothing of it was kept: {err:#}."),
    }
}

/// A value the database refused as data (class 22) or as breaking a rule (class 23): the
/// archive's rows, not the platform, are wrong.
fn bad_data(err: &sqlx::Error) -> bool {
    err.as_database_error().and_then(|e| e.code()).is_some_and(|code| code.starts_with("22") || code.starts_with("23"))
}
