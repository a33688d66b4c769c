use std::fmt;

use super::FieldIssue;

/// A syntactically valid e-mail address, trimmed. Uniqueness is case-insensitive (the database
/// compares `lower(email)`), but the address is kept as the user typed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub const MAX_LEN: usize = 254;

    pub fn parse(raw: &str) -> Result<Self, FieldIssue> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(FieldIssue::Required);
        }
        if trimmed.len() > Self::MAX_LEN {
            return Err(FieldIssue::TooLong);
        }
        // RFC 5322 parsing by a maintained crate; we additionally insist on a dotted domain,
        // which every address a person types into a business platform has.
        let parsed: email_address::EmailAddress = trimmed.parse().map_err(|_| FieldIssue::InvalidEmail)?;
        if !parsed.domain().contains('.') || parsed.domain().starts_with('[') {
            return Err(FieldIssue::InvalidEmail);
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form used for look-ups and rate-limit keys.
    pub fn normalized(&self) -> String {
        self.0.to_lowercase()
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses_and_trims_them() {
        assert_eq!(Email::parse("  Ana.Lopez@Example.com ").unwrap().as_str(), "Ana.Lopez@Example.com");
        assert_eq!(Email::parse("a+b@sub.example.co.uk").unwrap().normalized(), "a+b@sub.example.co.uk");
    }

    #[test]
    fn empty_is_required() {
        assert_eq!(Email::parse("   "), Err(FieldIssue::Required));
    }

    #[test]
    fn rejects_malformed_addresses() {
        for bad in ["plainaddress", "@example.com", "a@", "a@localhost", "a b@example.com", "a@@example.com"] {
            assert_eq!(Email::parse(bad), Err(FieldIssue::InvalidEmail), "{bad}");
        }
    }

    #[test]
    fn rejects_overlong_addresses() {
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(Email::parse(&long), Err(FieldIssue::TooLong));
    }
}
