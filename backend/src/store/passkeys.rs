//! People's passkeys (migration `20261206000001_passkeys.sql`): the public key and counters
//! `webauthn-rs` checks, as it serialises them, with a name and when each was last used.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;
use webauthn_rs::prelude::Passkey;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PasskeyRecord {
    pub id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub passkey: sqlx::types::Json<Passkey>,
}

const SELECT: &str = "select id, user_id, name, created_at, last_used_at, passkey from public.user_passkeys";

pub async fn list(db: impl PgExecutor<'_>, user_id: Uuid) -> sqlx::Result<Vec<PasskeyRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where user_id = $1 order by created_at, id"))).bind(user_id).fetch_all(db).await
}

pub async fn find(db: impl PgExecutor<'_>, user_id: Uuid, id: Uuid) -> sqlx::Result<Option<PasskeyRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where user_id = $1 and id = $2"))).bind(user_id).bind(id).fetch_optional(db).await
}

pub async fn find_by_credential(db: impl PgExecutor<'_>, credential_id: &[u8]) -> sqlx::Result<Option<PasskeyRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where credential_id = $1"))).bind(credential_id).fetch_optional(db).await
}

pub async fn count(db: impl PgExecutor<'_>, user_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from public.user_passkeys where user_id = $1").bind(user_id).fetch_one(db).await
}

/// Adds a passkey; `None` when its credential is already registered (to anyone).
pub async fn insert(tx: &mut PgConnection, user_id: Uuid, name: &str, passkey: &Passkey) -> sqlx::Result<Option<PasskeyRecord>> {
    sqlx::query_as(
        "insert into public.user_passkeys (id, user_id, credential_id, name, passkey) values ($1, $2, $3, $4, $5) \
         on conflict (credential_id) do nothing \
         returning id, user_id, name, created_at, last_used_at, passkey",
    )
    .bind(Uuid::now_v7())
    .bind(user_id)
    .bind(passkey.cred_id().as_ref())
    .bind(name)
    .bind(sqlx::types::Json(passkey))
    .fetch_optional(&mut *tx)
    .await
}

pub async fn rename(db: impl PgExecutor<'_>, user_id: Uuid, id: Uuid, name: &str) -> sqlx::Result<Option<PasskeyRecord>> {
    sqlx::query_as(
        "update public.user_passkeys set name = $3 where user_id = $1 and id = $2 \
         returning id, user_id, name, created_at, last_used_at, passkey",
    )
    .bind(user_id)
    .bind(id)
    .bind(name)
    .fetch_optional(db)
    .await
}

/// Records a sign-in with the passkey, with its counters as the authenticator reported them.
pub async fn used(db: impl PgExecutor<'_>, id: Uuid, passkey: &Passkey) -> sqlx::Result<()> {
    sqlx::query("update public.user_passkeys set passkey = $2, last_used_at = now() where id = $1")
        .bind(id)
        .bind(sqlx::types::Json(passkey))
        .execute(db)
        .await
        .map(drop)
}

/// Removes one; its name when it existed.
pub async fn delete(tx: &mut PgConnection, user_id: Uuid, id: Uuid) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("delete from public.user_passkeys where user_id = $1 and id = $2 returning name")
        .bind(user_id)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
}

/// Removes all of a person's passkeys (a reset of their second factor); how many there were.
pub async fn delete_all(tx: &mut PgConnection, user_id: Uuid) -> sqlx::Result<u64> {
    Ok(sqlx::query("delete from public.user_passkeys where user_id = $1").bind(user_id).execute(&mut *tx).await?.rows_affected())
}
