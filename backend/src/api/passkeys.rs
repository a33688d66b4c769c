//! Passkeys: one's own (register, name, remove), and signing in with one, alone or as the second
//! factor after the password (`auth::passkeys`).

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{ApiTags, accounts::Done, auth::LoginResponse};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{
        BearerAuth, Caller, ClientInfo, Credential, mfa,
        passkeys::{self, Passkeys},
        sign_in,
    },
    domain::FieldErrors,
    error::{AppError, Conflict},
    state::AppState,
    store::{self, passkeys::PasskeyRecord, users::UserRecord},
};

#[derive(Default)]
pub struct PasskeysApi;

/// One of one's passkeys.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasskeyInfo {
    pub id: Uuid,
    /// The name its owner gave it ("Work laptop").
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// The last sign-in with it; null: never used yet.
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<PasskeyRecord> for PasskeyInfo {
    fn from(r: PasskeyRecord) -> Self {
        Self { id: r.id, name: r.name, created_at: r.created_at, last_used_at: r.last_used_at }
    }
}

/// What to pass to the browser's WebAuthn call: `navigator.credentials.create({ publicKey })` to
/// register, `navigator.credentials.get({ publicKey })` to sign in (binary members in base64url,
/// as `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON` read
/// them). Valid for 5 minutes, for one answer.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasskeyOptions {
    /// `PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`
    /// (WebAuthn Level 3).
    pub public_key: serde_json::Value,
}

/// A new passkey: the authenticator's answer to the registration options, and its name.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct NewPasskey {
    #[oai(validator(max_length = 100))]
    pub name: String,
    /// The `PublicKeyCredential` the browser's `navigator.credentials.create` gave, as JSON
    /// (`toJSON()`).
    pub credential: serde_json::Value,
}

/// A passkey's new name.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasskeyName {
    #[oai(validator(max_length = 100))]
    pub name: String,
}

/// Options for a sign-in with a passkey.
#[derive(Debug, Object, Default)]
#[oai(rename_all = "camelCase")]
pub struct PasskeySignInStart {
    /// The `challenge` of a sign-in that answered `mfaRequired` with `webauthn` among its
    /// methods: the options then name that person's passkeys, and the answer goes to
    /// `POST /auth/login/verify`. Without it: any passkey of this site the browser holds, and the
    /// answer goes to `POST /auth/webauthn/login`.
    #[oai(validator(max_length = 2048))]
    pub challenge: Option<String>,
}

/// A passkey's answer to sign in with it alone.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PasskeySignIn {
    /// The `PublicKeyCredential` the browser's `navigator.credentials.get` gave, as JSON.
    pub credential: serde_json::Value,
    /// Keep the session for 30 days instead of 12 hours.
    #[oai(default)]
    pub remember_me: bool,
}

#[derive(Debug, ApiResponse)]
pub enum Created {
    /// The passkey is registered: it signs in alone, and stands as a second factor.
    #[oai(status = 201)]
    Created(Json<PasskeyInfo>),
}

api_errors!(PasskeyError {
    /// A field is invalid (`validation_failed`, with `fields`): a name, or a credential that is
    /// not one, did not verify, or answers options that expired or were used.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// A program's token: passkeys are a person's own.
    403 Forbidden,
    /// No such passkey of the caller's.
    404 NotFound,
    /// 20 passkeys already (`too_many_passkeys`), this one is registered already
    /// (`passkey_registered`), or this deployment's address cannot have passkeys
    /// (`passkeys_unavailable`).
    409 Conflict,
});

api_errors!(PasskeySignInError {
    /// A credential that is not one (`validation_failed`).
    400 BadRequest,
    /// The passkey's answer did not verify or names no passkey registered here
    /// (`passkey_rejected`), or the options (or the sign-in's challenge) expired or were used
    /// (`challenge_expired`).
    401 Unauthorized,
    /// The person or their enterprise is inactive (`account_inactive`).
    403 Forbidden,
    /// This deployment's address cannot have passkeys (`passkeys_unavailable`).
    409 Conflict,
});

