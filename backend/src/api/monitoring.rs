use chrono::{DateTime, NaiveDate, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    types::{Page, UserSummary, paging},
};
use crate::{
    api_errors,
    auth::{BearerAuth, Caller},
    domain::Role,
    error::AppError,
    state::AppState,
    store::{
        self,
        sessions::{SessionFilter, SessionRecord},
    },
};

#[derive(Default)]
pub struct MonitoringApi;

/// A signed-in session: who, from where, on what, and since when.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Session {
    pub id: Uuid,
    pub user: UserSummary,
    /// Null for the platform admins' sessions.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    #[oai(nullable)]
    pub ip_address: Option<String>,
    #[oai(nullable)]
    pub user_agent: Option<String>,
    /// "Chrome 120.0.0.0"; null when the user agent does not say.
    #[oai(nullable)]
    pub browser: Option<String>,
    #[oai(nullable)]
    pub os: Option<String>,
    /// `desktop`, `mobile`, `bot` or `other`.
    #[oai(nullable)]
    pub device_type: Option<String>,
    #[oai(nullable)]
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2.
    #[oai(nullable)]
    pub country: Option<String>,
    #[oai(nullable)]
    pub latitude: Option<f64>,
    #[oai(nullable)]
    pub longitude: Option<f64>,
    pub created_at: DateTime<Utc>,
    /// Moves with the session's requests and heartbeats, at most once a minute.
    pub last_seen_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    #[oai(nullable)]
    pub ended_at: Option<DateTime<Utc>>,
    /// `logout`, `revoked`, `user_deactivated`, `enterprise_deactivated`, `deleted`,
    /// `role_changed`, `provider_logout` (the identity provider signed the person out), `idle` or
    /// `expired`.
    #[oai(nullable)]
    pub end_reason: Option<String>,
    /// Neither ended nor expired.
    pub active: bool,
    /// The caller's own session.
    pub current: bool,
    /// `new_country`: the user's first sign-in from this country (not their first ever);
    /// `impossible_travel`: farther from the previous session's place than 900 km/h allows.
    pub flags: Vec<String>,
    /// How the session was opened: `password`, `password_totp` (password and an authenticator's
    /// code), `password_recovery_code`, `password_passkey`, `passkey`, `invitation` (an accepted
    /// invitation), `sso` (the enterprise's identity provider, its second factor included when it
    /// asserted one), or `sso_totp`, `sso_recovery_code`, `sso_passkey` (the provider, then ours).
    pub sign_in_method: String,
}

impl Session {
    fn from_record(r: SessionRecord, caller: &Caller) -> Self {
        let active = r.ended_at.is_none() && r.expires_at > Utc::now();
        Self {
            current: r.id == caller.session_id,
            active,
            id: r.id,
            user: UserSummary::from_columns(r.user_id, Some(r.user_name), Some(r.user_email), Some(r.user_role)),
            enterprise_id: r.enterprise_id,
            ip_address: r.ip_address,
            user_agent: r.user_agent,
            browser: r.browser,
            os: r.os,
            device_type: r.device_type,
            city: r.city,
            country: r.country,
            latitude: r.latitude,
            longitude: r.longitude,
            created_at: r.created_at,
            last_seen_at: r.last_seen_at,
            expires_at: r.expires_at,
            ended_at: r.ended_at,
            end_reason: r.end_reason,
            flags: r.flags,
            sign_in_method: r.sign_in_method,
        }
    }
}

/// A place a user was seen at.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Place {
    #[oai(nullable)]
    pub city: Option<String>,
    pub country: String,
}

/// The sessions at one place (a city's point, or a cell of the map's grid at its zoom).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MapPlace {
    /// The place's point (a cell's: the mean of its sessions'); null for the sessions whose place
    /// is unknown (a private or unlisted address), so the places' totals are the list's.
    #[oai(nullable)]
    pub latitude: Option<f64>,
    #[oai(nullable)]
    pub longitude: Option<f64>,
    /// Null when unknown, or when a cell holds several cities.
    #[oai(nullable)]
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2; null when unknown, or when a cell spans several countries.
    #[oai(nullable)]
    pub country: Option<String>,
    pub total: i64,
    /// Neither ended nor expired.
    pub active: i64,
    /// With a `new_country` or `impossible_travel` flag.
    pub flagged: i64,
}

/// One user's sessions, summed up.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UserActivity {
    pub user: UserSummary,
    pub session_count: i64,
    pub active_sessions: i64,
    pub last_seen_at: DateTime<Utc>,
    /// From each session's start to its last activity, summed.
    pub active_seconds: i64,
    /// Every place seen (city and country).
    pub places: Vec<Place>,
}

#[derive(Debug, ApiResponse)]
pub enum Done {
    /// Done.
    #[oai(status = 204)]
    Done,
}

api_errors!(MonitoringError {
    /// A parameter is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Department staff do not monitor sessions.
    403 Forbidden,
    /// No such session or enterprise for this caller.
    404 NotFound,
});

