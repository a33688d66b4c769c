//! Enterprise exports (`public.enterprise_exports`, `public.enterprise_export_parts`): the job's
//! row, which is also its queue, and the archive's bytes in parts; then the reads that fill the
//! archive, each a page or one bounded list so that no statement runs long and no read holds an
//! enterprise in memory (`enterprise_export`).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgPool, Row as _};
use uuid::Uuid;

/// An export as its API shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ExportRecord {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub requested_by: Option<Uuid>,
    pub status: String,
    pub progress: i32,
    pub stage: String,
    pub size_bytes: Option<i64>,
    pub sha256: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, enterprise_id, requested_by, status, progress, stage, size_bytes, sha256, error, created_at, finished_at, expires_at";

/// A new export of `enterprise`, queued; or the one already queued or running (one at a time
/// per enterprise: a second click does not start a second archive). `true` when it is new.
pub async fn create(db: &PgPool, enterprise: Uuid, requested_by: Uuid, now: DateTime<Utc>) -> sqlx::Result<(ExportRecord, bool)> {
    let mut tx = db.begin().await?;
    // Two requests at once for one enterprise: the second waits here and finds the first's.
    sqlx::query("select pg_advisory_xact_lock(hashtextextended('enterprise_export:' || $1::text, 0))").bind(enterprise).execute(&mut *tx).await?;
    let running = sqlx::query_as::<_, ExportRecord>(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from public.enterprise_exports where enterprise_id = $1 and status in ('queued', 'running') order by created_at limit 1"
    )))
    .bind(enterprise)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(running) = running {
        tx.commit().await?;
        return Ok((running, false));
    }
    let created = sqlx::query_as::<_, ExportRecord>(sqlx::AssertSqlSafe(format!(
        "insert into public.enterprise_exports (id, enterprise_id, requested_by, created_at) values ($1, $2, $3, $4) returning {COLUMNS}"
    )))
    .bind(Uuid::now_v7())
    .bind(enterprise)
    .bind(requested_by)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((created, true))
}

/// One export of `enterprise` (another enterprise's id finds nothing).
pub async fn find(db: &PgPool, enterprise: Uuid, id: Uuid) -> sqlx::Result<Option<ExportRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {COLUMNS} from public.enterprise_exports where id = $1 and enterprise_id = $2")))
        .bind(id)
        .bind(enterprise)
        .fetch_optional(db)
        .await
}

/// The enterprise's latest exports, newest first.
pub async fn list(db: &PgPool, enterprise: Uuid, limit: i64) -> sqlx::Result<Vec<ExportRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {COLUMNS} from public.enterprise_exports where enterprise_id = $1 order by created_at desc limit $2"
    )))
    .bind(enterprise)
    .bind(limit)
    .fetch_all(db)
    .await
}

/// Takes a job for this instance: `id` if it is still queued, or else the oldest queued one, or
/// one whose instance stopped beating before `stale_before` (it died; its parts are dropped and
/// the archive is written again). Two instances never take one job.
pub async fn claim(db: &PgPool, id: Option<Uuid>, now: DateTime<Utc>, stale_before: DateTime<Utc>) -> sqlx::Result<Option<ExportRecord>> {
    let mut tx = db.begin().await?;
    let found: Option<Uuid> = sqlx::query_scalar(
        "select id from public.enterprise_exports \
         where (id = $1 or $1 is null) and (status = 'queued' or (status = 'running' and heartbeat_at < $2)) \
         order by created_at limit 1 for update skip locked",
    )
    .bind(id)
    .bind(stale_before)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(found) = found else { return Ok(None) };
    sqlx::query("delete from public.enterprise_export_parts where export_id = $1").bind(found).execute(&mut *tx).await?;
    let claimed = sqlx::query_as::<_, ExportRecord>(sqlx::AssertSqlSafe(format!(
        "update public.enterprise_exports set status = 'running', progress = 0, stage = 'people', started_at = $2, heartbeat_at = $2 \
         where id = $1 returning {COLUMNS}"
    )))
    .bind(found)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(claimed))
}

/// Where a running job is (`progress` 0-100, `stage`), which is also its heartbeat.
pub async fn progress(db: &PgPool, id: Uuid, progress: i32, stage: &str, now: DateTime<Utc>) -> sqlx::Result<()> {
    sqlx::query("update public.enterprise_exports set progress = $2, stage = $3, heartbeat_at = $4 where id = $1 and status = 'running'")
        .bind(id)
        .bind(progress.clamp(0, 99))
        .bind(stage)
        .bind(now)
        .execute(db)
        .await?;
    Ok(())
}

/// One part of the archive, in order from 0.
pub async fn put_part(db: &PgPool, id: Uuid, seq: i32, bytes: &[u8]) -> sqlx::Result<()> {
    sqlx::query("insert into public.enterprise_export_parts (export_id, seq, bytes) values ($1, $2, $3)")
        .bind(id)
        .bind(seq)
        .bind(bytes)
        .execute(db)
        .await?;
    Ok(())
}

