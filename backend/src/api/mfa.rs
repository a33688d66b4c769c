//! The second factor: one's own authenticator app and recovery codes, resetting someone else's
//! (the admin, or a CEO for their staff), and the policies that require one (the platform's, which
//! is every enterprise's default, and an enterprise's own).

use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{
    ApiTags,
    accounts::{Done, LimitedError},
    auth::TotpSetup,
    managed::find_managed,
};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, Caller, ClientInfo, Credential, mfa, password},
    domain::{Email, FieldErrors, FieldIssue, Role},
    error::{AppError, Conflict},
    state::AppState,
    store::{self, users::UserRecord},
};

#[derive(Default)]
pub struct MfaApi;

/// One's own second factor.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MfaStatus {
    /// An authenticator app is set up: sign-ins ask for its code.
    pub totp_enabled: bool,
    /// Registered passkeys: each signs in alone, and a password sign-in may ask for one.
    pub passkeys: i64,
    /// Unused recovery codes.
    pub recovery_codes_left: i64,
    /// The policy of one's enterprise (or the platform's) requires a second factor for one's role.
    pub required: bool,
}

/// The first code of the authenticator being set up.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TotpCode {
    #[oai(validator(max_length = 64))]
    pub code: String,
}

/// Proof that it is the person: an authenticator's code (or a recovery code), or the password.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Reauthentication {
    #[oai(validator(max_length = 64))]
    pub code: Option<String>,
    #[oai(validator(max_length = 1024))]
    pub password: Option<String>,
}

/// Ten single-use codes, shown this once: each signs in instead of an authenticator's code.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RecoveryCodes {
    pub recovery_codes: Vec<String>,
}

/// Which roles must have a second factor.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PlatformSecurityPolicy {
    /// Roles whose people must set up a second factor before anything else. For the platform
    /// admins, and the default of every enterprise that has no list of its own.
    pub mfa_required_roles: Vec<Role>,
}

/// An enterprise's policy.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseSecurityPolicy {
    /// The enterprise's own list of roles that must have a second factor (`EnterpriseCeo`,
    /// `DepartmentHead`, `DepartmentUser`); null: it follows the platform's default.
    #[oai(nullable)]
    pub mfa_required_roles: Option<Vec<Role>>,
    /// The platform's default, which applies while `mfaRequiredRoles` is null (read only).
    #[oai(read_only)]
    pub platform_default: Vec<Role>,
}

/// A change of an enterprise's policy.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseSecurityPolicyChange {
    /// Null: follow the platform's default.
    #[oai(nullable)]
    pub mfa_required_roles: Option<Vec<Role>>,
}

#[derive(Debug, ApiResponse)]
pub enum Reset {
    /// The person's authenticator and recovery codes are gone and their sessions ended; their
    /// next sign-in needs the password only (or a new set-up, if their policy requires one).
    #[oai(status = 204)]
    Reset,
}

api_errors!(MfaError {
    /// A field is invalid (`validation_failed`, with `fields`): a wrong `code`.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// A program's token, or a role that may not do this.
    403 Forbidden,
    /// No such user or enterprise for this caller.
    404 NotFound,
    /// An authenticator is already set up (`totp_enabled`), or none is (`totp_not_enabled`).
    409 Conflict,
});

/// A second factor is a person's own: a program's token may not touch it.
fn person_only(caller: &Caller) -> Result<(), AppError> {
    if caller.credential == Credential::Session { Ok(()) } else { Err(AppError::Forbidden) }
}

pub(super) fn wrong(field: &str, message: &str) -> AppError {
    let mut errors = FieldErrors::new();
    errors.check::<()>(field, Err(FieldIssue::Invalid));
    AppError::Explained(errors, message.into())
}