api_errors!(ActivityError {
    /// No token, or its session has ended (`session_expired`).
    401 Unauthorized,
    /// A program's token: only a session sends heartbeats (`forbidden`).
    403 Forbidden,
});

/// The sessions a monitor sees: the admin every session (`enterpriseId` narrows it to one
/// enterprise's), a CEO their enterprise's (another enterprise is 404), staff none (403).
fn scope(caller: &Caller, enterprise_id: Option<Uuid>) -> Result<Option<Option<Uuid>>, AppError> {
    match caller.role {
        Role::PlatformAdmin => Ok(enterprise_id.map(Some)),
        Role::EnterpriseCeo => {
            if enterprise_id.is_some_and(|id| Some(id) != caller.enterprise_id) {
                return Err(AppError::NotFound);
            }
            Ok(Some(caller.enterprise_id))
        }
        _ => Err(AppError::Forbidden),
    }
}

fn day_start(d: NaiveDate) -> DateTime<Utc> {
    d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc()
}

/// The session, if it is in the caller's scope (anything else is 404).
async fn watched(state: &AppState, caller: &Caller, id: Uuid) -> Result<SessionRecord, AppError> {
    let session = store::sessions::find(&state.db, id).await?.ok_or(AppError::NotFound)?;
    match caller.role {
        Role::PlatformAdmin => Ok(session),
        Role::EnterpriseCeo if session.enterprise_id.is_some() && session.enterprise_id == caller.enterprise_id => Ok(session),
        _ => Err(AppError::NotFound),
    }
}

