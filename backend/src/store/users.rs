use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool};

use uuid::Uuid;

use crate::{
    domain::{Email, Role, UserStatus},
    tenancy::SchemaName,
};

/// A row of `public.users`, with whether its enterprise (if any) is active.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRecord {
    pub id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub department_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    pub role: RoleColumn,
    pub full_name: String,
    pub email: String,
    /// None while the person has not accepted their invitation: no password signs them in.
    pub password_hash: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: StatusColumn,
    /// `en` or `fr`: their e-mails, exports and the app in a new browser.
    pub locale: String,
    pub notify_reports: bool,
    pub notify_sign_ins: bool,
    pub notify_invitations: bool,
    /// Their latest unused invitation, while they have no password.
    pub invitation_sent_at: Option<DateTime<Utc>>,
    pub invitation_expires_at: Option<DateTime<Utc>>,
    pub invitation_bounced_at: Option<DateTime<Utc>>,
    pub last_login_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub enterprise_active: Option<bool>,
    pub enterprise_name: Option<String>,
    /// A second factor is set up: an authenticator app (`user_totp` confirmed) or a passkey.
    pub mfa_enabled: bool,
    /// The id the enterprise's identity provider knows them by (SCIM's `externalId`).
    pub scim_external_id: Option<String>,
    /// Who their enterprise's identity provider says they are (`sub`), once they signed in
    /// through it.
    pub sso_subject: Option<String>,
    /// The issuer of `sso_subject` (none: bound before issuers were kept, at the enterprise's
    /// issuer of the time).
    pub sso_issuer: Option<String>,
    pub updated_at: DateTime<Utc>,
    /// When the person's data was erased (`erase`): the account is a pseudonym since.
    pub erased_at: Option<DateTime<Utc>>,
}

/// `role` is stored as text; these wrappers let sqlx decode it into the domain enum.
#[derive(Debug, Clone, Copy)]
pub struct RoleColumn(pub Role);
#[derive(Debug, Clone, Copy)]
pub struct StatusColumn(pub UserStatus);

impl UserRecord {
    /// The schema of this user's tenant-shaped data: their enterprise's, or the platform's.
    pub fn realm(&self) -> SchemaName {
        self.enterprise_id.map_or_else(SchemaName::platform, SchemaName::for_enterprise)
    }
}

impl TryFrom<String> for RoleColumn {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse().map(Self)
    }
}

impl TryFrom<String> for StatusColumn {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse().map(Self)
    }
}

impl UserRecord {
    pub fn role(&self) -> Role {
        self.role.0
    }

    pub fn status(&self) -> UserStatus {
        self.status.0
    }

    /// Active user of an active enterprise (or a platform admin).
    pub fn may_sign_in(&self) -> bool {
        self.status() == UserStatus::Active && self.enterprise_active.unwrap_or(true)
    }
}

const SELECT_USER: &str = "select u.id, u.enterprise_id, u.department_id, u.role, u.full_name, u.email, \
     u.password_hash, u.status, u.locale, u.notify_reports, u.notify_sign_ins, u.notify_invitations, \
     i.created_at as invitation_sent_at, i.expires_at as invitation_expires_at, i.bounced_at as invitation_bounced_at, \
     u.last_login_at, u.created_at, u.scim_external_id, u.sso_subject, u.sso_issuer, u.updated_at, u.erased_at, \
     e.is_active as enterprise_active, e.name as enterprise_name, \
     (exists (select 1 from public.user_totp m where m.user_id = u.id and m.confirmed_at is not null) \
         or exists (select 1 from public.user_passkeys k where k.user_id = u.id)) as mfa_enabled \
     from public.users u left join public.enterprises e on e.id = u.enterprise_id \
     left join lateral (select t.created_at, t.expires_at, t.bounced_at from public.account_tokens t \
         where t.user_id = u.id and t.purpose = 'invitation' and t.used_at is null and u.password_hash is null \
         order by t.created_at desc limit 1) i on true";

pub async fn find_by_email(db: impl PgExecutor<'_>, email: &Email) -> sqlx::Result<Option<UserRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT_USER} where lower(u.email) = lower($1)"))).bind(email.as_str()).fetch_optional(db).await
}

