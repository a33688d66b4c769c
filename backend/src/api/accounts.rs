//! Accounts people own: their profile and password, a reset by e-mail, and accepting an
//! invitation (`accounts.rs` makes the links and their e-mails).

use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{
    ApiTags, User,
    auth::{LoginError, LoginResult},
};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, ClientInfo, password, sign_in},
    domain::{Email, FieldErrors, FieldIssue, Lang, Password, text},
    error::{AppError, Problem},
    state::AppState,
    store::{self, account_tokens::Purpose},
};

#[derive(Default)]
pub struct AccountsApi;

/// Changes to one's own profile; absent fields stay.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateMe {
    #[oai(validator(max_length = 200))]
    pub full_name: Option<String>,
    /// The language of one's e-mails and exports, and of the app in a new browser.
    pub locale: Option<Lang>,
    /// Which e-mails to receive; absent members stay.
    pub notifications: Option<NotificationChanges>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct NotificationChanges {
    pub reports: Option<bool>,
    pub sign_ins: Option<bool>,
    pub invitations: Option<bool>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChangePassword {
    #[oai(validator(max_length = 1024))]
    pub current_password: String,
    /// At least 8 characters, and not a common or trivial password.
    #[oai(validator(max_length = 1024))]
    pub new_password: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasswordResetRequest {
    #[oai(validator(max_length = 320))]
    pub email: String,
}

/// The secret of an e-mailed link, and the password to set.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TokenAndPassword {
    /// The `token` parameter of the link.
    #[oai(validator(max_length = 200))]
    pub token: String,
    #[oai(validator(max_length = 1024))]
    pub password: String,
}

/// The secret of an e-mailed link, to check before using it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LinkToken {
    /// The `token` parameter of the link.
    #[oai(validator(max_length = 200))]
    pub token: String,
}

/// Who an invitation is for, and from whom: what its page says before the password is chosen.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct InvitationPreview {
    /// The invited person's name.
    pub full_name: String,
    pub email: String,
    /// The enterprise they are invited to (none: the platform's administration).
    pub enterprise_name: Option<String>,
    /// Who invited them (none: their enterprise's directory, or an account since erased).
    pub invited_by: Option<String>,
    /// The language the invitation was written in: its page speaks it.
    pub locale: Lang,
}

#[derive(Debug, ApiResponse)]
pub enum Done {
    /// Done.
    #[oai(status = 204)]
    Done,
}

#[derive(Debug, ApiResponse)]
pub enum ResetRequested {
    /// Whatever the address: when an account has it, a link is on its way.
    #[oai(status = 202)]
    Accepted,
}

api_errors!(MeError {
    /// A field is invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// A program's token: only a person signed in may do this.
    403 Forbidden,
});

