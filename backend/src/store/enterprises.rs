use chrono::{DateTime, SubsecRound as _, Utc};
use sqlx::{PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::{
    domain::{DepartmentType, Email},
    store::{Paging, sessions},
    tenancy::{self, SchemaName},
};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EnterpriseRecord {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub is_active: bool,
    pub schema_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub ceo_id: Option<Uuid>,
    pub ceo_full_name: Option<String>,
    pub ceo_email: Option<String>,
    pub ceo_locale: Option<String>,
    /// When `DELETE` suspended it; its purge is due at `purge_after` (both null otherwise).
    pub deletion_scheduled_at: Option<DateTime<Utc>>,
    pub purge_after: Option<DateTime<Utc>>,
}

impl EnterpriseRecord {
    pub fn schema(&self) -> SchemaName {
        SchemaName::parse(&self.schema_name).expect("schema names are made by tenancy::SchemaName")
    }
}

const SELECT: &str = "select e.id, e.name, e.description, e.is_active, e.schema_name, e.created_at, e.updated_at, \
     e.deletion_scheduled_at, e.purge_after, c.id as ceo_id, c.full_name as ceo_full_name, c.email as ceo_email, \
     c.locale as ceo_locale \
     from public.enterprises e left join lateral (select id, full_name, email, locale from public.users \
     where enterprise_id = e.id and role = 'EnterpriseCeo' order by created_at limit 1) c on true";

pub struct NewEnterprise<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub ceo_full_name: &'a str,
    pub ceo_email: &'a Email,
    pub ceo_locale: crate::domain::Lang,
    /// Who invites the CEO, when no password is given.
    pub inviter: crate::accounts::Inviter<'a>,
}

/// In one transaction: the enterprise, its schema from the baseline, its five departments and
/// its CEO. Any failure leaves no row and no schema. A name another enterprise has surfaces as the
/// unique violation of `enterprises_name_key` (before any DDL), a taken CEO e-mail address as that
/// of `users_email_key`. The CEO's password hash is awaited last, so
/// hashing (tens of milliseconds of CPU) overlaps the DDL instead of preceding it.
pub async fn create_with_tenant(
    pool: &PgPool,
    new: NewEnterprise<'_>,
    ceo_password_hash: impl Future<Output = anyhow::Result<Option<String>>>,
    actor: &super::audit::Actor,
) -> anyhow::Result<Uuid> {
    let mut tx = pool.begin().await?;
    // A schema made ahead (`tenancy::spares`) gives the enterprise its id; else one is made now.
    let spare = tenancy::spares::claim(&mut tx).await?;
    let (id, schema) = spare.clone().unwrap_or_else(|| {
        let id = Uuid::now_v7();
        (id, SchemaName::for_enterprise(id))
    });
    sqlx::query("insert into public.enterprises (id, name, description, schema_name) values ($1, $2, $3, $4)")
        .bind(id)
        .bind(new.name)
        .bind(new.description)
        .bind(schema.as_str())
        .execute(&mut *tx)
        .await?;
    match spare {
        Some(_) => tenancy::spares::adopt(&mut tx, &schema, id).await?,
        None => tenancy::create_schema(&mut tx, &schema, Some(id)).await?,
    }
    tenancy::set_search_path(&mut tx, &schema).await?;
    let types: Vec<&str> = DepartmentType::ALL.iter().map(|t| t.as_str()).collect();
    let ids: Vec<Uuid> = types.iter().map(|_| Uuid::now_v7()).collect();
    sqlx::query("insert into departments (id, type) select * from unnest($1::uuid[], $2::text[])").bind(&ids).bind(&types).execute(&mut *tx).await?;
    let hash = ceo_password_hash.await?;
    let ceo = super::users::insert(
        &mut *tx,
        super::users::NewUser {
            enterprise_id: Some(id),
            department_id: None,
            role: crate::domain::Role::EnterpriseCeo,
            full_name: new.ceo_full_name,
            email: new.ceo_email,
            password_hash: hash.as_deref(),
            locale: new.ceo_locale,
        },
    )
    .await?;
    if hash.is_none() {
        crate::accounts::invite(&mut tx, ceo, Some((id, new.name)), &new.inviter).await?;
    }
    let target = super::audit::Target::new("enterprise", id, new.name);
    super::audit::insert(&mut tx, actor, Some(id), "enterprise.created", Some(target), serde_json::json!({ "ceoEmail": new.ceo_email.as_str() }))
        .await?;
    let ceo_target = super::audit::Target::new("user", ceo, new.ceo_full_name);
    super::audit::insert(
        &mut tx,
        actor,
        Some(id),
        "user.created",
        Some(ceo_target),
        serde_json::json!({ "role": "EnterpriseCeo", "email": new.ceo_email.as_str() }),
    )
    .await?;
    let data = serde_json::json!({
        "userId": ceo, "enterpriseId": id, "departmentId": null, "fullName": new.ceo_full_name, "email": new.ceo_email.as_str(),
        "role": "EnterpriseCeo", "status": "active", "actorId": actor.id,
    });
    super::outbox::webhook_event(&mut tx, Some(id), "user.created", data).await?;
    tx.commit().await?;
    Ok(id)
}

