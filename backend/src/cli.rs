//! The `backend` binary's subcommands.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::{
    app, auth::password, config::Config, db,
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
    /// Create the database if needed and apply pending migrations.
    Migrate,
    /// Print the OpenAPI document to stdout.
    Openapi,
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
        Command::Openapi => unreachable!("handled without a runtime"),
        Command::Serve => {
            let config = Config::from_env()?;
            let pool = db::migrate(&config.database_url).await?;
            app::serve(AppState::with_pool(config, pool)?).await
        }
        Command::Migrate => {
            let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| crate::config::DEFAULT_DATABASE_URL.into());
            db::migrate(&url).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::CreateAdmin { email, password, full_name, if_none_exists } => {
            let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| crate::config::DEFAULT_DATABASE_URL.into());
            let pool = db::migrate(&url).await?;
            if if_none_exists && store::users::any_platform_admin(&pool).await? {
                println!("A platform administrator already exists; none created.");
                return Ok(());
            }
            let mut errors = FieldErrors::new();
            let email = errors.check("email", Email::parse(&email));
            let password = errors.check("password", Password::parse(&password));
            let full_name = full_name.trim();
            if full_name.is_empty() {
                errors.check::<()>("fullName", Err(crate::domain::FieldIssue::Required));
            }
            let (Some(email), Some(password)) = (email, password) else {
                let list: Vec<String> = errors.iter().map(|(f, i)| format!("{f}: {}", i.code())).collect();
                anyhow::bail!("invalid input: {}", list.join(", "));
            };
            if !errors.is_empty() {
                anyhow::bail!("invalid input: fullName: required");
            }
            let hash = password::hash(&password).await?;
            let new = store::users::NewUser {
                enterprise_id: None,
                department_id: None,
                role: Role::PlatformAdmin,
                full_name,
                email: &email,
                password_hash: &hash,
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
