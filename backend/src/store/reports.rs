//! Reports live in the tenant schema: every function takes a tenant transaction.

use chrono::{DateTime, NaiveDate, Utc};
use sqlx::{PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use super::Paging;
use crate::{domain::ReportStatus, tenancy::SchemaName};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ReportRecord {
    pub id: Uuid,
    pub department_id: Uuid,
    pub title: String,
    pub content: String,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub status: String,
    pub data: Option<serde_json::Value>,
    pub created_by: Uuid,
    pub created_by_name: Option<String>,
    pub created_by_email: Option<String>,
    pub created_by_role: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub submitted_at: Option<DateTime<Utc>>,
    pub reviewed_by: Option<Uuid>,
    pub reviewed_by_name: Option<String>,
    pub reviewed_by_email: Option<String>,
    pub reviewed_at: Option<DateTime<Utc>>,
    pub review_notes: Option<String>,
}

impl ReportRecord {
    pub fn status(&self) -> ReportStatus {
        self.status.parse().expect("the database checks report statuses")
    }
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Deserialize)]
pub struct EventRecord {
    pub id: Uuid,
    pub actor_id: Option<Uuid>,
    pub actor_name: Option<String>,
    pub actor_email: Option<String>,
    pub actor_role: Option<String>,
    pub from_status: Option<String>,
    pub to_status: String,
    pub notes: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A report's columns (`ReportRecord`), over `reports r` with its author `a` and reviewer `v`
/// joined by `report_authors!`.
macro_rules! report_columns {
    () => {
        "r.id, r.department_id, r.title, r.content, r.period_start, r.period_end, r.status, r.data, \
         r.created_by, a.full_name as created_by_name, a.email as created_by_email, a.role as created_by_role, \
         r.created_at, r.updated_at, r.submitted_at, r.reviewed_by, v.full_name as reviewed_by_name, \
         v.email as reviewed_by_email, r.reviewed_at, r.review_notes"
    };
}

macro_rules! report_authors {
    () => {
        "left join public.users a on a.id = r.created_by left join public.users v on v.id = r.reviewed_by"
    };
}

const SELECT: &str = concat!("select ", report_columns!(), " from reports r ", report_authors!());

pub struct NewReport<'a> {
    pub enterprise_id: Uuid,
    pub department_id: Uuid,
    pub title: &'a str,
    pub content: &'a str,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub status: ReportStatus,
    pub data: Option<&'a serde_json::Value>,
    pub created_by: Uuid,
}

pub async fn insert(tx: &mut PgConnection, r: NewReport<'_>) -> sqlx::Result<Uuid> {
    super::users::hold(&mut *tx, r.created_by).await?;
    let id = Uuid::now_v7();
    // No `case ... now()`: Citus evaluates now() once on the coordinator, but not inside CASE.
    let submitted_at = if r.status == ReportStatus::Submitted { "now()" } else { "null" };
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "insert into reports (id, department_id, title, content, period_start, period_end, status, data, created_by, submitted_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, {submitted_at})"
    )))
    .bind(id)
    .bind(r.department_id)
    .bind(r.title)
    .bind(r.content)
    .bind(r.period_start)
    .bind(r.period_end)
    .bind(r.status.as_str())
    .bind(r.data)
    .bind(r.created_by)
    .execute(&mut *tx)
    .await?;
    record_event(tx, r.enterprise_id, id, r.created_by, None, r.status, None).await?;
    Ok(id)
}

pub async fn find(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<ReportRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where r.id = $1"))).bind(id).fetch_optional(tx).await
}

/// A report with its audit trail, and where the reader works, read in one statement.
#[derive(Debug, sqlx::FromRow)]
pub struct ReportRead {
    #[sqlx(flatten)]
    pub report: ReportRecord,
    pub history: sqlx::types::Json<Vec<EventRecord>>,
    /// The reader's department, read live from `public.users` (what `users::workplace` reads).
    pub reader_department: Option<Uuid>,
}