/// True when `err` is the violation of the unique name index: names are unique across the
/// platform, compared ignoring case and accents (the `enterprise_name` collation, migration
/// 20261201000001).
pub fn is_duplicate_name(err: &sqlx::Error) -> bool {
    super::violated_constraint(err).as_deref() == Some("enterprises_name_key")
}

/// Whether an enterprise already has this name, compared as the unique index compares
/// (ignoring case and accents).
pub async fn name_taken(db: impl sqlx::PgExecutor<'_>, name: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "select exists (select 1 from public.enterprises where name collate public.enterprise_name = $1::text collate public.enterprise_name)",
    )
    .bind(name.trim())
    .fetch_one(db)
    .await
}

#[derive(Debug, Default)]
pub struct EnterpriseFilter {
    pub q: Option<String>,
    pub active: Option<bool>,
}

pub async fn list(pool: &PgPool, filter: &EnterpriseFilter, paging: Paging) -> sqlx::Result<(Vec<EnterpriseRecord>, i64)> {
    let filtered = |head: &str| {
        let mut qb = QueryBuilder::<Postgres>::new(format!("{head} from ({SELECT}) x where true"));
        if let Some(q) = filter.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            let pattern = format!("%{}%", super::escape_like(q));
            qb.push(" and (name ilike ").push_bind(pattern.clone()).push(" or ceo_email ilike ").push_bind(pattern).push(")");
        }
        if let Some(active) = filter.active {
            qb.push(" and is_active = ").push_bind(active);
        }
        qb
    };
    let total: i64 = filtered("select count(*)").build_query_scalar().fetch_one(pool).await?;
    let mut qb = filtered("select *");
    qb.push(" order by created_at desc, id limit ").push_bind(paging.limit()).push(" offset ").push_bind(paging.offset());
    let rows = qb.build_query_as().fetch_all(pool).await?;
    Ok((rows, total))
}

/// Whether the enterprise exists: one primary-key probe, for calls that need only its schema
/// (`SchemaName::for_enterprise`), not its row and its CEO.
pub async fn exists(db: impl sqlx::PgExecutor<'_>, id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from public.enterprises where id = $1)").bind(id).fetch_one(db).await
}

pub async fn find(db: impl sqlx::PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<EnterpriseRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where e.id = $1"))).bind(id).fetch_optional(db).await
}

pub struct EnterpriseChanges<'a> {
    pub name: Option<&'a str>,
    pub description: Option<&'a str>,
    pub is_active: Option<bool>,
}

/// Applies the changes; deactivating ends every live session of the enterprise in the same
/// transaction. A name another enterprise has is the unique violation of `enterprises_name_key`
/// (`is_duplicate_name`). Returns the ended session ids, or `None` when there is no such enterprise.
pub async fn update(
    pool: &PgPool,
    id: Uuid,
    changes: EnterpriseChanges<'_>,
    actor: &super::audit::Actor,
) -> sqlx::Result<Option<Vec<sessions::EndedSession>>> {
    let mut tx = pool.begin().await?;
    let Some((name, description, is_active)): Option<(String, String, bool)> =
        sqlx::query_as("select name, description, is_active from public.enterprises where id = $1 for update")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
    else {
        return Ok(None);
    };
    let found = sqlx::query(
        // While its deletion is scheduled it stays suspended: `isActive` is then what a restore
        // brings back (the API refuses `true` before this).
        "update public.enterprises set name = coalesce($2, name), description = coalesce($3, description), \
         is_active = case when deletion_scheduled_at is null then coalesce($4, is_active) else false end, \
         active_before_deletion = case when deletion_scheduled_at is null then active_before_deletion \
             else coalesce($4, active_before_deletion) end, \
         updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(changes.name)
    .bind(changes.description)
    .bind(changes.is_active)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if found == 0 {
        return Ok(None);
    }
    let ended =
        if changes.is_active == Some(false) { sessions::end_for_enterprise(&mut tx, id, "enterprise_deactivated").await? } else { Vec::new() };
    let mut diff = serde_json::Map::new();
    let mut changed = |field: &str, before: serde_json::Value, after: serde_json::Value| {
        if before != after {
            diff.insert(field.to_owned(), serde_json::json!([before, after]));
        }
    };
    let new_name = changes.name.unwrap_or(&name);
    changed("name", name.as_str().into(), new_name.into());
    changed("description", description.as_str().into(), changes.description.unwrap_or(&description).into());
    changed("isActive", is_active.into(), changes.is_active.unwrap_or(is_active).into());
    let target = super::audit::Target::new("enterprise", id, new_name);
    super::audit::insert(&mut tx, actor, Some(id), "enterprise.updated", Some(target), serde_json::Value::Object(diff)).await?;
    tx.commit().await?;
    Ok(Some(ended))
}

/// Why a step of an enterprise's deletion was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum DeletionRefused {
    NotFound,
    /// Restore or purge of an enterprise whose deletion is not scheduled.
    NotScheduled,
    /// A purge whose typed name is not the enterprise's.
    NameMismatch,
}

