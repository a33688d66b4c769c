//! Single-use links sent by e-mail (`public.account_tokens`): invitations and password resets.
//! The link carries a random secret; only its SHA-256 is stored, so a copy of the database opens
//! no account.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Invitation,
    PasswordReset,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Self::Invitation => "invitation",
            Self::PasswordReset => "password_reset",
        }
    }
}

/// A link made: its id. Its secret is made when its e-mail is sent (`rekey`), so it is never
/// written anywhere: not in this table (its hash only), not in the outbox.
pub struct Issued {
    pub id: Uuid,
    pub expires_at: DateTime<Utc>,
}

fn digest(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Makes a link for `user`, valid for `ttl`; the person's earlier unused links of that purpose
/// stop working (a resent invitation replaces the first). It opens nothing until `rekey` gives it
/// the secret its e-mail carries.
pub async fn issue(tx: &mut PgConnection, user: Uuid, purpose: Purpose, ttl: chrono::Duration, created_by: Option<Uuid>) -> sqlx::Result<Issued> {
    // A secret nobody ever learns, until the e-mail is sent.
    let secret = new_secret();
    sqlx::query("delete from public.account_tokens where user_id = $1 and purpose = $2 and used_at is null")
        .bind(user)
        .bind(purpose.as_str())
        .execute(&mut *tx)
        .await?;
    let id = Uuid::now_v7();
    let expires_at: DateTime<Utc> = sqlx::query_scalar(
        "insert into public.account_tokens (id, user_id, purpose, token_hash, expires_at, created_by) \
         values ($1, $2, $3, $4, now() + make_interval(secs => $5), $6) returning expires_at",
    )
    .bind(id)
    .bind(user)
    .bind(purpose.as_str())
    .bind(digest(&secret))
    .bind(ttl.as_seconds_f64())
    .bind(created_by)
    .fetch_one(&mut *tx)
    .await?;
    Ok(Issued { id, expires_at })
}

/// A new secret for the live link `id`, made as its e-mail is sent: (the secret, until when it
/// works), or `None` when the link was used, replaced or expired. Only the secret's hash is
/// written; a message sent again (a retry) carries a new secret, and the earlier one stops working.
pub async fn rekey(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<(String, DateTime<Utc>)>> {
    let secret = new_secret();
    let expires: Option<DateTime<Utc>> = sqlx::query_scalar(
        "update public.account_tokens set token_hash = $2 where id = $1 and used_at is null and expires_at > now() returning expires_at",
    )
    .bind(id)
    .bind(digest(&secret))
    .fetch_optional(pool)
    .await?;
    Ok(expires.map(|expires| (secret, expires)))
}

/// The link's owner, if the secret is a live link of that purpose: it is used up in the same
/// statement, so two requests with one link cannot both succeed. Returns the user and who sent it.
pub async fn consume(tx: &mut PgConnection, secret: &str, purpose: Purpose) -> sqlx::Result<Option<(Uuid, Option<Uuid>)>> {
    sqlx::query_as(
        "update public.account_tokens set used_at = now() \
         where token_hash = $1 and purpose = $2 and used_at is null and expires_at > now() \
         returning user_id, created_by",
    )
    .bind(digest(secret))
    .bind(purpose.as_str())
    .fetch_optional(&mut *tx)
    .await
}

/// The person (and who made the link) a working link of `purpose` is for, without using it up: a
/// page checks its link as it opens.
pub async fn peek(pool: &PgPool, secret: &str, purpose: Purpose) -> sqlx::Result<Option<(Uuid, Option<Uuid>)>> {
    sqlx::query_as(
        "select user_id, created_by from public.account_tokens \
         where token_hash = $1 and purpose = $2 and used_at is null and expires_at > now()",
    )
    .bind(digest(secret))
    .bind(purpose.as_str())
    .fetch_optional(pool)
    .await
}

/// The mail server refused the link's message for good.
pub async fn mark_bounced(pool: &PgPool, id: Uuid, reason: &str) -> sqlx::Result<()> {
    sqlx::query("update public.account_tokens set bounced_at = now(), bounce_reason = $2 where id = $1")
        .bind(id)
        .bind(reason)
        .execute(pool)
        .await
        .map(drop)
}

/// Every unused link of the person stops working (their password was set another way).
pub async fn revoke_all(tx: &mut PgConnection, user: Uuid) -> sqlx::Result<()> {
    sqlx::query("delete from public.account_tokens where user_id = $1 and used_at is null").bind(user).execute(&mut *tx).await.map(drop)
}
