//! Every error leaves the server as RFC 9457 problem details (`application/problem+json`: `type`,
//! `title`, `status`, `detail`, `instance`) that also carry the contract's `code`, `message` and
//! `fields`, and the request's id (`requestId`, as in the `x-request-id` header). `AppError` is
//! what the code raises; each operation declares which statuses it can answer with
//! (`api_errors!`), so the OpenAPI document lists them; `render_poem_error` turns what poem itself
//! rejects (malformed JSON, a missing token, an unknown path) into the same shape.

use std::collections::BTreeMap;

use poem::{IntoResponse, Response, error::ResponseError, http::StatusCode};
use poem_openapi::{
    Object,
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};

use crate::domain::{FieldErrors, InvalidTransition};

pub const PROBLEM_JSON: &str = "application/problem+json";

/// The request an error answers: its id and path, set for the whole request by `app::log_request`.
#[derive(Debug, Clone)]
pub struct RequestContext {
    pub id: String,
    pub path: String,
}

tokio::task_local! {
    pub static REQUEST: RequestContext;
}

/// The body of every error response.
#[derive(Debug, Clone, Object, serde::Serialize, serde::Deserialize)]
#[oai(rename = "ApiError", rename_all = "camelCase", example)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// A URI naming the kind of problem: `urn:enterprise-platform:problem:<code>`.
    #[oai(rename = "type")]
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status's standard phrase (`Not Found`).
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong, for a person: the same text as `message`.
    pub detail: String,
    /// The request's path.
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The request's id, also sent as the `x-request-id` header: quote it when reporting a problem.
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Stable machine-readable code, e.g. `invalid_credentials`, `validation_failed`, `not_found`.
    pub code: String,
    /// A human-readable explanation in English.
    pub message: String,
    /// Each refused field and why: `required`, `invalid_email`, `too_short`, `too_long`, `too_weak` (a common or trivial password), `invalid_character` (a control character: a NUL anywhere, a line break in a name or a title), `too_complex` (a spreadsheet whose formulas read too many cells or take too long to compute), `invalid`
    /// (with `validation_failed`), or `taken` (an e-mail in use, with `conflict`).
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, String>>,
    /// With `conflict`: why, so clients can explain it in their own words (`own_account`: you
    /// cannot deactivate, demote or delete yourself; `has_reports`: a report author cannot be
    /// deleted, deactivate them instead; messenger: `rekey_required`, `stale_epoch`, `no_keys`,
    /// `direct_conversation`, `stale_key_version`, `id_taken`, `too_many_keys` (more new
    /// key versions than 10 a day or 200 in all); `stale_version`: a save from a
    /// version someone saved over; `too_many_tokens`: 50 live tokens already; `request_in_progress`: a request with the same
    /// `Idempotency-Key` is still running; `answer_withheld`: it was done, and its answer held a
    /// secret, which is never replayed). With `validation_failed` on a single sign-on `issuer`:
    /// `invalid_url`, `not_https`, `unresolvable`, `private_address`, `port_not_allowed`,
    /// `untrusted_certificate`, `no_provider`, `sso_unavailable`. With `session_expired`, when the
    /// server ended the session: why, as the session's `endReason` says (`logout`, `revoked`,
    /// `user_deactivated`, `enterprise_deactivated`, `deleted`, `role_changed`,
    /// `provider_logout`, `idle`, `expired`).
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `limit_reached`: the enterprise's limit that was reached (`people`, `storageBytes`,
    /// `apiCallsPerMinute`), as `GET /enterprises/{id}/usage` names it.
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

impl ErrorBody {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        let (instance, request_id) = REQUEST.try_with(|r| (Some(r.path.clone()), Some(r.id.clone()))).unwrap_or_default();
        Self {
            kind: format!("urn:enterprise-platform:problem:{code}"),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: message.clone(),
            instance,
            request_id,
            code: code.to_owned(),
            message,
            fields: None,
            reason: None,
            limit: None,
        }
    }
}

