//! The spreadsheet engine runs in a worker process (`backend spreadsheet-engine`), one per job, so
//! that its work can be stopped whatever it is doing: IronCalc's evaluation cannot be interrupted
//! from inside, and a thread cannot be killed. The server
//!
//! - kills a job at its deadline (`SPREADSHEET_TIMEOUT_SECS`, 5 s) and when its resident memory
//!   passes `SPREADSHEET_MAX_MEMORY_MB` (512), answering why;
//! - kills it when the request is gone (its connection ended: `connection::Gone`; the job's
//!   future is dropped, and with it the worker: `kill_on_drop`), and at shutdown (no blocking
//!   thread of the server runs engine work, so nothing holds the process);
//! - runs at most one job per core at once, in slots of their own (report exports have theirs),
//!   and at most one job per enterprise, so that one enterprise's workbooks never hold every slot.
//!
//! The protocol is one request on stdin (a JSON line naming the job, then the bytes) and one
//! answer on stdout (a JSON line, then the bytes). The worker gets no environment: it never sees
//! a secret.

use std::{
    collections::HashMap,
    io::{Read, Write},
    path::PathBuf,
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    sync::{OwnedSemaphorePermit, Semaphore},
};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::SheetError;

/// What the worker is asked to do with the bytes it is given.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    /// Bytes a browser saved: a workbook of this engine version within the limits.
    Check,
    /// The workbook as an XLSX file.
    Xlsx,
    /// One sheet as CSV.
    Csv { sheet: Option<String> },
    /// A workbook from an XLSX file.
    Import { name: String },
    /// A range's values as a report's data table.
    Range { sheet: Option<String>, range: String },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
enum Answer {
    /// The bytes follow the line.
    Bytes,
    Range {
        columns: Vec<String>,
        rows: Vec<Vec<Value>>,
    },
    Refused {
        error: SheetError,
    },
}

/// What a job gives back.
#[derive(Debug)]
pub enum Output {
    Bytes(Vec<u8>),
    Range(Vec<String>, Vec<Vec<Value>>),
}

/// Why a job gave nothing back.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The workbook is refused (not a workbook, too large, too costly, out of time or memory).
    #[error("{0}")]
    Sheet(SheetError),
    /// Every slot (or this enterprise's one) stayed busy for `SLOT_WAIT`.
    #[error("the spreadsheet engine is busy")]
    Busy,
    /// The client went away: the worker was stopped.
    #[error("the client has gone")]
    Gone,
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// How long a job waits for its slots before it is told to come back (503).
const SLOT_WAIT: Duration = Duration::from_secs(10);
/// How often a running worker's memory is read.
const MEMORY_POLL: Duration = Duration::from_millis(20);

#[derive(Clone, Debug)]
pub struct EngineLimits {
    /// The `backend` binary that runs `spreadsheet-engine` (this process's own, unless a test
    /// names it).
    pub program: PathBuf,
    pub deadline: Duration,
    pub max_memory_bytes: u64,
}

/// The server's side: slots, and the workers it starts.
pub struct Engine {
    limits: EngineLimits,
    /// Workers alive now (the `spreadsheet_workers` gauge).
    running: Arc<std::sync::atomic::AtomicUsize>,
    slots: Arc<Semaphore>,
    tenants: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
}

