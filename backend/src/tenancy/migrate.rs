//! Brings every tenant schema up to the newest tenant migration: one transaction per tenant under
//! that schema's own advisory lock, a bounded number at once, a result per tenant. A failed tenant
//! is reported (and its error kept in `public.tenant_schemas`) while the rest go on; running again
//! resumes where each tenant stopped.

use std::{
    sync::atomic::{AtomicUsize, Ordering},
    time::Instant,
};

use futures_util::{StreamExt, stream};
use sqlx::{PgPool, migrate::Migrator};

use super::{SchemaName, newest, run_script, set_search_path};

#[derive(Debug)]
pub struct TenantOutcome {
    pub schema: String,
    pub result: Result<Applied, String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    UpToDate,
    Migrated { from: i64, to: i64 },
}

#[derive(Debug, Default)]
pub struct Summary {
    pub migrated: usize,
    pub up_to_date: usize,
    pub failed: Vec<(String, String)>,
}

/// Schemas behind the newest version: the no-op check is this one query.
pub async fn pending(pool: &PgPool, migrations: &Migrator) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("select schema_name from public.tenant_schemas where version < $1 order by schema_name")
        .bind(newest(migrations))
        .fetch_all(pool)
        .await
}

/// Migrates every pending tenant, `parallelism` at once, calling `progress` after each.
pub async fn migrate_all(
    pool: &PgPool,
    migrations: &Migrator,
    parallelism: usize,
    progress: impl Fn(usize, usize, &TenantOutcome),
) -> sqlx::Result<Summary> {
    let schemas = pending(pool, migrations).await?;
    let total = schemas.len();
    let done = AtomicUsize::new(0);
    let mut summary = Summary::default();
    let mut outcomes = stream::iter(schemas)
        .map(|schema| async move {
            let result = migrate_one(pool, migrations, &schema).await.map_err(|e| format!("{e:#}"));
            TenantOutcome { schema, result }
        })
        .buffer_unordered(parallelism.max(1));
    while let Some(outcome) = outcomes.next().await {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        progress(n, total, &outcome);
        match outcome.result {
            Ok(Applied::Migrated { .. }) => summary.migrated += 1,
            Ok(Applied::UpToDate) => summary.up_to_date += 1,
            Err(e) => summary.failed.push((outcome.schema, e)),
        }
    }
    Ok(summary)
}

/// Migrates one tenant in one transaction. The advisory lock is the schema's own, so two runners
/// (or a runner and an enterprise being created) never block unrelated tenants.
pub async fn migrate_one(pool: &PgPool, migrations: &Migrator, schema: &str) -> anyhow::Result<Applied> {
    let schema = SchemaName::parse(schema).ok_or_else(|| anyhow::anyhow!("not a tenant schema name: {schema}"))?;
    let started = Instant::now();
    let result = async {
        let mut tx = pool.begin().await?;
        // A migration may rewrite large tables: the request pool's statement timeout does not apply.
        sqlx::query("select set_config('statement_timeout', '0', true)").execute(&mut *tx).await?;
        sqlx::query("select pg_advisory_xact_lock(hashtextextended($1, 0))").bind(schema.as_str()).execute(&mut *tx).await?;
        let from: i64 = sqlx::query_scalar("select version from public.tenant_schemas where schema_name = $1 for update")
            .bind(schema.as_str())
            .fetch_one(&mut *tx)
            .await?;
        let to = newest(migrations);
        if from >= to {
            return anyhow::Ok(Applied::UpToDate);
        }
        let citus = super::citus::enabled(&mut tx).await?;
        set_search_path(&mut tx, &schema).await?;
        for m in migrations.iter().filter(|m| m.version > from) {
            run_script(&mut tx, m.sql.as_ref(), citus)
                .await
                .map_err(|e| anyhow::anyhow!("migration {} ({}) failed: {e}", m.version, m.description))?;
        }
        sqlx::query("update public.tenant_schemas set version = $2, migrated_at = now(), last_error = null where schema_name = $1")
            .bind(schema.as_str())
            .bind(to)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Applied::Migrated { from, to })
    }
    .await;
    if let Err(err) = &result {
        // Outside the failed transaction, so the error is kept for the operator.
        let _ = sqlx::query("update public.tenant_schemas set last_error = $2 where schema_name = $1")
            .bind(schema.as_str())
            .bind(format!("{err:#}"))
            .execute(pool)
            .await;
    }
    tracing::debug!(schema = schema.as_str(), elapsed_ms = started.elapsed().as_millis() as u64, "tenant migrated");
    result
}
