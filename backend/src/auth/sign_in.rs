//! Signing in and out.

use chrono::Utc;

use crate::{
    audit::{Audit, Changes, Target},
    auth::{
        Caller, ClientInfo, mfa, password,
        token::{Challenge, ChallengeClaims, Claims},
    },
    config::Config,
    domain::{
        Email, FieldErrors, FieldIssue,
        session::{self, Device},
    },
    error::AppError,
    geoip::GeoIp,
    realtime::{Audience, Event, Hub},
    sealed::KeyRing,
    store::{self, users::UserRecord},
    usage::Counters,
};

use super::{passkeys::Passkeys, rate_limit::LoginLimiter, sessions::SessionGuard, token::TokenKeys};

/// What signing in touches: the accounts, their factors and sessions in the database (with the
/// keys that open the factors' secrets), the sign-in limits, the passkeys' relying party, the
/// client's place for the audit, the keys tokens are signed with, the sessions and the hub that
/// announces them, the enterprises' usage counters, and how long sessions and devices last.
pub struct SignIns<'a> {
    pub db: &'a sqlx::PgPool,
    pub data_keys: &'a KeyRing,
    pub login_limiter: &'a LoginLimiter,
    pub passkeys: &'a Option<Passkeys>,
    pub geoip: &'a Option<GeoIp>,
    pub tokens: &'a TokenKeys,
    pub sessions: &'a SessionGuard,
    pub realtime: &'a Hub,
    pub usage: &'a Counters,
    pub ttls: Ttls,
}

/// How long a session lasts (`SESSION_TTL_*`), a remembered one, and a device's token.
#[derive(Clone, Copy)]
pub struct Ttls {
    pub session: std::time::Duration,
    pub remember_me: std::time::Duration,
    pub device_token: std::time::Duration,
}

impl Ttls {
    pub fn of(config: &Config) -> Self {
        Self { session: config.session_ttl, remember_me: config.remember_me_ttl, device_token: config.device_token_ttl }
    }
}

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

/// What a right password leads to: a session, or the second step.
pub enum Outcome {
    SignedIn(Box<SignedIn>),
    /// A second factor is due (`POST /auth/login/verify` with the challenge): one of `methods`,
    /// or, when `enrol`, an authenticator to set up now (the person's policy requires one).
    SecondFactor {
        challenge: String,
        methods: Vec<&'static str>,
        enrol: bool,
    },
}

/// How a session was opened (`sessions.sign_in_method`, shown on the monitoring screens).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Password,
    PasswordTotp,
    PasswordRecoveryCode,
    PasswordPasskey,
    Passkey,
    Invitation,
    /// Through the enterprise's identity provider (OpenID Connect).
    Sso,
    /// The provider, then our second factor (it asserted none): an authenticator's code, a
    /// recovery code, a passkey.
    SsoTotp,
    SsoRecoveryCode,
    SsoPasskey,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::PasswordTotp => "password_totp",
            Self::PasswordRecoveryCode => "password_recovery_code",
            Self::PasswordPasskey => "password_passkey",
            Self::Passkey => "passkey",
            Self::Invitation => "invitation",
            Self::Sso => "sso",
            Self::SsoTotp => "sso_totp",
            Self::SsoRecoveryCode => "sso_recovery_code",
            Self::SsoPasskey => "sso_passkey",
        }
    }

    /// Whether the enterprise's provider was the first factor.
    pub fn via_sso(self) -> bool {
        matches!(self, Self::Sso | Self::SsoTotp | Self::SsoRecoveryCode | Self::SsoPasskey)
    }
}

