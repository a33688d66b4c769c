use std::net::IpAddr;

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::{
    domain::session::{Device, History},
    geoip::Location,
};

pub struct NewSession<'a> {
    pub user_id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub ip: Option<IpAddr>,
    pub user_agent: Option<&'a str>,
    pub device: &'a Device,
    pub location: Option<&'a Location>,
    pub flags: &'a [&'static str],
    pub remember_me: bool,
    pub expires_at: DateTime<Utc>,
    /// `password`, `password_totp`, `password_recovery_code` or `invitation`.
    pub method: &'a str,
}

/// What the user's earlier sessions say about a new one at `country` (for its anomaly flags).
pub async fn history(pool: &PgPool, user_id: Uuid, country: Option<&str>) -> sqlx::Result<History> {
    let (had_sessions, country_seen_before): (bool, bool) = sqlx::query_as(
        "select exists (select 1 from public.sessions where user_id = $1), \
                exists (select 1 from public.sessions where user_id = $1 and country = $2)",
    )
    .bind(user_id)
    .bind(country)
    .fetch_one(pool)
    .await?;
    let previous_place = sqlx::query_as::<_, (f64, f64, DateTime<Utc>)>(
        "select latitude, longitude, coalesce(ended_at, last_seen_at) from public.sessions \
         where user_id = $1 and latitude is not null and longitude is not null order by created_at desc limit 1",
    )
    .bind(user_id)
    .fetch_optional(pool)
    .await?;
    Ok(History { had_sessions, country_seen_before, previous_place })
}

/// Starts a session and, in the same transaction, writes its sign-in to the audit log and its
/// `session.started` event to the outbox.
pub async fn insert(pool: &PgPool, s: NewSession<'_>, actor: &super::audit::Actor, user_name: Option<&str>) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "insert into public.sessions (id, user_id, enterprise_id, ip_address, user_agent, city, country, \
         latitude, longitude, remember_me, expires_at, browser, os, device_type, flags, sign_in_method) \
         values ($1, $2, $3, $4::inet, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
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
    .bind(s.device.browser.as_deref())
    .bind(s.device.os.as_deref())
    .bind(s.device.device_type)
    .bind(s.flags)
    .bind(s.method)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into public.user_activity as a (user_id, session_count, active_sessions, last_seen_at) values ($1, 1, 1, now()) \
         on conflict (user_id) do update set session_count = a.session_count + 1, active_sessions = a.active_sessions + 1, \
         last_seen_at = greatest(a.last_seen_at, excluded.last_seen_at)",
    )
    .bind(s.user_id)
    .execute(&mut *tx)
    .await?;
    if let Some(country) = s.location.and_then(|l| l.country.as_deref()) {
        sqlx::query(
            "insert into public.user_activity_places as p (user_id, city, country, sessions) values ($1, coalesce($2, ''), $3, 1) \
             on conflict (user_id, country, city) do update set sessions = p.sessions + 1",
        )
        .bind(s.user_id)
        .bind(s.location.and_then(|l| l.city.as_deref()))
        .bind(country)
        .execute(&mut *tx)
        .await?;
    }
    let facts = serde_json::json!({ "sessionId": id, "rememberMe": s.remember_me, "method": s.method });
    let target = super::audit::Target { kind: "user", id: Some(s.user_id), name: user_name };
    super::audit::insert(&mut tx, actor, s.enterprise_id, "auth.signed_in", Some(target), facts).await?;
    let data = serde_json::json!({
        "sessionId": id,
        "userId": s.user_id,
        "enterpriseId": s.enterprise_id,
        "city": s.location.and_then(|l| l.city.as_deref()),
        "country": s.location.and_then(|l| l.country.as_deref()),
        "browser": s.device.browser.as_deref(),
        "os": s.device.os.as_deref(),
        "expiresAt": s.expires_at,
    });
    super::outbox::webhook_event(&mut tx, s.enterprise_id, "session.started", data).await?;
    tx.commit().await?;
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
    sqlx::query(sqlx::AssertSqlSafe(touched(
        "select id, user_id, created_at, last_seen_at from public.sessions \
         where id = $1 and ended_at is null and last_seen_at < now() - make_interval(secs => $2) for update",
        "select 1",
    )))
    .bind(id)
    .bind(min_gap_secs as f64)
    .execute(pool)
    .await
    .map(drop)
}

