use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, payload::Json};

use super::{ApiTags, User};
use crate::{
    api_errors,
    auth::{BearerAuth, ClientInfo, sign_in},
    error::{AppError, Problem},
    state::AppState,
};

#[derive(Default)]
pub struct AuthApi;

/// E-mail and password.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LoginRequest {
    #[oai(validator(max_length = 320))]
    pub email: String,
    #[oai(validator(max_length = 1024))]
    pub password: String,
    /// Keep the session for 30 days instead of 12 hours.
    #[oai(default)]
    pub remember_me: bool,
    /// The `deviceToken` an earlier sign-in to this account returned to this browser. Attempts
    /// with a valid one are limited on their own, so guesses from elsewhere never lock the
    /// account's owner out of a browser they used before.
    #[oai(validator(max_length = 2048))]
    pub device_token: Option<String>,
}

/// A bearer token and the signed-in user.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LoginResponse {
    /// Send as `Authorization: Bearer <token>`; it stops working at logout.
    pub token: String,
    pub user: User,
    /// Keep it in the browser (long-lived, bound to this account) and send it with later
    /// sign-ins to this account as `deviceToken`.
    pub device_token: String,
}

#[derive(Debug, ApiResponse)]
pub enum LoginError {
    /// The body is malformed or a field is missing or invalid (`validation_failed`).
    #[oai(status = 400)]
    BadRequest(Problem),
    /// Wrong e-mail or password (`invalid_credentials`).
    #[oai(status = 401)]
    Unauthorized(Problem),
    /// The user or their enterprise is inactive (`account_inactive`).
    #[oai(status = 403)]
    Forbidden(Problem),
    /// Too many failed attempts from this client (`rate_limited`); retry after the given seconds.
    #[oai(status = 429)]
    TooManyRequests(Problem, #[oai(header = "Retry-After")] u64),
    /// A dependency did not answer in time (`unavailable`); retry after the given seconds.
    #[oai(status = 503)]
    Unavailable(Problem, #[oai(header = "Retry-After")] u64),
    /// Unexpected server error.
    #[oai(status = 500)]
    Internal(Problem),
}

impl From<sqlx::Error> for LoginError {
    fn from(err: sqlx::Error) -> Self {
        AppError::from(err).into()
    }
}

impl From<anyhow::Error> for LoginError {
    fn from(err: anyhow::Error) -> Self {
        AppError::from(err).into()
    }
}

impl From<AppError> for LoginError {
    fn from(err: AppError) -> Self {
        let body = Problem(err.body());
        match err {
            AppError::Validation(_) | AppError::Explained(..) => Self::BadRequest(body),
            AppError::InvalidCredentials => Self::Unauthorized(body),
            AppError::AccountInactive => Self::Forbidden(body),
            AppError::RateLimited { retry_after_secs } => Self::TooManyRequests(body, retry_after_secs),
            AppError::Busy { retry_after_secs } => Self::Unavailable(body, retry_after_secs),
            AppError::Unexpected(_) => Self::Internal(body),
            other => {
                tracing::error!(code = other.code(), "undeclared error status for login");
                Self::Internal(body)
            }
        }
    }
}

#[derive(Debug, ApiResponse)]
pub enum LogoutResponse {
    /// The session has ended; its token is refused from now on.
    #[oai(status = 204)]
    LoggedOut,
}

api_errors!(SessionError {
    /// No token, or its session has ended (`unauthorized`, `session_expired`).
    401 Unauthorized,
    /// A program's token: only a session may do this (`forbidden`).
    403 Forbidden,
});

#[OpenApi(prefix_path = "/auth", tag = "ApiTags::Auth")]
impl AuthApi {
    /// Sign in
    ///
    /// Checks the e-mail and password and opens a session. Attempts are limited per account and
    /// client, per client and per account; attempts carrying a valid `deviceToken` for the account
    /// only per device (429 with Retry-After).
    #[oai(path = "/login", method = "post", operation_id = "login")]
    async fn login(&self, state: Data<&AppState>, client: Data<&ClientInfo>, body: Json<LoginRequest>) -> Result<Json<LoginResponse>, LoginError> {
        let creds = sign_in::Credentials {
            email: &body.email,
            password: &body.password,
            remember_me: body.remember_me,
            device_token: body.device_token.as_deref(),
        };
        let signed_in = sign_in::sign_in(&state, creds, &client).await?;
        Ok(Json(LoginResponse { token: signed_in.token, user: signed_in.user.into(), device_token: signed_in.device_token }))
    }

    /// Sign out
    ///
    /// Ends the caller's session at once: the token gets 401 `session_expired` afterwards.
    #[oai(path = "/logout", method = "post", operation_id = "logout")]
    async fn logout(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<LogoutResponse, SessionError> {
        auth.0.require("logout")?;
        sign_in::sign_out(&state, &auth.0).await?;
        Ok(LogoutResponse::LoggedOut)
    }
}
