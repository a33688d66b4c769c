//! Shapes shared by several tags (API.md, Shared shapes).

use chrono::{DateTime, Utc};
use poem_openapi::Object;
use uuid::Uuid;

use crate::{
    domain::{Role, UserStatus},
    store::users::UserRecord,
};

/// A person with an account on the platform.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct User {
    pub id: Uuid,
    pub role: Role,
    pub full_name: String,
    pub email: String,
    pub status: UserStatus,
    /// When the user last signed in.
    pub last_login: Option<DateTime<Utc>>,
    pub department_id: Option<Uuid>,
    /// The user's enterprise; null for platform administrators.
    pub enterprise_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
}

impl From<UserRecord> for User {
    fn from(u: UserRecord) -> Self {
        Self {
            id: u.id,
            role: u.role(),
            status: u.status(),
            full_name: u.full_name,
            email: u.email,
            last_login: u.last_login_at,
            department_id: u.department_id,
            enterprise_id: u.enterprise_id,
            created_at: u.created_at,
        }
    }
}