impl poem_openapi::types::Example for ErrorBody {
    fn example() -> Self {
        Self {
            fields: Some(BTreeMap::from([("email".into(), "invalid_email".into())])),
            instance: Some("/api/v1/users".into()),
            request_id: Some("0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c".into()),
            ..Self::new(StatusCode::BAD_REQUEST, "validation_failed", "Please check your input")
        }
    }
}

/// An error answer's payload: an [`ErrorBody`] sent as `application/problem+json`.
#[derive(Debug)]
pub struct Problem(pub ErrorBody);

impl Payload for Problem {
    const CONTENT_TYPE: &'static str = PROBLEM_JSON;

    fn check_content_type(content_type: &str) -> bool {
        content_type.starts_with(PROBLEM_JSON)
    }

    fn schema_ref() -> MetaSchemaRef {
        ErrorBody::schema_ref()
    }

    fn register(registry: &mut Registry) {
        ErrorBody::register(registry);
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        Response::builder().content_type(PROBLEM_JSON).body(serde_json::to_vec(&self.0).unwrap_or_default())
    }
}

/// Why a request conflicts with the state of things: 409 `conflict` with a `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Deactivating, demoting or deleting one's own account.
    OwnAccount,
    /// Deleting someone who wrote reports (the audit trail keeps its authors).
    HasReports,
    /// Messenger: the conversation needs a new key epoch first (a member joined or left, or the
    /// epoch is 100 messages or 7 days old): start one, then send.
    RekeyRequired,
    /// Messenger: another epoch was started meanwhile, or the members or their keys changed;
    /// fetch the conversation again and retry.
    StaleEpoch,
    /// Messenger: someone named has not set up the messenger (no public keys yet).
    NoKeys,
    /// Messenger: a direct conversation has exactly its two members and no name.
    DirectConversation,
    /// Messenger: `keyVersion` is not the caller's next key version.
    StaleKeyVersion,
    /// Messenger: a message id already used for another message.
    IdTaken,
    /// Messenger: more new key versions (browsers) than allowed in a day, or in all.
    TooManyKeys,
    /// A save made from a version someone has saved over since.
    StaleVersion,
    /// Already `store::api_tokens::MAX_LIVE_TOKENS` live tokens.
    TooManyTokens,
    /// A request with this `Idempotency-Key` is still running.
    RequestInProgress,
    /// A request with this `Idempotency-Key` was done, and its answer held a secret, which is
    /// never kept for replay.
    AnswerWithheld,
    /// Already `store::webhooks::MAX_WEBHOOKS` webhooks.
    TooManyWebhooks,
    /// A webhook delivery asked for again while an instance is sending it.
    DeliveryInFlight,
    /// Resending an invitation the person already accepted.
    AlreadyAccepted,
    /// Turning on an authenticator when one is already on.
    TotpEnabled,
    /// Turning off (or confirming) an authenticator that is not on (or was never started).
    TotpNotEnabled,
    /// Already `auth::passkeys::MAX_PASSKEYS` passkeys.
    TooManyPasskeys,
    /// A passkey whose credential is already registered.
    PasskeyRegistered,
    /// This deployment's address is not one passkeys can belong to (an IP address).
    PasskeysUnavailable,
    /// A single sign-on domain that another enterprise's single sign-on has.
    SsoDomainTaken,
    /// A single sign-on domain at which people outside the enterprise have addresses.
    SsoDomainInUse,
    /// Reactivating an enterprise whose deletion is scheduled: restore it instead.
    DeletionScheduled,
    /// Restoring or purging an enterprise whose deletion is not scheduled.
    DeletionNotScheduled,
    /// An export that is not ready (queued, running, failed or expired) has nothing to download.
    ExportNotReady,
    /// Changing, inviting or erasing again a person whose data was erased.
    Erased,
}

