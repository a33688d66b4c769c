use std::collections::BTreeMap;

/// Why one field of a request was refused; its code is part of the API contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldIssue {
    Required,
    InvalidEmail,
    TooShort,
    TooLong,
    /// A common or trivial password.
    TooWeak,
    /// Text holding a character that cannot be stored (NUL).
    InvalidCharacter,
    /// A spreadsheet whose formulas cost more to compute than allowed (cells read, time).
    TooComplex,
    Invalid,
}

impl FieldIssue {
    pub fn code(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::InvalidEmail => "invalid_email",
            Self::TooShort => "too_short",
            Self::TooLong => "too_long",
            Self::TooWeak => "too_weak",
            Self::InvalidCharacter => "invalid_character",
            Self::TooComplex => "too_complex",
            Self::Invalid => "invalid",
        }
    }
}

/// Collects every field's issue so a client can show them all at once.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FieldErrors(BTreeMap<String, FieldIssue>);

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps the parsed value, or records the issue under `field`.
    pub fn check<T>(&mut self, field: &str, parsed: Result<T, FieldIssue>) -> Option<T> {
        match parsed {
            Ok(value) => Some(value),
            Err(issue) => {
                self.0.insert(field.to_owned(), issue);
                None
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, FieldIssue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// `Ok(())` when no field failed.
    pub fn into_result(self) -> Result<(), Self> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }
}
