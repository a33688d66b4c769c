//! Department spreadsheets, in the tenant schema: every function takes a tenant transaction.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

use super::Paging;

/// A spreadsheet without its content (lists).
#[derive(Debug, sqlx::FromRow)]
pub struct SummaryRecord {
    pub id: Uuid,
    pub department_id: Uuid,
    pub name: String,
    pub version: i32,
    pub engine_version: String,
    pub created_by: Option<Uuid>,
    pub created_by_name: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_by: Option<Uuid>,
    pub updated_by_name: Option<String>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, sqlx::FromRow)]
pub struct SpreadsheetRecord {
    #[sqlx(flatten)]
    pub summary: SummaryRecord,
    pub content: Vec<u8>,
}

const SUMMARY: &str = "s.id, s.department_id, s.name, s.version, s.engine_version, s.created_by, c.full_name as created_by_name, \
    s.created_at, s.updated_by, u.full_name as updated_by_name, s.updated_at";
const FROM: &str = "from spreadsheets s left join public.users c on c.id = s.created_by left join public.users u on u.id = s.updated_by";

pub async fn list(tx: &mut PgConnection, department: Uuid, paging: Paging) -> sqlx::Result<(Vec<SummaryRecord>, i64)> {
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {SUMMARY} {FROM} where s.department_id = $1 order by s.updated_at desc, s.id limit $2 offset $3"
    )))
    .bind(department)
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(&mut *tx)
    .await?;
    let total = sqlx::query_scalar("select count(*) from spreadsheets where department_id = $1").bind(department).fetch_one(tx).await?;
    Ok((rows, total))
}

pub async fn find(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<SpreadsheetRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {SUMMARY}, s.content {FROM} where s.id = $1"))).bind(id).fetch_optional(tx).await
}

pub struct NewSpreadsheet<'a> {
    pub department_id: Uuid,
    pub name: &'a str,
    pub content: &'a [u8],
    pub engine_version: &'a str,
    pub by: Uuid,
}

pub async fn insert(tx: &mut PgConnection, s: NewSpreadsheet<'_>) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query(
        "insert into spreadsheets (id, department_id, name, content, engine_version, created_by, updated_by) values ($1, $2, $3, $4, $5, $6, $6)",
    )
    .bind(id)
    .bind(s.department_id)
    .bind(s.name)
    .bind(s.content)
    .bind(s.engine_version)
    .bind(s.by)
    .execute(tx)
    .await?;
    Ok(id)
}

/// Saves new content (and name) if `version` is still the current one; the new version, or
/// `None` when someone saved in between.
pub async fn save(tx: &mut PgConnection, id: Uuid, version: i32, content: &[u8], name: Option<&str>, by: Uuid) -> sqlx::Result<Option<i32>> {
    sqlx::query_scalar(
        "update spreadsheets set content = $3, name = coalesce($4, name), version = version + 1, updated_by = $5, updated_at = now() \
         where id = $1 and version = $2 returning version",
    )
    .bind(id)
    .bind(version)
    .bind(content)
    .bind(name)
    .bind(by)
    .fetch_optional(tx)
    .await
}

/// The size of the spreadsheet's stored workbook (`None`: no such spreadsheet).
pub async fn content_bytes(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("select octet_length(content)::bigint from spreadsheets where id = $1").bind(id).fetch_optional(tx).await
}

pub async fn delete(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<bool> {
    Ok(sqlx::query("delete from spreadsheets where id = $1").bind(id).execute(tx).await?.rows_affected() == 1)
}

/// A deleted user no longer names who made or last saved a spreadsheet.
pub async fn forget_user(tx: &mut PgConnection, user: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "with made as (update spreadsheets set created_by = null where created_by = $1) \
         update spreadsheets set updated_by = null where updated_by = $1",
    )
    .bind(user)
    .execute(tx)
    .await?;
    Ok(())
}
