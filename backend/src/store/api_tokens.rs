//! Credentials for programs: personal access tokens and enterprise service credentials
//! (`migrations/20261202000001_api_tokens.sql`).

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use super::Paging;

/// A token as its owner sees it (never the secret).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenRecord {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub enterprise_id: Option<Uuid>,
    pub created_by: Option<Uuid>,
    pub name: String,
    pub scopes: Vec<String>,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

pub struct NewToken<'a> {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub enterprise_id: Option<Uuid>,
    pub role: &'a str,
    pub created_by: Uuid,
    pub name: &'a str,
    pub scopes: &'a [String],
    pub prefix: &'a str,
    pub secret_hash: &'a [u8],
    pub expires_at: DateTime<Utc>,
}

/// Who a live token acts as: its owner's current identity (a service credential: the
/// enterprise, as its CEO).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LiveToken {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub enterprise_id: Option<Uuid>,
    pub role: String,
    pub scopes: Vec<String>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The most live tokens one owner (a person, or an enterprise's service credentials) may hold.
pub const MAX_LIVE_TOKENS: i64 = 50;

/// Stores a token unless its owner already holds `MAX_LIVE_TOKENS` live ones (`None`).
pub async fn create(pool: &PgPool, t: NewToken<'_>) -> sqlx::Result<Option<TokenRecord>> {
    let mut tx = pool.begin().await?;
    // One owner's creations queue here, so two at once cannot both pass the count.
    let owner = t.user_id.or(t.enterprise_id).unwrap_or_default();
    let (user, enterprise) = if t.user_id.is_some() { (t.user_id, None) } else { (None, t.enterprise_id) };
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text, 23))").bind(owner).execute(&mut *tx).await?;
    let live: i64 = sqlx::query_scalar(
        "select count(*) from public.api_tokens where (user_id = $1 or ($1 is null and user_id is null and enterprise_id = $2)) \
         and revoked_at is null and expires_at > now()",
    )
    .bind(user)
    .bind(enterprise)
    .fetch_one(&mut *tx)
    .await?;
    if live >= MAX_LIVE_TOKENS {
        return Ok(None);
    }
    let record = sqlx::query_as(
        "insert into public.api_tokens (id, user_id, enterprise_id, role, created_by, name, scopes, prefix, secret_hash, expires_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         returning id, user_id, enterprise_id, created_by, name, scopes, prefix, created_at, expires_at, last_used_at",
    )
    .bind(t.id)
    .bind(t.user_id)
    .bind(t.enterprise_id)
    .bind(t.role)
    .bind(t.created_by)
    .bind(t.name)
    .bind(t.scopes)
    .bind(t.prefix)
    .bind(t.secret_hash)
    .bind(t.expires_at)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(record))
}

/// Which tokens a list shows: one person's own, or one enterprise's service credentials.
#[derive(Debug, Clone, Copy)]
pub enum Owner {
    User(Uuid),
    Enterprise(Uuid),
}

impl Owner {
    /// The binds `$1` (a person) and `$2` (an enterprise, for its service credentials) of `OWNED`.
    fn binds(self) -> (Option<Uuid>, Option<Uuid>) {
        match self {
            Self::User(id) => (Some(id), None),
            Self::Enterprise(id) => (None, Some(id)),
        }
    }
}

/// The owner's live tokens (neither revoked nor expired), newest first.
pub async fn list(pool: &PgPool, owner: Owner, paging: Paging) -> sqlx::Result<(Vec<TokenRecord>, i64)> {
    let (user, enterprise) = owner.binds();
    let items = sqlx::query_as(
        "select id, user_id, enterprise_id, created_by, name, scopes, prefix, created_at, expires_at, last_used_at \
         from public.api_tokens where (user_id = $1 or ($1 is null and user_id is null and enterprise_id = $2)) \
         and revoked_at is null and expires_at > now() order by created_at desc, id limit $3 offset $4",
    )
    .bind(user)
    .bind(enterprise)
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(pool)
    .await?;
    let total = sqlx::query_scalar(
        "select count(*) from public.api_tokens where (user_id = $1 or ($1 is null and user_id is null and enterprise_id = $2)) \
         and revoked_at is null and expires_at > now()",
    )
    .bind(user)
    .bind(enterprise)
    .fetch_one(pool)
    .await?;
    Ok((items, total))
}

/// A person's live tokens, newest first, at most 50 (`MAX_LIVE_TOKENS`): named in the notice of a
/// password reset, in its transaction.
pub async fn live_of_user(tx: &mut sqlx::PgConnection, user_id: Uuid) -> sqlx::Result<Vec<TokenRecord>> {
    sqlx::query_as(
        "select id, user_id, enterprise_id, created_by, name, scopes, prefix, created_at, expires_at, last_used_at \
         from public.api_tokens where user_id = $1 and revoked_at is null and expires_at > now() order by created_at desc, id limit 50",
    )
    .bind(user_id)
    .fetch_all(tx)
    .await
}

/// Revokes one of the owner's live tokens; false when there is none by that id.
pub async fn revoke(pool: &PgPool, owner: Owner, id: Uuid) -> sqlx::Result<bool> {
    let (user, enterprise) = owner.binds();
    let done = sqlx::query(
        "update public.api_tokens set revoked_at = now() where (user_id = $1 or ($1 is null and user_id is null and enterprise_id = $2)) \
         and id = $3 and revoked_at is null and expires_at > now()",
    )
    .bind(user)
    .bind(enterprise)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Revokes every token of a user (deactivated, or their role changed): part of the change's
/// transaction.
pub async fn revoke_for_user(tx: &mut sqlx::PgConnection, user_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update public.api_tokens set revoked_at = now() where user_id = $1 and revoked_at is null").bind(user_id).execute(tx).await.map(drop)
}

/// The token with this secret, if it may act now: not revoked or expired; its owner active, with
/// the role it had when the token was made; their enterprise active. Read from PostgreSQL on
/// every request, so a revocation, deactivation or change of role holds at once everywhere.
pub async fn live(pool: &PgPool, secret_hash: &[u8]) -> sqlx::Result<Option<LiveToken>> {
    sqlx::query_as(
        "select t.id, t.user_id, t.enterprise_id, t.role, t.scopes, t.last_used_at from public.api_tokens t \
         left join public.users u on u.id = t.user_id \
         left join public.enterprises e on e.id = t.enterprise_id \
         where t.secret_hash = $1 and t.revoked_at is null and t.expires_at > now() \
         and (t.user_id is null or (u.status = 'active' and u.role = t.role)) \
         and (t.enterprise_id is null or e.is_active)",
    )
    .bind(secret_hash)
    .fetch_optional(pool)
    .await
}

/// Notes that the token was used (at most once a minute per token: callers check first).
pub async fn touch(pool: &PgPool, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update public.api_tokens set last_used_at = now() where id = $1").bind(id).execute(pool).await.map(drop)
}
