//! Departments live in the tenant schema: every function takes a tenant transaction
//! (`tenancy::begin`), whose search_path is that schema alone.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DepartmentRecord {
    pub id: Uuid,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub description: String,
    pub head_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MemberRecord {
    pub department_id: Uuid,
    pub id: Uuid,
    pub full_name: String,
    pub email: String,
    pub role: String,
}

const SELECT: &str = "select id, type, description, head_id, created_at, updated_at from departments";
/// The product's order: finance, operations, sales and marketing, human resources, IT.
pub const ORDER: &str = "array_position(array['finance', 'operations', 'sales_marketing', 'human_resources', 'information_technology'], type)";

pub async fn list(tx: &mut PgConnection) -> sqlx::Result<Vec<DepartmentRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} order by {ORDER}"))).fetch_all(tx).await
}

pub async fn find(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<DepartmentRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where id = $1"))).bind(id).fetch_optional(tx).await
}

pub async fn exists(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from departments where id = $1)").bind(id).fetch_one(tx).await
}

/// The people of these departments (their `public.users.department_id`).
pub async fn members(tx: &mut PgConnection, department_ids: &[Uuid]) -> sqlx::Result<Vec<MemberRecord>> {
    sqlx::query_as(
        "select department_id, id, full_name, email, role from public.users \
         where department_id = any($1) order by full_name",
    )
    .bind(department_ids)
    .fetch_all(tx)
    .await
}

/// `head`: `None` keeps the head, `Some(None)` clears it, `Some(Some(id))` sets it.
pub async fn update(tx: &mut PgConnection, id: Uuid, description: Option<&str>, head: Option<Option<Uuid>>) -> sqlx::Result<bool> {
    if let Some(Some(head)) = head {
        super::users::hold(&mut *tx, head).await?;
        // A person heads one department at most.
        sqlx::query("update departments set head_id = null, updated_at = now() where head_id = $1 and id <> $2")
            .bind(head)
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    let done = sqlx::query(
        "update departments set description = coalesce($2, description), \
         head_id = case when $3 then $4 else head_id end, updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(description)
    .bind(head.is_some())
    .bind(head.flatten())
    .execute(tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A department whose head leaves it has no head. Returns whether `user_id` was its head.
pub async fn clear_head(tx: &mut PgConnection, department_id: Uuid, user_id: Uuid) -> sqlx::Result<bool> {
    let done = sqlx::query("update departments set head_id = null, updated_at = now() where id = $1 and head_id = $2")
        .bind(department_id)
        .bind(user_id)
        .execute(tx)
        .await?;
    Ok(done.rows_affected() == 1)
}
