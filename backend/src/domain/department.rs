use std::str::FromStr;

use poem_openapi::Enum;

/// The five departments every enterprise has, one of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Enum)]
#[oai(rename_all = "snake_case")]
pub enum DepartmentType {
    Finance,
    Operations,
    SalesMarketing,
    HumanResources,
    InformationTechnology,
}

impl DepartmentType {
    pub const ALL: [Self; 5] = [Self::Finance, Self::Operations, Self::SalesMarketing, Self::HumanResources, Self::InformationTechnology];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finance => "finance",
            Self::Operations => "operations",
            Self::SalesMarketing => "sales_marketing",
            Self::HumanResources => "human_resources",
            Self::InformationTechnology => "information_technology",
        }
    }
}

impl FromStr for DepartmentType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| format!("unknown department type {s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in DepartmentType::ALL {
            assert_eq!(t.as_str().parse::<DepartmentType>().unwrap(), t);
        }
    }
}