fn relying_party(state: &AppState) -> Result<&Passkeys, AppError> {
    state.passkeys.as_ref().ok_or(AppError::Conflict(Conflict::PasskeysUnavailable))
}

async fn me(state: &AppState, caller: &Caller) -> Result<UserRecord, AppError> {
    if caller.credential != Credential::Session {
        return Err(AppError::Forbidden);
    }
    store::users::find_by_id(&state.db, caller.user_id).await?.ok_or(AppError::SessionExpired)
}

fn name(raw: &str) -> Result<String, AppError> {
    let mut errors = FieldErrors::new();
    let name = errors.check("name", crate::domain::text::line(raw, passkeys::MAX_NAME)).map(str::to_owned);
    name.ok_or_else(|| errors.into())
}

fn own(user: &UserRecord) -> Option<Target<'_>> {
    Some(Target::new("user", user.id, &user.full_name))
}

#[OpenApi(tag = "ApiTags::Security")]
impl PasskeysApi {
    /// One's passkeys
    ///
    /// At most 20, oldest first.
    #[oai(path = "/auth/webauthn/credentials", method = "get", operation_id = "listPasskeys")]
    async fn list(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<Vec<PasskeyInfo>>, PasskeyError> {
        auth.0.require("listPasskeys")?;
        let user = me(&state, &auth.0).await?;
        Ok(Json(store::passkeys::list(&state.db, user.id).await?.into_iter().map(Into::into).collect()))
    }

    /// Start registering a passkey
    ///
    /// Options for `navigator.credentials.create`: a discoverable credential with user
    /// verification, not one the authenticator already holds for this account. Answer with
    /// `POST /auth/webauthn/registration` within 5 minutes.
    #[oai(path = "/auth/webauthn/registration/options", method = "post", operation_id = "startPasskeyRegistration")]
    async fn start_registration(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<PasskeyOptions>, PasskeyError> {
        auth.0.require("startPasskeyRegistration")?;
        let user = me(&state, &auth.0).await?;
        let relying_party = relying_party(&state)?;
        let existing: Vec<_> = store::passkeys::list(&state.db, user.id).await?.into_iter().map(|r| r.passkey.0).collect();
        if existing.len() as i64 >= passkeys::MAX_PASSKEYS {
            return Err(AppError::Conflict(Conflict::TooManyPasskeys).into());
        }
        let options = relying_party.start_registration(user.id, &user.email, &user.full_name, &existing).await?;
        Ok(Json(PasskeyOptions { public_key: to_json(&options.public_key)? }))
    }

    /// Register a passkey
    ///
    /// The authenticator's answer to the registration options, and a name for it. From now on
    /// it signs in alone, and a password sign-in asks for it (or another second factor).
    #[oai(path = "/auth/webauthn/registration", method = "post", operation_id = "finishPasskeyRegistration")]
    async fn finish_registration(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<NewPasskey>) -> Result<Created, PasskeyError> {
        auth.0.require("finishPasskeyRegistration")?;
        let user = me(&state, &auth.0).await?;
        let name = name(&body.name)?;
        let passkey = relying_party(&state)?.finish_registration(user.id, body.0.credential).await?;
        let mut tx = state.db.begin().await?;
        if store::passkeys::count(&mut *tx, user.id).await? >= passkeys::MAX_PASSKEYS {
            return Err(AppError::Conflict(Conflict::TooManyPasskeys).into());
        }
        let record = store::passkeys::insert(&mut tx, user.id, &name, &passkey).await?.ok_or(AppError::Conflict(Conflict::PasskeyRegistered))?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, user.enterprise_id, "mfa.passkey_added", own(&user), Changes::new().with("passkey", &name))
            .await?;
        mfa::notify_of(&mut tx, &user, "passkey_added", None, Some(&name)).await?;
        tx.commit().await?;
        Ok(Created::Created(Json(record.into())))
    }

    /// Rename a passkey
    #[oai(path = "/auth/webauthn/credentials/:id", method = "put", operation_id = "renamePasskey")]
    async fn rename(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<PasskeyName>,
    ) -> Result<Json<PasskeyInfo>, PasskeyError> {
        auth.0.require("renamePasskey")?;
        let user = me(&state, &auth.0).await?;
        let name = name(&body.name)?;
        let record = store::passkeys::rename(&state.db, user.id, id.0, &name).await?.ok_or(AppError::NotFound)?;
        Ok(Json(record.into()))
    }

    /// Remove a passkey
    ///
    /// It no longer signs in. The person is told by e-mail.
    #[oai(path = "/auth/webauthn/credentials/:id", method = "delete", operation_id = "deletePasskey")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, PasskeyError> {
        auth.0.require("deletePasskey")?;
        let user = me(&state, &auth.0).await?;
        let mut tx = state.db.begin().await?;
        let name = store::passkeys::delete(&mut tx, user.id, id.0).await?.ok_or(AppError::NotFound)?;
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, user.enterprise_id, "mfa.passkey_removed", own(&user), Changes::new().with("passkey", &name))
            .await?;
        mfa::notify_of(&mut tx, &user, "passkey_removed", None, Some(&name)).await?;
        tx.commit().await?;
        Ok(Done::Done)
    }

    /// Start a sign-in with a passkey
    ///
    /// Options for `navigator.credentials.get`. Without `challenge`: any passkey of this site the
    /// browser holds (no e-mail typed), answered at `POST /auth/webauthn/login`. With the
    /// `challenge` of a password sign-in that asked for a second factor: that person's passkeys,
    /// answered at `POST /auth/login/verify` as `webauthn`.
    #[oai(path = "/auth/webauthn/login/options", method = "post", operation_id = "startPasskeySignIn")]
    async fn start_sign_in(&self, state: Data<&AppState>, body: Json<PasskeySignInStart>) -> Result<Json<PasskeyOptions>, PasskeySignInError> {
        let relying_party = relying_party(&state)?;
        let options = match body.0.challenge.as_deref() {
            None => relying_party.start_discoverable().await?,
            Some(challenge) => {
                let claims = state.tokens.verify_challenge(challenge).filter(|c| !c.enrol).ok_or(AppError::ChallengeExpired)?;
                let passkeys: Vec<_> = store::passkeys::list(&state.db, claims.sub).await?.into_iter().map(|r| r.passkey.0).collect();
                if passkeys.is_empty() {
                    return Err(AppError::ChallengeExpired.into());
                }
                relying_party.start_second_factor(claims.sub, &passkeys).await?
            }
        };
        Ok(Json(PasskeyOptions { public_key: to_json(&options.public_key)? }))
    }

    /// Sign in with a passkey
    ///
    /// The browser's answer to options asked without a challenge: the passkey names its person,
    /// and its user verification (PIN, fingerprint, face) stands for a second factor. Answers
    /// like a completed sign-in.
    #[oai(path = "/auth/webauthn/login", method = "post", operation_id = "finishPasskeySignIn")]
    async fn finish_sign_in(
        &self,
        state: Data<&AppState>,
        client: Data<&ClientInfo>,
        body: Json<PasskeySignIn>,
    ) -> Result<Json<LoginResponse>, PasskeySignInError> {
        let Json(PasskeySignIn { credential, remember_me }) = body;
        let signed_in = sign_in::with_passkey(&state.sign_ins(), credential, remember_me, &client).await?;
        Ok(Json(LoginResponse::from_signed_in(signed_in)))
    }
}

fn to_json(options: &impl serde::Serialize) -> Result<serde_json::Value, AppError> {
    serde_json::to_value(options).map_err(|e| AppError::Unexpected(e.into()))
}
