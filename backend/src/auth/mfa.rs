//! The second factor: one-time codes from an authenticator app (TOTP, RFC 6238, by `totp-rs`:
//! SHA-1, six digits, 30-second steps, one step of clock drift either way, each step accepted
//! once) and single-use recovery codes (80 random bits each, kept as SHA-256).

use rand::Rng;
use totp_rs::{Builder, Secret, Totp};
use uuid::Uuid;

use crate::{error::AppError, store, store::users::UserRecord};

/// The name authenticator apps show beside the account.
pub const ISSUER: &str = "Enterprise Platform";
/// How many recovery codes an enrolment (or a regeneration) gives.
pub const RECOVERY_CODES: usize = 10;
/// How long the sign-in's second step may take.
pub const CHALLENGE_TTL_SECS: i64 = 300;

/// A new secret for an authenticator: 160 random bits (RFC 4226's recommendation), in base32.
pub fn new_secret() -> String {
    let bytes: [u8; 20] = rand::rng().random();
    Secret::from(bytes.to_vec()).to_base32()
}

fn totp(secret: &str, account: &str) -> Result<Totp, AppError> {
    let secret = Secret::try_from_base32(secret).map_err(|e| anyhow::anyhow!("stored TOTP secret unreadable: {e:?}"))?;
    // An account name with ':' cannot go in the otpauth label; the app shows the issuer anyway.
    let account = account.replace(':', " ");
    Builder::new()
        .with_secret(secret)
        .with_account_name(account)
        .with_issuer(Some(ISSUER))
        .build()
        .map_err(|e| AppError::Unexpected(anyhow::anyhow!("TOTP not built: {e:?}")))
}

/// The `otpauth://` URL an authenticator app reads (from its QR code).
pub fn otpauth_url(secret: &str, account: &str) -> Result<String, AppError> {
    totp(secret, account)?.to_url().map_err(|e| AppError::Unexpected(anyhow::anyhow!("otpauth URL not built: {e:?}")))
}

/// The time step a code is right for (now, or one step either side), if any.
pub fn matching_step(secret: &str, code: &str) -> Result<Option<i64>, AppError> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| anyhow::anyhow!(e))?.as_secs();
    Ok(totp(secret, "")?.check(&code, now).and_then(|step| i64::try_from(step).ok()))
}

/// Whether a code looks like an authenticator's (six digits) rather than a recovery code.
pub fn is_one_time_code(code: &str) -> bool {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Crockford's base32 alphabet: no I, L, O or U to misread.
const ALPHABET: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// Ten new recovery codes, as shown: `xxxx-xxxx-xxxx-xxxx`.
pub fn new_recovery_codes() -> Vec<String> {
    let mut rng = rand::rng();
    (0..RECOVERY_CODES)
        .map(|_| {
            let chars: Vec<char> = (0..16).map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())])).collect();
            chars.chunks(4).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("-")
        })
        .collect()
}

/// A recovery code as typed, in the form it is hashed in: lower case, without spaces or dashes,
/// with the letters Crockford reads as digits (o, i, l) read so.
pub fn normalize_recovery_code(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| match c.to_ascii_lowercase() {
            'o' => '0',
            'i' | 'l' => '1',
            c => c,
        })
        .take(64)
        .collect()
}

/// How a second factor was proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    OneTimeCode,
    RecoveryCode,
}

/// Checks a person's code (an authenticator's, or one of their recovery codes) and uses it up.
/// `None`: wrong, or already used.
pub async fn verify(db: &sqlx::PgPool, keys: &crate::sealed::KeyRing, user_id: Uuid, code: &str) -> Result<Option<Proof>, AppError> {
    if is_one_time_code(code) {
        let Some(totp) = store::mfa::totp(db, keys, user_id).await?.filter(|t| t.confirmed) else {
            return Ok(None);
        };
        let Some(step) = matching_step(&totp.secret, code)? else {
            return Ok(None);
        };
        return Ok(store::mfa::use_step(db, user_id, step, false).await?.then_some(Proof::OneTimeCode));
    }
    let normalized = normalize_recovery_code(code);
    if normalized.len() != 16 {
        return Ok(None);
    }
    Ok(store::mfa::use_recovery_code(db, user_id, &normalized).await?.then_some(Proof::RecoveryCode))
}