#[OpenApi(prefix_path = "/monitoring", tag = "ApiTags::Monitoring")]
impl MonitoringApi {
    /// List sessions
    ///
    /// The platform admin sees every session (`enterpriseId` narrows to one enterprise); a CEO
    /// their enterprise's. The most recently active first. `from`/`to` keep sessions active
    /// within those days (UTC); `q` searches the user's name and e-mail and the city.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/sessions", method = "get", operation_id = "listSessions")]
    async fn sessions(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        active: Query<Option<bool>>,
        #[oai(name = "userId")] user_id: Query<Option<Uuid>>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
        flagged: Query<Option<bool>>,
        /// One place's sessions (a place of `/monitoring/places`): its city, or empty for the
        /// sessions whose city is unknown.
        #[oai(validator(max_length = 200))]
        city: Query<Option<String>>,
        /// ISO 3166-1 alpha-2.
        #[oai(validator(min_length = 2, max_length = 2))]
        country: Query<Option<String>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Session>>, MonitoringError> {
        auth.0.require("listSessions")?;
        let filter = SessionFilter {
            enterprise: scope(&auth.0, enterprise_id.0)?,
            user_id: user_id.0,
            active: active.0,
            from: from.0.map(day_start),
            to: to.0.map(|d| day_start(d) + chrono::Duration::days(1)),
            q: q.0,
            flagged: flagged.0,
            city: city.0,
            country: country.0,
        };
        let paging = paging(page.0, page_size.0);
        let (rows, total) = store::sessions::list(&state.db, &filter, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(|r| Session::from_record(r, &auth.0)).collect(), total, paging)))
    }

    /// Sessions per place
    ///
    /// Every session in the caller's scope and the filters of `GET /monitoring/sessions`, counted
    /// per place: a city's point, or with `zoom` (the map's, 0-18) a cell of a grid that shrinks as
    /// the map zooms in (45° at zoom 0, halving at each level). The busiest 5,000 places at most;
    /// a place's sessions come from `GET /monitoring/sessions` with its `city` and `country`.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/places", method = "get", operation_id = "listMonitoringPlaces")]
    async fn places(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        active: Query<Option<bool>>,
        #[oai(name = "userId")] user_id: Query<Option<Uuid>>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
        flagged: Query<Option<bool>>,
        #[oai(validator(minimum(value = "0"), maximum(value = "18")))] zoom: Query<Option<u8>>,
    ) -> Result<Json<Vec<MapPlace>>, MonitoringError> {
        auth.0.require("listMonitoringPlaces")?;
        let filter = SessionFilter {
            enterprise: scope(&auth.0, enterprise_id.0)?,
            user_id: user_id.0,
            active: active.0,
            from: from.0.map(day_start),
            to: to.0.map(|d| day_start(d) + chrono::Duration::days(1)),
            q: q.0,
            flagged: flagged.0,
            ..Default::default()
        };
        let cell = zoom.0.map(|z| 45.0 / f64::from(1u32 << z));
        let rows = store::sessions::places(&state.db, &filter, cell).await?;
        let items = rows
            .into_iter()
            .map(|r| MapPlace {
                latitude: r.latitude,
                longitude: r.longitude,
                city: r.city,
                country: r.country,
                total: r.total,
                active: r.active,
                flagged: r.flagged,
            })
            .collect();
        Ok(Json(items))
    }

    /// Activity per user
    ///
    /// For each user with sessions in the caller's scope (and the filters): how many sessions,
    /// how many live, when last seen, how long active, and where.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/user-activity", method = "get", operation_id = "listUserActivity")]
    async fn user_activity(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<UserActivity>>, MonitoringError> {
        auth.0.require("listUserActivity")?;
        let filter = SessionFilter {
            enterprise: scope(&auth.0, enterprise_id.0)?,
            from: from.0.map(day_start),
            to: to.0.map(|d| day_start(d) + chrono::Duration::days(1)),
            q: q.0,
            ..Default::default()
        };
        let paging = paging(page.0, page_size.0);
        let (rows, total) = store::sessions::activity(&state.db, &filter, paging).await?;
        let items = rows
            .into_iter()
            .map(|r| UserActivity {
                user: UserSummary::from_columns(r.user_id, Some(r.user_name), Some(r.user_email), Some(r.user_role)),
                session_count: r.session_count,
                active_sessions: r.active_sessions,
                last_seen_at: r.last_seen_at,
                active_seconds: r.active_seconds.round() as i64,
                places: r
                    .places
                    .into_iter()
                    .filter_map(|p| {
                        let (city, country) = p.split_once('|')?;
                        Some(Place { city: Some(city.to_owned()).filter(|c| !c.is_empty()), country: country.to_owned() })
                    })
                    .collect(),
            })
            .collect();
        Ok(Json(Page::new(items, total, paging)))
    }

    /// Log a session out
    ///
    /// Ends it at once, everywhere: its token gets 401 and its sockets close (4401).
    #[oai(path = "/sessions/:id/logout", method = "post", operation_id = "logoutSession")]
    async fn logout(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, MonitoringError> {
        auth.0.require("logoutSession")?;
        let session = watched(&state, &auth.0, id.0).await?;
        state.sessions.end(session.id, "revoked").await?;
        tracing::info!(session_id = %session.id, by = %auth.0.user_id, "session ended by a monitor");
        let target = crate::audit::Target::new("user", session.user_id, &session.user_name);
        crate::audit::Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(&state.db, session.enterprise_id, "session.ended", Some(target), crate::audit::Changes::new().with("sessionId", session.id))
            .await?;
        Ok(Done::Done)
    }

    /// Log out the user's other sessions
    ///
    /// Ends every live session of this session's user except this one.
    #[oai(path = "/sessions/:id/logout-others", method = "post", operation_id = "logoutOtherSessions")]
    async fn logout_others(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, MonitoringError> {
        auth.0.require("logoutOtherSessions")?;
        let session = watched(&state, &auth.0, id.0).await?;
        let ended = store::sessions::end_others(&state.db, session.user_id, Some(session.id), "revoked").await?;
        state.sessions.ended(&ended).await;
        let target = crate::audit::Target::new("user", session.user_id, &session.user_name);
        let facts = crate::audit::Changes::new().with("sessions", ended.len()).with("kept", session.id);
        crate::audit::Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(&state.db, session.enterprise_id, "session.ended", Some(target), facts)
            .await?;
        Ok(Done::Done)
    }

    /// Heartbeat
    ///
    /// The caller's tab is open and in use: its session's `lastSeenAt` moves (written at most
    /// once a minute). A dead session answers 401.
    #[oai(path = "/sessions/activity", method = "post", operation_id = "recordActivity")]
    async fn activity(&self, auth: BearerAuth) -> Result<Done, ActivityError> {
        auth.0.require("recordActivity")?;
        Ok(Done::Done)
    }
}

/// The caller's own sessions (every role).
#[derive(Default)]
pub struct OwnSessionsApi;

#[OpenApi(prefix_path = "/auth", tag = "ApiTags::Auth")]
impl OwnSessionsApi {
    /// My sessions
    ///
    /// The caller's sessions, live first, then the most recently active; `current` marks this one.
    #[oai(path = "/sessions", method = "get", operation_id = "listMySessions")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        active: Query<Option<bool>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Session>>, MonitoringError> {
        auth.0.require("listMySessions")?;
        let filter = SessionFilter { user_id: Some(auth.0.user_id), active: active.0, ..Default::default() };
        let paging = paging(page.0, page_size.0);
        let (rows, total) = store::sessions::list(&state.db, &filter, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(|r| Session::from_record(r, &auth.0)).collect(), total, paging)))
    }

    /// End one of my sessions
    ///
    /// Ends one of the caller's own sessions (another browser or device) at once; its token gets 401 `session_expired`.
    #[oai(path = "/sessions/:id/logout", method = "post", operation_id = "logoutMySession")]
    async fn logout(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, MonitoringError> {
        auth.0.require("logoutMySession")?;
        let session = store::sessions::find(&state.db, id.0).await?.filter(|s| s.user_id == auth.0.user_id).ok_or(AppError::NotFound)?;
        state.sessions.end(session.id, "logout").await?;
        Ok(Done::Done)
    }
}
