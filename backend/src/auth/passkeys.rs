//! Passkeys (WebAuthn, by `webauthn-rs`): registering one from the profile, signing in with one
//! alone (a discoverable credential: no e-mail typed), or using one as the second factor after
//! the password. Each ceremony is two calls; what the server must remember between them (the
//! challenge it issued, and for whom) waits in Redis for 5 minutes under that challenge, and the
//! second call takes it out, so a ceremony's answer is accepted once and on any instance.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde::{Serialize, de::DeserializeOwned};
use uuid::Uuid;
use webauthn_rs::{
    Webauthn, WebauthnBuilder,
    prelude::{
        AuthenticationResult, CreationChallengeResponse, DiscoverableAuthentication, DiscoverableKey, Passkey, PasskeyAuthentication,
        PasskeyRegistration, PublicKeyCredential, RegisterPublicKeyCredential, RequestChallengeResponse, Url,
    },
};
use webauthn_rs_proto::ResidentKeyRequirement;

use crate::{
    cache::Cache,
    domain::{FieldErrors, FieldIssue},
    error::AppError,
};

/// How long a ceremony may take, from its options to its answer.
pub const CEREMONY_TTL_SECS: u64 = 300;
/// How many passkeys one person may register.
pub const MAX_PASSKEYS: i64 = 20;
/// The longest name a passkey may have.
pub const MAX_NAME: usize = 100;

/// The relying party: this deployment, as browsers see it.
#[derive(Clone)]
pub struct Passkeys {
    webauthn: std::sync::Arc<Webauthn>,
    cache: Cache,
}

/// The relying party's id and origin for an app reached at `public_url`. A passkey's relying
/// party is a domain name, never an IP address: on a loopback address (a developer's machine,
/// the browser tests) it is `localhost`, at the same scheme and port. `rp_id` overrides the domain
/// (a parent domain that several origins share).
pub fn relying_party(public_url: &str, rp_id: Option<&str>) -> anyhow::Result<(String, Url)> {
    let mut origin = Url::parse(public_url).map_err(|e| anyhow::anyhow!("PUBLIC_URL is not a URL: {e}"))?;
    let loopback = match origin.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        _ => false,
    };
    if loopback {
        origin.set_host(Some("localhost")).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    origin.set_path("");
    let domain = origin.domain().ok_or_else(|| anyhow::anyhow!("passkeys need PUBLIC_URL to name a domain, not an IP address"))?.to_owned();
    Ok((rp_id.map_or(domain, str::to_owned), origin))
}

impl Passkeys {
    pub fn new(public_url: &str, rp_id: Option<&str>, cache: Cache) -> anyhow::Result<Self> {
        let (id, origin) = relying_party(public_url, rp_id)?;
        let webauthn = WebauthnBuilder::new(&id, &origin)
            .map_err(|e| anyhow::anyhow!("passkeys: {id} is not the domain of {origin} or a parent of it: {e}"))?
            .rp_name(super::mfa::ISSUER)
            .timeout(std::time::Duration::from_secs(CEREMONY_TTL_SECS))
            .build()?;
        Ok(Self { webauthn: std::sync::Arc::new(webauthn), cache })
    }

    /// Registration's options for `user`, who has `existing` passkeys (an authenticator that
    /// holds one of them is not asked again). The credential must be discoverable, so that it can
    /// sign in with no account named first.
    pub async fn start_registration(
        &self,
        user_id: Uuid,
        email: &str,
        name: &str,
        existing: &[Passkey],
    ) -> Result<CreationChallengeResponse, AppError> {
        let exclude = existing.iter().map(|p| p.cred_id().clone()).collect();
        let (mut options, state) = self.webauthn.start_passkey_registration(user_id, email, name, Some(exclude)).map_err(unexpected)?;
        if let Some(selection) = options.public_key.authenticator_selection.as_mut() {
            selection.resident_key = Some(ResidentKeyRequirement::Required);
            selection.require_resident_key = true;
        }
        self.remember(&Purpose::Register(user_id), &options.public_key.challenge, &state).await?;
        Ok(options)
    }

    /// Checks the authenticator's answer to a registration `user_id` started.
    pub async fn finish_registration(&self, user_id: Uuid, credential: serde_json::Value) -> Result<Passkey, AppError> {
        let credential: RegisterPublicKeyCredential = parse(credential)?;
        let challenge = challenge_of(&credential.response.client_data_json)?;
        let state: PasskeyRegistration = self.take(&Purpose::Register(user_id), &challenge).await?.ok_or_else(ceremony_over)?;
        self.webauthn.finish_passkey_registration(&credential, &state).map_err(|err| {
            tracing::info!(error = %err, "passkey registration refused");
            invalid("credential", "The passkey could not be registered; try again")
        })
    }

    /// A sign-in with any passkey of this site the browser holds (none is named).
    pub async fn start_discoverable(&self) -> Result<RequestChallengeResponse, AppError> {
        let (options, state) = self.webauthn.start_discoverable_authentication().map_err(unexpected)?;
        self.remember(&Purpose::SignIn, &options.public_key.challenge, &state).await?;
        Ok(options)
    }

    /// Whose passkey answered a discoverable sign-in, and which: (user id, credential id). The
    /// ceremony is not used up yet; `finish_discoverable` does that.
    pub fn identify(&self, credential: &PublicKeyCredential) -> Result<(Uuid, Vec<u8>), AppError> {
        let (user, cred) = self.webauthn.identify_discoverable_authentication(credential).map_err(|_| AppError::PasskeyRejected)?;
        Ok((user, cred.to_vec()))
    }

