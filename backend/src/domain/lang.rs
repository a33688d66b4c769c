//! The product's languages.

/// A language of the product: of the screens, of files (their labels and dates) and of e-mails; a
/// person's own is stored on their account.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Fr,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        self.pick("en", "fr")
    }

    /// As stored (`en`, `fr`); anything else is English, the default.
    pub fn from_code(code: &str) -> Self {
        if code == "fr" { Self::Fr } else { Self::En }
    }

    /// From an `Accept-Language` header: French when it comes before English.
    pub fn from_accept_language(header: &str) -> Self {
        let first = header
            .split(',')
            .map(|l| l.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
            .find(|l| l.starts_with("fr") || l.starts_with("en"));
        if first.is_some_and(|l| l.starts_with("fr")) { Self::Fr } else { Self::En }
    }

    pub fn pick(self, en: &'static str, fr: &'static str) -> &'static str {
        match self {
            Self::En => en,
            Self::Fr => fr,
        }
    }
}