impl Conflict {
    pub fn reason(self) -> &'static str {
        match self {
            Self::OwnAccount => "own_account",
            Self::HasReports => "has_reports",
            Self::RekeyRequired => "rekey_required",
            Self::StaleEpoch => "stale_epoch",
            Self::NoKeys => "no_keys",
            Self::DirectConversation => "direct_conversation",
            Self::StaleKeyVersion => "stale_key_version",
            Self::IdTaken => "id_taken",
            Self::TooManyKeys => "too_many_keys",
            Self::StaleVersion => "stale_version",
            Self::TooManyTokens => "too_many_tokens",
            Self::RequestInProgress => "request_in_progress",
            Self::AnswerWithheld => "answer_withheld",
            Self::TooManyWebhooks => "too_many_webhooks",
            Self::DeliveryInFlight => "delivery_in_flight",
            Self::AlreadyAccepted => "already_accepted",
            Self::TotpEnabled => "totp_enabled",
            Self::TotpNotEnabled => "totp_not_enabled",
            Self::TooManyPasskeys => "too_many_passkeys",
            Self::PasskeyRegistered => "passkey_registered",
            Self::PasskeysUnavailable => "passkeys_unavailable",
            Self::SsoDomainTaken => "sso_domain_taken",
            Self::SsoDomainInUse => "sso_domain_in_use",
            Self::DeletionScheduled => "deletion_scheduled",
            Self::DeletionNotScheduled => "deletion_not_scheduled",
            Self::ExportNotReady => "export_not_ready",
            Self::Erased => "erased",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Self::OwnAccount => "You cannot deactivate, demote or delete your own account",
            Self::HasReports => "This user has written reports; deactivate the account instead",
            Self::RekeyRequired => "This conversation needs a new key before the next message",
            Self::StaleEpoch => "The conversation changed meanwhile; reload it and try again",
            Self::NoKeys => "Someone named has not set up the messenger yet",
            Self::DirectConversation => "A direct conversation cannot be renamed or change members",
            Self::StaleKeyVersion => "These keys are not the next version; reload and try again",
            Self::IdTaken => "This message id is already used",
            Self::TooManyKeys => "The messenger was set up in too many new browsers today; try again tomorrow, or restore your key backup",
            Self::StaleVersion => "Someone saved this since you opened it; reload it, or keep your version as a copy",
            Self::TooManyTokens => "There are already 50 live tokens; revoke one first",
            Self::RequestInProgress => "A request with this Idempotency-Key is still running; retry in a moment",
            Self::AnswerWithheld => {
                "A request with this Idempotency-Key was already done; its answer held a secret, which is not kept: look up what it made"
            }
            Self::TooManyWebhooks => "There are already 20 webhooks; delete one first",
            Self::DeliveryInFlight => "This delivery is being sent right now; try again in a minute",
            Self::AlreadyAccepted => "This person has already accepted their invitation",
            Self::TotpEnabled => "An authenticator app is already set up; turn it off first",
            Self::TotpNotEnabled => "No authenticator app is set up; start the set-up again",
            Self::TooManyPasskeys => "There are already 20 passkeys; remove one first",
            Self::PasskeyRegistered => "This passkey is already registered",
            Self::PasskeysUnavailable => "Passkeys are not available at this address",
            Self::SsoDomainTaken => "Another enterprise's single sign-on already has one of these domains",
            Self::SsoDomainInUse => "People outside this enterprise have addresses at one of these domains",
            Self::DeletionScheduled => "This enterprise is scheduled for deletion; restore it to reactivate it",
            Self::DeletionNotScheduled => "This enterprise is not scheduled for deletion",
            Self::ExportNotReady => "This export is not ready to download",
            Self::Erased => "This person's data was erased: the account cannot be changed any more",
        }
    }
}

/// Why a single sign-on issuer is refused when the settings are saved (`reason`, with
/// `validation_failed` on `issuer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssuerRefused {
    /// Not a URL (`invalid_url`).
    InvalidUrl,
    /// Not https (`not_https`).
    NotHttps,
    /// Its host name does not resolve (`unresolvable`).
    Unresolvable,
    /// It points into a private network (`private_address`).
    PrivateAddress,
    /// Another port than 443 or 8443 (`port_not_allowed`).
    Port,
    /// Its certificate is not trusted (`untrusted_certificate`).
    UntrustedCertificate,
    /// No discovery document answers there (`no_provider`).
    NoProvider,
    /// Single sign-on is not available at this deployment's address (`sso_unavailable`).
    SsoUnavailable,
}

