use std::str::FromStr;

use poem_openapi::Enum;

/// What a user may do on the platform. Spelled exactly as the API shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Enum, serde::Serialize, serde::Deserialize)]
#[oai(rename_all = "PascalCase")]
pub enum Role {
    /// Onboards enterprises; sees everything.
    PlatformAdmin,
    /// Oversees one enterprise and reviews its reports.
    EnterpriseCeo,
    /// Leads one department.
    DepartmentHead,
    /// Works in one department.
    DepartmentUser,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PlatformAdmin => "PlatformAdmin",
            Self::EnterpriseCeo => "EnterpriseCeo",
            Self::DepartmentHead => "DepartmentHead",
            Self::DepartmentUser => "DepartmentUser",
        }
    }

    /// Tenant roles belong to an enterprise; the platform admin belongs to none.
    pub fn is_tenant_role(self) -> bool {
        self != Self::PlatformAdmin
    }

    pub const ALL: [Self; 4] = [Self::PlatformAdmin, Self::EnterpriseCeo, Self::DepartmentHead, Self::DepartmentUser];
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| format!("unknown role {s:?}"))
    }
}

/// Whether an account may sign in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum UserStatus {
    Active,
    Inactive,
}

impl UserStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Inactive => "inactive",
        }
    }
}

impl FromStr for UserStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "active" => Ok(Self::Active),
            "inactive" => Ok(Self::Inactive),
            other => Err(format!("unknown user status {other:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_round_trip() {
        for role in [Role::PlatformAdmin, Role::EnterpriseCeo, Role::DepartmentHead, Role::DepartmentUser] {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
        }
        assert!("ceo".parse::<Role>().is_err());
    }

    #[test]
    fn serde_uses_the_api_spelling() {
        assert_eq!(serde_json::to_string(&Role::EnterpriseCeo).unwrap(), "\"EnterpriseCeo\"");
    }
}
