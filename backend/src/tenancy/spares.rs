//! Tenant schemas made ahead of need. On Citus, building a tenant's baseline is about thirty DDL
//! statements, each sent from the coordinator to both workers (the shard on one, its shell and
//! metadata on every node): about 13 ms a table on the test cluster, so a new enterprise took
//! 3.3x what it takes on one PostgreSQL (docs/performance.md). So the server keeps a few empty
//! tenant schemas at the newest tenant migration ready (`TENANT_SPARE_SCHEMAS`, by default 2 on
//! Citus and none on one PostgreSQL), and `POST /enterprises` takes one: the enterprise's id is
//! the spare's (schema names derive from ids), and only the enterprise's own rows are written in
//! the request. The DDL's cost is the same, paid beforehand by a background task.
//!
//! A spare is a `tenant_schemas` row without an enterprise (the platform realm, `platform`, is
//! the other such row), so `backend migrate` brings spares up to date as it does tenants, and
//! the count of tenants leaves them out. Spares behind the newest migration are not taken.
//! Several instances refill under one advisory lock, so they do not overshoot together.

use std::time::Duration;

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{PLATFORM_SCHEMA, SchemaName, latest_version};

/// How often the task looks whether spares were taken.
const LOOK_EVERY: Duration = Duration::from_secs(2);
/// The advisory lock the refill takes (an arbitrary constant of this module).
const REFILL_LOCK: i64 = 0x7370_6172_6573; // "spares"

/// Takes a spare schema at the newest version for a new enterprise, in the caller's transaction
/// (rolled back, the spare stays one); none when there is none. The enterprise takes its id.
pub async fn claim(tx: &mut PgConnection) -> sqlx::Result<Option<(Uuid, SchemaName)>> {
    let name: Option<String> = sqlx::query_scalar(
        "select schema_name from public.tenant_schemas where enterprise_id is null and schema_name <> $1 and version = $2 \
         and last_error is null order by schema_name limit 1 for update skip locked",
    )
    .bind(PLATFORM_SCHEMA)
    .bind(latest_version())
    .fetch_optional(&mut *tx)
    .await?;
    Ok(name.and_then(|name| {
        let schema = SchemaName::parse(&name)?;
        let id = Uuid::parse_str(name.strip_prefix("t_")?).ok()?;
        Some((id, schema))
    }))
}

/// Gives a claimed spare to its enterprise (whose row the transaction has written).
pub async fn adopt(tx: &mut PgConnection, schema: &SchemaName, enterprise_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update public.tenant_schemas set enterprise_id = $2 where schema_name = $1 and enterprise_id is null")
        .bind(schema.as_str())
        .bind(enterprise_id)
        .execute(&mut *tx)
        .await
        .map(drop)
}

/// How many spares there are (at any version).
pub async fn count(db: impl sqlx::PgExecutor<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from public.tenant_schemas where enterprise_id is null and schema_name <> $1")
        .bind(PLATFORM_SCHEMA)
        .fetch_one(db)
        .await
}

/// Makes spares until there are `wanted`, one transaction each, under the refill lock. Returns
/// how many it made.
pub async fn refill(pool: &PgPool, wanted: usize) -> sqlx::Result<usize> {
    let mut made = 0;
    loop {
        let mut tx = pool.begin().await?;
        sqlx::query("select pg_advisory_xact_lock($1)").bind(REFILL_LOCK).execute(&mut *tx).await?;
        if count(&mut *tx).await? >= i64::try_from(wanted).unwrap_or(i64::MAX) {
            return Ok(made);
        }
        let schema = SchemaName::for_enterprise(Uuid::now_v7());
        super::create_schema(&mut tx, &schema, None).await?;
        tx.commit().await?;
        made += 1;
    }
}

/// The number of spares to keep: `TENANT_SPARE_SCHEMAS` when set, else 2 on Citus and 0 on one
/// PostgreSQL (where a tenant is made in one round trip).
pub async fn wanted(pool: &PgPool, configured: Option<usize>) -> sqlx::Result<usize> {
    match configured {
        Some(n) => Ok(n),
        None => Ok(if super::citus::enabled(&mut *pool.acquire().await?).await? { 2 } else { 0 }),
    }
}

/// Keeps the spares topped up while the server runs (nothing when none are wanted).
pub fn spawn(pool: PgPool, configured: Option<usize>) {
    crate::supervise::spawn("tenant_spares", move || {
        let pool = pool.clone();
        async move {
            let wanted = loop {
                match wanted(&pool, configured).await {
                    Ok(n) => break n,
                    Err(err) => tracing::warn!(error = %err, "cannot tell whether tenant spares are wanted"),
                }
                tokio::time::sleep(LOOK_EVERY).await;
            };
            if wanted == 0 {
                return;
            }
            let mut every = tokio::time::interval(LOOK_EVERY);
            loop {
                every.tick().await;
                match refill(&pool, wanted).await {
                    Ok(0) => {}
                    Ok(made) => tracing::debug!(made, "tenant spares made"),
                    Err(err) => tracing::warn!(error = %err, "cannot make a tenant spare"),
                }
            }
        }
    });
}