/// Moves `last_seen_at` of the sessions `locked` selects (`id, user_id, created_at, last_seen_at`,
/// `for update`) to now and, in the same statement, the activity of their people
/// (`user_activity`: last seen, time active); then runs `tail`, which may read `touched` (`id,
/// enterprise_id, last_seen_at`).
fn touched(locked: &str, tail: &str) -> String {
    format!(
        "with before as ({locked}),
         touched as (
             update public.sessions s set last_seen_at = now() from before b where s.id = b.id
             returning s.id, s.enterprise_id, s.last_seen_at, b.user_id, b.created_at, b.last_seen_at as seen_before
         ),
         activity as (
             insert into public.user_activity as a (user_id, last_seen_at, active_seconds)
             select user_id, max(last_seen_at), sum({seconds}) from touched group by user_id order by user_id
             on conflict (user_id) do update set last_seen_at = greatest(a.last_seen_at, excluded.last_seen_at),
                 active_seconds = a.active_seconds + excluded.active_seconds
         )
         {tail}",
        seconds = "greatest(extract(epoch from last_seen_at - created_at), 0) - greatest(extract(epoch from seen_before - created_at), 0)",
    )
}

/// Wraps a statement that ends sessions (`update public.sessions set ended_at = now() …`, without
/// `returning`) so that the same statement writes each ended session's `session.ended` event into
/// the outbox: the end and its event commit together or not at all.
/// The same statement also updates the people's activity (`user_activity`: one session fewer
/// live, the time up to the end).
fn announced(update: &str) -> String {
    format!(
        "with ended as ({update} returning id, user_id, enterprise_id, end_reason, created_at, last_seen_at, ended_at),
         activity as (
             insert into public.user_activity as a (user_id, active_sessions, last_seen_at, active_seconds)
             select user_id, -count(*), max(ended_at), sum(greatest(extract(epoch from ended_at - created_at), 0)
                 - greatest(extract(epoch from last_seen_at - created_at), 0))
             from ended group by user_id order by user_id
             on conflict (user_id) do update set active_sessions = a.active_sessions + excluded.active_sessions,
                 last_seen_at = greatest(a.last_seen_at, excluded.last_seen_at), active_seconds = a.active_seconds + excluded.active_seconds
         ),
         events as (
             insert into public.outbox (kind, enterprise_id, event_type, payload)
             select 'webhook', enterprise_id, 'session.ended', jsonb_build_object(
                 'type', 'session.ended',
                 'timestamp', to_char(now() at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),
                 'data', jsonb_build_object('sessionId', id, 'userId', user_id, 'enterpriseId', enterprise_id, 'reason', end_reason))
             from ended
         )
         select id, user_id, enterprise_id, end_reason from ended"
    )
}

/// A session that just ended, for the cache and the real-time announcements.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EndedSession {
    pub id: Uuid,
    pub user_id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub end_reason: String,
}

/// Ends a live session; `None` when it was not live.
pub async fn end(pool: &PgPool, id: Uuid, reason: &str) -> sqlx::Result<Option<EndedSession>> {
    sqlx::query_as(sqlx::AssertSqlSafe(announced("update public.sessions set ended_at = now(), end_reason = $2 where id = $1 and ended_at is null")))
        .bind(id)
        .bind(reason)
        .fetch_optional(pool)
        .await
}

/// Ends every live session of the enterprise's users.
pub async fn end_for_enterprise(tx: &mut sqlx::PgConnection, enterprise_id: Uuid, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(sqlx::AssertSqlSafe(announced(
        "update public.sessions set ended_at = now(), end_reason = $2 \
         where enterprise_id = $1 and ended_at is null",
    )))
    .bind(enterprise_id)
    .bind(reason)
    .fetch_all(tx)
    .await
}

/// Ends every live session of one user.
pub async fn end_for_user(tx: &mut sqlx::PgConnection, user_id: Uuid, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(sqlx::AssertSqlSafe(announced(
        "update public.sessions set ended_at = now(), end_reason = $2 where user_id = $1 and ended_at is null",
    )))
    .bind(user_id)
    .bind(reason)
    .fetch_all(tx)
    .await
}