/// What the CEO is told of a step of the deletion (`mail::Kind::EnterpriseDeletion`).
async fn tell_ceo(tx: &mut sqlx::PgConnection, e: &EnterpriseRecord, step: &str, purge_after: Option<DateTime<Utc>>) -> sqlx::Result<()> {
    let (Some(ceo), Some(name), Some(email)) = (e.ceo_id, e.ceo_full_name.as_deref(), e.ceo_email.as_deref()) else { return Ok(()) };
    let mut data = serde_json::json!({ "step": step, "enterprise": e.name, "purgeAfter": purge_after });
    if step == "purged" {
        // The account is gone when the message is sent: it carries its recipient itself.
        data["to"] = serde_json::json!({ "name": name, "email": email, "locale": e.ceo_locale });
        return super::outbox::email(tx, None, ceo, crate::mail::Kind::EnterpriseDeletion.as_str(), data, std::time::Duration::ZERO).await;
    }
    crate::mail::enqueue(tx, Some(e.id), ceo, crate::mail::Kind::EnterpriseDeletion, data).await
}

async fn locked(tx: &mut sqlx::PgConnection, id: Uuid) -> sqlx::Result<Option<EnterpriseRecord>> {
    sqlx::query("select 1 from public.enterprises where id = $1 for update").bind(id).fetch_optional(&mut *tx).await?;
    find(&mut *tx, id).await
}

/// Pauses (or resumes) the enterprise's webhooks: the fan-out and the dispatcher skip them.
async fn suspend_webhooks(tx: &mut sqlx::PgConnection, id: Uuid, suspended: bool) -> sqlx::Result<()> {
    sqlx::query("update public.webhooks set suspended = $2 where enterprise_id = $1").bind(id).bind(suspended).execute(&mut *tx).await?;
    Ok(())
}

/// Suspends the enterprise at once (nobody signs in, its sessions end, its tokens and webhooks
/// stop) and schedules its purge `grace` from now; its CEO is told. Scheduling it again keeps the
/// first schedule. Returns the schedule and the sessions that were live.
pub async fn schedule_deletion(
    pool: &PgPool,
    id: Uuid,
    grace: std::time::Duration,
    actor: &super::audit::Actor,
) -> sqlx::Result<Option<(DateTime<Utc>, Vec<sessions::EndedSession>)>> {
    let mut tx = pool.begin().await?;
    let Some(e) = locked(&mut tx, id).await? else { return Ok(None) };
    if let Some(purge_after) = e.purge_after {
        return Ok(Some((purge_after, Vec::new())));
    }
    // At PostgreSQL's precision (microseconds): the answer is what a read gives back.
    let now = Utc::now().trunc_subsecs(6);
    let purge_after = (now + chrono::Duration::from_std(grace).unwrap_or(chrono::Duration::days(30))).trunc_subsecs(6);
    sqlx::query(
        "update public.enterprises set active_before_deletion = is_active, is_active = false, deletion_scheduled_at = $2, \
         purge_after = $3, updated_at = $2 where id = $1",
    )
    .bind(id)
    .bind(now)
    .bind(purge_after)
    .execute(&mut *tx)
    .await?;
    let live = sessions::end_for_enterprise(&mut tx, id, "deleted").await?;
    suspend_webhooks(&mut tx, id, true).await?;
    let target = super::audit::Target::new("enterprise", id, &e.name);
    super::audit::insert(&mut tx, actor, Some(id), "enterprise.deletion_scheduled", Some(target), serde_json::json!({ "purgeAfter": purge_after }))
        .await?;
    tell_ceo(&mut tx, &e, "scheduled", Some(purge_after)).await?;
    tx.commit().await?;
    Ok(Some((purge_after, live)))
}

