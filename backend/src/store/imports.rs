//! Enterprise imports (`public.enterprise_imports`): the job's row that the admin follows, and the
//! writes that re-create an enterprise from its archive's rows (`enterprise_import`).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// An import as its API shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ImportRecord {
    pub id: Uuid,
    pub requested_by: Option<Uuid>,
    pub status: String,
    pub progress: i32,
    pub stage: String,
    pub enterprise_name: String,
    pub enterprise_id: Option<Uuid>,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, requested_by, status, progress, stage, enterprise_name, enterprise_id, result, error, created_at, finished_at";

/// What a job whose instance stopped says.
const INTERRUPTED: &str = "The server stopped during the import, and nothing of it was kept. Upload the archive again.";

/// A new import of the enterprise named `name`, running on this instance.
pub async fn create(db: &PgPool, requested_by: Option<Uuid>, name: &str, now: DateTime<Utc>) -> sqlx::Result<ImportRecord> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "insert into public.enterprise_imports (id, requested_by, status, stage, enterprise_name, created_at, heartbeat_at) \
         values ($1, $2, 'running', 'checking', $3, $4, $4) returning {COLUMNS}"
    )))
    .bind(Uuid::now_v7())
    .bind(requested_by)
    .bind(name)
    .bind(now)
    .fetch_one(db)
    .await
}

/// Jobs whose instance stopped beating before `stale_before` failed: their transaction went with
/// their connection.
async fn fail_stale(db: &PgPool, stale_before: DateTime<Utc>, now: DateTime<Utc>) -> sqlx::Result<()> {
    sqlx::query(
        "update public.enterprise_imports set status = 'failed', stage = 'failed', error = $2, finished_at = $3 \
         where status in ('queued', 'running') and heartbeat_at < $1",
    )
    .bind(stale_before)
    .bind(INTERRUPTED)
    .bind(now)
    .execute(db)
    .await
    .map(drop)
}

/// One import.
pub async fn find(db: &PgPool, id: Uuid, stale_before: DateTime<Utc>, now: DateTime<Utc>) -> sqlx::Result<Option<ImportRecord>> {
    fail_stale(db, stale_before, now).await?;
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {COLUMNS} from public.enterprise_imports where id = $1"))).bind(id).fetch_optional(db).await
}

/// The latest imports, newest first.
pub async fn list(db: &PgPool, limit: i64, stale_before: DateTime<Utc>, now: DateTime<Utc>) -> sqlx::Result<Vec<ImportRecord>> {
    fail_stale(db, stale_before, now).await?;
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {COLUMNS} from public.enterprise_imports order by created_at desc limit $1")))
        .bind(limit)
        .fetch_all(db)
        .await
}

/// Where a running job is, which is also its heartbeat.
pub async fn progress(db: &PgPool, id: Uuid, progress: i32, stage: &str, now: DateTime<Utc>) -> sqlx::Result<()> {
    sqlx::query("update public.enterprise_imports set progress = $2, stage = $3, heartbeat_at = $4 where id = $1 and status = 'running'")
        .bind(id)
        .bind(progress.clamp(0, 99))
        .bind(stage)
        .bind(now)
        .execute(db)
        .await
        .map(drop)
}

/// The enterprise is made.
pub async fn ready(db: &PgPool, id: Uuid, enterprise: Uuid, result: &Value, now: DateTime<Utc>) -> sqlx::Result<()> {
    sqlx::query(
        "update public.enterprise_imports set status = 'ready', progress = 100, stage = 'ready', enterprise_id = $2, result = $3, \
         finished_at = $4, heartbeat_at = $4 where id = $1",
    )
    .bind(id)
    .bind(enterprise)
    .bind(result)
    .bind(now)
    .execute(db)
    .await
    .map(drop)
}

/// The job failed; nothing of it was kept. `error` says why, in words for the admin.
pub async fn failed(db: &PgPool, id: Uuid, error: &str, now: DateTime<Utc>) -> sqlx::Result<()> {
    sqlx::query("update public.enterprise_imports set status = 'failed', stage = 'failed', error = $2, finished_at = $3 where id = $1")
        .bind(id)
        .bind(error)
        .bind(now)
        .execute(db)
        .await
        .map(drop)
}

/// Of these ids, those an enterprise, a person or an audit entry of this platform already has.
pub async fn ids_taken(db: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "select id from public.enterprises where id = any($1) union select id from public.users where id = any($1) \
         union select id from public.audit_events where id = any($1)",
    )
    .bind(ids)
    .fetch_all(db)
    .await
}

/// Of these addresses, up to five that accounts of this platform already use.
pub async fn emails_taken(db: &PgPool, emails: &[String]) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("select email from public.users where lower(email) = any(select lower(e) from unnest($1::text[]) e) order by email limit 5")
        .bind(emails)
        .fetch_all(db)
        .await
}

/// The enterprise's row, as its archive has it.
pub async fn insert_enterprise(tx: &mut PgConnection, about: &Value, id: Uuid, schema: &str) -> sqlx::Result<()> {
    sqlx::query(
        "insert into public.enterprises (id, name, description, is_active, schema_name, created_at, updated_at) \
         select $1, $2->>'name', coalesce($2->>'description', ''), coalesce(($2->>'isActive')::boolean, true), $3, \
                coalesce(($2->>'createdAt')::timestamptz, $4), coalesce(($2->>'updatedAt')::timestamptz, $4)",
    )
    .bind(id)
    .bind(about)
    .bind(schema)
    .bind(Utc::now())
    .execute(&mut *tx)
    .await
    .map(drop)
}

/// Inserts `rows` (JSON objects with the table's column names as keys) into `table` (`public.x`,
/// or a tenant table of the transaction's search path), with the columns both the rows and the
/// table have: a column an older archive lacks takes its default, and a key this platform no
/// longer has is left out.
pub async fn insert_rows(tx: &mut PgConnection, schema: &str, table: &str, rows: &[Value]) -> sqlx::Result<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let columns: Vec<String> = sqlx::query_scalar(
        "select column_name::text from information_schema.columns \
         where table_schema = $1 and table_name = $2 and is_generated = 'NEVER' order by ordinal_position",
    )
    .bind(schema)
    .bind(table)
    .fetch_all(&mut *tx)
    .await?;
    let keys: std::collections::HashSet<&str> = rows.iter().filter_map(Value::as_object).flat_map(|o| o.keys().map(String::as_str)).collect();
    let used: Vec<String> = columns.into_iter().filter(|c| keys.contains(c.as_str())).map(|c| format!("\"{c}\"")).collect();
    let list = used.join(", ");
    // The names come from the catalogue, and `schema` and `table` from this crate's constants.
    let sql =
        format!("insert into \"{schema}\".\"{table}\" ({list}) select {list} from jsonb_populate_recordset(null::\"{schema}\".\"{table}\", $1)");
    let done = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(Value::Array(rows.to_vec())).execute(&mut *tx).await?;
    Ok(done.rows_affected())
}
