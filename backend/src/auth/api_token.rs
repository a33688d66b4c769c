//! Tokens for programs. A secret is 32 random bytes, base64url, after a prefix secret scanners
//! can match: `ept_` for a personal access token, `eps_` for an enterprise's service credential.
//! Only its SHA-256 is stored. Scopes are `<area>:read` and `<area>:write`; write includes read.

use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The areas a scope names.
pub const AREAS: [&str; 9] = ["enterprises", "users", "reports", "dashboards", "monitoring", "spreadsheets", "audit", "webhooks", "scim"];

pub const PERSONAL_PREFIX: &str = "ept_";
pub const SERVICE_PREFIX: &str = "eps_";
/// How many characters of a secret are kept to recognise it by (the prefix and 8 more).
const SHOWN_CHARS: usize = 12;

/// Whether `scope` is one of the scopes a token may hold.
pub fn is_scope(scope: &str) -> bool {
    scope.split_once(':').is_some_and(|(area, access)| AREAS.contains(&area) && matches!(access, "read" | "write"))
}

/// Whether scopes held grant `needed` (`reports:read` is granted by `reports:read` or `reports:write`).
pub fn grants(held: &[String], needed: &str) -> bool {
    held.iter().any(|h| h == needed || needed.strip_suffix(":read").is_some_and(|area| h.strip_suffix(":write") == Some(area)))
}

/// Whether a bearer credential is one of ours for programs rather than a session's JWT.
pub fn is_api_token(bearer: &str) -> bool {
    bearer.starts_with(PERSONAL_PREFIX) || bearer.starts_with(SERVICE_PREFIX)
}

/// A new secret: (the secret, what is shown of it, its hash).
pub fn generate(service: bool) -> (String, String, Vec<u8>) {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let prefix = if service { SERVICE_PREFIX } else { PERSONAL_PREFIX };
    let secret = format!("{prefix}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes));
    let shown = secret[..SHOWN_CHARS].to_owned();
    let hash = hash(&secret);
    (secret, shown, hash)
}

pub fn hash(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_an_area_and_read_or_write() {
        assert!(is_scope("reports:read") && is_scope("webhooks:write"));
        for bad in ["reports", "reports:admin", "messages:read", ":read", "reports:read:x", "Reports:read"] {
            assert!(!is_scope(bad), "{bad}");
        }
    }

    #[test]
    fn write_grants_read_of_its_own_area_only() {
        let held = vec!["reports:write".to_owned(), "users:read".to_owned()];
        assert!(grants(&held, "reports:read") && grants(&held, "reports:write") && grants(&held, "users:read"));
        assert!(!grants(&held, "users:write") && !grants(&held, "enterprises:read"));
    }

    #[test]
    fn secrets_are_prefixed_random_and_stored_as_their_hash() {
        let (a, shown, h) = generate(false);
        let (b, _, _) = generate(true);
        assert!(a.starts_with("ept_") && b.starts_with("eps_") && a.len() == 4 + 43);
        assert!(a.starts_with(&shown) && shown.len() == 12);
        assert_eq!(h, hash(&a));
        assert_ne!(hash(&a), hash(&b));
        assert!(is_api_token(&a) && is_api_token(&b) && !is_api_token("eyJhbGciOi.x.y"));
    }
}
