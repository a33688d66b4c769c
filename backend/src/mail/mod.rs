//! E-mail as a part of the platform. A change that must tell someone writes the message into the
//! outbox in its own transaction (`enqueue`), so an invitation is never lost when the mail server
//! is down; every instance with an SMTP server sends what is due (`sender.rs`), retries with
//! backoff, and records a refusal for good. Messages are rendered from templates, in the
//! recipient's language, as plain text and HTML (`templates.rs`).

pub mod sender;
pub mod templates;

use std::time::Duration;

use serde_json::Value;
use uuid::Uuid;

/// The product's name, as e-mails sign it.
pub const PRODUCT: &str = "Enterprise Platform";

/// What a message is; each has its templates (`templates/email/<kind>.<lang>.{txt,html}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An invitation to choose a password (the link is valid 7 days).
    Invitation,
    /// A link to choose a new password (valid one hour).
    PasswordReset,
    /// A sign-in from a new country or after an impossible journey.
    SignInAlert,
    /// Things that happened to the person's reports and invitations; several waiting at once
    /// go out as one digest.
    Activity,
    /// The person's second factor changed: turned on or off, new recovery codes, or a reset by
    /// their administrator. Always sent.
    SecurityNotice,
    /// To an enterprise's CEO, at each step of its deletion: scheduled (with the purge date),
    /// restored, purged. Always sent.
    EnterpriseDeletion,
    /// To whoever asked for an enterprise's export: it is ready to download, until when.
    ExportReady,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Invitation => "invitation",
            Self::PasswordReset => "password_reset",
            Self::SignInAlert => "sign_in_alert",
            Self::Activity => "activity",
            Self::SecurityNotice => "security_notice",
            Self::EnterpriseDeletion => "enterprise_deletion",
            Self::ExportReady => "export_ready",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Invitation, Self::PasswordReset, Self::SignInAlert, Self::Activity, Self::SecurityNotice, Self::EnterpriseDeletion, Self::ExportReady]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// Writes a message for `recipient` into the outbox, in the caller's transaction. `data` is what
/// its template needs besides the recipient's name and language (read when it is sent).
pub async fn enqueue(tx: &mut sqlx::PgConnection, enterprise: Option<Uuid>, recipient: Uuid, kind: Kind, data: Value) -> sqlx::Result<()> {
    crate::store::outbox::email(tx, enterprise, recipient, kind.as_str(), data, Duration::ZERO).await
}

/// Writes an activity item for `recipient`: it waits `digest_window` for others to the same
/// person, then they all go out as one message.
pub async fn notify(
    tx: &mut sqlx::PgConnection,
    config: &crate::config::MailConfig,
    enterprise: Option<Uuid>,
    recipient: Uuid,
    item: Value,
) -> sqlx::Result<()> {
    crate::store::outbox::email(tx, enterprise, recipient, Kind::Activity.as_str(), item, config.digest_window).await
}
