//! A person's second factor: their authenticator's secret, their recovery codes, and the policies
//! that require a second factor (migration `20261205000001_two_factor.sql`).

use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use crate::{
    domain::Role,
    sealed::{KeyRing, Sealed, TOTP_SECRET},
};

/// The person's authenticator, confirmed or waiting for its first code.
#[derive(Clone)]
pub struct TotpRecord {
    /// Opened: the database holds it sealed (`sealed::TOTP_SECRET`).
    pub secret: String,
    pub confirmed: bool,
}

pub async fn totp(db: impl PgExecutor<'_>, keys: &KeyRing, user_id: Uuid) -> sqlx::Result<Option<TotpRecord>> {
    let row: Option<(Sealed, bool)> =
        sqlx::query_as("select secret, confirmed_at is not null from public.user_totp where user_id = $1").bind(user_id).fetch_optional(db).await?;
    row.map(|(sealed, confirmed)| Ok(TotpRecord { secret: keys.open_for(TOTP_SECRET, user_id, &sealed)?, confirmed })).transpose()
}

/// Starts an enrolment with a new secret, replacing one that was never confirmed. `false` when
/// the person already has a confirmed authenticator (nothing changes).
pub async fn start_totp(db: impl PgExecutor<'_>, keys: &KeyRing, user_id: Uuid, secret: &str) -> sqlx::Result<bool> {
    let rows = sqlx::query(
        "insert into public.user_totp (user_id, secret) values ($1, $2) \
         on conflict (user_id) do update set secret = excluded.secret, created_at = excluded.created_at, last_step = null \
         where user_totp.confirmed_at is null",
    )
    .bind(user_id)
    .bind(keys.seal_for(TOTP_SECRET, user_id, secret))
    .execute(db)
    .await?;
    Ok(rows.rows_affected() == 1)
}

/// Records that the code of time step `step` was used, if no later or equal step was: `false`
/// when the code was already used (a replay). With `confirm`, also confirms the enrolment.
pub async fn use_step(db: impl PgExecutor<'_>, user_id: Uuid, step: i64, confirm: bool) -> sqlx::Result<bool> {
    let rows = sqlx::query(
        "update public.user_totp set last_step = $2, \
             confirmed_at = case when $3 and confirmed_at is null then $4 else confirmed_at end \
         where user_id = $1 and (last_step is null or last_step < $2) and (confirmed_at is not null or $3)",
    )
    .bind(user_id)
    .bind(step)
    .bind(confirm)
    // The time bound, not `now()` inside the CASE: Citus refuses a non-immutable function there.
    .bind(chrono::Utc::now())
    .execute(db)
    .await?;
    Ok(rows.rows_affected() == 1)
}

/// Removes the authenticator and the recovery codes. `true` when there was a confirmed one.
pub async fn remove(tx: &mut PgConnection, user_id: Uuid) -> sqlx::Result<bool> {
    let confirmed: Option<bool> = sqlx::query_scalar("delete from public.user_totp where user_id = $1 returning confirmed_at is not null")
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
    sqlx::query("delete from public.user_recovery_codes where user_id = $1").bind(user_id).execute(&mut *tx).await?;
    Ok(confirmed.unwrap_or(false))
}

fn hash(code: &str) -> Vec<u8> {
    Sha256::digest(code.as_bytes()).to_vec()
}

/// Replaces the person's recovery codes with these (normalized) ones.
pub async fn replace_recovery_codes(tx: &mut PgConnection, user_id: Uuid, codes: &[String]) -> sqlx::Result<()> {
    sqlx::query("delete from public.user_recovery_codes where user_id = $1").bind(user_id).execute(&mut *tx).await?;
    let hashes: Vec<Vec<u8>> = codes.iter().map(|c| hash(c)).collect();
    sqlx::query("insert into public.user_recovery_codes (user_id, code_hash) select $1, h from unnest($2::bytea[]) h")
        .bind(user_id)
        .bind(hashes)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Uses up one recovery code (normalized); `false` when it is not one of the person's unused
/// codes. Two requests with the same code cannot both succeed.
pub async fn use_recovery_code(db: impl PgExecutor<'_>, user_id: Uuid, code: &str) -> sqlx::Result<bool> {
    let rows = sqlx::query("update public.user_recovery_codes set used_at = now() where user_id = $1 and code_hash = $2 and used_at is null")
        .bind(user_id)
        .bind(hash(code))
        .execute(db)
        .await?;
    Ok(rows.rows_affected() == 1)
}

pub async fn recovery_codes_left(db: impl PgExecutor<'_>, user_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from public.user_recovery_codes where user_id = $1 and used_at is null").bind(user_id).fetch_one(db).await
}

fn roles(names: Vec<String>) -> Vec<Role> {
    names.iter().filter_map(|n| n.parse().ok()).collect()
}

fn names(roles: &[Role]) -> Vec<&'static str> {
    roles.iter().map(|r| r.as_str()).collect()
}

/// The platform's list: the admins', and every enterprise's default.
pub async fn platform_policy(db: impl PgExecutor<'_>) -> sqlx::Result<Vec<Role>> {
    let names: Vec<String> = sqlx::query_scalar("select mfa_required_roles from public.platform_settings").fetch_one(db).await?;
    Ok(roles(names))
}

pub async fn set_platform_policy(db: impl PgExecutor<'_>, required: &[Role]) -> sqlx::Result<()> {
    sqlx::query("update public.platform_settings set mfa_required_roles = $1, updated_at = now()").bind(names(required)).execute(db).await.map(drop)
}

/// The enterprise's own list; `None` when it follows the platform's.
pub async fn enterprise_policy(db: impl PgExecutor<'_>, enterprise_id: Uuid) -> sqlx::Result<Option<Vec<Role>>> {
    let names: Option<Option<Vec<String>>> =
        sqlx::query_scalar("select mfa_required_roles from public.enterprises where id = $1").bind(enterprise_id).fetch_optional(db).await?;
    Ok(names.flatten().map(roles))
}

pub async fn set_enterprise_policy(db: impl PgExecutor<'_>, enterprise_id: Uuid, required: Option<&[Role]>) -> sqlx::Result<()> {
    sqlx::query("update public.enterprises set mfa_required_roles = $2, updated_at = now() where id = $1")
        .bind(enterprise_id)
        .bind(required.map(names))
        .execute(db)
        .await
        .map(drop)
}

/// Whether a person of `role` in `enterprise` (none: the platform) must have a second factor.
pub async fn required(db: &sqlx::PgPool, enterprise: Option<Uuid>, role: Role) -> sqlx::Result<bool> {
    let own = match enterprise {
        Some(id) => enterprise_policy(db, id).await?,
        None => None,
    };
    let list = match own {
        Some(list) => list,
        None => platform_policy(db).await?,
    };
    Ok(list.contains(&role))
}

/// Spends the sign-in challenge `id` (valid until the Unix time `expires`): `false` when it was
/// spent already, so one challenge opens one session at most. Spent challenges past their expiry
/// are deleted on the way (a handful at most: a challenge lives five minutes).
pub async fn spend_challenge(pool: &sqlx::PgPool, id: Uuid, expires: i64) -> sqlx::Result<bool> {
    sqlx::query("delete from public.spent_challenges where expires_at < now()").execute(pool).await?;
    let spent = sqlx::query("insert into public.spent_challenges (id, expires_at) values ($1, to_timestamp($2)) on conflict (id) do nothing")
        .bind(id)
        .bind(expires as f64)
        .execute(pool)
        .await?;
    Ok(spent.rows_affected() == 1)
}
