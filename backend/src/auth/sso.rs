//! Single sign-on with an enterprise's OpenID provider (OpenID Connect's authorization code flow,
//! by the `openidconnect` crate): the provider's discovery document and keys, the authorization
//! URL with PKCE, `state` and `nonce`, and the code's exchange with the ID token's checks
//! (signature by the provider's keys, issuer, audience, expiry, nonce).
//!
//! What the server must remember between the two legs (the PKCE verifier, the nonce, which
//! enterprise) waits in Redis for 10 minutes under the `state` it sent, and the second leg takes
//! it out, so a `state` is used once and on any instance. The provider sends the browser back to
//! the app (`PUBLIC_URL/sign-in/sso?code&state`), which hands code and state to the API: the
//! session token never travels in a URL.
//!
//! The provider is a URL the enterprise's CEO chooses and the server fetches, so its requests go
//! through the webhooks' guard (`webhooks::guard`): https and public addresses only (unless
//! `WEBHOOK_ALLOW_PRIVATE_NETWORKS`), no redirects, 10 s at most.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use openidconnect::{
    AuthenticationContextClass, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet, EndpointSet, IssuerUrl,
    Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, TokenResponse,
    core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata},
};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{
    cache::Cache,
    error::{AppError, IssuerRefused, SsoFailure},
    store::sso::SsoRecord,
    webhooks::guard,
};

/// The authentication context asked for (`acr_values`) when the enterprise requires a second
/// factor, and one of the answers that says it was met: OpenID's multi-factor policy (PAPE).
pub const MULTI_FACTOR_ACR: &str = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";

/// Whether an ID token's `amr` and `acr` say the provider checked more than one factor: `amr`
/// holds `mfa`, or a knowledge method beside a possession or inherence one (RFC 8176: `pwd` and
/// `otp`, say), or `acr` is the multi-factor policy or a phishing-resistant one (`phr`, `phrh`).
pub fn asserts_mfa(amr: &[&str], acr: Option<&str>) -> bool {
    const KNOWLEDGE: [&str; 3] = ["pwd", "pin", "kba"];
    const OTHER: [&str; 12] = ["otp", "hwk", "swk", "sms", "tel", "sc", "fpt", "face", "iris", "retina", "vbm", "pop"];
    let two = amr.iter().any(|m| KNOWLEDGE.contains(m)) && amr.iter().any(|m| OTHER.contains(m));
    amr.contains(&"mfa") || two || acr.is_some_and(|acr| matches!(acr, MULTI_FACTOR_ACR | "phr" | "phrh"))
}

/// How long a person may take at their provider, from the start to the return.
pub const STATE_TTL_SECS: u64 = 600;
/// How long a provider's discovery document (and so its keys' address) is reused.
const METADATA_TTL: Duration = Duration::from_secs(300);

/// What waits between the two legs of a sign-in.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    pub enterprise_id: Uuid,
    pub verifier: String,
    pub nonce: String,
    pub remember_me: bool,
}

/// Who the provider says signed in.
#[derive(Debug)]
pub struct Identity {
    pub subject: String,
    /// Lower case; the provider confirmed it (`email_verified` true, or left out where the
    /// enterprise accepts that).
    pub email: String,
    pub name: Option<String>,
    /// The provider says it checked a second factor (`asserts_mfa`).
    pub mfa: bool,
}

/// Why a provider's discovery document could not be read: its certificate is not trusted, or
/// anything else. A sign-in says only that the provider cannot be reached; the CEO saving the
/// settings is told which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undiscovered {
    UntrustedCertificate,
    Unavailable,
}

impl From<Undiscovered> for SsoFailure {
    fn from(_: Undiscovered) -> Self {
        Self::ProviderUnavailable
    }
}

pub struct SingleSignOn {
    http: reqwest::Client,
    cache: Cache,
    redirect_uri: RedirectUrl,
    metadata: Mutex<HashMap<String, (Instant, CoreProviderMetadata)>>,
    allow_private: bool,
    /// Open the enterprises' client secrets.
    keys: crate::sealed::KeyRing,
}