/// Part `seq` of a ready archive, if there is one.
pub async fn part(db: &PgPool, id: Uuid, seq: i32) -> sqlx::Result<Option<Vec<u8>>> {
    sqlx::query_scalar("select bytes from public.enterprise_export_parts where export_id = $1 and seq = $2")
        .bind(id)
        .bind(seq)
        .fetch_optional(db)
        .await
}

/// The archive is whole: ready to download until `expires_at`. `false` when the job was withdrawn
/// while it ran (`withdraw`): its parts are dropped then, and it stays as the withdrawal left it.
pub async fn ready(db: &PgPool, id: Uuid, size: i64, sha256: &str, now: DateTime<Utc>, expires_at: DateTime<Utc>) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "update public.enterprise_exports set status = 'ready', progress = 100, stage = 'ready', size_bytes = $2, sha256 = $3, \
         finished_at = $4, heartbeat_at = $4, expires_at = $5 where id = $1 and status = 'running'",
    )
    .bind(id)
    .bind(size)
    .bind(sha256)
    .bind(now)
    .bind(expires_at)
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        sqlx::query("delete from public.enterprise_export_parts where export_id = $1").bind(id).execute(db).await?;
        return Ok(false);
    }
    Ok(true)
}

/// What a job withdrawn while it was written says.
const WITHDRAWN: &str = "A person of the enterprise was erased while this archive was written, so it was discarded. Export again.";

/// Someone of the enterprise was erased (in `tx`): no archive may still hold them. Ready archives
/// are deleted (their exports read as expired); exports waiting or being written fail, and the
/// one being written is discarded when it ends (`ready`). Returns how many were withdrawn.
pub async fn withdraw(tx: &mut PgConnection, enterprise: Uuid, now: DateTime<Utc>) -> sqlx::Result<u64> {
    let ids: Vec<Uuid> = sqlx::query_scalar(
        "select id from public.enterprise_exports where enterprise_id = $1 and status in ('queued', 'running', 'ready') for update",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    if ids.is_empty() {
        return Ok(0);
    }
    sqlx::query("delete from public.enterprise_export_parts where export_id = any($1)").bind(&ids).execute(&mut *tx).await?;
    sqlx::query("update public.enterprise_exports set status = 'expired', stage = 'expired' where id = any($1) and status = 'ready'")
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "update public.enterprise_exports set status = 'failed', stage = 'failed', error = $2, finished_at = $3 \
         where id = any($1) and status in ('queued', 'running')",
    )
    .bind(&ids)
    .bind(WITHDRAWN)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    Ok(ids.len() as u64)
}

/// The job failed for good: its parts are dropped; `error` says why, in words for the admin.
pub async fn failed(db: &PgPool, id: Uuid, error: &str, now: DateTime<Utc>) -> sqlx::Result<()> {
    let mut tx = db.begin().await?;
    sqlx::query("delete from public.enterprise_export_parts where export_id = $1").bind(id).execute(&mut *tx).await?;
    sqlx::query("update public.enterprise_exports set status = 'failed', stage = 'failed', error = $2, finished_at = $3 where id = $1")
        .bind(id)
        .bind(error)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// Ready exports whose download has expired lose their archive; returns how many.
pub async fn expire_due(db: &PgPool, now: DateTime<Utc>) -> sqlx::Result<u64> {
    let mut tx = db.begin().await?;
    let due: Vec<Uuid> =
        sqlx::query_scalar("select id from public.enterprise_exports where status = 'ready' and expires_at <= $1 for update skip locked")
            .bind(now)
            .fetch_all(&mut *tx)
            .await?;
    sqlx::query("delete from public.enterprise_export_parts where export_id = any($1)").bind(&due).execute(&mut *tx).await?;
    sqlx::query("update public.enterprise_exports set status = 'expired', stage = 'expired' where id = any($1)").bind(&due).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(due.len() as u64)
}

// The archive's reads.

/// What the archive's progress is measured against.
pub struct Sizes {
    pub reports: i64,
    pub spreadsheets: i64,
    pub audit_events: i64,
    pub messages: i64,
}

/// Counts inside the tenant's schema (the transaction's search path) and of its audit log.
pub async fn sizes(tx: &mut PgConnection, enterprise: Uuid) -> sqlx::Result<Sizes> {
    let row = sqlx::query("select (select count(*) from reports), (select count(*) from spreadsheets), (select count(*) from messages)")
        .fetch_one(&mut *tx)
        .await?;
    let audit_events: i64 =
        sqlx::query_scalar("select count(*) from public.audit_events where enterprise_id = $1").bind(enterprise).fetch_one(&mut *tx).await?;
    Ok(Sizes { reports: row.get(0), spreadsheets: row.get(1), messages: row.get(2), audit_events })
}

/// The enterprise's people, as JSON objects (never a password hash, a secret or a key).
pub async fn people(db: &PgPool, enterprise: Uuid) -> sqlx::Result<Vec<Value>> {
    sqlx::query_scalar(
        "select jsonb_build_object('id', id, 'fullName', full_name, 'email', email, 'role', role, 'departmentId', department_id, \
         'status', status, 'locale', locale, 'lastLoginAt', last_login_at, 'createdAt', created_at, 'updatedAt', updated_at, \
         'notifyReports', notify_reports, 'notifySignIns', notify_sign_ins, 'notifyInvitations', notify_invitations, \
         'scimExternalId', scim_external_id, 'erasedAt', erased_at, 'erasureNumber', erasure_number) \
         from public.users where enterprise_id = $1 order by created_at, id",
    )
    .bind(enterprise)
    .fetch_all(db)
    .await
}

/// Every row of a small tenant table (departments, conversations with their members), as JSON,
/// without the columns named in `without`.
pub async fn rows(tx: &mut PgConnection, table: Tenanted, without: &[&str]) -> sqlx::Result<Vec<Value>> {
    let sql = match table {
        Tenanted::Departments => "select to_jsonb(d) - $1::text[] from departments d order by type",
        Tenanted::Conversations => {
            "select to_jsonb(c) - $1::text[] || jsonb_build_object('members', \
             (select coalesce(jsonb_agg(to_jsonb(m) - 'conversation_id' order by m.user_id), '[]') from conversation_members m where m.conversation_id = c.id)) \
             from conversations c order by c.created_at, c.id"
        }
        Tenanted::Spreadsheets => "select to_jsonb(s) - $1::text[] from spreadsheets s order by s.created_at, s.id",
    };
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql)).bind(without).fetch_all(&mut *tx).await
}