    /// Checks a discoverable sign-in's answer against the passkey it names.
    pub async fn finish_discoverable(&self, credential: &PublicKeyCredential, passkey: &Passkey) -> Result<AuthenticationResult, AppError> {
        let challenge = challenge_of(&credential.response.client_data_json)?;
        let state: DiscoverableAuthentication = self.take(&Purpose::SignIn, &challenge).await?.ok_or(AppError::ChallengeExpired)?;
        self.webauthn.finish_discoverable_authentication(credential, state, &[DiscoverableKey::from(passkey)]).map_err(rejected)
    }

    /// A second factor after the password: one of `user_id`'s passkeys.
    pub async fn start_second_factor(&self, user_id: Uuid, passkeys: &[Passkey]) -> Result<RequestChallengeResponse, AppError> {
        let (options, state) = self.webauthn.start_passkey_authentication(passkeys).map_err(unexpected)?;
        self.remember(&Purpose::SecondFactor(user_id), &options.public_key.challenge, &state).await?;
        Ok(options)
    }

    pub async fn finish_second_factor(&self, user_id: Uuid, credential: &PublicKeyCredential) -> Result<AuthenticationResult, AppError> {
        let challenge = challenge_of(&credential.response.client_data_json)?;
        let state: PasskeyAuthentication = self.take(&Purpose::SecondFactor(user_id), &challenge).await?.ok_or(AppError::ChallengeExpired)?;
        self.webauthn.finish_passkey_authentication(credential, &state).map_err(rejected)
    }

    async fn remember<T: Serialize>(&self, purpose: &Purpose, challenge: &impl AsRef<[u8]>, state: &T) -> Result<(), AppError> {
        self.cache.put_json(&self.key(purpose, challenge.as_ref()), state, CEREMONY_TTL_SECS).await
    }

    /// The ceremony's state, taken out so that its answer is accepted once.
    async fn take<T: DeserializeOwned>(&self, purpose: &Purpose, challenge: &[u8]) -> Result<Option<T>, AppError> {
        self.cache.take_json(&self.key(purpose, challenge)).await
    }

    fn key(&self, purpose: &Purpose, challenge: &[u8]) -> String {
        let challenge = URL_SAFE_NO_PAD.encode(challenge);
        match purpose {
            Purpose::Register(user) => self.cache.key(&["webauthn", "register", &user.to_string(), &challenge]),
            Purpose::SignIn => self.cache.key(&["webauthn", "sign-in", &challenge]),
            Purpose::SecondFactor(user) => self.cache.key(&["webauthn", "second-factor", &user.to_string(), &challenge]),
        }
    }
}

enum Purpose {
    Register(Uuid),
    SignIn,
    SecondFactor(Uuid),
}

/// The browser's answer, as `PublicKeyCredential.toJSON()` (or @simplewebauthn/browser) gives it.
pub fn parse<T: DeserializeOwned>(credential: serde_json::Value) -> Result<T, AppError> {
    serde_json::from_value(credential).map_err(|_| invalid("credential", "This is not a WebAuthn credential"))
}

/// The challenge the browser signed, read from its client data: it names the ceremony.
fn challenge_of(client_data_json: &impl AsRef<[u8]>) -> Result<Vec<u8>, AppError> {
    #[derive(serde::Deserialize)]
    struct ClientData {
        challenge: String,
    }
    let data: ClientData =
        serde_json::from_slice(client_data_json.as_ref()).map_err(|_| invalid("credential", "This is not a WebAuthn credential"))?;
    URL_SAFE_NO_PAD.decode(data.challenge.trim_end_matches('=')).map_err(|_| invalid("credential", "This is not a WebAuthn credential"))
}

fn invalid(field: &str, message: &str) -> AppError {
    let mut errors = FieldErrors::new();
    errors.check::<()>(field, Err(FieldIssue::Invalid));
    AppError::Explained(errors, message.into())
}

fn ceremony_over() -> AppError {
    invalid("credential", "This registration took too long or was already used; start again")
}

fn rejected(err: webauthn_rs::prelude::WebauthnError) -> AppError {
    tracing::info!(error = %err, "passkey assertion refused");
    AppError::PasskeyRejected
}

fn unexpected(err: webauthn_rs::prelude::WebauthnError) -> AppError {
    AppError::Unexpected(anyhow::anyhow!("webauthn: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relying_party_is_the_public_domain_and_localhost_stands_for_a_loopback_address() {
        let (id, origin) = relying_party("https://app.example.com/", None).unwrap();
        assert_eq!((id.as_str(), origin.as_str()), ("app.example.com", "https://app.example.com/"));
        let (id, origin) = relying_party("https://app.example.com", Some("example.com")).unwrap();
        assert_eq!((id.as_str(), origin.as_str()), ("example.com", "https://app.example.com/"));
        let (id, origin) = relying_party("http://127.0.0.1:4173", None).unwrap();
        assert_eq!((id.as_str(), origin.as_str()), ("localhost", "http://localhost:4173/"));
        assert!(relying_party("http://10.0.0.7:8080", None).is_err(), "an IP address cannot be a relying party");
    }

    #[test]
    fn the_challenge_is_read_from_the_client_data() {
        let client_data = br#"{"type":"webauthn.get","challenge":"AAEC_w","origin":"http://localhost:1"}"#;
        assert_eq!(challenge_of(&client_data.to_vec()).unwrap(), vec![0, 1, 2, 255]);
        assert!(challenge_of(&b"not json".to_vec()).is_err());
        assert!(challenge_of(&br#"{"challenge":"***"}"#.to_vec()).is_err());
    }
}