impl SingleSignOn {
    pub fn new(
        public_url: &str,
        allow_private: bool,
        trusted_roots: &[reqwest::Certificate],
        keys: crate::sealed::KeyRing,
        cache: Cache,
    ) -> anyhow::Result<Self> {
        let redirect_uri = RedirectUrl::new(format!("{}/sign-in/sso", public_url.trim_end_matches('/')))?;
        let http = guard::outbound_client(allow_private, trusted_roots, concat!("enterprise-platform-sso/", env!("CARGO_PKG_VERSION")));
        Ok(Self { http, cache, redirect_uri, metadata: Mutex::default(), allow_private, keys })
    }

    /// The address the provider sends people back to: registered at the provider with the client.
    pub fn redirect_uri(&self) -> &str {
        self.redirect_uri.as_str()
    }

    /// Checks an issuer before it is saved: a URL the guard allows, whose discovery document
    /// answers and names it. The reason of a refusal, for the CEO.
    pub async fn check_issuer(&self, issuer: &str) -> Result<String, IssuerRefused> {
        let issuer = issuer.trim().trim_end_matches('/');
        guard::check_url(issuer, self.allow_private).await.map_err(|refusal| match refusal {
            guard::Refusal::Invalid => IssuerRefused::InvalidUrl,
            guard::Refusal::NotHttps => IssuerRefused::NotHttps,
            guard::Refusal::Unresolvable => IssuerRefused::Unresolvable,
            guard::Refusal::PrivateAddress => IssuerRefused::PrivateAddress,
            guard::Refusal::Port => IssuerRefused::Port,
        })?;
        self.discover(issuer, true).await.map_err(|failure| match failure {
            Undiscovered::UntrustedCertificate => IssuerRefused::UntrustedCertificate,
            Undiscovered::Unavailable => IssuerRefused::NoProvider,
        })?;
        Ok(issuer.to_owned())
    }

    async fn discover(&self, issuer: &str, fresh: bool) -> Result<CoreProviderMetadata, Undiscovered> {
        if !fresh
            && let Some((at, metadata)) = self.metadata.lock().unwrap_or_else(|e| e.into_inner()).get(issuer)
            && at.elapsed() < METADATA_TTL
        {
            return Ok(metadata.clone());
        }
        let url = IssuerUrl::new(issuer.to_owned()).map_err(|_| Undiscovered::Unavailable)?;
        let metadata = CoreProviderMetadata::discover_async(url, &self.http).await.map_err(|err| {
            tracing::warn!(issuer, error = %err, "single sign-on: discovery failed");
            if guard::untrusted_certificate(&err) { Undiscovered::UntrustedCertificate } else { Undiscovered::Unavailable }
        })?;
        // The document names further addresses (keys, token endpoint): an address literal there
        // is never seen by the guard's resolver, so it is judged here.
        let endpoints = [Some(metadata.jwks_uri().url()), metadata.token_endpoint().map(|t| t.url())];
        if endpoints
            .into_iter()
            .flatten()
            .any(|url| !guard::literal_allowed(url, self.allow_private) || (url.scheme() != "https" && !self.allow_private))
        {
            tracing::warn!(issuer, "single sign-on: the discovery document names a private or plain-http endpoint");
            return Err(Undiscovered::Unavailable);
        }
        let mut cached = self.metadata.lock().unwrap_or_else(|e| e.into_inner());
        cached.retain(|_, (at, _)| at.elapsed() < METADATA_TTL);
        cached.insert(issuer.to_owned(), (Instant::now(), metadata.clone()));
        Ok(metadata)
    }

    async fn client(&self, config: &SsoRecord) -> Result<OidcClient, AppError> {
        let metadata = self.discover(&config.issuer, false).await.map_err(SsoFailure::from)?;
        let secret = match config.client_secret.is_empty() {
            true => String::new(),
            false => self.keys.open_for(crate::sealed::SSO_CLIENT_SECRET, config.enterprise_id, &config.client_secret).map_err(sqlx::Error::from)?,
        };
        Ok(CoreClient::from_provider_metadata(metadata, ClientId::new(config.client_id.clone()), Some(ClientSecret::new(secret)))
            .set_redirect_uri(self.redirect_uri.clone()))
    }