/// Ends a person's live sessions opened through single sign-on (their provider signed them
/// out: back-channel logout).
pub async fn end_sso_for_user(tx: &mut sqlx::PgConnection, user_id: Uuid, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(sqlx::AssertSqlSafe(announced(
        "update public.sessions set ended_at = now(), end_reason = $2 where user_id = $1 and ended_at is null and sign_in_method like 'sso%'",
    )))
    .bind(user_id)
    .bind(reason)
    .fetch_all(tx)
    .await
}

/// Ends the live sessions that expired or sat unused past their idle timeout (the sweep): the
/// expired first, then the idle, so each gets its reason without `case ... now()` (which Citus
/// refuses in writes).
pub async fn end_stale(pool: &PgPool, idle_secs: f64, remembered_idle_secs: f64) -> sqlx::Result<Vec<EndedSession>> {
    let mut ended: Vec<EndedSession> = sqlx::query_as(sqlx::AssertSqlSafe(announced(
        "update public.sessions set ended_at = now(), end_reason = 'expired' where ended_at is null and expires_at <= now()",
    )))
    .fetch_all(pool)
    .await?;
    ended.extend(
        sqlx::query_as::<_, EndedSession>(sqlx::AssertSqlSafe(announced(
            "update public.sessions set ended_at = now(), end_reason = 'idle' \
             where ended_at is null and last_seen_at < now() - make_interval(secs => case when remember_me then $2 else $1 end)",
        )))
        .bind(idle_secs)
        .bind(remembered_idle_secs)
        .fetch_all(pool)
        .await?,
    );
    Ok(ended)
}

/// Moves `last_seen_at` of these live sessions to now (the batched heartbeats).
pub async fn touch_many(pool: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<(Uuid, Option<Uuid>, DateTime<Utc>)>> {
    sqlx::query_as(sqlx::AssertSqlSafe(touched(
        "select id, user_id, created_at, last_seen_at from public.sessions where id = any($1) and ended_at is null order by id for update",
        "select id, enterprise_id, last_seen_at from touched",
    )))
    .bind(ids)
    .fetch_all(pool)
    .await
}

/// A session as the monitors see it, with its user.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SessionRecord {
    pub id: Uuid,
    pub user_id: Uuid,
    pub user_name: String,
    pub user_email: String,
    pub user_role: String,
    pub enterprise_id: Option<Uuid>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub browser: Option<String>,
    pub os: Option<String>,
    pub device_type: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub end_reason: Option<String>,
    pub flags: Vec<String>,
    pub sign_in_method: String,
}

const SELECT_SESSION: &str = "select s.id, s.user_id, u.full_name as user_name, u.email as user_email, u.role as user_role, \
     s.enterprise_id, host(s.ip_address) as ip_address, s.user_agent, s.browser, s.os, s.device_type, s.city, s.country, \
     s.latitude, s.longitude, s.created_at, s.last_seen_at, s.expires_at, s.ended_at, s.end_reason, s.flags, s.sign_in_method \
     from public.sessions s join public.users u on u.id = s.user_id";

/// Which sessions a list shows. `enterprise`: `Some(None)` is the platform realm (admins'
/// sessions), `None` every realm.
#[derive(Debug, Default, Clone)]
pub struct SessionFilter {
    pub enterprise: Option<Option<Uuid>>,
    pub user_id: Option<Uuid>,
    /// Live (neither ended nor expired) or not.
    pub active: Option<bool>,
    /// Sessions active at some point in `[from, to)`.
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub q: Option<String>,
    pub flagged: Option<bool>,
    /// One place: its city (`Some("")`: sessions whose city is unknown) and country.
    pub city: Option<String>,
    pub country: Option<String>,
}

