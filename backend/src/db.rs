use std::time::Duration;

use anyhow::Context;
use sqlx::{
    PgPool,
    migrate::{MigrateDatabase, Migrator},
    postgres::{PgConnectOptions, PgPoolOptions},
};

/// The public-schema migrations (`migrations/`), embedded at build time.
pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// How long one statement of a request may run before PostgreSQL cancels it (a 503 for the
/// client, instead of a request hung behind a stuck lock or query). Migrations lift it.
pub const STATEMENT_TIMEOUT: &str = "15s";

pub fn pool(url: &str) -> anyhow::Result<PgPool> {
    let options: PgConnectOptions = url.parse().context("invalid DATABASE_URL")?;
    Ok(pool_with(options.options([("statement_timeout", STATEMENT_TIMEOUT)]), 20))
}

/// Connections of the pool that builds and drops tenant schemas (`AppState::tenant_ddl`).
pub const TENANT_DDL_CONNECTIONS: u32 = 4;

/// A pooled connection idle for longer than this is pinged before it is handed out (PostgreSQL's
/// and Redis' pools alike).
pub const PING_WHEN_IDLE_FOR: Duration = Duration::from_secs(2);

pub fn pool_with(options: PgConnectOptions, max_connections: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // sqlx pings every connection it hands out: one more round trip per query under load
        // (bench/mixed.sh). A connection in use moments ago is handed out as is; one that sat
        // idle is still checked first. A connection that died meanwhile (PostgreSQL restarted)
        // fails its request with a 503, like any database error, and is not returned to the pool.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for > PING_WHEN_IDLE_FOR {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(options)
}

/// Creates the database when it does not exist yet, then applies pending public-schema
/// migrations and makes sure the platform realm's schema exists. Tenant schemas are brought up to
/// date by `tenancy::migrate` (`backend migrate`).
pub async fn migrate(url: &str) -> anyhow::Result<PgPool> {
    if !sqlx::Postgres::database_exists(url).await.context("cannot reach PostgreSQL")? {
        tracing::info!("creating the database");
        sqlx::Postgres::create_database(url).await.context("cannot create the database")?;
    }
    // Migrations may run long: their connection has no statement timeout (and is closed after).
    let options: PgConnectOptions = url.parse().context("invalid DATABASE_URL")?;
    let migrations = pool_with(options, 1);
    MIGRATOR.run(&migrations).await.context("migration failed")?;
    migrations.close().await;
    let pool = pool(url)?;
    prepare(&pool).await?;
    Ok(pool)
}

/// What the public-schema migrations cannot do: on Citus, the shared tables tenants join become
/// reference tables (`tenancy::citus`); then the platform realm's schema is made if missing.
pub async fn prepare(pool: &PgPool) -> anyhow::Result<()> {
    crate::tenancy::citus::prepare_shared_tables(pool).await.context("cannot prepare the shared tables for Citus")?;
    ensure_platform_realm(pool).await.context("cannot create the platform schema")
}

/// The platform admins' own tenant-shaped schema (realm zero), built like any tenant's.
pub async fn ensure_platform_realm(pool: &PgPool) -> sqlx::Result<()> {
    let schema = crate::tenancy::SchemaName::platform();
    let mut tx = pool.begin().await?;
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1, 0))").bind(schema.as_str()).execute(&mut *tx).await?;
    let exists: bool = sqlx::query_scalar("select exists (select 1 from public.tenant_schemas where schema_name = $1)")
        .bind(schema.as_str())
        .fetch_one(&mut *tx)
        .await?;
    if !exists {
        crate::tenancy::create_schema(&mut tx, &schema, None).await?;
    }
    tx.commit().await
}