    /// The first leg: where to send the browser (`login_hint` carries the address typed), and the
    /// `state` it carries.
    pub async fn start(&self, config: &SsoRecord, email: &str, remember_me: bool) -> Result<(String, String), AppError> {
        let client = self.client(config).await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()))
            .add_extra_param("login_hint", email)
            .set_pkce_challenge(challenge);
        if config.require_mfa {
            request = request.add_auth_context_value(AuthenticationContextClass::new(MULTI_FACTOR_ACR.to_owned()));
        }
        let (url, state, nonce) = request.url();
        let pending =
            Pending { enterprise_id: config.enterprise_id, verifier: verifier.secret().clone(), nonce: nonce.secret().clone(), remember_me };
        self.cache.put_json(&self.key(state.secret()), &pending, STATE_TTL_SECS).await?;
        Ok((url.to_string(), state.secret().clone()))
    }

    /// Takes out what the first leg left under `state`: `None` when it expired, was used, or
    /// never was.
    pub async fn take(&self, state: &str) -> Result<Option<Pending>, AppError> {
        self.cache.take_json(&self.key(state)).await
    }

    /// The second leg: the code exchanged at the provider with the PKCE verifier, and the ID
    /// token checked.
    pub async fn exchange(&self, config: &SsoRecord, pending: &Pending, code: &str) -> Result<Identity, AppError> {
        let client = self.client(config).await?;
        let request = client.exchange_code(AuthorizationCode::new(code.to_owned())).map_err(|_| SsoFailure::ProviderUnavailable)?;
        let response = request.set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone())).request_async(&self.http).await.map_err(|err| {
            use openidconnect::RequestTokenError;
            match err {
                RequestTokenError::ServerResponse(answer) => {
                    tracing::warn!(error = %answer, "single sign-on: the provider refused the code");
                    SsoFailure::CodeRejected
                }
                err => {
                    tracing::warn!(error = %err, "single sign-on: the token request failed");
                    SsoFailure::ProviderUnavailable
                }
            }
        })?;
        let id_token = response.id_token().ok_or(SsoFailure::TokenInvalid)?;
        let claims = id_token.claims(&client.id_token_verifier(), &Nonce::new(pending.nonce.clone())).map_err(|err| {
            tracing::warn!(error = %err, "single sign-on: the ID token was refused");
            match err {
                openidconnect::ClaimsVerificationError::InvalidNonce(_) => SsoFailure::NonceMismatch,
                _ => SsoFailure::TokenInvalid,
            }
        })?;
        let email = claims.email().ok_or(SsoFailure::EmailNotAllowed)?;
        // Verified, or left out by a provider the enterprise says omits the claim.
        match claims.email_verified() {
            Some(true) => {}
            None if config.accept_unverified_email => {}
            _ => return Err(SsoFailure::EmailUnverified.into()),
        }
        let email = email.as_str().trim().to_lowercase();
        if !config.covers(&email) {
            return Err(SsoFailure::EmailNotAllowed.into());
        }
        let name = claims.name().and_then(|n| n.get(None)).map(|n| n.as_str().trim().to_owned()).filter(|n| !n.is_empty());
        let amr: Vec<&str> = claims.auth_method_refs().map(|refs| refs.iter().map(|r| r.as_str()).collect()).unwrap_or_default();
        let mfa = asserts_mfa(&amr, claims.auth_context_ref().map(|acr| acr.as_str()));
        Ok(Identity { subject: claims.subject().as_str().to_owned(), email, name, mfa })
    }

    fn key(&self, state: &str) -> String {
        self.cache.key(&["sso", "state", state])
    }
}

/// The client `CoreClient::from_provider_metadata` builds: its authorization endpoint set, its
/// token and user-info endpoints maybe set (as the discovery document says).
/// What a back-channel logout token says (OpenID Connect Back-Channel Logout 1.0, section 2.4).
#[derive(serde::Deserialize)]
struct LogoutClaims {
    iat: i64,
    jti: String,
    #[serde(default)]
    sub: Option<String>,
    events: serde_json::Map<String, serde_json::Value>,
    /// Never in a logout token: one that carries it is an ID token posted here.
    #[serde(default)]
    nonce: Option<serde_json::Value>,
}