/// Proves it is the person before their second factor changes: their authenticator's code (or a
/// recovery code, used up), else their password. Attempts count as sign-in attempts do.
async fn reauthenticate(state: &AppState, user: &UserRecord, body: &Reauthentication, client: &ClientInfo) -> Result<(), AppError> {
    let code = body.code.as_deref().map(str::trim).filter(|c| !c.is_empty());
    let pass = body.password.as_deref().filter(|p| !p.is_empty());
    if code.is_none() && pass.is_none() {
        let mut errors = FieldErrors::new();
        errors.check::<()>("code", Err(FieldIssue::Required));
        return Err(errors.into());
    }
    let email = Email::parse(&user.email).map_err(|_| AppError::SessionExpired)?;
    let attempt =
        state.login_limiter.attempt(&email, client.ip, None).await.map_err(|retry_after_secs| AppError::RateLimited { retry_after_secs })?;
    let proven = match (code, pass) {
        (Some(code), _) => mfa::verify(&state.db, &state.config.data_keys, user.id, code).await?.is_some(),
        (None, Some(pass)) => password::verify(pass, user.password_hash.as_deref()).await?,
        (None, None) => false,
    };
    if !proven {
        return Err(match code {
            Some(_) => wrong("code", "This code is not correct"),
            None => wrong("password", "Your password is not correct"),
        });
    }
    state.login_limiter.succeeded(attempt).await;
    Ok(())
}

/// Whether the person's authenticator app is on (a passkey alone leaves it off).
async fn totp_on(state: &AppState, user: &UserRecord) -> Result<bool, AppError> {
    Ok(store::mfa::totp(&state.db, &state.config.data_keys, user.id).await?.is_some_and(|t| t.confirmed))
}

async fn me(state: &AppState, caller: &Caller) -> Result<UserRecord, AppError> {
    person_only(caller)?;
    store::users::find_by_id(&state.db, caller.user_id).await?.ok_or(AppError::SessionExpired)
}

async fn new_recovery_codes(tx: &mut sqlx::PgConnection, user_id: Uuid) -> Result<Vec<String>, AppError> {
    let codes = mfa::new_recovery_codes();
    let hashed: Vec<String> = codes.iter().map(|c| mfa::normalize_recovery_code(c)).collect();
    store::mfa::replace_recovery_codes(tx, user_id, &hashed).await?;
    Ok(codes)
}

fn own(user: &UserRecord) -> Option<Target<'_>> {
    Some(Target::new("user", user.id, &user.full_name))
}

#[OpenApi(tag = "ApiTags::Security")]
impl MfaApi {
    /// One's second factor
    ///
    /// Whether an authenticator app is set up, how many recovery codes are left, and whether
    /// one's policy requires a second factor.
    #[oai(path = "/auth/mfa", method = "get", operation_id = "getMfaStatus")]
    async fn status(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<MfaStatus>, MfaError> {
        auth.0.require("getMfaStatus")?;
        let user = me(&state, &auth.0).await?;
        let totp_enabled = totp_on(&state, &user).await?;
        let recovery_codes_left = if totp_enabled { store::mfa::recovery_codes_left(&state.db, user.id).await? } else { 0 };
        let passkeys = store::passkeys::count(&state.db, user.id).await?;
        let required = store::mfa::required(&state.db, user.enterprise_id, user.role()).await?;
        Ok(Json(MfaStatus { totp_enabled, passkeys, recovery_codes_left, required }))
    }

    /// Start setting up an authenticator app
    ///
    /// A new secret, to scan as a QR code of `otpauthUrl` or type in. Nothing changes at sign-in
    /// until `POST /auth/mfa/totp/confirm` checks a first code. Starting again replaces a set-up
    /// not yet confirmed; 409 `totp_enabled` when one is on.
    #[oai(path = "/auth/mfa/totp", method = "post", operation_id = "startTotpEnrollment")]
    async fn start(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<TotpSetup>, MfaError> {
        auth.0.require("startTotpEnrollment")?;
        let user = me(&state, &auth.0).await?;
        let secret = mfa::new_secret();
        if !store::mfa::start_totp(&state.db, &state.config.data_keys, user.id, &secret).await? {
            return Err(AppError::Conflict(Conflict::TotpEnabled).into());
        }
        let otpauth_url = mfa::otpauth_url(&secret, &user.email)?;
        Ok(Json(TotpSetup { secret, otpauth_url }))
    }

    /// Turn the authenticator app on
    ///
    /// With its first code: from now on every sign-in asks for a code. Answers ten recovery codes,
    /// shown this once.
    #[oai(path = "/auth/mfa/totp/confirm", method = "post", operation_id = "confirmTotpEnrollment")]
    async fn confirm(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<TotpCode>) -> Result<Json<RecoveryCodes>, MfaError> {
        auth.0.require("confirmTotpEnrollment")?;
        let user = me(&state, &auth.0).await?;
        let pending = store::mfa::totp(&state.db, &state.config.data_keys, user.id).await?;
        let Some(pending) = pending else { return Err(AppError::Conflict(Conflict::TotpNotEnabled).into()) };
        if pending.confirmed {
            return Err(AppError::Conflict(Conflict::TotpEnabled).into());
        }
        let step = mfa::matching_step(&pending.secret, &body.code)?;
        let confirmed = match step {
            Some(step) => store::mfa::use_step(&state.db, user.id, step, true).await?,
            None => false,
        };
        if !confirmed {
            return Err(wrong("code", "This code is not correct").into());
        }
        let mut tx = state.db.begin().await?;
        let recovery_codes = new_recovery_codes(&mut tx, user.id).await?;
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, user.enterprise_id, "mfa.totp_enabled", own(&user), Changes::new()).await?;
        mfa::notify(&mut tx, &user, "totp_enabled", None).await?;
        tx.commit().await?;
        Ok(Json(RecoveryCodes { recovery_codes }))
    }

    /// Turn the authenticator app off
    ///
    /// With a code from it (or a recovery code), or the password. The recovery codes go with it.
    #[oai(path = "/auth/mfa/totp", method = "delete", operation_id = "disableTotp")]
    async fn disable(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        client: Data<&ClientInfo>,
        body: Json<Reauthentication>,
    ) -> Result<Done, LimitedError> {
        auth.0.require("disableTotp")?;
        let user = me(&state, &auth.0).await?;
        if !totp_on(&state, &user).await? {
            return Err(AppError::Conflict(Conflict::TotpNotEnabled).into());
        }
        reauthenticate(&state, &user, &body, &client).await?;
        let mut tx = state.db.begin().await?;
        store::mfa::remove(&mut tx, user.id).await?;
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, user.enterprise_id, "mfa.totp_disabled", own(&user), Changes::new()).await?;
        mfa::notify(&mut tx, &user, "totp_disabled", None).await?;
        tx.commit().await?;
        Ok(Done::Done)
    }

