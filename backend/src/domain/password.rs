use std::fmt;

use super::FieldIssue;

/// A new password that meets the platform's policy. Never printed: `Debug` hides it.
#[derive(Clone)]
pub struct Password(String);

impl Password {
    /// The product's minimum password length.
    pub const MIN_CHARS: usize = 8;
    /// Bounds the work argon2 does for one request.
    pub const MAX_BYTES: usize = 1024;

    pub fn parse(raw: &str) -> Result<Self, FieldIssue> {
        if raw.is_empty() {
            return Err(FieldIssue::Required);
        }
        if raw.chars().count() < Self::MIN_CHARS {
            return Err(FieldIssue::TooShort);
        }
        if raw.len() > Self::MAX_BYTES {
            return Err(FieldIssue::TooLong);
        }
        if Self::is_guessable(raw) {
            return Err(FieldIssue::TooWeak);
        }
        Ok(Self(raw.to_owned()))
    }

    /// Common and trivial passwords (`12345678`, `aaaaaaaa`, `password`, keyboard walks),
    /// judged by zxcvbn, a maintained strength estimator with common-password dictionaries:
    /// fewer than about a million guesses (its score under 2) is refused. The first 100
    /// characters decide, which bounds the estimator's work.
    fn is_guessable(raw: &str) -> bool {
        let head: String = raw.chars().take(100).collect();
        u8::from(zxcvbn::zxcvbn(&head, &[]).score()) < 2
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_counts_characters_not_bytes() {
        assert_eq!(Password::parse("").unwrap_err(), FieldIssue::Required);
        assert_eq!(Password::parse("1234567").unwrap_err(), FieldIssue::TooShort);
        assert!(Password::parse("12845%7b").is_ok());
        // Seven characters, fourteen bytes: still too short.
        assert_eq!(Password::parse("ééééééé").unwrap_err(), FieldIssue::TooShort);
        assert_eq!(Password::parse(&"x".repeat(1025)).unwrap_err(), FieldIssue::TooLong);
    }

    #[test]
    fn common_and_trivial_passwords_are_refused() {
        for weak in ["12345678", "aaaaaaaa", "        ", "password", "qwertyuiop", "Passw0rd!", "iloveyou2"] {
            assert_eq!(Password::parse(weak).unwrap_err(), FieldIssue::TooWeak, "{weak:?}");
        }
        for fine in ["correct horse battery", "staff-password", "3f9a1c0b7e5d"] {
            assert!(Password::parse(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let p = Password::parse("correct horse battery").unwrap();
        assert!(!format!("{p:?}").contains("horse"));
    }
}