/// The hot read of one report (`GET /reports/{id}`): one statement, one round trip, no
/// transaction. The tenant's tables are named with their schema (a `SchemaName` holds only names
/// the server makes), so no `search_path` has to be set first; the statement reads one snapshot.
pub async fn read(db: impl sqlx::PgExecutor<'_>, schema: &SchemaName, id: Uuid, reader: Uuid) -> sqlx::Result<Option<ReportRead>> {
    let s = schema.as_str();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        concat!(
            "select ",
            report_columns!(),
            ", (select coalesce(json_agg(json_build_object('id', e.id, 'actor_id', e.actor_id, 'actor_name', u.full_name, \
           'actor_email', u.email, 'actor_role', u.role, 'from_status', e.from_status, 'to_status', e.to_status, \
           'notes', e.notes, 'created_at', e.created_at) order by e.created_at, e.id), '[]'::json) \
          from \"{s}\".report_events e left join public.users u on u.id = e.actor_id where e.report_id = r.id) as history, \
         (select m.department_id from public.users m where m.id = $2) as reader_department \
         from \"{s}\".reports r ",
            report_authors!(),
            " where r.id = $1"
        ),
        s = s
    )))
    .bind(id)
    .bind(reader)
    .fetch_optional(db)
    .await
}

#[derive(Debug, Default)]
pub struct ReportFilter {
    pub department_id: Option<Uuid>,
    pub status: Option<ReportStatus>,
    /// Leave drafts out (what the CEO and the platform admin see).
    pub hide_drafts: bool,
    pub q: Option<String>,
    /// Reports whose period overlaps [from, to].
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

/// Sort orders a list offers; newest first by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, poem_openapi::Enum)]
pub enum ReportSort {
    #[default]
    #[oai(rename = "-createdAt")]
    NewestFirst,
    #[oai(rename = "createdAt")]
    OldestFirst,
    #[oai(rename = "-periodStart")]
    LatestPeriodFirst,
    #[oai(rename = "periodStart")]
    EarliestPeriodFirst,
    #[oai(rename = "title")]
    Title,
    #[oai(rename = "status")]
    Status,
}

impl ReportSort {
    fn sql(self) -> &'static str {
        match self {
            Self::NewestFirst => "r.created_at desc, r.id desc",
            Self::OldestFirst => "r.created_at, r.id",
            Self::LatestPeriodFirst => "r.period_start desc, r.id desc",
            Self::EarliestPeriodFirst => "r.period_start, r.id",
            Self::Title => "lower(r.title), r.id",
            Self::Status => "r.status, r.created_at desc",
        }
    }
}

pub async fn list(tx: &mut PgConnection, f: &ReportFilter, sort: ReportSort, paging: Paging) -> sqlx::Result<(Vec<ReportRecord>, i64)> {
    let filtered = |head: &str| {
        let mut qb = QueryBuilder::<Postgres>::new(format!("{head} where true"));
        if let Some(d) = f.department_id {
            qb.push(" and r.department_id = ").push_bind(d);
        }
        if let Some(s) = f.status {
            qb.push(" and r.status = ").push_bind(s.as_str());
        }
        if f.hide_drafts {
            qb.push(" and r.status <> 'draft'");
        }
        if let Some(q) = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            let pattern = format!("%{}%", super::escape_like(q));
            qb.push(" and (r.title ilike ").push_bind(pattern.clone()).push(" or r.content ilike ").push_bind(pattern).push(")");
        }
        if let Some(from) = f.from {
            qb.push(" and r.period_end >= ").push_bind(from);
        }
        if let Some(to) = f.to {
            qb.push(" and r.period_start <= ").push_bind(to);
        }
        qb
    };
    let total: i64 = filtered("select count(*) from reports r").build_query_scalar().fetch_one(&mut *tx).await?;
    let mut qb = filtered(SELECT);
    qb.push(format!(" order by {} limit ", sort.sql())).push_bind(paging.limit()).push(" offset ").push_bind(paging.offset());
    Ok((qb.build_query_as().fetch_all(&mut *tx).await?, total))
}

pub struct ReportChanges<'a> {
    pub title: Option<&'a str>,
    pub content: Option<&'a str>,
    pub period_start: Option<NaiveDate>,
    pub period_end: Option<NaiveDate>,
    /// `Some(None)` removes the data table.
    pub data: Option<Option<&'a serde_json::Value>>,
}