const LOGOUT_EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// How old a logout token may be, and how long its `jti` is remembered.
const LOGOUT_TOKEN_MAX_AGE_SECS: i64 = 600;

impl SingleSignOn {
    /// Verifies a logout token the enterprise's provider posted (section 2.6): signed with an
    /// asymmetric key of the provider's published key set (fetched again once when its `kid` is
    /// unknown: the provider rotated), by the enterprise's issuer, for its client, issued within
    /// the last 10 minutes, naming the back-channel logout event and no `nonce`, its `jti` not
    /// seen before on any instance. The subject it names (a token with only `sid` is refused:
    /// sessions here are found by the person). The reason of a refusal, for the provider.
    pub async fn logout_subject(&self, config: &SsoRecord, token: &str) -> Result<String, &'static str> {
        use jsonwebtoken::{Algorithm, DecodingKey, Validation, jwk::JwkSet};
        let header = jsonwebtoken::decode_header(token).map_err(|_| "The logout token is not a signed JWT")?;
        let asymmetric = [
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
            Algorithm::ES256,
            Algorithm::ES384,
            Algorithm::EdDSA,
        ];
        if !asymmetric.contains(&header.alg) {
            return Err("The logout token must be signed with the provider's published keys");
        }
        let mut key = None;
        for fresh in [false, true] {
            let metadata = self.discover(&config.issuer, fresh).await.map_err(|_| "The provider's keys could not be read")?;
            let keys: JwkSet =
                serde_json::to_value(metadata.jwks()).and_then(serde_json::from_value).map_err(|_| "The provider's keys could not be read")?;
            key = match &header.kid {
                Some(kid) => keys.find(kid).cloned(),
                None if keys.keys.len() == 1 => keys.keys.first().cloned(),
                None => None,
            };
            if key.is_some() {
                break;
            }
        }
        let key = key.ok_or("The logout token is signed with a key the provider does not publish")?;
        let key = DecodingKey::from_jwk(&key).map_err(|_| "The provider's key cannot verify signatures")?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&config.issuer]);
        validation.set_audience(&[&config.client_id]);
        validation.set_required_spec_claims(&["iss", "aud", "iat"]);
        validation.leeway = 60;
        let claims = jsonwebtoken::decode::<LogoutClaims>(token, &key, &validation)
            .map_err(|_| "The logout token's signature, issuer or audience is wrong")?
            .claims;
        let age = chrono::Utc::now().timestamp() - claims.iat;
        if !(-60..=LOGOUT_TOKEN_MAX_AGE_SECS).contains(&age) {
            return Err("The logout token is too old, or from the future");
        }
        if !claims.events.contains_key(LOGOUT_EVENT) || claims.nonce.is_some() {
            return Err("This is not a logout token (no back-channel logout event, or a nonce)");
        }
        let subject = claims.sub.filter(|s| !s.is_empty() && s.len() <= 255).ok_or("The logout token names no subject (sub)")?;
        let replay = self.cache.key(&["sso", "logout", &config.issuer, &claims.jti]);
        if !self.cache.first_time(&replay, LOGOUT_TOKEN_MAX_AGE_SECS as u64 + 60).await.map_err(|_| "Busy: try again")? {
            return Err("This logout token was used already");
        }
        Ok(subject)
    }
}

type OidcClient = CoreClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointMaybeSet, EndpointMaybeSet>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_multi_factor_amr_or_acr_counts_as_the_provider_s_second_factor() {
        assert!(asserts_mfa(&["mfa"], None));
        assert!(asserts_mfa(&["pwd", "otp"], None));
        assert!(asserts_mfa(&["hwk", "pin"], None));
        assert!(asserts_mfa(&[], Some(MULTI_FACTOR_ACR)));
        assert!(asserts_mfa(&["pwd"], Some("phrh")));
        assert!(!asserts_mfa(&["pwd"], None));
        assert!(!asserts_mfa(&["pwd", "kba"], None), "two things known are one factor");
        assert!(!asserts_mfa(&["otp"], Some("urn:example:loa:1")), "one factor named is one factor");
        assert!(!asserts_mfa(&[], Some("1")));
    }
}
