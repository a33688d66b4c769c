//! Signing in and out.

use chrono::Utc;

use crate::{
    audit::{Audit, Changes, Target},
    auth::{Caller, ClientInfo, password, token::Claims},
    domain::{
        Email, FieldErrors, FieldIssue,
        session::{self, Device},
    },
    error::AppError,
    realtime::{Audience, Event},
    state::AppState,
    store::{self, users::UserRecord},
};

pub struct Credentials<'a> {
    pub email: &'a str,
    pub password: &'a str,
    pub remember_me: bool,
    /// A device token from an earlier sign-in of this browser (auth/rate_limit.rs).
    pub device_token: Option<&'a str>,
}

pub struct SignedIn {
    pub token: String,
    pub user: UserRecord,
    /// Marks this browser as one that signed in to this account.
    pub device_token: String,
}

#[tracing::instrument(skip_all, fields(ip = ?client.ip))]
pub async fn sign_in(state: &AppState, creds: Credentials<'_>, client: &ClientInfo) -> Result<SignedIn, AppError> {
    let mut errors = FieldErrors::new();
    let email = errors.check("email", Email::parse(creds.email));
    errors.check("password", if creds.password.is_empty() { Err(FieldIssue::Required) } else { Ok(()) });
    let Some(email) = email.filter(|_| errors.is_empty()) else {
        return Err(errors.into());
    };

    let limiter = &state.login_limiter;
    let account = email.normalized();
    // A device token counts only if it was issued after the account's password last changed;
    // the account is read only for a token this server signed.
    let device = match creds.device_token.filter(|t| state.tokens.verify_device(t, &account, None).is_some()) {
        Some(token) => {
            let changed = store::users::password_changed_at(&state.db, &email).await?;
            state.tokens.verify_device(token, &account, changed)
        }
        None => None,
    };
    let attempt = match limiter.attempt(&email, client.ip, device).await {
        Ok(attempt) => attempt,
        Err(retry_after_secs) => {
            tracing::warn!(target: "audit", event = "sign_in_refused", account = %email.normalized(), ip = ?client.ip, reason = "rate_limited");
            crate::metrics::sign_in_failure("rate_limited");
            audit_attempt(state, None, "auth.sign_in_refused", &account, "rate_limited").await?;
            return Err(AppError::RateLimited { retry_after_secs });
        }
    };

    let user = match store::users::find_by_email(&state.db, &email).await {
        Ok(user) => user,
        Err(err) => {
            limiter.not_checked(attempt).await;
            return Err(err.into());
        }
    };
    let matches = password::verify(creds.password, user.as_ref().and_then(|u| u.password_hash.as_deref())).await?;
    let user = match user {
        Some(user) if matches => user,
        user => {
            let reason = if user.is_some() { "wrong_password" } else { "unknown_account" };
            tracing::warn!(target: "audit", event = "sign_in_failed", account = %email.normalized(), ip = ?client.ip, reason);
            crate::metrics::sign_in_failure("invalid_credentials");
            audit_attempt(state, user.as_ref(), "auth.sign_in_failed", &account, reason).await?;
            return Err(AppError::InvalidCredentials);
        }
    };
    limiter.succeeded(attempt).await;
    // Only a caller who knows the password learns that the account is inactive.
    if !user.may_sign_in() {
        tracing::warn!(target: "audit", event = "sign_in_refused", account = %email.normalized(), ip = ?client.ip, reason = "account_inactive");
        crate::metrics::sign_in_failure("inactive");
        audit_attempt(state, Some(&user), "auth.sign_in_refused", &account, "account_inactive").await?;
        return Err(AppError::AccountInactive);
    }

    open_session(state, user, creds.remember_me, client).await
}

