//! Running on Citus (docs/scaling.md). The same binary serves a single PostgreSQL and a Citus
//! cluster with schema-based sharding: when the database has the `citus` extension, the server
//! does by itself what Citus needs, and on plain PostgreSQL none of this runs.
//!
//! - Every tenant schema (and the platform realm) is a distributed schema: created with
//!   `citus.enable_schema_based_sharding` on for its transaction, so Citus places it whole on one
//!   worker; a schema made before the database had Citus is distributed by `backend migrate`.
//! - `public.enterprises` and `public.users`, which tenant queries join, are reference tables
//!   (a copy on every node). Citus then keeps the other shared tables that name them by foreign
//!   key (`sessions`, `tenant_schemas`, `report_transitions`) on the coordinator by itself.
//! - Tenant DDL goes one statement at a time: Citus forwards DDL on a distributed schema to its
//!   worker with the statement's whole query string, which must then hold one statement.
//!
//! What the code never does, so that Citus accepts it: triggers in tenant or shared tables, SQL
//! joining two tenant schemas, foreign keys from a tenant table to a shared one, `now()` and other
//! non-immutable functions inside CASE or COALESCE in writes to tenant tables, `CREATE SCHEMA ...
//! CREATE TABLE` in one statement. `tests/api/enterprises.rs` checks the first and third over
//! every tenant migration; the rest was tried on a real cluster (docs/performance.md).

use sqlparser::{
    dialect::PostgreSqlDialect,
    tokenizer::{Location, Token, Tokenizer},
};
use sqlx::{PgConnection, PgPool};

/// Whether the database runs Citus (the extension is installed in it).
pub async fn enabled(conn: &mut PgConnection) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from pg_extension where extname = 'citus')").fetch_one(conn).await
}

/// The shared tables tenant queries join, in the order Citus needs (a reference table's foreign
/// keys may only point at reference tables).
const REFERENCE_TABLES: [&str; 2] = ["public.enterprises", "public.users"];

/// Shared tables that no foreign key ties to a reference table, which Citus would otherwise leave
/// out of its metadata: a statement that joins them with one it manages (the outbox's fan-out to
/// `webhooks` and `webhook_deliveries`) is refused ("relation outbox is not distributed") unless
/// they are Citus local tables too. They stay on the coordinator.
const LOCAL_TABLES: [&str; 1] = ["public.outbox"];

/// Makes the shared tables that tenant queries join reference tables, once. Runs after the
/// public-schema migrations, before any tenant schema is made.
pub async fn prepare_shared_tables(pool: &PgPool) -> sqlx::Result<()> {
    let mut conn = pool.acquire().await?;
    if !enabled(&mut conn).await? {
        return Ok(());
    }
    for table in REFERENCE_TABLES {
        let reference: bool = sqlx::query_scalar(
            "select exists (select 1 from pg_dist_partition where logicalrelid = $1::regclass and partmethod = 'n' and repmodel = 't')",
        )
        .bind(table)
        .fetch_one(&mut *conn)
        .await?;
        if !reference {
            tracing::info!(table, "making a Citus reference table");
            sqlx::query("select create_reference_table($1::regclass)").bind(table).execute(&mut *conn).await?;
        }
    }
    for table in LOCAL_TABLES {
        let managed: bool = sqlx::query_scalar("select exists (select 1 from pg_dist_partition where logicalrelid = $1::regclass)")
            .bind(table)
            .fetch_one(&mut *conn)
            .await?;
        if !managed {
            tracing::info!(table, "adding a Citus local table to the metadata");
            sqlx::query("select citus_add_local_table_to_metadata($1::regclass)").bind(table).execute(&mut *conn).await?;
        }
    }
    Ok(())
}

/// Distributes the tenant schemas made before the database had Citus (after `backend migrate`
/// has brought them up to date: a schema with triggers cannot be distributed). Returns how many.
pub async fn distribute_schemas(pool: &PgPool) -> sqlx::Result<usize> {
    let mut conn = pool.acquire().await?;
    if !enabled(&mut conn).await? {
        return Ok(0);
    }
    let local: Vec<String> = sqlx::query_scalar(
        "select t.schema_name from public.tenant_schemas t \
         where not exists (select 1 from pg_dist_schema d where d.schemaid = t.schema_name::regnamespace) order by 1",
    )
    .fetch_all(&mut *conn)
    .await?;
    for schema in &local {
        tracing::info!(schema, "distributing a tenant schema");
        sqlx::query("select citus_schema_distribute($1::regnamespace)").bind(schema).execute(&mut *conn).await?;
    }
    Ok(local.len())
}

/// Makes the `create schema` that follows in this transaction a distributed schema.
pub async fn distribute_next_schema(conn: &mut PgConnection) -> sqlx::Result<()> {
    sqlx::query("select set_config('citus.enable_schema_based_sharding', 'on', true)").execute(conn).await.map(drop)
}

/// The statements of a SQL script, without the `;` between them and without statements that are
/// only comments. The script is cut by PostgreSQL's lexical rules (sqlparser's tokenizer), so a
/// `;` inside a string, a quoted name, a dollar-quoted body or a comment does not cut it.
pub fn statements(script: &str) -> Result<Vec<&str>, String> {
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, script).tokenize_with_location().map_err(|e| e.to_string())?;
    let line_starts: Vec<usize> = std::iter::once(0).chain(script.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let offset = |at: Location| -> usize {
        let start = line_starts[at.line as usize - 1];
        start + script[start..].chars().take(at.column as usize - 1).map(char::len_utf8).sum::<usize>()
    };
    let mut out = Vec::new();
    let (mut start, mut code) = (0, false);
    for t in &tokens {
        match t.token {
            Token::SemiColon => {
                if code {
                    out.push(script[start..offset(t.span.start)].trim());
                }
                (start, code) = (offset(t.span.end), false);
            }
            Token::Whitespace(_) => {}
            _ => code = true,
        }
    }
    if code {
        out.push(script[start..].trim());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_cut_only_between_statements() {
        let script = "-- a comment; not a statement\ncreate table a (x text default 'é;''x');\n\
                      create function f() returns int language sql as $$ select 1; $$;\n\
                      comment on table a is 'b;c' ; /* d; */ ;\n  select \"we;ird\" from a";
        assert_eq!(
            statements(script).unwrap(),
            [
                "-- a comment; not a statement\ncreate table a (x text default 'é;''x')",
                "create function f() returns int language sql as $$ select 1; $$",
                "comment on table a is 'b;c'",
                "select \"we;ird\" from a",
            ]
        );
    }

    #[test]
    fn every_tenant_migration_cuts_into_statements() {
        for m in super::super::TENANT_MIGRATIONS.iter() {
            let parts = statements(m.sql.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", m.description));
            assert!(!parts.is_empty(), "{}", m.description);
            assert!(parts.iter().all(|p| !p.ends_with(';')), "{}", m.description);
        }
    }
}