impl IssuerRefused {
    pub fn reason(self) -> &'static str {
        match self {
            Self::InvalidUrl => "invalid_url",
            Self::NotHttps => "not_https",
            Self::Unresolvable => "unresolvable",
            Self::PrivateAddress => "private_address",
            Self::Port => "port_not_allowed",
            Self::UntrustedCertificate => "untrusted_certificate",
            Self::NoProvider => "no_provider",
            Self::SsoUnavailable => "sso_unavailable",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Self::InvalidUrl => "Enter the provider's issuer URL, for example https://login.example.com",
            Self::NotHttps => "The issuer URL must use https",
            Self::Unresolvable => "This URL's host name does not resolve",
            Self::PrivateAddress => "This URL points into a private network, which the server may not reach",
            Self::Port => "The issuer URL must use port 443 or 8443",
            Self::UntrustedCertificate => {
                "The provider's certificate is not trusted: it is signed by an authority the server does not know (the operator adds an enterprise's own authority with TRUSTED_CA_CERTS), has expired, or names another host"
            }
            Self::NoProvider => "No OpenID provider answers at this issuer URL (its discovery document could not be read)",
            Self::SsoUnavailable => "Single sign-on is not available at this deployment's address",
        }
    }
}

/// Why a single sign-on did not sign anyone in: 401 `sso_failed` with a `reason` (403 for
/// `not_invited`, 502 for `provider_unavailable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SsoFailure {
    /// The `state` is unknown, expired (10 minutes) or was used already.
    StateInvalid,
    /// The provider refused the code (expired, used, or not issued to this client).
    CodeRejected,
    /// The ID token's nonce is not the one this sign-in sent.
    NonceMismatch,
    /// The ID token is missing, or its signature, issuer, audience or expiry is wrong.
    TokenInvalid,
    /// The provider named no confirmed address of the enterprise's domains.
    EmailNotAllowed,
    /// The provider did not say the address is verified (`email_verified` false, or left out
    /// where the enterprise has not said its provider omits it).
    EmailUnverified,
    /// The account is bound to another person at this provider (another `sub` for the address).
    IdentityMismatch,
    /// Invitation-only: no account has this address in the enterprise.
    NotInvited,
    /// The provider cannot be reached, or its discovery document is unusable.
    ProviderUnavailable,
}

impl SsoFailure {
    pub fn reason(self) -> &'static str {
        match self {
            Self::StateInvalid => "state_invalid",
            Self::CodeRejected => "code_rejected",
            Self::NonceMismatch => "nonce_mismatch",
            Self::TokenInvalid => "token_invalid",
            Self::EmailNotAllowed => "email_not_allowed",
            Self::EmailUnverified => "email_unverified",
            Self::IdentityMismatch => "identity_mismatch",
            Self::NotInvited => "not_invited",
            Self::ProviderUnavailable => "provider_unavailable",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Self::StateInvalid => "This single sign-on took too long or was already used. Please sign in again.",
            Self::CodeRejected => "Your identity provider did not confirm this sign-in. Please sign in again.",
            Self::NonceMismatch => "This answer from your identity provider belongs to another sign-in. Please sign in again.",
            Self::TokenInvalid => "Your identity provider's answer could not be verified",
            Self::EmailNotAllowed => "Your identity provider did not confirm an e-mail address of your organisation",
            Self::EmailUnverified => "Your identity provider did not confirm that this e-mail address is yours",
            Self::IdentityMismatch => "This account is linked to another person at your identity provider",
            Self::NotInvited => "You have not been invited to this organisation yet. Ask your CEO for an invitation.",
            Self::ProviderUnavailable => "Your identity provider cannot be reached. Please try again later.",
        }
    }
}