fn filtered(head: &str, f: &SessionFilter) -> sqlx::QueryBuilder<sqlx::Postgres> {
    let mut qb = sqlx::QueryBuilder::<sqlx::Postgres>::new(format!("{head} where true"));
    match f.enterprise {
        Some(Some(id)) => {
            qb.push(" and s.enterprise_id = ").push_bind(id);
        }
        Some(None) => {
            qb.push(" and s.enterprise_id is null");
        }
        None => {}
    }
    if let Some(id) = f.user_id {
        qb.push(" and s.user_id = ").push_bind(id);
    }
    match f.active {
        Some(true) => {
            qb.push(" and s.ended_at is null and s.expires_at > now()");
        }
        Some(false) => {
            qb.push(" and (s.ended_at is not null or s.expires_at <= now())");
        }
        None => {}
    }
    if let Some(from) = f.from {
        qb.push(" and coalesce(s.ended_at, s.last_seen_at) >= ").push_bind(from);
    }
    if let Some(to) = f.to {
        qb.push(" and s.created_at < ").push_bind(to);
    }
    if let Some(q) = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
        let pattern = format!("%{}%", super::escape_like(q));
        qb.push(" and (u.full_name ilike ").push_bind(pattern.clone()).push(" or u.email ilike ").push_bind(pattern.clone());
        qb.push(" or s.city ilike ").push_bind(pattern).push(")");
    }
    match f.city.as_deref() {
        Some("") => {
            qb.push(" and s.city is null");
        }
        Some(city) => {
            qb.push(" and s.city = ").push_bind(city.to_owned());
        }
        None => {}
    }
    if let Some(country) = &f.country {
        qb.push(" and s.country = ").push_bind(country.to_uppercase());
    }
    match f.flagged {
        Some(true) => {
            qb.push(" and cardinality(s.flags) > 0");
        }
        Some(false) => {
            qb.push(" and cardinality(s.flags) = 0");
        }
        None => {}
    }
    qb
}

/// A page of sessions, the most recently active first.
pub async fn list(pool: &PgPool, f: &SessionFilter, paging: super::Paging) -> sqlx::Result<(Vec<SessionRecord>, i64)> {
    let total: i64 =
        filtered("select count(*) from public.sessions s join public.users u on u.id = s.user_id", f).build_query_scalar().fetch_one(pool).await?;
    let mut qb = filtered(SELECT_SESSION, f);
    qb.push(" order by s.last_seen_at desc, s.id desc limit ").push_bind(paging.limit()).push(" offset ").push_bind(paging.offset());
    Ok((qb.build_query_as().fetch_all(pool).await?, total))
}

pub async fn find(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<SessionRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT_SESSION} where s.id = $1"))).bind(id).fetch_optional(pool).await
}

/// One user's sessions in a list's scope, summed up.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ActivityRecord {
    pub user_id: Uuid,
    pub user_name: String,
    pub user_email: String,
    pub user_role: String,
    pub session_count: i64,
    pub active_sessions: i64,
    pub last_seen_at: DateTime<Utc>,
    /// Seconds between each session's start and its last activity, summed.
    pub active_seconds: f64,
    /// "City|CC" of every place seen, most recent first.
    pub places: Vec<String>,
}

/// Per user, the sessions a list would show, the most recently seen users first.
///
/// Without a period (`from`, `to`) it reads the rollup the session writes keep
/// (`user_activity`, `user_activity_places`): one row per person, not every session. With one, it
/// aggregates the sessions of the period.
pub async fn activity(pool: &PgPool, f: &SessionFilter, paging: super::Paging) -> sqlx::Result<(Vec<ActivityRecord>, i64)> {
    if f.from.is_none() && f.to.is_none() {
        return rolled_up_activity(pool, f, paging).await;
    }
    let total: i64 = filtered("select count(distinct s.user_id) from public.sessions s join public.users u on u.id = s.user_id", f)
        .build_query_scalar()
        .fetch_one(pool)
        .await?;
    let mut qb = filtered(
        "select s.user_id, min(u.full_name) as user_name, min(u.email) as user_email, min(u.role) as user_role, \
         count(*) as session_count, \
         count(*) filter (where s.ended_at is null and s.expires_at > now()) as active_sessions, \
         max(coalesce(s.ended_at, s.last_seen_at)) as last_seen_at, \
         coalesce(sum(extract(epoch from greatest(coalesce(s.ended_at, s.last_seen_at) - s.created_at, interval '0'))), 0)::float8 as active_seconds, \
         coalesce(array_agg(distinct coalesce(s.city, '') || '|' || s.country) filter (where s.country is not null), '{}') as places \
         from public.sessions s join public.users u on u.id = s.user_id",
        f,
    );
    qb.push(" group by s.user_id order by max(coalesce(s.ended_at, s.last_seen_at)) desc, s.user_id limit ")
        .push_bind(paging.limit())
        .push(" offset ")
        .push_bind(paging.offset());
    Ok((qb.build_query_as().fetch_all(pool).await?, total))
}

