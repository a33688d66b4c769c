//! Counts and time series for the dashboards. Tenant figures come from the tenant schema;
//! platform-wide figures from public tables only (never one query per tenant).

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

#[derive(Debug, sqlx::FromRow)]
pub struct DepartmentRow {
    pub id: Uuid,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub head_id: Option<Uuid>,
    pub member_count: i64,
}

/// (department id, status, count) for every report but drafts.
pub async fn report_counts(tx: &mut PgConnection) -> sqlx::Result<Vec<(Uuid, String, i64)>> {
    sqlx::query_as("select department_id, status, count(*) from reports where status <> 'draft' group by 1, 2").fetch_all(tx).await
}

pub async fn departments(tx: &mut PgConnection) -> sqlx::Result<Vec<DepartmentRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select d.id, d.type, d.head_id, (select count(*) from public.users u where u.department_id = d.id) as member_count \
         from departments d order by {}",
        super::departments::ORDER
    )))
    .fetch_all(tx)
    .await
}

#[derive(Debug, sqlx::FromRow)]
pub struct ActivityRow {
    pub report_id: Uuid,
    pub report_title: String,
    pub department_id: Uuid,
    pub actor_id: Option<Uuid>,
    pub actor_name: Option<String>,
    pub actor_email: Option<String>,
    pub actor_role: Option<String>,
    pub from_status: Option<String>,
    pub to_status: String,
    pub notes: Option<String>,
    pub at: DateTime<Utc>,
}

/// The latest status changes the CEO can see (moves into draft are the department's own).
pub async fn recent_activity(tx: &mut PgConnection, limit: i64) -> sqlx::Result<Vec<ActivityRow>> {
    sqlx::query_as(
        "select e.report_id, r.title as report_title, r.department_id, e.actor_id, u.full_name as actor_name, \
         u.email as actor_email, u.role as actor_role, e.from_status, e.to_status, e.notes, e.created_at as at \
         from report_events e join reports r on r.id = e.report_id left join public.users u on u.id = e.actor_id \
         where e.to_status <> 'draft' order by e.created_at desc, e.id desc limit $1",
    )
    .bind(limit)
    .fetch_all(tx)
    .await
}

#[derive(Debug, sqlx::FromRow)]
pub struct PlatformCounts {
    pub active_enterprises: i64,
    pub inactive_enterprises: i64,
    pub active_sessions: i64,
}

pub async fn platform_counts(pool: &PgPool) -> sqlx::Result<PlatformCounts> {
    sqlx::query_as(
        "select (select count(*) from public.enterprises where is_active) as active_enterprises, \
         (select count(*) from public.enterprises where not is_active) as inactive_enterprises, \
         (select count(*) from public.sessions where ended_at is null and expires_at > now()) as active_sessions",
    )
    .fetch_one(pool)
    .await
}

pub async fn users_by_role(pool: &PgPool) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as("select role, count(*) from public.users group by role").fetch_all(pool).await
}

/// Every report's current status, across all tenants, from the platform ledger.
pub async fn reports_by_status(pool: &PgPool) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "select to_status, count(*) from (select distinct on (report_id) to_status from public.report_transitions \
         order by report_id, at desc, id desc) current where to_status <> 'draft' group by to_status",
    )
    .fetch_all(pool)
    .await
}

#[derive(Debug, sqlx::FromRow)]
pub struct DayRow {
    pub day: NaiveDate,
    pub enterprises_created: i64,
    pub sign_ins: i64,
    pub submitted: i64,
    pub reviewed: i64,
    pub approved: i64,
    pub rejected: i64,
}

/// One row per day of the last `days` days (UTC), today included, zeros where nothing happened.
pub async fn daily(pool: &PgPool, days: i32) -> sqlx::Result<Vec<DayRow>> {
    sqlx::query_as(
        "with span as (select generate_series((now() at time zone 'utc')::date - ($1 - 1), (now() at time zone 'utc')::date, '1 day')::date as day), \
         e as (select (created_at at time zone 'utc')::date as day, count(*) as n from public.enterprises group by 1), \
         s as (select (created_at at time zone 'utc')::date as day, count(*) as n from public.sessions \
               where created_at >= now() - make_interval(days => $1) group by 1), \
         t as (select (at at time zone 'utc')::date as day, \
               count(*) filter (where to_status = 'submitted') as submitted, count(*) filter (where to_status = 'reviewed') as reviewed, \
               count(*) filter (where to_status = 'approved') as approved, count(*) filter (where to_status = 'rejected') as rejected \
               from public.report_transitions where at >= now() - make_interval(days => $1) group by 1) \
         select span.day, coalesce(e.n, 0) as enterprises_created, coalesce(s.n, 0) as sign_ins, \
         coalesce(t.submitted, 0) as submitted, coalesce(t.reviewed, 0) as reviewed, coalesce(t.approved, 0) as approved, \
         coalesce(t.rejected, 0) as rejected \
         from span left join e using (day) left join s using (day) left join t using (day) order by span.day",
    )
    .bind(days)
    .fetch_all(pool)
    .await
}
