//! A fresh PostgreSQL database for each test, copied from a template.
//!
//! Migrating a new database (and building the platform realm's schema) took 0.77 s a test; a
//! `CREATE DATABASE … TEMPLATE` copy of one built once takes 0.21 s. The template is named after
//! the checksums of the public and tenant migrations (the template holds the platform realm's
//! schema too), so it is built again only when a migration changes, and a template
//! of older migrations is dropped then. Each test's database is dropped when the test passes and
//! kept for a look when it fails (the next run drops what earlier runs left).

use std::time::Duration;

use sqlx::{
    Connection, Executor, PgConnection, PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};
use tokio::sync::OnceCell;

/// The prefix of every database this module makes (PostgreSQL folds nothing: names are quoted).
const PREFIX: &str = "api_test_";

static TEMPLATE: OnceCell<String> = OnceCell::const_new();

fn server() -> PgConnectOptions {
    let url = std::env::var("DATABASE_URL").expect("DATABASE_URL: a PostgreSQL server the tests may create databases on");
    url.parse().expect("DATABASE_URL")
}

/// A migrated database of its own, and the guard that drops it at the end of a passing test.
///
/// With `API_TESTS_MIGRATE_EACH=1` each database is made from `template1` and migrated instead:
/// on Citus, where a copied database would not carry its distributed tables to the workers
/// (docs/scaling.md).
pub async fn test_database() -> (PgPool, DropDatabase) {
    let migrate_each = std::env::var("API_TESTS_MIGRATE_EACH").is_ok_and(|v| v == "1");
    let name = format!("{PREFIX}{}", uuid::Uuid::now_v7().simple());
    let create = if migrate_each {
        format!(r#"create database "{name}""#)
    } else {
        let template = TEMPLATE.get_or_init(build_template).await;
        format!(r#"create database "{name}" template "{template}""#)
    };
    let mut master = PgConnection::connect_with(&server()).await.expect("connect to DATABASE_URL");
    master.execute(sqlx::AssertSqlSafe(create)).await.expect("create the test database");
    master.close().await.ok();
    if migrate_each {
        let pool = PgPoolOptions::new().max_connections(1).connect_with(server().database(&name)).await.expect("connect");
        backend::db::MIGRATOR.run(&pool).await.expect("migrate the test database");
        pool.close().await;
    }
    // As sqlx::test gave each test: five connections, idle ones closed after a second.
    let pool = PgPoolOptions::new()
        .max_connections(5)
        .idle_timeout(Duration::from_secs(1))
        .connect_with(server().database(&name))
        .await
        .expect("connect to the test database");
    (pool, DropDatabase(name))
}

/// Builds the template once per run (under an advisory lock, so that two test processes share
/// one), after dropping what earlier runs left.
async fn build_template() -> String {
    use sha2::{Digest, Sha256};
    let mut migrations = Sha256::new();
    for migration in backend::db::MIGRATOR.iter().chain(backend::tenancy::TENANT_MIGRATIONS.iter()) {
        migrations.update(migration.version.to_be_bytes());
        migrations.update(&migration.checksum);
    }
    let sum = format!("{:x}", migrations.finalize());
    let name = format!("{PREFIX}template_{}", &sum[..16]);
    let mut master = PgConnection::connect_with(&server()).await.expect("connect to DATABASE_URL");
    // 'api_test_' as eight bytes.
    master.execute("select pg_advisory_lock(7020393484052361055)").await.expect("lock");
    let leftovers: Vec<String> = sqlx::query_scalar("select datname from pg_database where datname like 'api\\_test\\_%' and datname <> $1")
        .bind(&name)
        .fetch_all(&mut master)
        .await
        .expect("list databases");
    for old in leftovers {
        // In use by another run (its tests' databases): left to that run.
        let _ = master.execute(sqlx::AssertSqlSafe(format!(r#"drop database if exists "{old}""#))).await;
    }
    let exists: bool = sqlx::query_scalar("select exists (select 1 from pg_database where datname = $1)")
        .bind(&name)
        .fetch_one(&mut master)
        .await
        .expect("look for the template");
    if !exists {
        // Built under another name and renamed when whole: a run stopped halfway leaves no
        // template that looks ready.
        let building = format!("{name}_building");
        master.execute(sqlx::AssertSqlSafe(format!(r#"drop database if exists "{building}" with (force)"#))).await.expect("drop");
        master.execute(sqlx::AssertSqlSafe(format!(r#"create database "{building}""#))).await.expect("create the template");
        let pool = PgPoolOptions::new().max_connections(1).connect_with(server().database(&building)).await.expect("connect");
        backend::db::MIGRATOR.run(&pool).await.expect("migrate the template");
        backend::db::prepare(&pool).await.expect("the platform realm's schema");
        pool.close().await;
        master.execute(sqlx::AssertSqlSafe(format!(r#"alter database "{building}" rename to "{name}""#))).await.expect("name the template");
    }
    master.execute("select pg_advisory_unlock(7020393484052361055)").await.expect("unlock");
    master.close().await.ok();
    name
}

/// Drops its test's database when the test passes (on another thread: `Drop` cannot wait for
/// the test's own runtime).
pub struct DropDatabase(String);

impl Drop for DropDatabase {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the failed test's database is kept: {}", self.0);
            return;
        }
        let name = std::mem::take(&mut self.0);
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async {
                let mut master = PgConnection::connect_with(&server()).await?;
                master.execute(sqlx::AssertSqlSafe(format!(r#"drop database if exists "{name}" with (force)"#))).await?;
                master.close().await
            })
        })
        .join();
        if let Ok(Err(error)) = dropped {
            eprintln!("the test's database could not be dropped: {error}");
        }
    }
}