#[tracing::instrument(skip_all, fields(ip = ?client.ip))]
pub async fn sign_in(state: &SignIns<'_>, creds: Credentials<'_>, client: &ClientInfo) -> Result<Outcome, AppError> {
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
            let changed = store::users::password_changed_at(state.db, &email).await?;
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

    let user = match store::users::find_by_email(state.db, &email).await {
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
    if password_refused(state, &user).await? {
        tracing::warn!(target: "audit", event = "sign_in_refused", account = %email.normalized(), ip = ?client.ip, reason = "sso_required");
        crate::metrics::sign_in_failure("sso_required");
        audit_attempt(state, Some(&user), "auth.sign_in_refused", &account, "sso_required").await?;
        return Err(AppError::SsoRequired);
    }

    after_password(state, user, creds.remember_me, device, Method::Password, client).await
}

/// Whether `user`'s enterprise requires single sign-on for their address, so that no password
/// signs them in: all but the enterprise's break-glass CEO, and them only with a second factor
/// (which the sign-in then asks for). Asked early, before a second factor is asked for; `admit`
/// asks again, of every proof, before any session opens.
pub async fn password_refused(state: &SignIns<'_>, user: &UserRecord) -> Result<bool, AppError> {
    sso_refuses(state, user, None).await
}

/// The rule behind "single sign-on required": whether the enterprise's provider is the only way
/// in for `user`, for a proof made by `method` (`None`: a password whose second factor is still to
/// come). The break-glass CEO gets in by a password with a second factor, or by a passkey.
async fn sso_refuses(state: &SignIns<'_>, user: &UserRecord, method: Option<Method>) -> Result<bool, AppError> {
    if method.is_some_and(Method::via_sso) {
        return Ok(false);
    }
    let Some(enterprise_id) = user.enterprise_id else { return Ok(false) };
    let Some(sso) = store::sso::find(state.db, enterprise_id).await? else { return Ok(false) };
    if !sso.required || !sso.covers(&user.email) {
        return Ok(false);
    }
    let break_glass = sso.break_glass_user_id == Some(user.id) && user.role() == crate::domain::Role::EnterpriseCeo;
    if !break_glass {
        return Ok(true);
    }
    Ok(match method {
        None => second_factors(state, user.id).await?.is_empty(),
        Some(Method::PasswordTotp | Method::PasswordRecoveryCode | Method::PasswordPasskey | Method::Passkey) => false,
        Some(Method::Password | Method::Invitation) => true,
        Some(Method::Sso | Method::SsoTotp | Method::SsoRecoveryCode | Method::SsoPasskey) => false,
    })
}

/// The one policy every proof of identity passes before a session opens, whatever the proof (a
/// password with or without its second factor, a passkey, an accepted invitation, the enterprise's
/// provider): the account may sign in, and single sign-on, where its enterprise requires it, is
/// not bypassed. A refusal is logged, counted and audited.
async fn admit(state: &SignIns<'_>, user: &UserRecord, method: Method, client: &ClientInfo) -> Result<(), AppError> {
    let account = Email::parse(&user.email).map(|e| e.normalized()).unwrap_or_else(|_| user.email.to_lowercase());
    let (reason, error) = if !user.may_sign_in() {
        ("account_inactive", AppError::AccountInactive)
    } else if sso_refuses(state, user, Some(method)).await? {
        ("sso_required", AppError::SsoRequired)
    } else {
        return Ok(());
    };
    tracing::warn!(target: "audit", event = "sign_in_refused", account = %account, ip = ?client.ip, reason, method = method.as_str());
    crate::metrics::sign_in_failure(if reason == "account_inactive" { "inactive" } else { reason });
    audit_attempt(state, Some(user), "auth.sign_in_refused", &account, reason).await?;
    Err(error)
}

/// The second factors a person can answer with now.
async fn second_factors(state: &SignIns<'_>, user_id: uuid::Uuid) -> Result<Vec<&'static str>, AppError> {
    let mut methods = Vec::new();
    if store::mfa::totp(state.db, state.data_keys, user_id).await?.is_some_and(|t| t.confirmed) {
        methods.extend(["totp", "recovery_code"]);
    }
    if state.passkeys.is_some() && store::passkeys::count(state.db, user_id).await? > 0 {
        methods.push("webauthn");
    }
    Ok(methods)
}

/// The step after a proven password (or an accepted invitation): the session, unless a second
/// factor is due: the person has one, or their policy requires one they have not set up yet.
pub async fn after_password(
    state: &SignIns<'_>,
    user: UserRecord,
    remember_me: bool,
    device: Option<uuid::Uuid>,
    method: Method,
    client: &ClientInfo,
) -> Result<Outcome, AppError> {
    let ttl = chrono::Duration::seconds(mfa::CHALLENGE_TTL_SECS);
    let methods = second_factors(state, user.id).await?;
    if !methods.is_empty() {
        let challenge = state
            .tokens
            .sign_challenge(&Challenge { user: user.id, remember_me, enrol: false, device, client: client.user_agent.as_deref(), sso: false }, ttl)?;
        return Ok(Outcome::SecondFactor { challenge, methods, enrol: false });
    }
    if store::mfa::required(state.db, user.enterprise_id, user.role()).await? {
        let challenge = state
            .tokens
            .sign_challenge(&Challenge { user: user.id, remember_me, enrol: true, device, client: client.user_agent.as_deref(), sso: false }, ttl)?;
        return Ok(Outcome::SecondFactor { challenge, methods: Vec::new(), enrol: true });
    }
    open_session(state, user, remember_me, method, client).await.map(|s| Outcome::SignedIn(Box::new(s)))
}

/// The step after the enterprise's provider named the person: the session when the provider
/// asserted a second factor (`provider_mfa`); otherwise ours when the person has one, or one to
/// set up now when the enterprise requires a second factor (`require_mfa`); else the session.
pub async fn after_sso(
    state: &SignIns<'_>,
    user: UserRecord,
    remember_me: bool,
    provider_mfa: bool,
    require_mfa: bool,
    client: &ClientInfo,
) -> Result<Outcome, AppError> {
    if !provider_mfa {
        let ttl = chrono::Duration::seconds(mfa::CHALLENGE_TTL_SECS);
        let methods = second_factors(state, user.id).await?;
        if !methods.is_empty() || require_mfa {
            // Refused before the second step, not after it: the provider's answer is spent.
            admit(state, &user, Method::Sso, client).await?;
            let enrol = methods.is_empty();
            let challenge = state.tokens.sign_challenge(
                &Challenge { user: user.id, remember_me, enrol, device: None, client: client.user_agent.as_deref(), sso: true },
                ttl,
            )?;
            return Ok(Outcome::SecondFactor { challenge, methods, enrol });
        }
    }
    open_session(state, user, remember_me, Method::Sso, client).await.map(|s| Outcome::SignedIn(Box::new(s)))
}

/// The user a challenge names, if it is live and they may still sign in.
async fn challenged(state: &SignIns<'_>, challenge: &str) -> Result<(ChallengeClaims, UserRecord), AppError> {
    let claims = state.tokens.verify_challenge(challenge).ok_or(AppError::ChallengeExpired)?;
    let user = store::users::find_by_id(state.db, claims.sub).await?.ok_or(AppError::ChallengeExpired)?;
    if !user.may_sign_in() {
        return Err(AppError::AccountInactive);
    }
    Ok((claims, user))
}

/// Starts setting up an authenticator in the middle of a sign-in whose policy requires one:
/// the secret and its `otpauth://` URL.
pub async fn start_enrolment(state: &SignIns<'_>, challenge: &str) -> Result<(String, String), AppError> {
    let (claims, user) = challenged(state, challenge).await?;
    if !claims.enrol {
        return Err(AppError::ChallengeExpired);
    }
    let secret = mfa::new_secret();
    if !store::mfa::start_totp(state.db, state.data_keys, user.id, &secret).await? {
        return Err(AppError::ChallengeExpired);
    }
    let url = mfa::otpauth_url(&secret, &user.email)?;
    Ok((secret, url))
}

/// The sign-in's second step: a code from the person's authenticator or one of their recovery
/// codes (or, for an enrolment, the first code of the authenticator just set up, which turns it
/// on and gives recovery codes). Attempts count as password attempts do.
#[tracing::instrument(skip_all, fields(ip = ?client.ip))]
pub async fn verify(state: &SignIns<'_>, challenge: &str, answer: Answer, client: &ClientInfo) -> Result<(SignedIn, Option<Vec<String>>), AppError> {
    let code = match &answer {
        Answer::Code(code) if code.trim().is_empty() => {
            let mut errors = FieldErrors::new();
            errors.check::<()>("code", Err(FieldIssue::Required));
            return Err(errors.into());
        }
        Answer::Code(code) => code.as_str(),
        Answer::Passkey(_) => "",
    };
    let (claims, user) = challenged(state, challenge).await?;
    // Finished by the client that started it: a challenge taken elsewhere is no use.
    if claims.cli != crate::auth::token::client_tag(client.user_agent.as_deref()) {
        return Err(AppError::ChallengeExpired);
    }
    let email = Email::parse(&user.email).map_err(|_| AppError::ChallengeExpired)?;
    let account = email.normalized();
    let attempt = match state.login_limiter.attempt(&email, client.ip, claims.did).await {
        Ok(attempt) => attempt,
        Err(retry_after_secs) => {
            crate::metrics::sign_in_failure("rate_limited");
            audit_attempt(state, Some(&user), "auth.sign_in_refused", &account, "rate_limited").await?;
            return Err(AppError::RateLimited { retry_after_secs });
        }
    };
    let (method, recovery_codes) = if let Answer::Passkey(credential) = answer {
        if claims.enrol {
            return Err(AppError::ChallengeExpired);
        }
        match second_factor_passkey(state, user.id, credential).await {
            Ok(()) => (if claims.sso { Method::SsoPasskey } else { Method::PasswordPasskey }, None),
            Err(AppError::PasskeyRejected) => return Err(refused_passkey(state, &user, &account, client).await),
            Err(err) => return Err(err),
        }
    } else if claims.enrol {
        let pending = store::mfa::totp(state.db, state.data_keys, user.id).await?.filter(|t| !t.confirmed);
        let step = match &pending {
            Some(totp) => mfa::matching_step(&totp.secret, code)?,
            None => None,
        };
        match step {
            Some(step) if store::mfa::use_step(state.db, user.id, step, true).await? => {
                let codes = mfa::new_recovery_codes();
                let mut tx = state.db.begin().await?;
                store::mfa::replace_recovery_codes(&mut tx, user.id, &codes.iter().map(|c| mfa::normalize_recovery_code(c)).collect::<Vec<_>>())
                    .await?;
                Audit::person(state.geoip.as_ref(), Some(user.id))
                    .record(&mut tx, user.enterprise_id, "mfa.totp_enabled", Some(Target::new("user", user.id, &user.full_name)), Changes::new())
                    .await?;
                mfa::notify(&mut tx, &user, "totp_enabled", None).await?;
                tx.commit().await?;
                (if claims.sso { Method::SsoTotp } else { Method::PasswordTotp }, Some(codes))
            }
            _ => return Err(wrong_code(state, &user, &account, client).await),
        }
    } else {
        match mfa::verify(state.db, state.data_keys, user.id, code).await? {
            Some(mfa::Proof::OneTimeCode) => (if claims.sso { Method::SsoTotp } else { Method::PasswordTotp }, None),
            Some(mfa::Proof::RecoveryCode) => {
                let left = store::mfa::recovery_codes_left(state.db, user.id).await?;
                audit_attempt(state, Some(&user), "auth.recovery_code_used", &account, &format!("{left} left")).await?;
                (if claims.sso { Method::SsoRecoveryCode } else { Method::PasswordRecoveryCode }, None)
            }
            None => return Err(wrong_code(state, &user, &account, client).await),
        }
    };
    state.login_limiter.succeeded(attempt).await;
    // One challenge, one session: a second answer to it (the next code, a replay) is refused.
    if !store::mfa::spend_challenge(state.db, claims.jti, claims.exp).await? {
        return Err(AppError::ChallengeExpired);
    }
    let signed_in = open_session(state, user, claims.rem, method, client).await?;
    Ok((signed_in, recovery_codes))
}

/// What the sign-in's second step answers with.
pub enum Answer {
    /// An authenticator's code or a recovery code.
    Code(String),
    /// A passkey's assertion, as the browser gives it (`POST /auth/webauthn/login/options` with
    /// the challenge asked for it).
    Passkey(serde_json::Value),
}

/// Checks a passkey's answer at the second step: one of this person's passkeys, for the
/// ceremony started for them.
async fn second_factor_passkey(state: &SignIns<'_>, user_id: uuid::Uuid, credential: serde_json::Value) -> Result<(), AppError> {
    let passkeys = state.passkeys.as_ref().ok_or(AppError::PasskeyRejected)?;
    let credential: webauthn_rs::prelude::PublicKeyCredential = super::passkeys::parse(credential)?;
    let result = passkeys.finish_second_factor(user_id, &credential).await?;
    let record = store::passkeys::find_by_credential(state.db, result.cred_id().as_ref()).await?;
    let Some(mut record) = record.filter(|r| r.user_id == user_id) else { return Err(AppError::PasskeyRejected) };
    record.passkey.0.update_credential(&result);
    store::passkeys::used(state.db, record.id, &record.passkey.0).await?;
    Ok(())
}

/// Signs in with a passkey alone: a discoverable credential names its person (its user handle
/// is their id), and its user verification (a PIN, a fingerprint) stands for the second factor.
#[tracing::instrument(skip_all, fields(ip = ?client.ip))]
pub async fn with_passkey(state: &SignIns<'_>, credential: serde_json::Value, remember_me: bool, client: &ClientInfo) -> Result<SignedIn, AppError> {
    let passkeys = state.passkeys.as_ref().ok_or(AppError::Conflict(crate::error::Conflict::PasskeysUnavailable))?;
    let credential: webauthn_rs::prelude::PublicKeyCredential = super::passkeys::parse(credential)?;
    let (user_id, credential_id) = passkeys.identify(&credential)?;
    let record = store::passkeys::find_by_credential(state.db, &credential_id).await?.filter(|r| r.user_id == user_id);
    let Some(mut record) = record else {
        crate::metrics::sign_in_failure("invalid_passkey");
        return Err(AppError::PasskeyRejected);
    };
    let user = store::users::find_by_id(state.db, user_id).await?.ok_or(AppError::PasskeyRejected)?;
    let account = Email::parse(&user.email).map(|e| e.normalized()).unwrap_or_else(|_| user.email.to_lowercase());
    let result = match passkeys.finish_discoverable(&credential, &record.passkey.0).await {
        Ok(result) => result,
        Err(AppError::PasskeyRejected) => return Err(refused_passkey(state, &user, &account, client).await),
        Err(err) => return Err(err),
    };
    admit(state, &user, Method::Passkey, client).await?;
    record.passkey.0.update_credential(&result);
    store::passkeys::used(state.db, record.id, &record.passkey.0).await?;
    open_session(state, user, remember_me, Method::Passkey, client).await
}

/// A passkey's answer that did not verify: logged, audited; the answer is 401 `passkey_rejected`.
async fn refused_passkey(state: &SignIns<'_>, user: &UserRecord, account: &str, client: &ClientInfo) -> AppError {
    tracing::warn!(target: "audit", event = "sign_in_failed", account = %account, ip = ?client.ip, reason = "passkey_rejected");
    crate::metrics::sign_in_failure("invalid_passkey");
    match audit_attempt(state, Some(user), "auth.sign_in_failed", account, "passkey_rejected").await {
        Ok(()) => AppError::PasskeyRejected,
        Err(err) => err,
    }
}

/// A wrong or used code: logged, counted, audited; the answer is 401 `invalid_code`.
async fn wrong_code(state: &SignIns<'_>, user: &UserRecord, account: &str, client: &ClientInfo) -> AppError {
    tracing::warn!(target: "audit", event = "sign_in_failed", account = %account, ip = ?client.ip, reason = "wrong_code");
    crate::metrics::sign_in_failure("invalid_code");
    match audit_attempt(state, Some(user), "auth.sign_in_failed", account, "wrong_code").await {
        Ok(()) => AppError::InvalidCode,
        Err(err) => err,
    }
}

/// Opens a session for `user`, whose identity was just proven (a password, an accepted
/// invitation): the session row, its place and flags, the token and a device token. A sign-in
/// from a new country or after an impossible journey is e-mailed to the person.
pub async fn open_session(
    state: &SignIns<'_>,
    mut user: UserRecord,
    remember_me: bool,
    method: Method,
    client: &ClientInfo,
) -> Result<SignedIn, AppError> {
    admit(state, &user, method, client).await?;
    let account = Email::parse(&user.email).map(|e| e.normalized()).unwrap_or_else(|_| user.email.to_lowercase());
    let ttl = if remember_me { state.ttls.remember_me } else { state.ttls.session };
    let now = Utc::now();
    let expires_at = now + ttl;
    let location = client.ip.and_then(|ip| state.geoip.as_ref()?.locate(ip));
    let device = Device::from_user_agent(client.user_agent.as_deref().unwrap_or(""));
    let history = store::sessions::history(state.db, user.id, location.as_ref().and_then(|l| l.country.as_deref())).await?;
    let place = location.as_ref().map(|l| (l.latitude, l.longitude, l.country.as_deref().unwrap_or("")));
    let flags = session::flags(&history, place, now);
    let session_id = store::sessions::insert(
        state.db,
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
            method: method.as_str(),
        },
        &Audit::person(state.geoip.as_ref(), Some(user.id)).0,
        Some(&user.full_name),
    )
    .await?;
    state.sessions.started(session_id, expires_at, remember_me).await;
    let started = Event::MonitoringSessionStarted { session_id, user_id: user.id, enterprise_id: user.enterprise_id };
    state.realtime.publish(Audience::Monitors { enterprise: user.enterprise_id }, started).await;
    let own = Event::OwnSessionsChanged { user_id: user.id };
    state.realtime.publish(Audience::Users { enterprise: user.enterprise_id, users: vec![user.id] }, own).await;
    store::users::record_login(state.db, user.id).await?;
    if let Some(enterprise) = user.enterprise_id {
        state.usage.add(enterprise, crate::usage::Counter::SignIn);
    }
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
        state.tokens.sign_device(&account, chrono::Duration::from_std(state.ttls.device_token).unwrap_or(chrono::Duration::days(365)))?;
    user.last_login_at = Some(now);
    tracing::info!(user_id = %user.id, session_id = %session_id, "signed in");
    Ok(SignedIn { token, user, device_token })
}

/// The e-mail that tells a person of a sign-in from a new country or after an impossible journey.
async fn alert(
    state: &SignIns<'_>,
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
async fn audit_attempt(state: &SignIns<'_>, user: Option<&UserRecord>, action: &str, account: &str, reason: &str) -> Result<(), AppError> {
    let audit = Audit::person(state.geoip.as_ref(), user.map(|u| u.id));
    let target = user.map(|u| Target::new("user", u.id, &u.full_name));
    let facts = Changes::new().with("email", account).with("reason", reason);
    audit.record_alone(state.db, user.and_then(|u| u.enterprise_id), action, target, facts).await?;
    Ok(())
}

pub async fn sign_out(state: &SignIns<'_>, caller: &Caller) -> Result<(), AppError> {
    state.sessions.end(caller.session_id, "logout").await?;
    let facts = Changes::new().with("sessionId", caller.session_id);
    Audit::of(state.geoip.as_ref(), caller).record_alone(state.db, caller.enterprise_id, "auth.signed_out", None, facts).await?;
    tracing::info!(user_id = %caller.user_id, session_id = %caller.session_id, "signed out");
    Ok(())
}