/// When the account's password last changed (`None`: no such account, or never since it was
/// recorded).
pub async fn password_changed_at(pool: &PgPool, email: &Email) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar("select password_changed_at from public.users where lower(email) = lower($1)")
        .bind(email.as_str())
        .fetch_optional(pool)
        .await
        .map(Option::flatten)
}

pub async fn find_by_id(db: impl PgExecutor<'_>, id: Uuid) -> sqlx::Result<Option<UserRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT_USER} where u.id = $1"))).bind(id).fetch_optional(db).await
}

/// The user, locked against other changes until the transaction ends. Every transaction that
/// changes a user's department or role takes this lock first (before any department row), as
/// deletion does: one lock order, so they queue instead of deadlocking, and each sees the
/// other's result.
pub async fn find_for_update(tx: &mut sqlx::PgConnection, id: Uuid) -> sqlx::Result<Option<UserRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT_USER} where u.id = $1 for no key update of u"))).bind(id).fetch_optional(tx).await
}

/// Locks several users' rows, in id order so that two transactions locking the same people
/// cannot deadlock.
pub async fn lock_all(tx: &mut sqlx::PgConnection, ids: &[Uuid]) -> sqlx::Result<()> {
    sqlx::query("select 1 from public.users where id = any($1) order by id for no key update").bind(ids).execute(tx).await.map(drop)
}

/// A staff member's department and whether they are its head, read live on every request: head
/// rights follow `departments.head_id`, never the role a token carries.
pub async fn workplace(pool: &PgPool, id: Uuid, schema: &crate::tenancy::SchemaName) -> sqlx::Result<Option<(Option<Uuid>, bool)>> {
    let schema = schema.as_str();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select u.department_id, exists (select 1 from \"{schema}\".departments d where d.id = u.department_id and d.head_id = u.id) \
         from public.users u where u.id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await
}

pub struct NewUser<'a> {
    pub enterprise_id: Option<Uuid>,
    pub department_id: Option<Uuid>,
    pub role: Role,
    pub full_name: &'a str,
    pub email: &'a Email,
    /// None: the person is invited and chooses their password.
    pub password_hash: Option<&'a str>,
    pub locale: crate::domain::Lang,
}

/// Binds a person to who the identity provider says they are (`issuer`, `subject`), at a single
/// sign-on. False when another person is bound to that identity already.
pub async fn link_sso(db: impl PgExecutor<'_>, id: Uuid, issuer: &str, subject: &str) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "update public.users set sso_issuer = $2, sso_subject = $3 where id = $1 \
         and (sso_issuer, sso_subject) is distinct from ($2, $3)",
    )
    .bind(id)
    .bind(issuer)
    .bind(subject)
    .execute(db)
    .await;
    match done {
        Ok(_) => Ok(true),
        // Another person is bound to it (users_sso_identity).
        Err(e) if super::violated_constraint(&e).as_deref() == Some("users_sso_identity") => Ok(false),
        Err(e) => Err(e),
    }
}

/// The person bound to this identity at the provider, if any.
pub async fn find_by_sso(db: impl PgExecutor<'_>, issuer: &str, subject: &str) -> sqlx::Result<Option<UserRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT_USER} where u.sso_issuer = $1 and u.sso_subject = $2")))
        .bind(issuer)
        .bind(subject)
        .fetch_optional(db)
        .await
}

/// Inserts a user; a taken e-mail address surfaces as the unique violation of `users_email_key`.
pub async fn insert(db: impl PgExecutor<'_>, user: NewUser<'_>) -> sqlx::Result<Uuid> {
    sqlx::query_scalar(
        "insert into public.users (id, enterprise_id, department_id, role, full_name, email, password_hash, locale) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning id",
    )
    .bind(Uuid::now_v7())
    .bind(user.enterprise_id)
    .bind(user.department_id)
    .bind(user.role.as_str())
    .bind(user.full_name)
    .bind(user.email.as_str())
    .bind(user.password_hash)
    .bind(user.locale.as_str())
    .fetch_one(db)
    .await
}