/// Opens a session for `user`, whose identity was just proven (a password, an accepted
/// invitation): the session row, its place and flags, the token and a device token. A sign-in
/// from a new country or after an impossible journey is e-mailed to the person.
pub async fn open_session(state: &AppState, mut user: UserRecord, remember_me: bool, client: &ClientInfo) -> Result<SignedIn, AppError> {
    let account = Email::parse(&user.email).map(|e| e.normalized()).unwrap_or_else(|_| user.email.to_lowercase());
    let ttl = if remember_me { state.config.remember_me_ttl } else { state.config.session_ttl };
    let now = Utc::now();
    let expires_at = now + ttl;
    let location = client.ip.and_then(|ip| state.geoip.as_ref()?.locate(ip));
    let device = Device::from_user_agent(client.user_agent.as_deref().unwrap_or(""));
    let history = store::sessions::history(&state.db, user.id, location.as_ref().and_then(|l| l.country.as_deref())).await?;
    let place = location.as_ref().map(|l| (l.latitude, l.longitude, l.country.as_deref().unwrap_or("")));
    let flags = session::flags(&history, place, now);
    let session_id = store::sessions::insert(
        &state.db,
        store::sessions::NewSession {
            user_id: user.id,
            enterprise_id: user.enterprise_id,
            ip: client.ip,
            user_agent: client.user_agent.as_deref(),
            device: &device,
            location: location.as_ref(),
            flags: &flags,
            remember_me,
            expires_at,
        },
        &Audit::person(state, Some(user.id)).0,
        Some(&user.full_name),
    )
    .await?;
    state.sessions.started(session_id, expires_at, remember_me).await;
    let started = Event::MonitoringSessionStarted { session_id, user_id: user.id, enterprise_id: user.enterprise_id };
    state.realtime.publish(Audience::Monitors { enterprise: user.enterprise_id }, started).await;
    store::users::record_login(&state.db, user.id).await?;
    // The e-mail is a courtesy: a database hiccup writing it does not undo the sign-in.
    if !flags.is_empty()
        && let Err(err) = alert(state, &user, &flags, location.as_ref(), &device, now).await
    {
        tracing::warn!(error = %err, user_id = %user.id, "could not queue the sign-in alert");
    }

    let token = state.tokens.sign(&Claims {
        sub: user.id,
        role: user.role(),
        ent: user.enterprise_id,
        sid: session_id,
        iat: now.timestamp(),
        exp: expires_at.timestamp(),
    })?;
    let device_token =
        state.tokens.sign_device(&account, chrono::Duration::from_std(state.config.device_token_ttl).unwrap_or(chrono::Duration::days(365)))?;
    user.last_login_at = Some(now);
    tracing::info!(user_id = %user.id, session_id = %session_id, "signed in");
    Ok(SignedIn { token, user, device_token })
}

/// The e-mail that tells a person of a sign-in from a new country or after an impossible journey.
async fn alert(
    state: &AppState,
    user: &UserRecord,
    flags: &[&str],
    location: Option<&crate::geoip::Location>,
    device: &Device,
    at: chrono::DateTime<Utc>,
) -> Result<(), AppError> {
    let place = location.map(|l| match (&l.city, &l.country) {
        (Some(city), Some(country)) => format!("{city}, {country}"),
        (None, Some(country)) => country.clone(),
        (Some(city), None) => city.clone(),
        (None, None) => String::new(),
    });
    let data = serde_json::json!({
        "flags": flags,
        "place": place.filter(|p| !p.is_empty()),
        "browser": device.browser,
        "at": at.to_rfc3339(),
    });
    let mut conn = state.db.acquire().await?;
    crate::mail::enqueue(&mut conn, user.enterprise_id, user.id, crate::mail::Kind::SignInAlert, data).await?;
    Ok(())
}

/// A sign-in that did not happen, in the audit log: of a known account (its enterprise's log),
/// or of an address no account has (the platform's). The password is never recorded.
async fn audit_attempt(state: &AppState, user: Option<&UserRecord>, action: &str, account: &str, reason: &str) -> Result<(), AppError> {
    let audit = Audit::person(state, user.map(|u| u.id));
    let target = user.map(|u| Target::new("user", u.id, &u.full_name));
    let facts = Changes::new().with("email", account).with("reason", reason);
    audit.record_alone(state, user.and_then(|u| u.enterprise_id), action, target, facts).await?;
    Ok(())
}

pub async fn sign_out(state: &AppState, caller: &Caller) -> Result<(), AppError> {
    state.sessions.end(caller.session_id, "logout").await?;
    let facts = Changes::new().with("sessionId", caller.session_id);
    Audit::of(state, caller).record_alone(state, caller.enterprise_id, "auth.signed_out", None, facts).await?;
    tracing::info!(user_id = %caller.user_id, session_id = %caller.session_id, "signed out");
    Ok(())
}
