//! The bearer token: an HS256 JWT naming the user, role, enterprise and session. The session id
//! is what makes it revocable: every request also checks that the session is still live.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::domain::Role;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Claims {
    /// The user id.
    pub sub: Uuid,
    pub role: Role,
    /// The enterprise (tenant); absent for platform admins.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ent: Option<Uuid>,
    /// The session id.
    pub sid: Uuid,
    pub iat: i64,
    pub exp: i64,
}

/// A device token (OWASP's device cookie): this browser has signed in to this account before.
/// Signed like session tokens but with its own audience, so neither passes for the other.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct DeviceClaims {
    /// The account: its normalized e-mail.
    pub sub: String,
    /// The device, random per successful sign-in.
    pub did: Uuid,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

const DEVICE_AUDIENCE: &str = "device";

/// The sign-in's second step (`POST /auth/login/verify`): the password was right, a second factor
/// is due. Short-lived, its own audience: no bearer or device token passes for it, nor it for them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChallengeClaims {
    /// The user id.
    pub sub: Uuid,
    /// Remember the session for 30 days.
    pub rem: bool,
    /// The person has no second factor yet and must enrol one now (their policy requires it).
    pub enrol: bool,
    /// The device id of the sign-in's valid device token, if any (its attempts are limited apart).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub did: Option<Uuid>,
    /// The challenge's id: it opens one session at most (`store::mfa::spend_challenge`).
    pub jti: Uuid,
    /// The client that started the sign-in (a hash of its user agent): only it may finish it.
    pub cli: String,
    /// The first factor was the enterprise's identity provider (the session's method says so).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sso: bool,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

const CHALLENGE_AUDIENCE: &str = "sign-in-challenge";

/// What a sign-in challenge says (`ChallengeClaims`, less its id and times).
#[derive(Debug, Clone, Copy, Default)]
pub struct Challenge<'a> {
    pub user: Uuid,
    pub remember_me: bool,
    pub enrol: bool,
    pub device: Option<Uuid>,
    /// The user agent of the client that started the sign-in.
    pub client: Option<&'a str>,
    pub sso: bool,
}

pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    device_validation: Validation,
    challenge_validation: Validation,
    /// As `validation`, without the expiry: whether a token was ever ours.
    any_age: Validation,
}

impl TokenKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let mut device_validation = validation.clone();
        device_validation.set_audience(&[DEVICE_AUDIENCE]);
        device_validation.set_required_spec_claims(&["exp", "sub", "aud"]);
        let mut challenge_validation = device_validation.clone();
        challenge_validation.set_audience(&[CHALLENGE_AUDIENCE]);
        let mut any_age = validation.clone();
        any_age.validate_exp = false;
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            device_validation,
            challenge_validation,
            any_age,
        }
    }

    pub fn sign(&self, claims: &Claims) -> anyhow::Result<String> {
        Ok(jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)?)
    }

    /// The claims of a token this server signed and that has not expired.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).ok().map(|d| d.claims)
    }

    /// Whether this server signed the session token, expired or not.
    pub fn signed_here(&self, token: &str) -> bool {
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.any_age).is_ok()
    }
}

impl TokenKeys {
    /// A device token for `account` (a normalized e-mail), valid for `ttl`.
    pub fn sign_device(&self, account: &str, ttl: chrono::Duration) -> anyhow::Result<String> {
        let now = chrono::Utc::now();
        let claims = DeviceClaims {
            sub: account.to_owned(),
            did: Uuid::new_v4(),
            aud: DEVICE_AUDIENCE.into(),
            iat: now.timestamp(),
            exp: (now + ttl).timestamp(),
        };
        Ok(jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?)
    }

    /// The device id of a device token this server signed for `account`, unexpired and issued
    /// after the account's password last changed (`password_changed_at`).
    pub fn verify_device(&self, token: &str, account: &str, password_changed_at: Option<chrono::DateTime<chrono::Utc>>) -> Option<Uuid> {
        let claims = jsonwebtoken::decode::<DeviceClaims>(token, &self.decoding, &self.device_validation).ok()?.claims;
        let after_change = password_changed_at.is_none_or(|at| claims.iat > at.timestamp());
        (claims.sub == account && after_change).then_some(claims.did)
    }
}

impl TokenKeys {
    /// A sign-in challenge, valid for `ttl`, for the client whose user agent is `client`.
    pub fn sign_challenge(&self, c: &Challenge<'_>, ttl: chrono::Duration) -> anyhow::Result<String> {
        let now = chrono::Utc::now();
        let claims = ChallengeClaims {
            sub: c.user,
            rem: c.remember_me,
            enrol: c.enrol,
            did: c.device,
            jti: Uuid::new_v4(),
            cli: client_tag(c.client),
            sso: c.sso,
            aud: CHALLENGE_AUDIENCE.into(),
            iat: now.timestamp(),
            exp: (now + ttl).timestamp(),
        };
        Ok(jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?)
    }

