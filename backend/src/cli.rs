//! The `backend` binary's subcommands.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::{
    app,
    auth::password,
    config::Config,
    db,
    domain::{Email, FieldErrors, Password, Role},
    state::AppState,
    store,
};

#[derive(Parser)]
#[command(name = "backend", version, about = "Enterprise platform server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API and the web app (migrates first).
    Serve,
    /// Create the database if needed and bring the public schema and every tenant schema up to date.
    Migrate {
        /// How many tenant schemas to migrate at once.
        #[arg(long, default_value_t = 4)]
        parallelism: usize,
        /// Tenant migrations from this folder instead of the ones built in (to rehearse a release).
        #[arg(long, hide = true)]
        tenant_migrations: Option<std::path::PathBuf>,
    },
    /// Create two demo enterprises with CEOs, department heads and users (idempotent).
    SeedDemo,
    /// Re-seal every secret stored at rest with the newest key of DATA_ENCRYPTION_KEYS, in small
    /// batches (stopped, it resumes where it was; safe beside running servers). Afterwards older
    /// keys may leave the ring.
    Rekey,
    /// Re-create an enterprise from the archive its export wrote (docs/api.md, "A tenant's
    /// life"), as `POST /enterprises/imports` does; prints the new enterprise's id.
    ImportEnterprise {
        /// The archive (.zip).
        archive: std::path::PathBuf,
        /// Do not e-mail the people an invitation to choose a password again.
        #[arg(long)]
        no_invitations: bool,
    },
    /// Recompute the activity per user from the sessions (after sessions were written by hand,
    /// e.g. by bench/places.sh).
    RebuildActivity,
    /// Print the OpenAPI document to stdout.
    Openapi,
    /// Write a workbook of the spreadsheet engine to stdout: `rows` x `columns` numbers, each row
    /// ending with its SUM (benchmarks).
    #[command(hide = true)]
    SampleWorkbook {
        #[arg(long, default_value_t = 100)]
        rows: i32,
        #[arg(long, default_value_t = 100)]
        columns: i32,
    },
    /// Run one spreadsheet engine job from stdin (the server starts this; see spreadsheet/worker.rs).
    #[command(hide = true)]
    SpreadsheetEngine,
    /// Create a platform administrator.
    CreateAdmin {
        #[arg(long)]
        email: String,
        /// Read from ADMIN_PASSWORD when not given, so it stays out of the process list.
        #[arg(long, env = "ADMIN_PASSWORD", hide_env_values = true)]
        password: String,
        #[arg(long)]
        full_name: String,
        /// Do nothing when a platform administrator already exists.
        #[arg(long)]
        if_none_exists: bool,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Openapi = cli.command {
        print!("{}", crate::api::spec_json());
        return ExitCode::SUCCESS;
    }
    if let Command::SampleWorkbook { rows, columns } = cli.command {
        use std::io::Write;
        return match std::io::stdout().write_all(&crate::spreadsheet::sample(rows, columns)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    if let Command::SpreadsheetEngine = cli.command {
        return crate::spreadsheet::worker::serve_stdio();
    }
    crate::telemetry::init();
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    match runtime.block_on(run(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err:#}");
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Openapi | Command::SampleWorkbook { .. } | Command::SpreadsheetEngine => unreachable!("handled without a runtime"),
        Command::Serve => {
            let config = Config::from_env()?;
            let pool = db::migrate(&config.database_url).await?;
            let pending = crate::tenancy::migrate::pending(&pool, &crate::tenancy::TENANT_MIGRATIONS).await?;
            if !pending.is_empty() {
                tracing::warn!(tenants = pending.len(), "tenant schemas are behind; run `backend migrate`");
            }
            app::serve(AppState::new(config, pool)?).await
        }
        Command::Migrate { parallelism, tenant_migrations } => migrate(&database_url(), parallelism, tenant_migrations).await,
        Command::SeedDemo => {
            let keys = crate::sealed::KeyRing::from_env(false)?;
            crate::seed::seed_demo(&db::migrate(&database_url()).await?, &keys).await
        }
        Command::Rekey => {
            let keys = crate::sealed::KeyRing::from_env(false)?;
            let pool = db::migrate(&database_url()).await?;
            crate::sealed::prepare(&pool, &keys).await?;
            let resealed = crate::sealed::reseal(&pool, &keys, crate::sealed::Reseal::NotNewest).await?;
            println!("{resealed} secret(s) sealed again with key v{}; every secret is now sealed with it", keys.newest());
            Ok(())
        }
        Command::ImportEnterprise { archive, no_invitations } => import_enterprise(archive, !no_invitations).await,
        Command::RebuildActivity => Ok(store::sessions::rebuild_activity(&db::migrate(&database_url()).await?).await?),
        Command::CreateAdmin { email, password, full_name, if_none_exists } => {
            let pool = db::migrate(&database_url()).await?;
            if if_none_exists && store::users::any_platform_admin(&pool).await? {
                println!("A platform administrator already exists; none created.");
                return Ok(());
            }
            let mut errors = FieldErrors::new();
            let email = errors.check("email", Email::parse(&email));
            let password = errors.check("password", Password::parse(&password));
            let full_name = errors.check("fullName", crate::domain::text::line(&full_name, crate::domain::text::MAX_NAME));
            let (Some(email), Some(password), Some(full_name)) = (email, password, full_name) else {
                let list: Vec<String> = errors.iter().map(|(f, i)| format!("{f}: {}", i.code())).collect();
                anyhow::bail!("invalid input: {}", list.join(", "));
            };
            let hash = password::hash(&password).await?;
            let new = store::users::NewUser {
                enterprise_id: None,
                department_id: None,
                role: Role::PlatformAdmin,
                full_name,
                email: &email,
                password_hash: Some(&hash),
                locale: Default::default(),
            };
            match store::users::insert(&pool, new).await {
                Ok(_) => {
                    println!("Platform administrator {email} created.");
                    Ok(())
                }
                Err(e) if store::users::is_duplicate_email(&e) => anyhow::bail!("a user with e-mail {email} already exists"),
                Err(e) => Err(e).context("cannot create the administrator"),
            }
        }
    }
}

async fn import_enterprise(archive: std::path::PathBuf, invite: bool) -> anyhow::Result<()> {
    use crate::enterprise_import;
    let pool = db::migrate(&database_url()).await?;
    let path = archive.clone();
    let inspected = tokio::task::spawn_blocking(move || enterprise_import::inspect(&path)).await??;
    if store::enterprises::name_taken(&pool, &inspected.name).await? {
        anyhow::bail!("an enterprise named {:?} already exists here", inspected.name);
    }
    let taken = store::imports::emails_taken(&pool, &inspected.emails).await?;
    if !taken.is_empty() {
        anyhow::bail!("accounts here already use addresses of the archive's people: {}", taken.join(", "));
    }
    let actor = store::audit::Actor { kind: "system", id: None, ip: None, place: None, user_agent: None };
    let options = enterprise_import::Options { actor, inviter: "The platform".to_owned(), invite };
    let beat = |progress: i32, stage: &'static str| -> futures_util::future::BoxFuture<'static, ()> {
        Box::pin(async move { eprintln!("  {progress:>3}% {stage}") })
    };
    let outcome = enterprise_import::run(&pool, archive, &inspected, &options, &beat).await.map_err(|e| {
        tracing::error!(error = ?e, "the import failed");
        anyhow::anyhow!(enterprise_import::explain(&e))
    })?;
    for left in &outcome.left_out {
        eprintln!("left out: {}: {}", left.what, left.why);
    }
    eprintln!(
        "{} imported ({}; {} invited)",
        inspected.name,
        if outcome.ids_kept { "its ids kept" } else { "new ids: one was already used here" },
        outcome.invited
    );
    println!("{}", outcome.enterprise_id);
    Ok(())
}

fn database_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| crate::config::DEFAULT_DATABASE_URL.into())
}

/// Public schema first, then every tenant behind the newest tenant migration, with progress on
/// the terminal and a line per failed tenant. Fails (exit 1) when any tenant failed; running
/// again resumes with the tenants still behind.
async fn migrate(url: &str, parallelism: usize, folder: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let pool = db::migrate(url).await?;
    println!("public schema up to date");
    let from_folder = match folder {
        Some(dir) => Some(sqlx::migrate::Migrator::new(dir).await.context("cannot read the tenant migrations")?),
        None => None,
    };
    let migrations = from_folder.as_ref().unwrap_or(&crate::tenancy::TENANT_MIGRATIONS);
    let summary = crate::tenancy::migrate::migrate_all(&pool, migrations, parallelism, |done, total, outcome| {
        if let Err(e) = &outcome.result {
            println!("  {}: FAILED: {e}", outcome.schema);
        }
        if done == total || done % 100 == 0 {
            println!("  tenants {done}/{total}");
        }
    })
    .await?;
    println!(
        "tenant schemas: {} migrated, {} already up to date, {} failed ({:.2} s)",
        summary.migrated,
        summary.up_to_date,
        summary.failed.len(),
        started.elapsed().as_secs_f64()
    );
    if !summary.failed.is_empty() {
        anyhow::bail!("{} tenant schema(s) failed to migrate; fix and run `backend migrate` again", summary.failed.len());
    }
    let distributed = crate::tenancy::citus::distribute_schemas(&pool).await.context("cannot distribute the tenant schemas on Citus")?;
    if distributed > 0 {
        println!("Citus: {distributed} tenant schema(s) distributed");
    }
    Ok(())
}