impl From<SsoFailure> for AppError {
    fn from(failure: SsoFailure) -> Self {
        Self::SsoFailed(failure)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("Please check your input")]
    Validation(FieldErrors),
    /// As `Validation`, with a message saying what exactly is refused (a spreadsheet's formula
    /// and the limit it crossed).
    #[error("{1}")]
    Explained(FieldErrors, String),
    /// A single sign-on issuer refused as the settings are saved: `validation_failed` on the
    /// field `issuer`, with a `reason` (`IssuerRefused::reason`) and the refusal in English.
    #[error("{}", .0.message())]
    IssuerRefused(IssuerRefused),
    #[error("Invalid email or password")]
    InvalidCredentials,
    #[error("Your session has expired. Please login again.")]
    SessionExpired,
    /// `session_expired` for a session the server ended, with why (`Session.endReason`): a tab
    /// that learns it from a request, before the socket's `session.ended`, can say so too.
    #[error("Your session has expired. Please login again.")]
    SessionEnded(String),
    /// A wrong or already used one-time or recovery code at the sign-in's second step.
    #[error("This code is not correct")]
    InvalidCode,
    /// The sign-in's second step came too late (or its challenge is not ours).
    #[error("Your sign-in took too long. Please sign in again.")]
    ChallengeExpired,
    /// A passkey's answer that does not verify, or a passkey no one has registered here.
    #[error("This passkey was not accepted")]
    PasskeyRejected,
    #[error("Authentication required")]
    Unauthorized,
    #[error("This account is inactive")]
    AccountInactive,
    /// A password sign-in for an address whose enterprise requires single sign-on.
    #[error("Your organisation signs in with single sign-on")]
    SsoRequired,
    #[error("{}", .0.message())]
    SsoFailed(SsoFailure),
    #[error("You are not authorized to perform this action")]
    Forbidden,
    /// A program's token whose scopes do not include the one this operation needs.
    #[error("This token's scopes do not allow this operation")]
    InsufficientScope,
    #[error("Resource not found")]
    NotFound,
    #[error("{}", .0.message())]
    Conflict(Conflict),
    /// An e-mail address that another account already uses: 409 `conflict` naming the field. The
    /// message does not say so (whose account, or even that one exists elsewhere): only that this
    /// address cannot be used.
    #[error("This email address cannot be used")]
    EmailTaken { field: &'static str },
    /// A name another enterprise already has, compared ignoring case and accents
    /// (`enterprises_name_key`): 409 `conflict` with `fields.name = taken`.
    #[error("An enterprise with this name already exists")]
    EnterpriseNameTaken,
    #[error("A report cannot go from {} to {}", .0.from.as_str(), .0.to.as_str())]
    InvalidTransition(InvalidTransition),
    /// A public mail provider's domain (gmail.com…) claimed for single sign-on: 400.
    #[error("A public mail domain cannot be claimed: its addresses belong to people of every organisation")]
    PublicMailDomain,
    /// A purge whose typed name is not the enterprise's: 400 with `fields.confirmName = mismatch`.
    #[error("The name typed is not the enterprise's name")]
    ConfirmationMismatch,
    /// A domain's proof was asked for and its TXT record is not there (yet): 400.
    #[error("The TXT record was not found: publish it at your DNS provider, wait for it to spread, and try again")]
    DomainNotVerified,
    #[error("Too many attempts. Please try again later.")]
    RateLimited { retry_after_secs: u64 },
    /// One of the enterprise's limits (`usage`) is reached: `limit_reached` naming it; 409 for
    /// what it holds, 429 with Retry-After for its API calls per minute.
    #[error("{}", .0.message())]
    LimitReached(Limit),
    /// Bounded work (exports, spreadsheets) is at capacity, or a dependency did not answer in
    /// time: 503 `unavailable` with Retry-After.
    #[error("The server is busy. Please try again in a moment.")]
    Busy { retry_after_secs: u64 },
    #[error(transparent)]
    Unexpected(anyhow::Error),
}

/// A database error that says PostgreSQL is away or overloaded, not that the request is wrong:
/// no connection within the pool's wait, a broken connection, a statement over its timeout,
/// the server shutting down or refusing connections.
fn database_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|c| c == "57014" || c == "53300" || c.starts_with("57P") || c.starts_with("08")),
        _ => false,
    }
}

impl From<sqlx::Error> for AppError {
    fn from(err: sqlx::Error) -> Self {
        if database_unavailable(&err) {
            tracing::warn!(error = %err, "database unavailable");
            crate::metrics::db_unavailable();
            return Self::Busy { retry_after_secs: 1 };
        }
        Self::Unexpected(err.into())
    }
}