/// The active CEOs of an enterprise.
pub async fn ceos_of(db: impl PgExecutor<'_>, enterprise: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from public.users where enterprise_id = $1 and role = 'EnterpriseCeo' and status = 'active'")
        .bind(enterprise)
        .fetch_all(db)
        .await
}

pub async fn any_platform_admin(pool: &PgPool) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from public.users where role = 'PlatformAdmin')").fetch_one(pool).await
}

pub async fn record_login(pool: &PgPool, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update public.users set last_login_at = now(), updated_at = now() where id = $1").bind(id).execute(pool).await.map(drop)
}

/// True when `err` is the violation of the unique e-mail index.
pub fn is_duplicate_email(err: &sqlx::Error) -> bool {
    super::violated_constraint(err).as_deref() == Some("users_email_key")
}

#[derive(Debug, Default)]
pub struct UserFilter {
    pub role: Option<Role>,
    pub roles_in: Option<Vec<Role>>,
    pub status: Option<UserStatus>,
    pub enterprise_id: Option<Uuid>,
    pub department_id: Option<Uuid>,
    pub q: Option<String>,
    /// Exactly this e-mail, in any case (SCIM's `userName eq`).
    pub email: Option<String>,
    /// Exactly this SCIM `externalId`.
    pub external_id: Option<String>,
    /// Leave out the people whose data was erased (SCIM: the directory never sees a pseudonym).
    pub without_erased: bool,
}

pub async fn list(pool: &PgPool, filter: &UserFilter, paging: super::Paging) -> sqlx::Result<(Vec<UserRecord>, i64)> {
    list_at(pool, filter, paging.offset(), paging.limit()).await
}

/// As `list`, from any offset (SCIM's `startIndex`).
pub async fn list_at(pool: &PgPool, filter: &UserFilter, offset: i64, limit: i64) -> sqlx::Result<(Vec<UserRecord>, i64)> {
    let filtered = |head: &str| {
        let mut qb = sqlx::QueryBuilder::<sqlx::Postgres>::new(format!("{head} where true"));
        if let Some(role) = filter.role {
            qb.push(" and u.role = ").push_bind(role.as_str());
        }
        if let Some(roles) = &filter.roles_in {
            qb.push(" and u.role = any(").push_bind(roles.iter().map(|r| r.as_str()).collect::<Vec<_>>()).push(")");
        }
        if let Some(status) = filter.status {
            qb.push(" and u.status = ").push_bind(status.as_str());
        }
        if let Some(id) = filter.enterprise_id {
            qb.push(" and u.enterprise_id = ").push_bind(id);
        }
        if let Some(id) = filter.department_id {
            qb.push(" and u.department_id = ").push_bind(id);
        }
        if let Some(q) = filter.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            let pattern = format!("%{}%", super::escape_like(q));
            qb.push(" and (u.full_name ilike ").push_bind(pattern.clone()).push(" or u.email ilike ").push_bind(pattern).push(")");
        }
        if let Some(email) = &filter.email {
            qb.push(" and lower(u.email) = lower(").push_bind(email.clone()).push(")");
        }
        if let Some(external_id) = &filter.external_id {
            qb.push(" and u.scim_external_id = ").push_bind(external_id.clone());
        }
        if filter.without_erased {
            qb.push(" and u.erased_at is null");
        }
        qb
    };
    let total: i64 = filtered("select count(*) from public.users u").build_query_scalar().fetch_one(pool).await?;
    let mut qb = filtered(SELECT_USER);
    qb.push(" order by u.created_at desc, u.id limit ").push_bind(limit).push(" offset ").push_bind(offset);
    Ok((qb.build_query_as().fetch_all(pool).await?, total))
}

#[derive(Debug, Default)]
pub struct UserChanges<'a> {
    pub full_name: Option<&'a str>,
    pub email: Option<&'a Email>,
    pub role: Option<Role>,
    pub status: Option<UserStatus>,
    /// `Some(None)` clears the department.
    pub department_id: Option<Option<Uuid>>,
    pub password_hash: Option<&'a str>,
}