    /// The claims of an unexpired challenge this server signed.
    pub fn verify_challenge(&self, token: &str) -> Option<ChallengeClaims> {
        jsonwebtoken::decode::<ChallengeClaims>(token, &self.decoding, &self.challenge_validation).ok().map(|d| d.claims)
    }
}

/// What a challenge records of its client: a short hash of its user agent.
pub fn client_tag(user_agent: Option<&str>) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&sha2::Sha256::digest(user_agent.unwrap_or_default().as_bytes())[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp_offset: i64) -> Claims {
        let now = chrono::Utc::now().timestamp();
        Claims { sub: Uuid::now_v7(), role: Role::EnterpriseCeo, ent: Some(Uuid::now_v7()), sid: Uuid::now_v7(), iat: now, exp: now + exp_offset }
    }

    #[test]
    fn a_signed_token_verifies_with_the_same_secret_only() {
        let keys = TokenKeys::new(&[7u8; 32]);
        let c = claims(60);
        let token = keys.sign(&c).unwrap();
        assert_eq!(keys.verify(&token), Some(c));
        assert_eq!(TokenKeys::new(&[8u8; 32]).verify(&token), None);
    }

    #[test]
    fn a_device_token_vouches_for_its_account_only_and_is_no_session_token() {
        let keys = TokenKeys::new(&[7u8; 32]);
        let device = keys.sign_device("ann@example.com", chrono::Duration::days(1)).unwrap();
        assert!(keys.verify_device(&device, "ann@example.com", None).is_some());
        assert_eq!(keys.verify_device(&device, "bob@example.com", None), None);
        assert_eq!(keys.verify(&device), None, "a device token is not a bearer token");
        let session = keys.sign(&claims(60)).unwrap();
        assert_eq!(keys.verify_device(&session, "ann@example.com", None), None, "a bearer token is not a device token");
        assert_eq!(TokenKeys::new(&[8u8; 32]).verify_device(&device, "ann@example.com", None), None);
        assert_eq!(keys.verify_device(&keys.sign_device("ann@example.com", chrono::Duration::seconds(-5)).unwrap(), "ann@example.com", None), None);
        let changed_since = chrono::Utc::now() - chrono::Duration::seconds(1);
        assert!(keys.verify_device(&device, "ann@example.com", Some(changed_since - chrono::Duration::seconds(60))).is_some());
        assert_eq!(
            keys.verify_device(&device, "ann@example.com", Some(changed_since + chrono::Duration::seconds(60))),
            None,
            "issued before a password change"
        );
    }

    #[test]
    fn a_challenge_is_neither_a_bearer_nor_a_device_token_and_expires() {
        let keys = TokenKeys::new(&[7u8; 32]);
        let user = Uuid::now_v7();
        let challenge = keys
            .sign_challenge(&Challenge { user, remember_me: true, client: Some("Firefox"), ..Challenge::default() }, chrono::Duration::minutes(5))
            .unwrap();
        let claims = keys.verify_challenge(&challenge).unwrap();
        assert_eq!((claims.sub, claims.rem, claims.enrol, claims.cli.clone()), (user, true, false, client_tag(Some("Firefox"))));
        assert_ne!(claims.cli, client_tag(Some("curl/8")));
        assert_eq!(keys.verify(&challenge), None);
        assert_eq!(keys.verify_device(&challenge, "ann@example.com", None), None);
        assert_eq!(keys.verify_challenge(&keys.sign(&claims_for(user)).unwrap()), None);
        assert_eq!(keys.verify_challenge(&keys.sign_device("ann@example.com", chrono::Duration::days(1)).unwrap()), None);
        assert_eq!(
            keys.verify_challenge(&keys.sign_challenge(&Challenge { user, ..Challenge::default() }, chrono::Duration::seconds(-5)).unwrap()),
            None
        );
        assert_eq!(TokenKeys::new(&[8u8; 32]).verify_challenge(&challenge), None);
    }

    fn claims_for(user: Uuid) -> Claims {
        Claims { sub: user, ..claims(60) }
    }

    #[test]
    fn expired_and_garbled_tokens_are_refused() {
        let keys = TokenKeys::new(&[7u8; 32]);
        let expired = keys.sign(&claims(-1)).unwrap();
        assert_eq!(keys.verify(&expired), None);
        assert!(keys.signed_here(&expired), "expired, but ours");
        assert_eq!(keys.verify("not.a.jwt"), None);
        assert!(!keys.signed_here("not.a.jwt") && !TokenKeys::new(&[8u8; 32]).signed_here(&expired));
    }
}
