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

pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl TokenKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    pub fn sign(&self, claims: &Claims) -> anyhow::Result<String> {
        Ok(jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)?)
    }

    /// The claims of a token this server signed and that has not expired.
    pub fn verify(&self, token: &str) -> Option<Claims> {
        jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .ok()
            .map(|d| d.claims)
    }
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
    fn expired_and_garbled_tokens_are_refused() {
        let keys = TokenKeys::new(&[7u8; 32]);
        assert_eq!(keys.verify(&keys.sign(&claims(-1)).unwrap()), None);
        assert_eq!(keys.verify("not.a.jwt"), None);
    }
}