impl From<anyhow::Error> for AppError {
    fn from(err: anyhow::Error) -> Self {
        match err.downcast::<sqlx::Error>() {
            Ok(db) => db.into(),
            Err(err) => Self::Unexpected(err),
        }
    }
}

impl AppError {
    /// For store calls that answer `RowNotFound` when a row the request names went away under it
    /// (`store::users::hold`): that is a 404. Anywhere else a missing row is a bug, hence a 500.
    pub fn gone_is_not_found(err: sqlx::Error) -> Self {
        match err {
            sqlx::Error::RowNotFound => Self::NotFound,
            err => err.into(),
        }
    }
}

impl From<InvalidTransition> for AppError {
    fn from(t: InvalidTransition) -> Self {
        Self::InvalidTransition(t)
    }
}

impl From<FieldErrors> for AppError {
    fn from(fields: FieldErrors) -> Self {
        Self::Validation(fields)
    }
}

impl AppError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) | Self::Explained(..) | Self::IssuerRefused(_) => "validation_failed",
            Self::InvalidCredentials => "invalid_credentials",
            Self::SessionExpired | Self::SessionEnded(_) => "session_expired",
            Self::InvalidCode => "invalid_code",
            Self::ChallengeExpired => "challenge_expired",
            Self::PasskeyRejected => "passkey_rejected",
            Self::Unauthorized => "unauthorized",
            Self::AccountInactive => "account_inactive",
            Self::SsoRequired => "sso_required",
            Self::SsoFailed(_) => "sso_failed",
            Self::Forbidden => "forbidden",
            Self::InsufficientScope => "insufficient_scope",
            Self::NotFound => "not_found",
            Self::Conflict(_) | Self::EmailTaken { .. } | Self::EnterpriseNameTaken => "conflict",
            Self::InvalidTransition(_) => "invalid_transition",
            Self::PublicMailDomain => "public_mail_domain",
            Self::DomainNotVerified => "domain_not_verified",
            Self::ConfirmationMismatch => "confirmation_mismatch",
            Self::RateLimited { .. } => "rate_limited",
            Self::LimitReached(_) => "limit_reached",
            Self::Busy { .. } => "unavailable",
            Self::Unexpected(_) => "internal",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Validation(_)
            | Self::Explained(..)
            | Self::IssuerRefused(_)
            | Self::PublicMailDomain
            | Self::DomainNotVerified
            | Self::ConfirmationMismatch => StatusCode::BAD_REQUEST,
            Self::InvalidCredentials
            | Self::SessionExpired
            | Self::SessionEnded(_)
            | Self::Unauthorized
            | Self::InvalidCode
            | Self::ChallengeExpired
            | Self::PasskeyRejected => StatusCode::UNAUTHORIZED,
            Self::SsoFailed(SsoFailure::NotInvited | SsoFailure::IdentityMismatch) => StatusCode::FORBIDDEN,
            Self::SsoFailed(SsoFailure::ProviderUnavailable) => StatusCode::BAD_GATEWAY,
            Self::SsoFailed(_) => StatusCode::UNAUTHORIZED,
            Self::AccountInactive | Self::SsoRequired | Self::Forbidden | Self::InsufficientScope => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::Conflict(_) | Self::EmailTaken { .. } | Self::EnterpriseNameTaken | Self::InvalidTransition(_) => StatusCode::CONFLICT,
            Self::RateLimited { .. } | Self::LimitReached(Limit::ApiCallsPerMinute { .. }) => StatusCode::TOO_MANY_REQUESTS,
            Self::LimitReached(_) => StatusCode::CONFLICT,
            Self::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Unexpected(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The response body. An unexpected error is logged here with its whole chain, and its
    /// details never reach the client.
    pub fn body(&self) -> ErrorBody {
        match self {
            Self::Unexpected(err) => {
                tracing::error!(error = ?err, "unexpected error");
                ErrorBody::new(self.status(), "internal", "Server error. Please try again later.")
            }
            Self::Validation(fields) | Self::Explained(fields, _) => ErrorBody {
                fields: Some(fields.iter().map(|(k, v)| (k.to_owned(), v.code().to_owned())).collect()),
                ..ErrorBody::new(self.status(), self.code(), self.to_string())
            },
            Self::IssuerRefused(refused) => ErrorBody {
                fields: Some(BTreeMap::from([("issuer".to_owned(), "invalid".to_owned())])),
                reason: Some(refused.reason().to_owned()),
                ..ErrorBody::new(self.status(), self.code(), self.to_string())
            },
            Self::EmailTaken { field } => ErrorBody {
                fields: Some(BTreeMap::from([((*field).to_owned(), "taken".to_owned())])),
                ..ErrorBody::new(self.status(), self.code(), self.to_string())
            },
            Self::ConfirmationMismatch => ErrorBody {
                fields: Some(BTreeMap::from([("confirmName".to_owned(), "mismatch".to_owned())])),
                ..ErrorBody::new(self.status(), self.code(), self.to_string())
            },
            Self::EnterpriseNameTaken => ErrorBody {
                fields: Some(BTreeMap::from([("name".to_owned(), "taken".to_owned())])),
                ..ErrorBody::new(self.status(), self.code(), self.to_string())
            },
            Self::Conflict(conflict) => {
                ErrorBody { reason: Some(conflict.reason().to_owned()), ..ErrorBody::new(self.status(), self.code(), self.to_string()) }
            }
            Self::SsoFailed(failure) => {
                ErrorBody { reason: Some(failure.reason().to_owned()), ..ErrorBody::new(self.status(), self.code(), self.to_string()) }
            }
            Self::LimitReached(limit) => {
                ErrorBody { limit: Some(limit.name().to_owned()), ..ErrorBody::new(self.status(), self.code(), self.to_string()) }
            }
            Self::SessionEnded(reason) => ErrorBody { reason: Some(reason.clone()), ..ErrorBody::new(self.status(), self.code(), self.to_string()) },
            _ => ErrorBody::new(self.status(), self.code(), self.to_string()),
        }
    }
}