pub async fn update(tx: &mut PgConnection, id: Uuid, c: &ReportChanges<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "update reports set title = coalesce($2, title), content = coalesce($3, content), \
         period_start = coalesce($4, period_start), period_end = coalesce($5, period_end), \
         data = case when $6 then $7 else data end, updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(c.title)
    .bind(c.content)
    .bind(c.period_start)
    .bind(c.period_end)
    .bind(c.data.is_some())
    .bind(c.data.flatten())
    .execute(tx)
    .await
    .map(drop)
}

/// Moves the report and records the move in its audit trail.
pub async fn transition(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    actor: Uuid,
    from: ReportStatus,
    to: ReportStatus,
    notes: Option<&str>,
) -> sqlx::Result<()> {
    super::users::hold(&mut *tx, actor).await?;
    let reviewing = matches!(to, ReportStatus::Reviewed | ReportStatus::Approved | ReportStatus::Rejected);
    // Back to its author (edited or submitted again): the last review is history (its audit
    // trail keeps it), not the report's current review.
    let reopened = matches!(to, ReportStatus::Draft | ReportStatus::Submitted);
    // The columns set depend on the move alone, so they are chosen here rather than by CASE in
    // SQL: Citus evaluates now() once on the coordinator, but refuses it inside CASE.
    let mut qb = QueryBuilder::<Postgres>::new("update reports set updated_at = now(), status = ");
    qb.push_bind(to.as_str());
    if to == ReportStatus::Submitted {
        qb.push(", submitted_at = now()");
    }
    if reviewing {
        qb.push(", reviewed_at = now(), reviewed_by = ").push_bind(actor).push(", review_notes = ").push_bind(notes);
    } else if reopened {
        qb.push(", reviewed_at = null, reviewed_by = null, review_notes = null");
    }
    qb.push(" where id = ").push_bind(id);
    qb.build().execute(&mut *tx).await?;
    record_event(tx, enterprise_id, id, actor, Some(from), to, notes).await
}

/// The tenant's audit trail, and the platform ledger (`public.report_transitions`).
async fn record_event(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    report: Uuid,
    actor: Uuid,
    from: Option<ReportStatus>,
    to: ReportStatus,
    notes: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query("insert into report_events (id, report_id, actor_id, from_status, to_status, notes) values ($1, $2, $3, $4, $5, $6)")
        .bind(Uuid::now_v7())
        .bind(report)
        .bind(actor)
        .bind(from.map(ReportStatus::as_str))
        .bind(to.as_str())
        .bind(notes)
        .execute(&mut *tx)
        .await?;
    sqlx::query("insert into public.report_transitions (id, enterprise_id, report_id, to_status) values ($1, $2, $3, $4)")
        .bind(Uuid::now_v7())
        .bind(enterprise_id)
        .bind(report)
        .bind(to.as_str())
        .execute(tx)
        .await
        .map(drop)
}

/// The enterprise a report belongs to, from the platform ledger of report transitions (every
/// report has one from its creation on).
pub async fn enterprise_of(pool: &sqlx::PgPool, report: Uuid) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("select enterprise_id from public.report_transitions where report_id = $1 limit 1").bind(report).fetch_optional(pool).await
}

pub async fn events(tx: &mut PgConnection, report: Uuid) -> sqlx::Result<Vec<EventRecord>> {
    sqlx::query_as(
        "select e.id, e.actor_id, u.full_name as actor_name, u.email as actor_email, u.role as actor_role, \
         e.from_status, e.to_status, e.notes, e.created_at \
         from report_events e left join public.users u on u.id = e.actor_id where e.report_id = $1 order by e.created_at, e.id",
    )
    .bind(report)
    .fetch_all(tx)
    .await
}

pub async fn delete(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("delete from public.report_transitions where report_id = $1").bind(id).execute(&mut *tx).await?;
    sqlx::query("delete from reports where id = $1").bind(id).execute(tx).await.map(drop)
}

/// Reports the CEO can see (not drafts).
pub async fn visible_count(tx: &mut PgConnection) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from reports where status <> 'draft'").fetch_one(tx).await
}