/// A person's rollup row: id, sessions, live sessions, last seen, seconds active.
type RolledUp = (Uuid, i64, i64, DateTime<Utc>, f64);

/// `activity` from the rollup: the people of the scope (their sessions' enterprise is theirs) who
/// match `q` by name, address or a city of theirs.
async fn rolled_up_activity(pool: &PgPool, f: &SessionFilter, paging: super::Paging) -> sqlx::Result<(Vec<ActivityRecord>, i64)> {
    let q = f.q.as_deref().map(str::trim).filter(|q| !q.is_empty()).map(|q| format!("%{}%", super::escape_like(q)));
    // The people's table only when the scope needs it: the admin's whole platform is the rollup
    // alone.
    let scoped = |head: &str| {
        let from = if f.enterprise.is_some() {
            "from public.user_activity a join public.users u on u.id = a.user_id"
        } else {
            "from public.user_activity a"
        };
        let mut qb = sqlx::QueryBuilder::<sqlx::Postgres>::new(format!("{head} {from} where a.session_count > 0"));
        match f.enterprise {
            Some(Some(id)) => {
                qb.push(" and u.enterprise_id = ").push_bind(id);
            }
            Some(None) => {
                qb.push(" and u.enterprise_id is null");
            }
            None => {}
        }
        // Each part of the search by its trigram index, rather than a test of every person.
        if let Some(pattern) = &q {
            qb.push(" and a.user_id in (select id from public.users where full_name ilike ").push_bind(pattern.clone());
            qb.push(" union select id from public.users where email ilike ").push_bind(pattern.clone());
            qb.push(" union select user_id from public.user_activity_places where city ilike ").push_bind(pattern.clone()).push(")");
        }
        qb
    };
    // The count and the page's people side by side (two connections: the count reads every row
    // of the scope, the page a few through the index), then their names and places: only theirs.
    let mut count = scoped("select count(*)");
    let mut qb = scoped("select a.user_id, a.session_count, a.active_sessions, a.last_seen_at, a.active_seconds");
    qb.push(" order by a.last_seen_at desc, a.user_id limit ").push_bind(paging.limit()).push(" offset ").push_bind(paging.offset());
    let (total, page): (i64, Vec<RolledUp>) = tokio::try_join!(count.build_query_scalar().fetch_one(pool), qb.build_query_as().fetch_all(pool))?;
    let ids: Vec<Uuid> = page.iter().map(|p| p.0).collect();
    let people: Vec<(Uuid, String, String, String, Vec<String>)> = sqlx::query_as(
        "select u.id, u.full_name, u.email, u.role, \
         coalesce((select array_agg(p.city || '|' || p.country order by p.sessions desc, p.country, p.city) \
                   from public.user_activity_places p where p.user_id = u.id and p.sessions > 0), '{}') \
         from public.users u where u.id = any($1)",
    )
    .bind(&ids)
    .fetch_all(pool)
    .await?;
    let mut people: std::collections::HashMap<Uuid, (String, String, String, Vec<String>)> =
        people.into_iter().map(|(id, name, email, role, places)| (id, (name, email, role, places))).collect();
    let rows = page
        .into_iter()
        .filter_map(|(user_id, session_count, active_sessions, last_seen_at, active_seconds)| {
            let (user_name, user_email, user_role, places) = people.remove(&user_id)?;
            Some(ActivityRecord { user_id, user_name, user_email, user_role, session_count, active_sessions, last_seen_at, active_seconds, places })
        })
        .collect();
    Ok((rows, total))
}