impl ResponseError for AppError {
    fn status(&self) -> StatusCode {
        AppError::status(self)
    }

    fn as_response(&self) -> Response {
        let mut resp = json_response(self.status(), &self.body());
        if let Some(secs) = self.retry_after() {
            resp.headers_mut().insert("retry-after", secs.into());
        }
        resp
    }
}

impl AppError {
    /// The seconds a client should wait before trying again, for the errors that say.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            Self::RateLimited { retry_after_secs }
            | Self::Busy { retry_after_secs }
            | Self::LimitReached(Limit::ApiCallsPerMinute { retry_after_secs }) => Some(*retry_after_secs),
            _ => None,
        }
    }
}

/// An enterprise's limit (`usage`), as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    People,
    StorageBytes,
    ApiCallsPerMinute { retry_after_secs: u64 },
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Self::People => "people",
            Self::StorageBytes => "storageBytes",
            Self::ApiCallsPerMinute { .. } => "apiCallsPerMinute",
        }
    }

    fn message(self) -> &'static str {
        match self {
            Self::People => "The enterprise has as many people as its limit allows: remove someone, or ask the platform admin to raise the limit",
            Self::StorageBytes => "The enterprise's storage is full: delete what it no longer needs, or ask the platform admin to raise the limit",
            Self::ApiCallsPerMinute { .. } => "The enterprise has made as many API calls this minute as its limit allows; try again shortly",
        }
    }
}

fn json_response(status: StatusCode, body: &ErrorBody) -> Response {
    Response::builder().status(status).content_type(PROBLEM_JSON).body(serde_json::to_vec(body).unwrap_or_default())
}

