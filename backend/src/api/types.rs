//! Shapes shared by several tags.

use chrono::{DateTime, Utc};
use poem_openapi::{Enum, Object};
use uuid::Uuid;

use crate::{
    domain::{Lang, Role, UserStatus},
    store::users::UserRecord,
};

/// A person with an account on the platform.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct User {
    pub id: Uuid,
    pub role: Role,
    /// "Former member #n" once the person's data was erased.
    pub full_name: String,
    /// Null once the person's data was erased (`erased`).
    #[oai(nullable)]
    pub email: Option<String>,
    pub status: UserStatus,
    /// The person's data was erased (`POST /users/{id}/erasure`): the account is a pseudonym that
    /// keeps what they wrote attributed, and can no longer be changed or sign in.
    pub erased: bool,
    /// When the user last signed in; null before the first sign-in.
    #[oai(nullable)]
    pub last_login: Option<DateTime<Utc>>,
    /// Null when the user is in no department.
    #[oai(nullable)]
    pub department_id: Option<Uuid>,
    /// The user's enterprise; null for platform administrators.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    /// The enterprise's name; null for platform administrators.
    #[oai(nullable)]
    pub enterprise_name: Option<String>,
    pub created_at: DateTime<Utc>,
    /// The person's language: their e-mails and exports, and the app in a browser they sign in
    /// from for the first time.
    pub locale: Lang,
    /// Set while the person has not accepted their invitation (they cannot sign in until then).
    #[oai(nullable)]
    pub invitation: Option<Invitation>,
    /// Which e-mails the person wants.
    pub notifications: NotificationPreferences,
    /// A second factor (an authenticator app) is set up.
    pub mfa_enabled: bool,
}

/// An invitation not yet accepted.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct Invitation {
    pub status: InvitationStatus,
    /// When the latest invitation was sent; null when none is live.
    #[oai(nullable)]
    pub sent_at: Option<DateTime<Utc>>,
    /// Until when its link works.
    #[oai(nullable)]
    pub expires_at: Option<DateTime<Utc>>,
}

/// `pending`: sent and valid; `expired`: its link no longer works (resend it); `bounced`: the
/// mail server refused the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum InvitationStatus {
    Pending,
    Expired,
    Bounced,
}

/// The e-mails a person receives besides invitations and password resets.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct NotificationPreferences {
    /// Reports: submitted (to the CEO), reviewed, approved or rejected (to the author).
    pub reports: bool,
    /// A sign-in from a new country or after an impossible journey.
    pub sign_ins: bool,
    /// Someone they invited accepted.
    pub invitations: bool,
}

impl Invitation {
    fn of(u: &UserRecord) -> Option<Self> {
        // Signed in through their identity provider: no password, nothing pending.
        if u.password_hash.is_some() || (u.sso_subject.is_some() && u.invitation_expires_at.is_none_or(|at| at <= Utc::now())) {
            return None;
        }
        let status = if u.invitation_bounced_at.is_some() {
            InvitationStatus::Bounced
        } else if u.invitation_expires_at.is_some_and(|at| at > Utc::now()) {
            InvitationStatus::Pending
        } else {
            InvitationStatus::Expired
        };
        Some(Self { status, sent_at: u.invitation_sent_at, expires_at: u.invitation_expires_at })
    }
}

impl From<UserRecord> for User {
    fn from(u: UserRecord) -> Self {
        Self {
            // An erased person has no password, and no invitation either.
            invitation: if u.erased_at.is_some() { None } else { Invitation::of(&u) },
            locale: Lang::from_code(&u.locale),
            notifications: NotificationPreferences { reports: u.notify_reports, sign_ins: u.notify_sign_ins, invitations: u.notify_invitations },
            id: u.id,
            role: u.role(),
            status: u.status(),
            full_name: u.full_name,
            email: if u.erased_at.is_some() { None } else { Some(u.email) },
            erased: u.erased_at.is_some(),
            last_login: u.last_login_at,
            department_id: u.department_id,
            enterprise_id: u.enterprise_id,
            enterprise_name: u.enterprise_name,
            created_at: u.created_at,
            mfa_enabled: u.mfa_enabled,
        }
    }
}

/// Who someone is, in lists and references.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct UserSummary {
    pub id: Uuid,
    pub full_name: String,
    pub email: String,
    pub role: Role,
}

impl From<&UserRecord> for UserSummary {
    fn from(u: &UserRecord) -> Self {
        Self { id: u.id, full_name: u.full_name.clone(), email: u.email.clone(), role: u.role() }
    }
}

impl UserSummary {
    /// From a left join on `public.users` (the columns are null if the account was deleted).
    pub fn from_columns(id: Uuid, name: Option<String>, email: Option<String>, role: Option<String>) -> Self {
        Self {
            id,
            full_name: name.unwrap_or_default(),
            email: email.unwrap_or_default(),
            role: role.and_then(|r| r.parse().ok()).unwrap_or(Role::DepartmentUser),
        }
    }
}

/// One page of a list.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct Page<T: poem_openapi::types::ParseFromJSON + poem_openapi::types::ToJSON> {
    pub items: Vec<T>,
    /// How many items match the filters, over all pages.
    pub total: i64,
    pub page: u32,
    pub page_size: u32,
}

impl<T: poem_openapi::types::ParseFromJSON + poem_openapi::types::ToJSON> Page<T> {
    pub fn new(items: Vec<T>, total: i64, paging: crate::store::Paging) -> Self {
        Self { items, total, page: paging.page, page_size: paging.page_size }
    }
}

/// `?page=` (from 1) and `?pageSize=` (1 to 100, default 20).
pub fn paging(page: Option<u32>, page_size: Option<u32>) -> crate::store::Paging {
    crate::store::Paging { page: page.unwrap_or(1), page_size: page_size.unwrap_or(20) }
}
