use std::net::IpAddr;

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::geoip::Location;

pub struct NewSession<'a> {
    pub user_id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub ip: Option<IpAddr>,
    pub user_agent: Option<&'a str>,
    pub location: Option<&'a Location>,
    pub remember_me: bool,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert(pool: &PgPool, s: NewSession<'_>) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query(
        "insert into public.sessions (id, user_id, enterprise_id, ip_address, user_agent, city, country, \
         latitude, longitude, remember_me, expires_at) \
         values ($1, $2, $3, $4::inet, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(id)
    .bind(s.user_id)
    .bind(s.enterprise_id)
    .bind(s.ip.map(|ip| ip.to_string()))
    .bind(s.user_agent)
    .bind(s.location.and_then(|l| l.city.as_deref()))
    .bind(s.location.and_then(|l| l.country.as_deref()))
    .bind(s.location.map(|l| l.latitude))
    .bind(s.location.map(|l| l.longitude))
    .bind(s.remember_me)
    .bind(s.expires_at)
    .execute(pool)
    .await?;
    Ok(id)
}

/// What the session check needs of a live (not ended, not expired) session.
#[derive(Debug, sqlx::FromRow)]
pub struct LiveSession {
    pub expires_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    pub remember_me: bool,
}

/// The session, if it has neither ended nor expired.
pub async fn find_live(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<LiveSession>> {
    sqlx::query_as(
        "select expires_at, last_seen_at, remember_me from public.sessions \
         where id = $1 and ended_at is null and expires_at > now()",
    )
    .bind(id)
    .fetch_optional(pool)
    .await
}

/// Moves `last_seen_at` to now, unless it moved less than `min_gap_secs` ago.
pub async fn touch(pool: &PgPool, id: Uuid, min_gap_secs: u64) -> sqlx::Result<()> {
    sqlx::query(
        "update public.sessions set last_seen_at = now() \
         where id = $1 and ended_at is null and last_seen_at < now() - make_interval(secs => $2)",
    )
    .bind(id)
    .bind(min_gap_secs as f64)
    .execute(pool)
    .await
    .map(drop)
}

/// A session that just ended, for the cache and the real-time announcements.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EndedSession {
    pub id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub end_reason: String,
}

/// Ends a live session; `None` when it was not live.
pub async fn end(pool: &PgPool, id: Uuid, reason: &str) -> sqlx::Result<Option<EndedSession>> {
    sqlx::query_as(
        "update public.sessions set ended_at = now(), end_reason = $2 where id = $1 and ended_at is null \
         returning id, enterprise_id, end_reason",
    )
    .bind(id)
    .bind(reason)
    .fetch_optional(pool)
    .await
}

/// Ends every live session of the enterprise's users.
pub async fn end_for_enterprise(tx: &mut sqlx::PgConnection, enterprise_id: Uuid, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(
        "update public.sessions set ended_at = now(), end_reason = $2 \
         where enterprise_id = $1 and ended_at is null returning id, enterprise_id, end_reason",
    )
    .bind(enterprise_id)
    .bind(reason)
    .fetch_all(tx)
    .await
}

/// Ends every live session of one user.
pub async fn end_for_user(tx: &mut sqlx::PgConnection, user_id: Uuid, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(
        "update public.sessions set ended_at = now(), end_reason = $2 where user_id = $1 and ended_at is null \
         returning id, enterprise_id, end_reason",
    )
    .bind(user_id)
    .bind(reason)
    .fetch_all(tx)
    .await
}

/// Ends the live sessions that expired or sat unused past their idle timeout (the sweep).
pub async fn end_stale(pool: &PgPool, idle_secs: f64, remembered_idle_secs: f64) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(
        "update public.sessions set ended_at = now(), \
           end_reason = case when expires_at <= now() then 'expired' else 'idle' end \
         where ended_at is null and (expires_at <= now() \
           or last_seen_at < now() - make_interval(secs => case when remember_me then $2 else $1 end)) \
         returning id, enterprise_id, end_reason",
    )
    .bind(idle_secs)
    .bind(remembered_idle_secs)
    .fetch_all(pool)
    .await
}

/// Moves `last_seen_at` of these live sessions to now (the batched heartbeats).
pub async fn touch_many(pool: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<(Uuid, Option<Uuid>, DateTime<Utc>)>> {
    sqlx::query_as(
        "update public.sessions set last_seen_at = now() where id = any($1) and ended_at is null \
         returning id, enterprise_id, last_seen_at",
    )
    .bind(ids)
    .fetch_all(pool)
    .await
}