/// Recomputes the activity rollup of every person from their sessions (after the demo's seed
/// moves sessions into the past, which real sessions never do).
pub async fn rebuild_activity(pool: &PgPool) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    // A whole platform's sessions: longer than a request's statement may take.
    sqlx::query("set local statement_timeout = 0").execute(&mut *tx).await?;
    sqlx::query("delete from public.user_activity").execute(&mut *tx).await?;
    sqlx::query("delete from public.user_activity_places").execute(&mut *tx).await?;
    sqlx::query(
        "insert into public.user_activity (user_id, session_count, active_sessions, last_seen_at, active_seconds) \
         select user_id, count(*), count(*) filter (where ended_at is null), max(coalesce(ended_at, last_seen_at)), \
         coalesce(sum(greatest(extract(epoch from coalesce(ended_at, last_seen_at) - created_at), 0)), 0) \
         from public.sessions group by user_id",
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into public.user_activity_places (user_id, city, country, sessions) \
         select user_id, coalesce(city, ''), country, count(*) from public.sessions where country is not null group by 1, 2, 3",
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    // Its planner statistics now, not when autovacuum comes by.
    sqlx::query("analyze public.user_activity, public.user_activity_places").execute(pool).await.map(drop)
}

/// The sessions in a filter, counted per place.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PlaceRecord {
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub city: Option<String>,
    pub country: Option<String>,
    pub total: i64,
    pub active: i64,
    pub flagged: i64,
}

/// The most places one answer holds (the busiest first); past it, a coarser `cell` groups more.
pub const MAX_PLACES: i64 = 5_000;

/// Every session of the filter grouped by place: by city point, or (`cell`, in degrees) by grid
/// cell, each cell at the mean of its sessions' points and named after its city and country when
/// it holds one only. Sessions without a known point are one group with no point, so the groups'
/// totals are the filter's total. Points first, cells from the points: the live sessions' points
/// come from an index alone (`sessions_live_points`, `sessions_live_places`: migration
/// `20261205000002_session_places.sql`), already in order.
pub async fn places(pool: &PgPool, f: &SessionFilter, cell: Option<f64>) -> sqlx::Result<Vec<PlaceRecord>> {
    // The users' table only when `q` searches their names.
    let from = if f.q.as_deref().is_some_and(|q| !q.trim().is_empty()) {
        "from public.sessions s join public.users u on u.id = s.user_id"
    } else {
        "from public.sessions s"
    };
    let points = format!(
        "select s.latitude, s.longitude, s.city, s.country, count(*) as total, \
         count(*) filter (where s.ended_at is null and s.expires_at > now()) as active, \
         count(*) filter (where cardinality(s.flags) > 0) as flagged {from}"
    );
    let Some(cell) = cell else {
        let mut qb = filtered(&points, f);
        qb.push(" group by s.latitude, s.longitude, s.city, s.country order by 5 desc, 1, 2 limit ").push_bind(MAX_PLACES);
        return qb.build_query_as().fetch_all(pool).await;
    };
    let cells = format!(
        "select sum(p.latitude * p.total) / sum(p.total) as latitude, sum(p.longitude * p.total) / sum(p.total) as longitude, \
         case when min(coalesce(p.city, '')) = max(coalesce(p.city, '')) then min(p.city) end as city, \
         case when min(coalesce(p.country, '')) = max(coalesce(p.country, '')) then min(p.country) end as country, \
         sum(p.total)::int8 as total, sum(p.active)::int8 as active, sum(p.flagged)::int8 as flagged from ({points}"
    );
    let mut qb = filtered(&cells, f);
    qb.push(" group by s.latitude, s.longitude, s.city, s.country) p group by floor(p.latitude / ")
        .push_bind(cell)
        .push("), floor(p.longitude / ")
        .push_bind(cell)
        .push(") order by 5 desc, 1, 2 limit ")
        .push_bind(MAX_PLACES);
    qb.build_query_as().fetch_all(pool).await
}

/// Ends every live session of the user but `keep` (none: every one).
pub async fn end_others(db: impl sqlx::PgExecutor<'_>, user_id: Uuid, keep: Option<Uuid>, reason: &str) -> sqlx::Result<Vec<EndedSession>> {
    sqlx::query_as(sqlx::AssertSqlSafe(announced(
        "update public.sessions set ended_at = now(), end_reason = $3 where user_id = $1 and id is distinct from $2 and ended_at is null",
    )))
    .bind(user_id)
    .bind(keep)
    .bind(reason)
    .fetch_all(db)
    .await
}