/// The small tenant tables `rows` reads.
#[derive(Debug, Clone, Copy)]
pub enum Tenanted {
    Departments,
    Conversations,
    Spreadsheets,
}

/// Up to `limit` reports after `after` (by id), each with its whole review history (`history`).
pub async fn reports_page(tx: &mut PgConnection, after: Option<Uuid>, limit: i64) -> sqlx::Result<Vec<(Uuid, Value)>> {
    let rows = sqlx::query(
        "select r.id, to_jsonb(r) || jsonb_build_object('history', \
         (select coalesce(jsonb_agg(to_jsonb(e) - 'report_id' order by e.created_at, e.id), '[]') from report_events e where e.report_id = r.id)) \
         from reports r where ($1::uuid is null or r.id > $1) order by r.id limit $2",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows.into_iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// One spreadsheet's stored workbook (the engine's bytes).
pub async fn spreadsheet_content(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<Vec<u8>>> {
    sqlx::query_scalar("select content from spreadsheets where id = $1").bind(id).fetch_optional(&mut *tx).await
}

/// Up to `limit` messages after `after` (by id): what the server holds, ciphertext included.
pub async fn messages_page(tx: &mut PgConnection, after: Option<Uuid>, limit: i64) -> sqlx::Result<Vec<(Uuid, Value)>> {
    let rows = sqlx::query("select m.id, to_jsonb(m) from messages m where ($1::uuid is null or m.id > $1) order by m.id limit $2")
        .bind(after)
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// Up to `limit` of the enterprise's audit entries after `after` (by id, which is time-ordered).
pub async fn audit_page(db: &PgPool, enterprise: Uuid, after: Option<Uuid>, limit: i64) -> sqlx::Result<Vec<(Uuid, Value)>> {
    let rows = sqlx::query(
        "select id, jsonb_build_object('id', id, 'at', at, 'actorType', actor_type, 'actorId', actor_id, 'actorName', actor_name, \
         'action', action, 'targetType', target_type, 'targetId', target_id, 'targetName', target_name, 'ip', host(ip), 'place', place, \
         'userAgent', user_agent, 'changes', changes) \
         from public.audit_events where enterprise_id = $1 and ($2::uuid is null or id > $2) order by id limit $3",
    )
    .bind(enterprise)
    .bind(after)
    .bind(limit)
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(|row| (row.get(0), row.get(1))).collect())
}

/// The enterprise's webhooks and single sign-on settings and domains, without any secret.
pub async fn settings(db: &PgPool, enterprise: Uuid) -> sqlx::Result<Value> {
    sqlx::query_scalar(
        "select jsonb_build_object( \
           'webhooks', (select coalesce(jsonb_agg(to_jsonb(w) - $2::text[] order by w.created_at), '[]') from public.webhooks w where w.enterprise_id = $1), \
           'sso', (select to_jsonb(s) - $2::text[] from public.enterprise_sso s where s.enterprise_id = $1), \
           'ssoDomains', (select coalesce(jsonb_agg(to_jsonb(d) - $2::text[] order by d.domain), '[]') from public.sso_domains d where d.enterprise_id = $1))",
    )
    .bind(enterprise)
    .bind(SECRET_COLUMNS)
    .fetch_one(db)
    .await
}

/// Columns of the settings' tables that an archive never carries: secrets, sealed or not.
pub const SECRET_COLUMNS: &[&str] = &["secret", "previous_secret", "client_secret"];