/// The errors of an operation whose attempts are limited (429 with `Retry-After`).
#[derive(Debug, ApiResponse)]
pub enum LimitedError {
    /// A field is missing or invalid (`validation_failed`, with `fields`): for a password
    /// change, a wrong `currentPassword`.
    #[oai(status = 400)]
    BadRequest(Problem),
    /// No token, or its session has ended (a password change).
    #[oai(status = 401)]
    Unauthorized(Problem),
    /// A program's token: only a person signed in may do this (a password change).
    #[oai(status = 403)]
    Forbidden(Problem),
    /// The change does not apply now (for a second factor: none is on, `totp_not_enabled`).
    #[oai(status = 409)]
    Conflict(Problem),
    /// Too many attempts for this address or from this client (`rate_limited`); retry after
    /// the given seconds.
    #[oai(status = 429)]
    TooManyRequests(Problem, #[oai(header = "Retry-After")] u64),
    /// A dependency did not answer in time (`unavailable`); retry after the given seconds.
    #[oai(status = 503)]
    Unavailable(Problem, #[oai(header = "Retry-After")] u64),
    /// Unexpected server error.
    #[oai(status = 500)]
    Internal(Problem),
}

impl From<AppError> for LimitedError {
    fn from(err: AppError) -> Self {
        let body = Problem(err.body());
        match err {
            AppError::RateLimited { retry_after_secs } => Self::TooManyRequests(body, retry_after_secs),
            AppError::Busy { retry_after_secs } => Self::Unavailable(body, retry_after_secs),
            err => match err.status().as_u16() {
                400 => Self::BadRequest(body),
                401 => Self::Unauthorized(body),
                403 => Self::Forbidden(body),
                409 => Self::Conflict(body),
                _ => Self::Internal(body),
            },
        }
    }
}

impl From<sqlx::Error> for LimitedError {
    fn from(err: sqlx::Error) -> Self {
        AppError::from(err).into()
    }
}

impl From<anyhow::Error> for LimitedError {
    fn from(err: anyhow::Error) -> Self {
        AppError::from(err).into()
    }
}

api_errors!(ResetError {
    /// The link is invalid, used or expired (`fields.token`), or the password is refused.
    400 BadRequest,
});

/// The answer to a link that does not work.
fn dead_link() -> AppError {
    let mut errors = FieldErrors::new();
    errors.check::<()>("token", Err(FieldIssue::Invalid));
    AppError::Explained(errors, "This link is invalid or has expired. Ask for a new one.".into())
}

#[OpenApi(prefix_path = "/auth", tag = "ApiTags::Auth")]
impl AccountsApi {
    /// The current user
    ///
    /// The signed-in user's account (for a program's token: the token owner's).
    #[oai(path = "/me", method = "get", operation_id = "getMe")]
    async fn me(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<User>, MeError> {
        auth.0.require("getMe")?;
        let user = store::users::find_by_id(&state.db, auth.0.user_id).await?.ok_or(AppError::SessionExpired)?;
        Ok(Json(user.into()))
    }

    /// Update one's own profile
    ///
    /// Name, language and the e-mails one wants. Answers the account as it now is.
    #[oai(path = "/me", method = "put", operation_id = "updateMe")]
    async fn update_me(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<UpdateMe>) -> Result<Json<User>, MeError> {
        auth.0.require("updateMe")?;
        person_only(&auth)?;
        let mut errors = FieldErrors::new();
        let full_name = body.full_name.as_deref().and_then(|n| errors.check("fullName", text::line(n, text::MAX_NAME)));
        errors.into_result()?;
        let n = body.notifications.as_ref();
        let mut tx = state.db.begin().await?;
        let before = store::users::find_for_update(&mut tx, auth.0.user_id).await?.ok_or(AppError::SessionExpired)?;
        store::users::update_profile(
            &mut tx,
            before.id,
            &store::users::ProfileChanges {
                full_name,
                locale: body.locale,
                notify_reports: n.and_then(|n| n.reports),
                notify_sign_ins: n.and_then(|n| n.sign_ins),
                notify_invitations: n.and_then(|n| n.invitations),
            },
        )
        .await?;
        let after = store::users::find_for_update(&mut tx, before.id).await?.ok_or(AppError::SessionExpired)?;
        let diff = Changes::new().changed("fullName", &before.full_name, &after.full_name).changed("locale", &before.locale, &after.locale);
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, after.enterprise_id, "user.profile_updated", Some(Target::new("user", after.id, &after.full_name)), diff)
            .await?;
        tx.commit().await?;
        Ok(Json(after.into()))
    }

    /// Change one's own password
    ///
    /// With the current password. Every other session of the caller ends; this one stays.
    #[oai(path = "/me/password", method = "put", operation_id = "changeMyPassword")]
    async fn change_password(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        client: Data<&ClientInfo>,
        body: Json<ChangePassword>,
    ) -> Result<Done, LimitedError> {
        auth.0.require("changeMyPassword")?;
        person_only(&auth)?;
        let mut errors = FieldErrors::new();
        errors.check("currentPassword", if body.current_password.is_empty() { Err(FieldIssue::Required) } else { Ok(()) });
        let new = errors.check("newPassword", Password::parse(&body.new_password));
        let Some(new) = new.filter(|_| errors.is_empty()) else {
            return Err(AppError::from(errors).into());
        };
        let user = store::users::find_by_id(&state.db, auth.0.user_id).await?.ok_or(AppError::SessionExpired)?;
        let email = Email::parse(&user.email).map_err(|_| AppError::SessionExpired)?;
        // Guesses of the current password count as sign-in attempts do.
        let attempt =
            state.login_limiter.attempt(&email, client.ip, None).await.map_err(|retry_after_secs| AppError::RateLimited { retry_after_secs })?;
        if !password::verify(&body.current_password, user.password_hash.as_deref()).await? {
            let mut errors = FieldErrors::new();
            errors.check::<()>("currentPassword", Err(FieldIssue::Invalid));
            return Err(AppError::Explained(errors, "Your current password is not correct".into()).into());
        }
        state.login_limiter.succeeded(attempt).await;
        let hash = password::hash(&new).await?;
        let mut tx = state.db.begin().await?;
        let ended = store::users::set_password(&mut tx, user.id, &hash, Some(auth.0.session_id)).await?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(
                &mut tx,
                user.enterprise_id,
                "user.password_changed",
                Some(Target::new("user", user.id, &user.full_name)),
                Changes::new().with("sessionsEnded", ended.len()),
            )
            .await?;
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(Done::Done)
    }

    /// Ask for a password reset
    ///
    /// Always 202, whether or not an account has this address, and in the same time: when one does, it receives a link (one hour, single use) to choose a new password. Limited per address and per client.
    #[oai(path = "/password-reset", method = "post", operation_id = "requestPasswordReset")]
    async fn request_reset(
        &self,
        state: Data<&AppState>,
        client: Data<&ClientInfo>,
        body: Json<PasswordResetRequest>,
    ) -> Result<ResetRequested, LimitedError> {
        let mut errors = FieldErrors::new();
        let email = errors.check("email", Email::parse(&body.email));
        let Some(email) = email else {
            return Err(AppError::from(errors).into());
        };
        state.reset_limiter.attempt(&email, client.ip, None).await.map_err(|retry_after_secs| AppError::RateLimited { retry_after_secs })?;
        // The answer never waits for the lookup, so its timing says nothing of the account.
        let state = state.clone();
        tokio::spawn(async move {
            if let Err(err) = send_reset(&state, &email).await {
                tracing::warn!(error = %err, "could not prepare a password reset");
            }
        });
        Ok(ResetRequested::Accepted)
    }

    /// Choose a new password from a reset link
    ///
    /// The link works once, for an hour. Every session of the account ends, and the browsers it signed in from must sign in again.
    #[oai(path = "/password-reset/confirm", method = "post", operation_id = "confirmPasswordReset")]
    async fn confirm_reset(&self, state: Data<&AppState>, body: Json<TokenAndPassword>) -> Result<Done, ResetError> {
        let mut errors = FieldErrors::new();
        let new = errors.check("password", Password::parse(&body.password));
        let Some(new) = new.filter(|_| errors.is_empty()) else {
            return Err(AppError::from(errors).into());
        };
        let hash = password::hash(&new).await?;
        let mut tx = state.db.begin().await?;
        let Some((user_id, _)) = store::account_tokens::consume(&mut tx, &body.token, Purpose::PasswordReset).await? else {
            return Err(dead_link().into());
        };
        let ended = store::users::set_password(&mut tx, user_id, &hash, None).await?;
        store::account_tokens::revoke_all(&mut tx, user_id).await?;
        let user = store::users::find_for_update(&mut tx, user_id).await?.ok_or_else(dead_link)?;
        // A reset after "forgot password" is the case of a stolen account: the person is told, and
        // shown the API tokens that still act for them (made by them, or by whoever was in), to
        // revoke what they do not know. Tokens are not revoked by the reset itself: an integration
        // its owner runs would stop without a word (docs/architecture.md, Accounts).
        let tokens = store::api_tokens::live_of_user(&mut tx, user.id).await?;
        crate::auth::mfa::notify_reset(&mut tx, &user, &tokens).await?;
        Audit::person(state.geoip.as_ref(), Some(user.id))
            .record(
                &mut tx,
                user.enterprise_id,
                "user.password_reset",
                Some(Target::new("user", user.id, &user.full_name)),
                Changes::new().with("sessionsEnded", ended.len()),
            )
            .await?;
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(Done::Done)
    }

    /// Check a reset link
    ///
    /// 204 while the link works (unused, within its hour), 400 (`fields.token`) otherwise; the link stays usable: its page asks before the new password is typed.
    #[oai(path = "/password-reset/check", method = "post", operation_id = "checkPasswordReset")]
    async fn check_reset(&self, state: Data<&AppState>, body: Json<LinkToken>) -> Result<Done, ResetError> {
        store::account_tokens::peek(&state.db, &body.token, Purpose::PasswordReset).await?.ok_or_else(dead_link)?;
        Ok(Done::Done)
    }

    /// Check an invitation
    ///
    /// Who the invitation is for, to which enterprise, from whom and in which language, while it works (unused, within its 7 days, no password chosen yet); 400 (`fields.token`) otherwise. The invitation stays usable.
    #[oai(path = "/invitations/check", method = "post", operation_id = "checkInvitation")]
    async fn check_invitation(&self, state: Data<&AppState>, body: Json<LinkToken>) -> Result<Json<InvitationPreview>, ResetError> {
        let (user_id, inviter) = store::account_tokens::peek(&state.db, &body.token, Purpose::Invitation).await?.ok_or_else(dead_link)?;
        let user = store::users::find_by_id(&state.db, user_id)
            .await?
            .filter(|u| u.password_hash.is_none() && u.erased_at.is_none())
            .ok_or_else(dead_link)?;
        let invited_by = match inviter.filter(|i| *i != user.id) {
            Some(id) => store::users::find_by_id(&state.db, id).await?.filter(|u| u.erased_at.is_none()).map(|u| u.full_name),
            None => None,
        };
        Ok(Json(InvitationPreview {
            full_name: user.full_name,
            email: user.email,
            enterprise_name: user.enterprise_name,
            invited_by,
            locale: Lang::from_code(&user.locale),
        }))
    }

    /// Accept an invitation
    ///
    /// Sets the invited person's password from their invitation link (7 days, single use) and signs them in: the answer is the sign-in's (a second step when their policy requires an authenticator).
    #[oai(path = "/invitations/accept", method = "post", operation_id = "acceptInvitation")]
    async fn accept_invitation(
        &self,
        state: Data<&AppState>,
        client: Data<&ClientInfo>,
        body: Json<TokenAndPassword>,
    ) -> Result<Json<LoginResult>, LoginError> {
        let mut errors = FieldErrors::new();
        let new = errors.check("password", Password::parse(&body.password));
        let Some(new) = new.filter(|_| errors.is_empty()) else {
            return Err(AppError::from(errors).into());
        };
        let hash = password::hash(&new).await?;
        let mut tx = state.db.begin().await?;
        let Some((user_id, inviter)) = store::account_tokens::consume(&mut tx, &body.token, Purpose::Invitation).await? else {
            return Err(dead_link().into());
        };
        let user = store::users::find_for_update(&mut tx, user_id).await?.ok_or_else(dead_link)?;
        if user.password_hash.is_some() {
            return Err(dead_link().into());
        }
        // Their enterprise's identity provider signs them in (which accepts the invitation).
        if sign_in::password_refused(&state.sign_ins(), &user).await? {
            return Err(AppError::SsoRequired.into());
        }
        store::users::set_password(&mut tx, user_id, &hash, None).await?;
        store::account_tokens::revoke_all(&mut tx, user_id).await?;
        Audit::person(state.geoip.as_ref(), Some(user.id))
            .record(&mut tx, user.enterprise_id, "user.invitation_accepted", Some(Target::new("user", user.id, &user.full_name)), Changes::new())
            .await?;
        if let Some(inviter) = inviter.filter(|i| *i != user.id) {
            let item = serde_json::json!({ "kind": "invitation_accepted", "actor": user.full_name, "path": "/admin/users" });
            crate::mail::notify(&mut tx, &state.config.mail, user.enterprise_id, inviter, item).await?;
        }
        tx.commit().await?;
        let user = store::users::find_by_id(&state.db, user_id).await?.ok_or_else(dead_link)?;
        if !user.may_sign_in() {
            return Err(AppError::AccountInactive.into());
        }
        Ok(Json(sign_in::after_password(&state.sign_ins(), user, false, None, sign_in::Method::Invitation, &client).await?.into()))
    }
}

/// Profile and password are a person's own: a program's token may not change them.
fn person_only(auth: &BearerAuth) -> Result<(), AppError> {
    if auth.0.credential == crate::auth::Credential::Session { Ok(()) } else { Err(AppError::Forbidden) }
}

async fn send_reset(state: &AppState, email: &Email) -> anyhow::Result<()> {
    let Some(user) = store::users::find_by_email(&state.db, email).await? else {
        return Ok(());
    };
    if !user.may_sign_in() {
        return Ok(());
    }
    let mut tx = state.db.begin().await?;
    crate::accounts::send_reset(&mut tx, user.id, user.enterprise_id).await?;
    Audit::person(state.geoip.as_ref(), Some(user.id))
        .record(&mut tx, user.enterprise_id, "user.password_reset_requested", Some(Target::new("user", user.id, &user.full_name)), Changes::new())
        .await?;
    tx.commit().await?;
    Ok(())
}