    /// New recovery codes
    ///
    /// With a code from the authenticator (or a recovery code), or the password: ten new codes,
    /// shown this once; the earlier ones stop working.
    #[oai(path = "/auth/mfa/recovery-codes", method = "post", operation_id = "regenerateRecoveryCodes")]
    async fn regenerate(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        client: Data<&ClientInfo>,
        body: Json<Reauthentication>,
    ) -> Result<Json<RecoveryCodes>, LimitedError> {
        auth.0.require("regenerateRecoveryCodes")?;
        let user = me(&state, &auth.0).await?;
        if !totp_on(&state, &user).await? {
            return Err(AppError::Conflict(Conflict::TotpNotEnabled).into());
        }
        reauthenticate(&state, &user, &body, &client).await?;
        let mut tx = state.db.begin().await?;
        let recovery_codes = new_recovery_codes(&mut tx, user.id).await?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, user.enterprise_id, "mfa.recovery_codes_regenerated", own(&user), Changes::new())
            .await?;
        mfa::notify(&mut tx, &user, "recovery_codes_regenerated", None).await?;
        tx.commit().await?;
        Ok(Json(RecoveryCodes { recovery_codes }))
    }

    /// Reset someone's second factor
    ///
    /// For a person who lost their authenticator, recovery codes or passkeys: removes them all
    /// and ends their sessions. The admin for anyone, a CEO for their enterprise's staff. 409
    /// `totp_not_enabled` when they have no second factor.
    #[oai(path = "/users/:id/mfa", method = "delete", operation_id = "resetUserMfa", tag = "ApiTags::Users")]
    async fn reset(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Reset, MfaError> {
        auth.0.require("resetUserMfa")?;
        let user = super::users::find_manageable(&state, &auth.0, id.0).await?;
        if !user.mfa_enabled {
            return Err(AppError::Conflict(Conflict::TotpNotEnabled).into());
        }
        let mut tx = state.db.begin().await?;
        store::mfa::remove(&mut tx, user.id).await?;
        store::passkeys::delete_all(&mut tx, user.id).await?;
        let ended = store::sessions::end_for_user(&mut tx, user.id, "revoked").await?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, user.enterprise_id, "user.mfa_reset", own(&user), Changes::new().with("sessionsEnded", ended.len()))
            .await?;
        let actor = store::users::find_by_id(&mut *tx, auth.0.user_id).await?.map(|u| u.full_name);
        mfa::notify(&mut tx, &user, "mfa_reset", actor.as_deref()).await?;
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(Reset::Reset)
    }

    /// The platform's second-factor policy
    ///
    /// The roles that must have a second factor: the platform admins', and the default of every
    /// enterprise without a list of its own.
    #[oai(path = "/platform/security-policy", method = "get", operation_id = "getPlatformSecurityPolicy", tag = "ApiTags::Enterprises")]
    async fn platform_policy(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<PlatformSecurityPolicy>, MfaError> {
        auth.0.require("getPlatformSecurityPolicy")?;
        Ok(Json(PlatformSecurityPolicy { mfa_required_roles: store::mfa::platform_policy(&state.db).await? }))
    }

    /// Change the platform's second-factor policy
    ///
    /// People of a listed role who have no second factor set one up at their next sign-in, before
    /// anything else.
    #[oai(path = "/platform/security-policy", method = "put", operation_id = "updatePlatformSecurityPolicy", tag = "ApiTags::Enterprises")]
    async fn update_platform_policy(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        body: Json<PlatformSecurityPolicy>,
    ) -> Result<Json<PlatformSecurityPolicy>, MfaError> {
        auth.0.require("updatePlatformSecurityPolicy")?;
        let roles = distinct(&body.mfa_required_roles);
        let mut tx = state.db.begin().await?;
        let before = store::mfa::platform_policy(&mut *tx).await?;
        store::mfa::set_platform_policy(&mut *tx, &roles).await?;
        let facts = Changes::new().changed("mfaRequiredRoles", &names(&before), &names(&roles));
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, None, "platform.security_policy_updated", None, facts).await?;
        tx.commit().await?;
        Ok(Json(PlatformSecurityPolicy { mfa_required_roles: roles }))
    }

    /// An enterprise's second-factor policy
    ///
    /// Its own list of roles that must have a second factor, or null when it follows the
    /// platform's default. The admin, or the enterprise's CEO.
    #[oai(path = "/enterprises/:id/security-policy", method = "get", operation_id = "getEnterpriseSecurityPolicy", tag = "ApiTags::Enterprises")]
    async fn enterprise_policy(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<EnterpriseSecurityPolicy>, MfaError> {
        auth.0.require("getEnterpriseSecurityPolicy")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        Ok(Json(EnterpriseSecurityPolicy {
            mfa_required_roles: store::mfa::enterprise_policy(&state.db, enterprise.id).await?,
            platform_default: store::mfa::platform_policy(&state.db).await?.into_iter().filter(|r| r.is_tenant_role()).collect(),
        }))
    }

    /// Change an enterprise's second-factor policy
    ///
    /// Tenant roles only; null follows the platform's default. People of a listed role who have
    /// no second factor set one up at their next sign-in, before anything else.
    #[oai(path = "/enterprises/:id/security-policy", method = "put", operation_id = "updateEnterpriseSecurityPolicy", tag = "ApiTags::Enterprises")]
    async fn update_enterprise_policy(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<EnterpriseSecurityPolicyChange>,
    ) -> Result<Json<EnterpriseSecurityPolicy>, MfaError> {
        auth.0.require("updateEnterpriseSecurityPolicy")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let roles = body.mfa_required_roles.as_deref().map(distinct);
        if roles.as_ref().is_some_and(|r| r.contains(&Role::PlatformAdmin)) {
            return Err(wrong("mfaRequiredRoles", "An enterprise's policy names its own roles only").into());
        }
        let mut tx = state.db.begin().await?;
        let before = store::mfa::enterprise_policy(&mut *tx, enterprise.id).await?;
        store::mfa::set_enterprise_policy(&mut *tx, enterprise.id, roles.as_deref()).await?;
        let facts = Changes::new().changed("mfaRequiredRoles", &before.as_deref().map(names), &roles.as_deref().map(names));
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(
                &mut tx,
                Some(enterprise.id),
                "enterprise.security_policy_updated",
                Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
                facts,
            )
            .await?;
        tx.commit().await?;
        let platform_default = store::mfa::platform_policy(&state.db).await?.into_iter().filter(|r| r.is_tenant_role()).collect();
        Ok(Json(EnterpriseSecurityPolicy { mfa_required_roles: roles, platform_default }))
    }
}

fn distinct(roles: &[Role]) -> Vec<Role> {
    Role::ALL.into_iter().filter(|r| roles.contains(r)).collect()
}

fn names(roles: &[Role]) -> Vec<&'static str> {
    roles.iter().map(|r| r.as_str()).collect()
}
