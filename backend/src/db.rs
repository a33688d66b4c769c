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
///
/// With `MIGRATION_DATABASE_URL` (the database's owner; `url` is then the server's own role), the
/// migrations run as the owner, who then grants the server's role what it needs and no more
/// (`grant_server_role`): it cannot rewrite the audit log. Without it, the server's role owns its
/// database; a server started without the owner's URL migrates only when something is pending
/// (which a role that owns nothing cannot do: run `backend migrate` as the owner first).
pub async fn migrate(url: &str) -> anyhow::Result<PgPool> {
    let owner = std::env::var("MIGRATION_DATABASE_URL").ok().filter(|u| !u.trim().is_empty());
    let migrating = owner.as_deref().unwrap_or(url);
    if !sqlx::Postgres::database_exists(migrating).await.context("cannot reach PostgreSQL")? {
        tracing::info!("creating the database");
        sqlx::Postgres::create_database(migrating).await.context("cannot create the database")?;
    }
    // Migrations may run long: their connection has no statement timeout (and is closed after).
    let options: PgConnectOptions = migrating.parse().context("invalid MIGRATION_DATABASE_URL or DATABASE_URL")?;
    let migrations = pool_with(options, 1);
    if owner.is_some() || !up_to_date(&migrations).await? {
        MIGRATOR
            .run(&migrations)
            .await
            .context("migration failed (a server role that owns nothing cannot migrate: run `backend migrate` with MIGRATION_DATABASE_URL)")?;
    }
    if owner.is_some() {
        let server: PgConnectOptions = url.parse().context("invalid DATABASE_URL")?;
        grant_server_role(&migrations, server.get_username()).await.context("cannot grant the server's role its rights")?;
    }
    crate::tenancy::citus::prepare_shared_tables(&migrations).await.context("cannot prepare the shared tables for Citus")?;
    migrations.close().await;
    let pool = pool(url)?;
    ensure_platform_realm(&pool).await.context("cannot create the platform schema")?;
    Ok(pool)
}

/// Whether every public-schema migration is applied (a server whose role owns nothing starts on a
/// database its owner migrated without asking for more).
async fn up_to_date(pool: &PgPool) -> sqlx::Result<bool> {
    let table: Option<String> = sqlx::query_scalar("select to_regclass('public._sqlx_migrations')::text").fetch_one(pool).await?;
    if table.is_none() {
        return Ok(false);
    }
    let versions: Vec<i64> = MIGRATOR.iter().map(|m| m.version).collect();
    let applied: i64 = sqlx::query_scalar("select count(*) from public._sqlx_migrations where success and version = any($1)")
        .bind(&versions)
        .fetch_one(pool)
        .await?;
    Ok(applied == versions.len() as i64)
}

/// What the server's role may do when it does not own the database (`MIGRATION_DATABASE_URL`),
/// granted by the owner after every migration: read and write the shared tables, make tenant
/// schemas (which it then owns) and call the functions; on the audit log only read and append.
/// Expired audit entries go through `audit_retention`, which runs as the owner and keeps 30 days
/// whatever it is asked. The owner must be a member of the server's role (`grant <server> to
/// <owner>`), to migrate the tenant schemas the server made.
pub async fn grant_server_role(owner: &PgPool, role: &str) -> sqlx::Result<()> {
    let role = format!("\"{}\"", role.replace('"', "\"\""));
    let mut tx = owner.begin().await?;
    let database: String = sqlx::query_scalar("select quote_ident(current_database())").fetch_one(&mut *tx).await?;
    for statement in [
        format!("grant connect, create, temporary on database {database} to {role}"),
        format!("grant usage on schema public to {role}"),
        format!("grant select, insert, update, delete on all tables in schema public to {role}"),
        format!("revoke update, delete, truncate, references, trigger on public.audit_events from {role}"),
        format!("grant usage, select on all sequences in schema public to {role}"),
        format!("grant execute on function public.audit_retention(integer) to {role}"),
        format!("grant execute on function public.audit_forget_enterprise(uuid) to {role}"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement)).execute(&mut *tx).await?;
    }
    // On Citus a tenant schema is made on a worker, whose copy of the database needs the grant too
    // (Citus passes table grants on, not a database's).
    if crate::tenancy::citus::enabled(&mut tx).await? {
        let grant = format!("grant connect, create, temporary on database {database} to {role}");
        sqlx::query("select run_command_on_workers($1)").bind(grant).execute(&mut *tx).await?;
    }
    tx.commit().await
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

#[cfg(test)]
mod tests {
    use super::*;

    /// On a database whose shared tables are Citus tables already, Citus forwards a DDL statement
    /// to the workers with the query's whole text, which must then hold that one statement ("cannot
    /// insert multiple commands into a prepared statement"). sqlx sends a migration file as one
    /// query: each file since the first that could run on such a database holds one statement.
    #[test]
    fn each_public_migration_since_citus_ran_the_platform_holds_one_statement() {
        let mut checked = 0;
        for migration in MIGRATOR.iter().filter(|m| m.version >= 20261208000001) {
            let statements = crate::tenancy::citus::statements(migration.sql.as_ref()).unwrap();
            assert_eq!(statements.len(), 1, "{} {}: {statements:#?}", migration.version, migration.description);
            checked += 1;
        }
        assert!(checked >= 11, "the migrations since 20261208000001 are embedded ({checked})");
    }
}