/// Tells the person by e-mail that their second factor changed (`change`: `totp_enabled`,
/// `totp_disabled`, `recovery_codes_regenerated`, `mfa_reset`; `password_reset` is
/// `notify_reset`'s), in the change's transaction;
/// `actor` names who did it when it was not them.
pub async fn notify(tx: &mut sqlx::PgConnection, user: &UserRecord, change: &str, actor: Option<&str>) -> Result<(), AppError> {
    notify_of(tx, user, change, actor, None).await
}

/// As `notify`, naming the passkey a change (`passkey_added`, `passkey_removed`) was about.
pub async fn notify_of(
    tx: &mut sqlx::PgConnection,
    user: &UserRecord,
    change: &str,
    actor: Option<&str>,
    passkey: Option<&str>,
) -> Result<(), AppError> {
    let data = serde_json::json!({ "change": change, "actor": actor, "passkey": passkey, "at": chrono::Utc::now().to_rfc3339() });
    crate::mail::enqueue(tx, user.enterprise_id, user.id, crate::mail::Kind::SecurityNotice, data).await?;
    Ok(())
}

/// Tells the person their password was reset from a reset link, naming the API tokens that still
/// act for them (`tokens`: name, prefix, when made and last used), in the reset's transaction.
pub async fn notify_reset(tx: &mut sqlx::PgConnection, user: &UserRecord, tokens: &[crate::store::api_tokens::TokenRecord]) -> Result<(), AppError> {
    let tokens: Vec<_> = tokens
        .iter()
        .map(|t| serde_json::json!({ "name": t.name, "prefix": t.prefix, "createdAt": t.created_at.to_rfc3339(), "lastUsedAt": t.last_used_at.map(|at| at.to_rfc3339()) }))
        .collect();
    let data = serde_json::json!({ "change": "password_reset", "tokens": tokens, "at": chrono::Utc::now().to_rfc3339() });
    crate::mail::enqueue(tx, user.enterprise_id, user.id, crate::mail::Kind::SecurityNotice, data).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_160_bits_of_base32_and_new_each_time() {
        let (a, b) = (new_secret(), new_secret());
        assert_eq!(a.len(), 32, "20 bytes are 32 base32 characters");
        assert!(a.bytes().all(|c| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c)));
        assert_ne!(a, b);
    }

    #[test]
    fn the_otpauth_url_names_the_issuer_account_and_secret() {
        let url = otpauth_url("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "ann@example.com").unwrap();
        assert!(url.starts_with("otpauth://totp/Enterprise%20Platform:ann%40example.com?"), "{url}");
        assert!(url.contains("secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP") && url.contains("issuer=Enterprise%20Platform"), "{url}");
    }

    #[test]
    fn rfc_6238_test_vector_at_59_seconds() {
        // RFC 6238, appendix B: the SHA-1 key "12345678901234567890" gives 94287082 at T = 59 s;
        // six digits are its last six.
        let secret = Secret::from(b"12345678901234567890".to_vec()).to_base32();
        let totp = totp(&secret, "").unwrap();
        assert_eq!(totp.generate(59).to_string(), "287082");
        assert_eq!(totp.check("287082", 59), Some(1));
        assert_eq!(totp.check("287083", 59), None);
    }

    #[test]
    fn recovery_codes_are_ten_distinct_groups_of_four_and_read_back_when_retyped() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), 10);
        assert_eq!(codes.iter().collect::<std::collections::HashSet<_>>().len(), 10);
        for code in &codes {
            assert_eq!(code.len(), 19);
            assert_eq!(code.split('-').count(), 4);
            assert_eq!(normalize_recovery_code(&code.to_uppercase().replace('-', " ")), code.replace('-', ""));
        }
        assert_eq!(normalize_recovery_code("AbO1-Il00"), "ab011100");
        assert!(!is_one_time_code(&codes[0]));
        assert!(is_one_time_code("123 456") && !is_one_time_code("12345a") && !is_one_time_code("1234567"));
    }
}
