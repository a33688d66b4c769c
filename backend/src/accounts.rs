//! Accounts people own: invitations by e-mail (the person chooses their password), password
//! resets, and the e-mails that tell people what happened to their reports and invitations.

use serde_json::json;
use uuid::Uuid;

use crate::{
    domain::{Email, FieldErrors, FieldIssue},
    error::AppError,
    mail::{self, Kind},
    store::{
        self,
        account_tokens::{self, Purpose},
    },
};

/// How long an invitation link works.
pub const INVITATION_TTL: chrono::Duration = chrono::Duration::days(7);
/// How long a password-reset link works.
pub const RESET_TTL: chrono::Duration = chrono::Duration::hours(1);

/// Who sends an invitation, as the e-mail names them.
pub struct Inviter<'a> {
    pub id: Option<Uuid>,
    pub name: &'a str,
}

/// Invites `user` (who has no password yet), in the caller's transaction: a new single-use link
/// (replacing any earlier one) and its e-mail in the outbox, sent once the change commits. The
/// outbox names the link, never its secret: the sender makes that as it sends (a copy of the
/// database opens no account).
pub async fn invite(tx: &mut sqlx::PgConnection, user: Uuid, enterprise: Option<(Uuid, &str)>, inviter: &Inviter<'_>) -> sqlx::Result<()> {
    let link = account_tokens::issue(tx, user, Purpose::Invitation, INVITATION_TTL, inviter.id).await?;
    let data = json!({
        "tokenId": link.id,
        "inviter": inviter.name,
        "enterprise": enterprise.map(|(_, name)| name),
    });
    mail::enqueue(tx, enterprise.map(|(id, _)| id), user, Kind::Invitation, data).await
}

/// Sends `user` a link to choose a new password, in the caller's transaction.
pub async fn send_reset(tx: &mut sqlx::PgConnection, user: Uuid, enterprise: Option<Uuid>) -> sqlx::Result<()> {
    let link = account_tokens::issue(tx, user, Purpose::PasswordReset, RESET_TTL, None).await?;
    mail::enqueue(tx, enterprise, user, Kind::PasswordReset, json!({ "tokenId": link.id })).await
}

/// An address at a domain another enterprise has proven for its single sign-on is not for
/// `enterprise`'s people (nor the platform's, nor a new enterprise's CEO: `None`): its sign-in
/// page would send them to that enterprise's provider. A 400 naming `field`.
pub async fn sso_domain_allows(db: &sqlx::PgPool, email: &Email, enterprise: Option<Uuid>, field: &str) -> Result<(), crate::error::AppError> {
    if store::sso::claimed_elsewhere(db, enterprise, &email.normalized()).await? {
        let mut errors = FieldErrors::new();
        errors.check::<()>(field, Err(FieldIssue::Invalid));
        return Err(AppError::Explained(errors, "This address's domain signs in through another organisation's single sign-on".into()));
    }
    Ok(())
}