impl Engine {
    pub fn new(limits: EngineLimits) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self { limits, running: Arc::default(), slots: Arc::new(Semaphore::new(cores)), tenants: Mutex::default() }
    }

    /// Runs `job` on `input` for the enterprise (`None`: the platform realm) in a worker.
    /// It stops when `gone` is cancelled (the request's connection ended).
    pub async fn run(&self, tenant: Option<Uuid>, job: Job, input: &[u8], gone: &CancellationToken) -> Result<Output, EngineError> {
        let key = tenant.unwrap_or_default();
        let tenant_slot = self.tenant_slot(key);
        let result = async {
            let _tenant = acquire(tenant_slot.clone()).await?;
            let _slot = acquire(self.slots.clone()).await?;
            tokio::select! {
                done = self.spawn(job, input) => done,
                () = gone.cancelled() => Err(EngineError::Gone),
            }
        }
        .await;
        self.forget_idle(key, tenant_slot);
        result
    }

    /// How many workers are alive now.
    pub fn running(&self) -> usize {
        self.running.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn tenant_slot(&self, tenant: Uuid) -> Arc<Semaphore> {
        self.tenants.lock().expect("tenants lock").entry(tenant).or_insert_with(|| Arc::new(Semaphore::new(1))).clone()
    }

    /// Drops an enterprise's semaphore once nobody holds or waits for it.
    fn forget_idle(&self, tenant: Uuid, slot: Arc<Semaphore>) {
        let mut tenants = self.tenants.lock().expect("tenants lock");
        // The map's reference and `slot`: nobody else waits.
        if Arc::strong_count(&slot) == 2 && slot.available_permits() == 1 {
            tenants.remove(&tenant);
        }
    }

    async fn spawn(&self, job: Job, input: &[u8]) -> Result<Output, EngineError> {
        let mut child = tokio::process::Command::new(&self.limits.program)
            .arg("spreadsheet-engine")
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start the spreadsheet engine: {e}"))?;
        let pid = child.id();
        let _alive = Alive::new(self.running.clone());
        let mut stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let header = serde_json::to_vec(&job).map_err(anyhow::Error::from)?;
        let exchange = async move {
            let write = async move {
                stdin.write_all(&header).await?;
                stdin.write_all(b"\n").await?;
                stdin.write_all(input).await?;
                stdin.shutdown().await
            };
            let mut answer = Vec::new();
            // A worker that dies early closes its stdin: what it said (or did not) decides.
            let (_, read) = tokio::join!(write, stdout.read_to_end(&mut answer));
            read.map(|_| answer)
        };
        let outcome = tokio::select! {
            answer = tokio::time::timeout(self.limits.deadline, exchange) => answer,
            () = over_memory(pid, self.limits.max_memory_bytes) => {
                let _ = child.kill().await;
                return Err(EngineError::Sheet(SheetError::OutOfMemory));
            }
        };
        let Ok(answer) = outcome else {
            let _ = child.kill().await;
            return Err(EngineError::Sheet(SheetError::TooSlow));
        };
        let answer = answer.map_err(anyhow::Error::from)?;
        let status = child.wait().await.map_err(anyhow::Error::from)?;
        let split = answer.iter().position(|b| *b == b'\n');
        let (Some(split), true) = (split, status.success()) else {
            // A worker that ran out of memory before the watchdog saw it (allocation failure).
            return Err(anyhow::anyhow!("the spreadsheet engine stopped without an answer ({status})").into());
        };
        match serde_json::from_slice::<Answer>(&answer[..split]).map_err(anyhow::Error::from)? {
            Answer::Bytes => Ok(Output::Bytes(answer[split + 1..].to_vec())),
            Answer::Range { columns, rows } => Ok(Output::Range(columns, rows)),
            Answer::Refused { error } => Err(EngineError::Sheet(error)),
        }
    }
}

/// Counts a worker as alive until its job's future ends (completed or dropped: the worker is then
/// killed with it).
struct Alive(Arc<std::sync::atomic::AtomicUsize>);

impl Alive {
    fn new(count: Arc<std::sync::atomic::AtomicUsize>) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

async fn acquire(semaphore: Arc<Semaphore>) -> Result<OwnedSemaphorePermit, EngineError> {
    tokio::time::timeout(SLOT_WAIT, semaphore.acquire_owned()).await.ok().and_then(Result::ok).ok_or(EngineError::Busy)
}

/// Completes when the process's resident memory passes `max` bytes (never, if it cannot be read:
/// the process has ended, or this is not Linux).
async fn over_memory(pid: Option<u32>, max: u64) {
    let Some(pid) = pid else { return std::future::pending().await };
    let path = format!("/proc/{pid}/status");
    loop {
        tokio::time::sleep(MEMORY_POLL).await;
        let Ok(status) = tokio::fs::read_to_string(&path).await else { return std::future::pending().await };
        let rss_kib = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
        if rss_kib.is_some_and(|kib| kib * 1024 > max) {
            return;
        }
    }
}

/// The worker's side (`backend spreadsheet-engine`): reads one job from stdin, answers on stdout.
pub fn serve_stdio() -> std::process::ExitCode {
    let mut request = Vec::new();
    if std::io::stdin().read_to_end(&mut request).is_err() {
        return std::process::ExitCode::FAILURE;
    }
    let Some(split) = request.iter().position(|b| *b == b'\n') else { return std::process::ExitCode::FAILURE };
    let Ok(job) = serde_json::from_slice::<Job>(&request[..split]) else { return std::process::ExitCode::FAILURE };
    let input = &request[split + 1..];
    let (answer, bytes) = match perform(job, input) {
        Ok(Output::Bytes(bytes)) => (Answer::Bytes, bytes),
        Ok(Output::Range(columns, rows)) => (Answer::Range { columns, rows }, Vec::new()),
        Err(error) => (Answer::Refused { error }, Vec::new()),
    };
    let mut out = std::io::stdout().lock();
    let written =
        serde_json::to_writer(&mut out, &answer).is_ok() && out.write_all(b"\n").is_ok() && out.write_all(&bytes).is_ok() && out.flush().is_ok();
    if written { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}

fn perform(job: Job, input: &[u8]) -> Result<Output, SheetError> {
    match job {
        Job::Check => super::check(input).map(|()| Output::Bytes(Vec::new())),
        Job::Xlsx => super::to_xlsx(input).map(Output::Bytes),
        Job::Csv { sheet } => super::to_csv(input, sheet.as_deref()).map(Output::Bytes),
        Job::Import { name } => super::from_xlsx(input, &name).map(Output::Bytes),
        Job::Range { sheet, range } => super::range(input, sheet.as_deref(), &range).map(|(c, r)| Output::Range(c, r)),
    }
}
