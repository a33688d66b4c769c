use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, Union, payload::Json};

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

impl LoginResponse {
    pub fn from_signed_in(signed_in: sign_in::SignedIn) -> Self {
        Self { token: signed_in.token, user: signed_in.user.into(), device_token: signed_in.device_token }
    }
}

/// The password was right and a second factor is due: no token yet.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SecondFactorRequired {
    /// Always true: tells this answer from a session.
    pub mfa_required: bool,
    /// Send it to `POST /auth/login/verify` within 5 minutes.
    pub challenge: String,
    /// What the account can answer with: `totp` (an authenticator app's code), `recovery_code`,
    /// `webauthn` (one of its passkeys). Empty when `enrollmentRequired`.
    pub methods: Vec<String>,
    /// The account's policy requires a second factor it does not have yet: set up an
    /// authenticator now (`POST /auth/login/totp`), then verify its first code.
    pub enrollment_required: bool,
}

/// A session, or the second step of the sign-in.
#[derive(Debug, Union)]
#[oai(one_of)]
pub enum LoginResult {
    Session(LoginResponse),
    SecondFactor(SecondFactorRequired),
}

impl From<sign_in::Outcome> for LoginResult {
    fn from(outcome: sign_in::Outcome) -> Self {
        match outcome {
            sign_in::Outcome::SignedIn(signed_in) => Self::Session(LoginResponse::from_signed_in(*signed_in)),
            sign_in::Outcome::SecondFactor { challenge, methods, enrol } => Self::SecondFactor(SecondFactorRequired {
                mfa_required: true,
                challenge,
                methods: methods.into_iter().map(str::to_owned).collect(),
                enrollment_required: enrol,
            }),
        }
    }
}

/// The sign-in's second step.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct VerifyLogin {
    /// The `challenge` of the sign-in's answer.
    #[oai(validator(max_length = 2048))]
    pub challenge: String,
    /// An authenticator app's six-digit code, or one of the recovery codes.
    #[oai(validator(max_length = 64))]
    pub code: Option<String>,
    /// Or a passkey's answer: the `PublicKeyCredential` (as JSON, `toJSON()`) the browser gave
    /// for the options of `POST /auth/webauthn/login/options` with this challenge.
    pub webauthn: Option<serde_json::Value>,
}

/// A session, and for an authenticator set up during this sign-in its recovery codes.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct VerifiedLogin {
    pub token: String,
    pub user: User,
    pub device_token: String,
    /// Only when this sign-in set up the authenticator: ten single-use codes, shown this once.
    #[oai(skip_serializing_if_is_none)]
    pub recovery_codes: Option<Vec<String>>,
}

/// The challenge of a sign-in whose policy requires an authenticator to be set up.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChallengeOnly {
    #[oai(validator(max_length = 2048))]
    pub challenge: String,
}

/// A new authenticator's secret, to type in or scan as a QR code of `otpauthUrl`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TotpSetup {
    /// Base32.
    pub secret: String,
    pub otpauth_url: String,
}

#[derive(Debug, ApiResponse)]
pub enum LoginError {
    /// The body is malformed or a field is missing or invalid (`validation_failed`).
    #[oai(status = 400)]
    BadRequest(Problem),
    /// Wrong e-mail or password (`invalid_credentials`); at the second step a wrong or used code
    /// (`invalid_code`) or a challenge over 5 minutes old (`challenge_expired`).
    #[oai(status = 401)]
    Unauthorized(Problem),
    /// The user or their enterprise is inactive (`account_inactive`), or their enterprise
    /// requires single sign-on for their address (`sso_required`: `POST /auth/sso/start`).
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
            AppError::InvalidCredentials | AppError::InvalidCode | AppError::ChallengeExpired | AppError::PasskeyRejected => Self::Unauthorized(body),
            AppError::AccountInactive | AppError::SsoRequired => Self::Forbidden(body),
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
    /// Checks the e-mail and password and opens a session; for an account with a second factor
    /// (or whose policy requires one) it answers `{ mfaRequired: true, challenge, methods }`
    /// instead, and `POST /auth/login/verify` opens the session. Attempts are limited per account
    /// and client, per client and per account; attempts carrying a valid `deviceToken` for the
    /// account only per device (429 with Retry-After).
    #[oai(path = "/login", method = "post", operation_id = "login")]
    async fn login(&self, state: Data<&AppState>, client: Data<&ClientInfo>, body: Json<LoginRequest>) -> Result<Json<LoginResult>, LoginError> {
        let creds = sign_in::Credentials {
            email: &body.email,
            password: &body.password,
            remember_me: body.remember_me,
            device_token: body.device_token.as_deref(),
        };
        Ok(Json(sign_in::sign_in(&state.sign_ins(), creds, &client).await?.into()))
    }

    /// Sign in: the second factor
    ///
    /// Completes a sign-in that answered `mfaRequired` with an authenticator's code or a
    /// recovery code (each works once), or a passkey's answer, within 5 minutes. Attempts count
    /// with the password's.
    #[oai(path = "/login/verify", method = "post", operation_id = "verifyLogin")]
    async fn verify(&self, state: Data<&AppState>, client: Data<&ClientInfo>, body: Json<VerifyLogin>) -> Result<Json<VerifiedLogin>, LoginError> {
        let Json(VerifyLogin { challenge, code, webauthn }) = body;
        let answer = match webauthn {
            Some(credential) => sign_in::Answer::Passkey(credential),
            None => sign_in::Answer::Code(code.unwrap_or_default()),
        };
        let (signed_in, recovery_codes) = sign_in::verify(&state.sign_ins(), &challenge, answer, &client).await?;
        let LoginResponse { token, user, device_token } = LoginResponse::from_signed_in(signed_in);
        Ok(Json(VerifiedLogin { token, user, device_token, recovery_codes }))
    }

    /// Sign in: set up the required authenticator
    ///
    /// For a sign-in that answered `enrollmentRequired`: a new authenticator's secret. Its first
    /// code, sent to `POST /auth/login/verify`, turns it on and opens the session.
    #[oai(path = "/login/totp", method = "post", operation_id = "startLoginTotpEnrollment")]
    async fn start_enrolment(&self, state: Data<&AppState>, body: Json<ChallengeOnly>) -> Result<Json<TotpSetup>, LoginError> {
        let (secret, otpauth_url) = sign_in::start_enrolment(&state.sign_ins(), &body.challenge).await?;
        Ok(Json(TotpSetup { secret, otpauth_url }))
    }

    /// Sign out
    ///
    /// Ends the caller's session at once: the token gets 401 `session_expired` afterwards.
    #[oai(path = "/logout", method = "post", operation_id = "logout")]
    async fn logout(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<LogoutResponse, SessionError> {
        auth.0.require("logout")?;
        sign_in::sign_out(&state.sign_ins(), &auth.0).await?;
        Ok(LogoutResponse::LoggedOut)
    }
}