/// Renders any error that escaped an operation. Errors that already carry a JSON body (ours, or
/// SCIM's) pass through; poem's own plain-text rejections get our shape with a code for their status.
pub fn render_poem_error(err: poem::Error) -> Response {
    let status = err.status();
    let message = err.to_string();
    let resp = err.into_response();
    // SCIM's answers carry their own error bodies (`api::scim`).
    let is_json = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with(PROBLEM_JSON) || ct.starts_with("application/scim+json"));
    if is_json {
        return resp;
    }
    let (code, message) = match status {
        StatusCode::BAD_REQUEST => ("bad_request", "Please check your input".to_owned()),
        StatusCode::UNAUTHORIZED => ("unauthorized", "Authentication required".to_owned()),
        StatusCode::NOT_FOUND => ("not_found", "Resource not found".to_owned()),
        StatusCode::METHOD_NOT_ALLOWED => ("method_not_allowed", "Method not allowed".to_owned()),
        StatusCode::PAYLOAD_TOO_LARGE => ("payload_too_large", "The request body is too large".to_owned()),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ("unsupported_media_type", format!("Unsupported content type: {message}")),
        s if s.is_server_error() => {
            tracing::error!(error = %message, "request failed");
            ("internal", "Server error. Please try again later.".to_owned())
        }
        s => ("bad_request", s.canonical_reason().unwrap_or("Request refused").to_owned()),
    };
    let mut out = json_response(status, &ErrorBody::new(status, code, message));
    if let Some(allow) = resp.headers().get("allow") {
        out.headers_mut().insert("allow", allow.clone());
    }
    // The operation that refused the request still labels it (metrics).
    if let Some(operation) = resp.extensions().get::<poem_openapi::OperationId>() {
        out.set_data(*operation);
    }
    out
}

/// Declares the error responses of one operation, each carrying an [`ErrorBody`]. A 503 and a 500
/// are always added. Converting an [`AppError`] whose status the operation did not declare is a bug: it is
/// logged and answered as 500, and the API tests catch it.
///
/// ```ignore
/// api_errors!(MeError {
///     /// No token, or the session has ended.
///     401 Unauthorized,
/// });
/// ```
///
/// Every operation also declares 503 with `Retry-After` (`AppError::Busy`): a slot for bounded
/// work stayed busy, or PostgreSQL did not answer in time.
#[macro_export]
macro_rules! api_errors {
    ($name:ident { $( $(#[doc = $doc:literal])* $status:literal $variant:ident ),+ $(,)? }) => {
        #[derive(Debug, poem_openapi::ApiResponse)]
        pub enum $name {
            $(
                $(#[doc = $doc])*
                #[oai(status = $status)]
                $variant($crate::error::Problem),
            )+
            /// Past a limit (`rate_limited`): the request limit, or this operation's own; or past
            /// the enterprise's API calls per minute (`limit_reached`, `limit`
            /// `apiCallsPerMinute`). Retry after `Retry-After` seconds.
            #[oai(status = 429)]
            TooManyRequests($crate::error::Problem, #[oai(header = "Retry-After")] u64),
            /// Busy, or a dependency did not answer in time (`unavailable`); retry after
            /// `Retry-After` seconds.
            #[oai(status = 503)]
            Unavailable($crate::error::Problem, #[oai(header = "Retry-After")] u64),
            /// Unexpected server error; details are in the server log.
            #[oai(status = 500)]
            Internal($crate::error::Problem),
        }

        impl From<$crate::error::AppError> for $name {
            fn from(err: $crate::error::AppError) -> Self {
                let body = $crate::error::Problem(err.body());
                match err.status().as_u16() {
                    $( $status => Self::$variant(body), )+
                    429 => Self::TooManyRequests(body, err.retry_after().unwrap_or(60)),
                    503 => Self::Unavailable(body, err.retry_after().unwrap_or(1)),
                    500 => Self::Internal(body),
                    other => {
                        tracing::error!(status = other, code = err.code(), operation = stringify!($name), "undeclared error status");
                        Self::Internal($crate::error::Problem($crate::error::ErrorBody::new(
                            poem::http::StatusCode::INTERNAL_SERVER_ERROR, "internal", "Server error. Please try again later.")))
                    }
                }
            }
        }

        $crate::api_errors!(@via_app_error $name: sqlx::Error, anyhow::Error, $crate::domain::FieldErrors, $crate::domain::InvalidTransition);
    };
    (@via_app_error $name:ident: $($source:ty),+) => {
        $(
            impl From<$source> for $name {
                fn from(err: $source) -> Self {
                    $crate::error::AppError::from(err).into()
                }
            }
        )+
    };
}
