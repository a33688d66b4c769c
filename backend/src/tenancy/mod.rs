//! One PostgreSQL schema per enterprise. This module owns schema naming, creating a tenant from
//! the baseline, the per-request tenant transaction, and the tenant-migration runner.

pub mod citus;
pub mod migrate;
pub mod spares;

use std::sync::LazyLock;

use sqlx::{PgConnection, PgPool, Postgres, Transaction, migrate::Migrator};
use uuid::Uuid;

/// Migrations applied to every tenant schema (`tenant-migrations/`), embedded at build time.
pub static TENANT_MIGRATIONS: Migrator = sqlx::migrate!("../tenant-migrations");

/// The schema of the platform admins' own tenant-shaped data (realm zero).
pub const PLATFORM_SCHEMA: &str = "platform";

/// A tenant schema's name, derived from the enterprise id only: `t_<32 hex digits>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaName(String);

impl SchemaName {
    pub fn for_enterprise(id: Uuid) -> Self {
        Self(format!("t_{}", id.simple()))
    }

    pub fn platform() -> Self {
        Self(PLATFORM_SCHEMA.to_owned())
    }

    /// Accepts only names this module makes, so a name can be spliced into DDL safely.
    pub fn parse(s: &str) -> Option<Self> {
        let ok = s == PLATFORM_SCHEMA
            || (s.len() == 34 && s.starts_with("t_") && s[2..].bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        ok.then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The newest version of the embedded tenant migrations (0 with none).
pub fn latest_version() -> i64 {
    newest(&TENANT_MIGRATIONS)
}

pub fn newest(migrations: &Migrator) -> i64 {
    migrations.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Every tenant migration as one script: a new tenant is built in one round trip.
static BASELINE: LazyLock<String> = LazyLock::new(|| TENANT_MIGRATIONS.iter().map(|m| m.sql.as_ref()).collect::<Vec<&str>>().join("\n;\n"));

/// Points the transaction at `schema` alone; the setting dies with the transaction, so a pooled
/// connection never carries it into another request.
pub async fn set_search_path(conn: &mut PgConnection, schema: &SchemaName) -> sqlx::Result<()> {
    sqlx::query("select set_config('search_path', $1, true)").bind(schema.as_str()).execute(conn).await.map(drop)
}

/// Starts a transaction scoped to one tenant schema.
pub async fn begin(pool: &PgPool, schema: &SchemaName) -> sqlx::Result<Transaction<'static, Postgres>> {
    let mut tx = pool.begin().await?;
    set_search_path(&mut tx, schema).await?;
    Ok(tx)
}

/// Runs a migration script in the caller's transaction: in one round trip, or on Citus one
/// statement at a time (it forwards a distributed schema's DDL to the worker with the statement's
/// whole text, which must then hold one statement).
pub async fn run_script(conn: &mut PgConnection, script: &str, citus: bool) -> sqlx::Result<()> {
    if !citus {
        return sqlx::raw_sql(sqlx::AssertSqlSafe(script)).execute(conn).await.map(drop);
    }
    for statement in citus::statements(script).map_err(|e| sqlx::Error::Protocol(format!("cannot cut a tenant migration: {e}")))? {
        sqlx::raw_sql(sqlx::AssertSqlSafe(statement)).execute(&mut *conn).await?;
    }
    Ok(())
}

/// Creates the schema, applies the baseline and records its version, inside the caller's
/// transaction: if anything later fails, no schema is left behind. On Citus the schema is a
/// distributed schema, placed whole on one worker.
pub async fn create_schema(tx: &mut Transaction<'_, Postgres>, schema: &SchemaName, enterprise_id: Option<Uuid>) -> sqlx::Result<()> {
    let citus = citus::enabled(tx).await?;
    if citus {
        citus::distribute_next_schema(tx).await?;
    }
    sqlx::query(sqlx::AssertSqlSafe(format!("create schema \"{}\"", schema.as_str()))).execute(&mut **tx).await?;
    set_search_path(tx, schema).await?;
    run_script(tx, &BASELINE, citus).await?;
    sqlx::query("select set_config('search_path', 'public', true)").execute(&mut **tx).await?;
    sqlx::query("insert into public.tenant_schemas (schema_name, enterprise_id, version) values ($1, $2, $3)")
        .bind(schema.as_str())
        .bind(enterprise_id)
        .bind(latest_version())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Drops a tenant schema inside the caller's transaction.
pub async fn drop_schema(tx: &mut Transaction<'_, Postgres>, schema: &SchemaName) -> sqlx::Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!("drop schema if exists \"{}\" cascade", schema.as_str()))).execute(&mut **tx).await?;
    sqlx::query("delete from public.tenant_schemas where schema_name = $1").bind(schema.as_str()).execute(&mut **tx).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_come_from_ids_only() {
        let id = Uuid::parse_str("0190f3c2-0000-7000-8000-00000000abcd").unwrap();
        let name = SchemaName::for_enterprise(id);
        assert_eq!(name.as_str(), "t_0190f3c200007000800000000000abcd");
        assert_eq!(SchemaName::parse(name.as_str()), Some(name));
        assert_eq!(SchemaName::parse("platform"), Some(SchemaName::platform()));
        for bad in ["public", "t_x", "t_0190F3C2000070008000000000000ABC", "t_\"; drop table users; --"] {
            assert_eq!(SchemaName::parse(bad), None, "{bad}");
        }
    }
}