/// Undoes a scheduled deletion within its window: the enterprise is active again if it was
/// before, its webhooks resume; its CEO is told.
pub async fn restore(pool: &PgPool, id: Uuid, actor: &super::audit::Actor) -> sqlx::Result<Result<(), DeletionRefused>> {
    let mut tx = pool.begin().await?;
    let Some(e) = locked(&mut tx, id).await? else { return Ok(Err(DeletionRefused::NotFound)) };
    if e.deletion_scheduled_at.is_none() {
        return Ok(Err(DeletionRefused::NotScheduled));
    }
    sqlx::query(
        "update public.enterprises set is_active = coalesce(active_before_deletion, true), active_before_deletion = null, \
         deletion_scheduled_at = null, purge_after = null, updated_at = $2 where id = $1",
    )
    .bind(id)
    .bind(Utc::now())
    .execute(&mut *tx)
    .await?;
    suspend_webhooks(&mut tx, id, false).await?;
    let target = super::audit::Target::new("enterprise", id, &e.name);
    super::audit::insert(&mut tx, actor, Some(id), "enterprise.restored", Some(target), serde_json::json!({})).await?;
    tell_ceo(&mut tx, &e, "restored", None).await?;
    tx.commit().await?;
    Ok(Ok(()))
}

/// Purges an enterprise whose deletion is scheduled, in one transaction: its schema, its row and
/// every row it owns in the shared tables (users, sessions, tokens, webhooks and their
/// deliveries, single sign-on, its waiting outbox rows, its own audit entries). What stays is the
/// platform's record of the purge (`enterprise.purged`, no enterprise, the name it had) and the
/// CEO's notice, which carries its recipient. `confirm_name`, when given, must be the name.
pub async fn purge(
    pool: &PgPool,
    id: Uuid,
    confirm_name: Option<&str>,
    actor: &super::audit::Actor,
) -> sqlx::Result<Result<Vec<sessions::EndedSession>, DeletionRefused>> {
    let mut tx = pool.begin().await?;
    let Some(e) = locked(&mut tx, id).await? else { return Ok(Err(DeletionRefused::NotFound)) };
    if e.deletion_scheduled_at.is_none() {
        return Ok(Err(DeletionRefused::NotScheduled));
    }
    if confirm_name.is_some_and(|typed| typed.trim() != e.name) {
        return Ok(Err(DeletionRefused::NameMismatch));
    }
    let live = sessions::end_for_enterprise(&mut tx, id, "deleted").await?;
    tenancy::drop_schema(&mut tx, &e.schema()).await?;
    sqlx::query("delete from public.outbox where enterprise_id = $1").bind(id).execute(&mut *tx).await?;
    sqlx::query("delete from public.outbox where recipient_id in (select id from public.users where enterprise_id = $1)")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    // The record of the import that made it stays, without naming it.
    sqlx::query("update public.enterprise_imports set enterprise_id = null where enterprise_id = $1").bind(id).execute(&mut *tx).await?;
    // Users, sessions, tokens, webhooks and their deliveries, single sign-on and the
    // tenant_schemas row go with it (on delete cascade).
    sqlx::query("delete from public.enterprises where id = $1").bind(id).execute(&mut *tx).await?;
    sqlx::query("select public.audit_forget_enterprise($1)").bind(id).execute(&mut *tx).await?;
    let target = super::audit::Target::new("enterprise", id, &e.name);
    let facts = serde_json::json!({ "deletionScheduledAt": e.deletion_scheduled_at, "purgeAfter": e.purge_after });
    super::audit::insert(&mut tx, actor, None, "enterprise.purged", Some(target), facts).await?;
    tell_ceo(&mut tx, &e, "purged", None).await?;
    tx.commit().await?;
    Ok(Ok(live))
}

/// The enterprises whose recovery window has ended, oldest first.
pub async fn due_for_purge(pool: &PgPool, now: DateTime<Utc>, limit: i64) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from public.enterprises where purge_after <= $1 order by purge_after limit $2")
        .bind(now)
        .bind(limit)
        .fetch_all(pool)
        .await
}

pub async fn user_count(pool: &PgPool, id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from public.users where enterprise_id = $1").bind(id).fetch_one(pool).await
}

/// How many tenant schemas there are, and how many are behind `latest` or failed a migration.
pub async fn tenant_state(pool: &PgPool, latest: i64) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "select count(*) filter (where enterprise_id is not null), count(*) filter (where version < $1 or last_error is not null) \
         from public.tenant_schemas",
    )
    .bind(latest)
    .fetch_one(pool)
    .await
}

/// What SCIM's DELETE does for the enterprise (`delete` or `erase`); `None` when it is gone.
pub async fn scim_deletion(db: &PgPool, id: Uuid) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("select scim_deletion from public.enterprises where id = $1").bind(id).fetch_optional(db).await
}

pub async fn set_scim_deletion(tx: &mut sqlx::PgConnection, id: Uuid, deletion: &str) -> sqlx::Result<()> {
    sqlx::query("update public.enterprises set scim_deletion = $2 where id = $1").bind(id).bind(deletion).execute(&mut *tx).await.map(drop)
}