/// Applies the changes. Deactivating a user, changing their password or changing their role ends
/// their live sessions in the same transaction: the token carries the role, so a new role must
/// sign in again and no old token keeps the old powers. Returns the ended session ids.
pub async fn update(tx: &mut sqlx::PgConnection, id: Uuid, c: &UserChanges<'_>) -> sqlx::Result<Vec<super::sessions::EndedSession>> {
    let previous_role: Option<String> = sqlx::query_scalar(
        "with previous as (select role from public.users where id = $1) \
         update public.users set full_name = coalesce($2, full_name), email = coalesce($3, email), \
         role = coalesce($4, role), status = coalesce($5, status), \
         department_id = case when $6 then $7 else department_id end, \
         password_hash = coalesce($8, password_hash), password_changed_at = coalesce($9, password_changed_at), updated_at = now() \
         where id = $1 returning (select role from previous)",
    )
    .bind(id)
    .bind(c.full_name)
    .bind(c.email.map(Email::as_str))
    .bind(c.role.map(Role::as_str))
    .bind(c.status.map(UserStatus::as_str))
    .bind(c.department_id.is_some())
    .bind(c.department_id.flatten())
    .bind(c.password_hash)
    // Device tokens issued before a new password no longer count (auth/token.rs).
    .bind(c.password_hash.map(|_| Utc::now()))
    .fetch_optional(&mut *tx)
    .await?;
    let role_changed = c.role.is_some_and(|r| previous_role.as_deref().is_some_and(|p| p != r.as_str()));
    let reason = if c.status == Some(UserStatus::Inactive) {
        "user_deactivated"
    } else if role_changed {
        "role_changed"
    } else if c.password_hash.is_some() {
        "revoked"
    } else {
        return Ok(Vec::new());
    };
    // A program's token dies with its owner's role or access, not with a new password.
    if reason != "revoked" {
        super::api_tokens::revoke_for_user(tx, id).await?;
    }
    super::sessions::end_for_user(tx, id, reason).await
}

/// Changes to one's own profile; `None` keeps the value.
#[derive(Debug, Default)]
pub struct ProfileChanges<'a> {
    pub full_name: Option<&'a str>,
    pub locale: Option<crate::domain::Lang>,
    pub notify_reports: Option<bool>,
    pub notify_sign_ins: Option<bool>,
    pub notify_invitations: Option<bool>,
}

pub async fn update_profile(tx: &mut sqlx::PgConnection, id: Uuid, c: &ProfileChanges<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "update public.users set full_name = coalesce($2, full_name), locale = coalesce($3, locale), \
         notify_reports = coalesce($4, notify_reports), notify_sign_ins = coalesce($5, notify_sign_ins), \
         notify_invitations = coalesce($6, notify_invitations), updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(c.full_name)
    .bind(c.locale.map(crate::domain::Lang::as_str))
    .bind(c.notify_reports)
    .bind(c.notify_sign_ins)
    .bind(c.notify_invitations)
    .execute(tx)
    .await
    .map(drop)
}

/// Sets a new password (the person's own, from a reset link or an invitation) and ends every
/// live session of theirs but `keep`; device tokens issued before it stop counting
/// (`password_changed_at`). Returns the sessions ended.
pub async fn set_password(tx: &mut sqlx::PgConnection, id: Uuid, hash: &str, keep: Option<Uuid>) -> sqlx::Result<Vec<super::sessions::EndedSession>> {
    sqlx::query("update public.users set password_hash = $2, password_changed_at = now(), updated_at = now() where id = $1")
        .bind(id)
        .bind(hash)
        .execute(&mut *tx)
        .await?;
    super::sessions::end_others(&mut *tx, id, keep, "revoked").await
}

/// Locks the user's row until the transaction ends, as a foreign key would: a tenant row about
/// to name this user cannot be written while the user is being deleted. `RowNotFound` when the
/// user is gone (callers answer 404: `AppError::gone_is_not_found`). Tenant tables name users
/// without foreign keys (tenant-migrations/20261126000001_user_references_without_foreign_keys.sql),
/// so every such write calls this first, before touching tenant rows: deletion's lock order.
pub async fn hold(tx: &mut sqlx::PgConnection, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("select 1 from public.users where id = $1 for key share").bind(id).fetch_one(tx).await.map(drop)
}

