//! Which rows a caller reaches: their tenant, their department (the role gate of each operation is
//! the table in `permissions.rs`). The server decides; the frontend only mirrors it.
//! Another tenant's ids answer 404, as if they did not exist.

use uuid::Uuid;

use super::Caller;
use crate::{domain::Role, error::AppError};

impl Caller {
    pub fn is_admin(&self) -> bool {
        self.role == Role::PlatformAdmin
    }

    /// The admin reaches every enterprise; a CEO only their own (another is 404); staff get 403
    /// for enterprise-wide calls.
    pub fn require_enterprise_manager(&self, enterprise_id: Uuid) -> Result<(), AppError> {
        match self.role {
            Role::PlatformAdmin => Ok(()),
            Role::EnterpriseCeo if self.enterprise_id == Some(enterprise_id) => Ok(()),
            Role::EnterpriseCeo => Err(AppError::NotFound),
            _ if self.enterprise_id == Some(enterprise_id) => Err(AppError::Forbidden),
            _ => Err(AppError::NotFound),
        }
    }

    /// Reading one department: managers of the enterprise, or its own staff.
    pub fn may_read_department(&self, enterprise_id: Uuid, department_id: Uuid, own_department: Option<Uuid>) -> Result<(), AppError> {
        match self.role {
            Role::DepartmentHead | Role::DepartmentUser if self.enterprise_id == Some(enterprise_id) && own_department == Some(department_id) => {
                Ok(())
            }
            _ => self.require_enterprise_manager(enterprise_id).map_err(|_| AppError::NotFound),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Role, enterprise: Option<Uuid>) -> Caller {
        Caller { user_id: Uuid::now_v7(), role, enterprise_id: enterprise, session_id: Uuid::now_v7(), credential: crate::auth::Credential::Session }
    }

    #[test]
    fn a_ceo_manages_only_their_own_enterprise() {
        let (mine, other) = (Uuid::now_v7(), Uuid::now_v7());
        let ceo = caller(Role::EnterpriseCeo, Some(mine));
        assert!(ceo.require_enterprise_manager(mine).is_ok());
        assert!(matches!(ceo.require_enterprise_manager(other), Err(AppError::NotFound)));
        assert!(caller(Role::PlatformAdmin, None).require_enterprise_manager(other).is_ok());
        assert!(matches!(caller(Role::DepartmentUser, Some(mine)).require_enterprise_manager(mine), Err(AppError::Forbidden)));
        assert!(matches!(caller(Role::DepartmentUser, Some(mine)).require_enterprise_manager(other), Err(AppError::NotFound)));
    }

    #[test]
    fn staff_read_only_their_own_department() {
        let (ent, dept, other_dept) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let staff = caller(Role::DepartmentHead, Some(ent));
        assert!(staff.may_read_department(ent, dept, Some(dept)).is_ok());
        assert!(matches!(staff.may_read_department(ent, other_dept, Some(dept)), Err(AppError::NotFound)));
    }
}