/// Why a user was not deleted.
#[derive(Debug)]
pub enum DeleteError {
    /// They wrote reports: the audit trail keeps its authors (deactivate them instead).
    HasReports,
    /// Their enterprise was deleted meanwhile (and they with it).
    Gone,
    Db(sqlx::Error),
}

impl From<sqlx::Error> for DeleteError {
    fn from(e: sqlx::Error) -> Self {
        // A tenant schema not yet migrated past 20261126000001 still has the foreign keys.
        if e.as_database_error().and_then(|d| d.code()).as_deref() == Some("23503") { Self::HasReports } else { Self::Db(e) }
    }
}

/// Deletes the user and their sessions, in a transaction on their realm's schema
/// (`UserRecord::realm`), and does there what foreign keys would: refuses when they wrote
/// reports, and forgets them as a department head, a reviewer and an actor of the audit trail.
/// Returns the sessions that were live.
pub async fn delete(tx: &mut sqlx::PgConnection, user: &UserRecord) -> Result<Vec<super::sessions::EndedSession>, DeleteError> {
    let id = user.id;
    // An enterprise being deleted holds its row until its schema is gone: wait for it, then 404.
    if let Some(enterprise) = user.enterprise_id {
        let held: Option<i32> =
            sqlx::query_scalar("select 1 from public.enterprises where id = $1 for key share").bind(enterprise).fetch_optional(&mut *tx).await?;
        if held.is_none() {
            return Err(DeleteError::Gone);
        }
    }
    let live = super::sessions::end_for_user(&mut *tx, id, "deleted").await?;
    // Deleting first waits for writers holding the row (`hold`), so their reports are seen below.
    sqlx::query("delete from public.users where id = $1").bind(id).execute(&mut *tx).await?;
    let wrote: bool = sqlx::query_scalar("select exists (select 1 from reports where created_by = $1)").bind(id).fetch_one(&mut *tx).await?;
    if wrote {
        return Err(DeleteError::HasReports);
    }
    sqlx::query(
        "with heads as (update departments set head_id = null, updated_at = now() where head_id = $1), \
         reviews as (update reports set reviewed_by = null, updated_at = now() where reviewed_by = $1) \
         update report_events set actor_id = null where actor_id = $1",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    super::messaging::forget_user(&mut *tx, id).await?;
    super::spreadsheets::forget_user(&mut *tx, id).await?;
    Ok(live)
}

/// What an erasure removed and what it kept, as stable codes (`POST /users/{id}/erasure`).
pub struct Erased {
    pub pseudonym: String,
    pub removed: Vec<&'static str>,
    pub kept: Vec<&'static str>,
    pub ended: Vec<super::sessions::EndedSession>,
}

/// Erases a person in `tx` (their enterprise's realm): every datum that identifies them goes, and
/// the account stays as "Former member #n" (n counts the enterprise's erased people), so that
/// their reports, reviews, spreadsheets and audit entries keep an author that names nobody. The
/// messenger loses their keys, memberships and the ciphertext of what they sent. `None` when the
/// person is gone or already erased.
pub async fn erase(tx: &mut sqlx::PgConnection, user: &UserRecord) -> sqlx::Result<Option<Erased>> {
    let id = user.id;
    // One number at a time within the enterprise: its row is held until the commit.
    if let Some(enterprise) = user.enterprise_id {
        sqlx::query("select 1 from public.enterprises where id = $1 for update").bind(enterprise).fetch_optional(&mut *tx).await?;
    }
    let still: Option<bool> =
        sqlx::query_scalar("select erased_at is null from public.users where id = $1 for update").bind(id).fetch_optional(&mut *tx).await?;
    if still != Some(true) {
        return Ok(None);
    }
    let number: i32 = sqlx::query_scalar("select coalesce(max(erasure_number), 0) + 1 from public.users where enterprise_id is not distinct from $1")
        .bind(user.enterprise_id)
        .fetch_one(&mut *tx)
        .await?;
    let pseudonym = format!("Former member #{number}");
    let ended = super::sessions::end_for_user(&mut *tx, id, "deleted").await?;
    // What identified them and what let them in, in the shared tables.
    for statement in [
        "delete from public.sessions where user_id = $1",
        "delete from public.api_tokens where user_id = $1",
        "delete from public.user_passkeys where user_id = $1",
        "delete from public.user_totp where user_id = $1",
        "delete from public.user_recovery_codes where user_id = $1",
        "delete from public.account_tokens where user_id = $1",
        "delete from public.user_activity_places where user_id = $1",
        "delete from public.user_activity where user_id = $1",
        "delete from public.outbox where recipient_id = $1",
    ] {
        sqlx::query(statement).bind(id).execute(&mut *tx).await?;
    }
    let now = Utc::now();
    sqlx::query(
        "update public.users set full_name = $2, email = $3, password_hash = null, status = 'inactive', \
         scim_external_id = null, scim_attributes = null, sso_subject = null, sso_issuer = null, \
         notify_reports = false, notify_sign_ins = false, notify_invitations = false, last_login_at = null, \
         erased_at = $4, erasure_number = $5, updated_at = $4 where id = $1",
    )
    .bind(id)
    .bind(&pseudonym)
    // The address must stay unique and present: one at a reserved domain that reaches nobody.
    .bind(format!("erased-{}@erased.invalid", id.simple()))
    .bind(now)
    .bind(number)
    .execute(&mut *tx)
    .await?;
    // In the enterprise's schema: the messenger, and their place as a department's head.
    sqlx::query("delete from messages where sender_id = $1 and kind = 'message'").bind(id).execute(&mut *tx).await?;
    super::messaging::forget_user(&mut *tx, id).await?;
    sqlx::query("update departments set head_id = null, updated_at = now() where head_id = $1").bind(id).execute(&mut *tx).await?;
    // And the enterprise's archives, which hold them.
    if let Some(enterprise) = user.enterprise_id {
        super::exports::withdraw(&mut *tx, enterprise, now).await?;
    }
    Ok(Some(Erased {
        pseudonym,
        removed: vec![
            "name",
            "email",
            "password",
            "sessions",
            "sign_in_history",
            "api_tokens",
            "passkeys",
            "authenticator",
            "recovery_codes",
            "invitations",
            "pending_emails",
            "directory_identity",
            "messenger_keys",
            "conversations",
            "messages",
            "department_head",
            "exports",
        ],
        kept: vec!["reports", "reviews", "spreadsheets", "audit_entries"],
        ended,
    }))
}

/// Sets (or clears) the id the enterprise's identity provider knows the person by. `false` when
/// another person of the enterprise has it.
pub async fn set_external_id(tx: &mut sqlx::PgConnection, id: Uuid, external_id: Option<&str>) -> sqlx::Result<bool> {
    let done = sqlx::query("update public.users set scim_external_id = $2, updated_at = now() where id = $1")
        .bind(id)
        .bind(external_id)
        .execute(&mut *tx)
        .await;
    match done {
        Ok(_) => Ok(true),
        Err(e) if super::violated_constraint(&e).as_deref() == Some("users_scim_external_id_idx") => Ok(false),
        Err(e) => Err(e),
    }
}

/// The SCIM attributes the enterprise's directory last set on each of these people (those it
/// never set are absent).
pub async fn scim_attributes(db: impl PgExecutor<'_>, ids: &[Uuid]) -> sqlx::Result<std::collections::HashMap<Uuid, serde_json::Value>> {
    let rows: Vec<(Uuid, sqlx::types::Json<serde_json::Value>)> =
        sqlx::query_as("select id, scim_attributes from public.users where id = any($1) and scim_attributes is not null")
            .bind(ids)
            .fetch_all(db)
            .await?;
    Ok(rows.into_iter().map(|(id, attributes)| (id, attributes.0)).collect())
}

/// Keeps the SCIM attributes the directory set on the person.
pub async fn set_scim_attributes(db: impl PgExecutor<'_>, id: Uuid, attributes: &serde_json::Value) -> sqlx::Result<()> {
    sqlx::query("update public.users set scim_attributes = $2 where id = $1").bind(id).bind(sqlx::types::Json(attributes)).execute(db).await?;
    Ok(())
}
