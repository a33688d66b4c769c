use std::str::FromStr;

use poem_openapi::Enum;

use super::Role;

/// Where a report is in its review: draft, submitted, reviewed, approved, rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ReportStatus {
    Draft,
    Submitted,
    Reviewed,
    Approved,
    Rejected,
}

/// A move the state machine refuses: answered 409 `invalid_transition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidTransition {
    pub from: ReportStatus,
    pub to: ReportStatus,
}

impl ReportStatus {
    pub const ALL: [Self; 5] = [Self::Draft, Self::Submitted, Self::Reviewed, Self::Approved, Self::Rejected];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Submitted => "submitted",
            Self::Reviewed => "reviewed",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
        }
    }

    /// Only drafts and rejected reports can be edited or deleted.
    pub fn is_editable(self) -> bool {
        matches!(self, Self::Draft | Self::Rejected)
    }

    /// The CEO (and the platform admin) never see drafts.
    pub fn visible_to_reviewers(self) -> bool {
        self != Self::Draft
    }

    /// Department staff send a draft to the CEO.
    pub fn submit(self) -> Result<Self, InvalidTransition> {
        self.to(Self::Submitted, Role::DepartmentUser)
    }

    /// Editing a rejected report takes it back to draft; a draft stays a draft.
    pub fn edit(self) -> Result<Self, InvalidTransition> {
        match self {
            Self::Draft | Self::Rejected => Ok(Self::Draft),
            from => Err(InvalidTransition { from, to: Self::Draft }),
        }
    }

    /// The CEO's review: submitted -> reviewed | approved | rejected; reviewed -> approved | rejected.
    pub fn review(self, to: Self) -> Result<Self, InvalidTransition> {
        self.to(to, Role::EnterpriseCeo)
    }

    /// Every permitted move, with who makes it. Approved is final.
    pub fn to(self, to: Self, by: Role) -> Result<Self, InvalidTransition> {
        use ReportStatus::*;
        let staff = matches!(by, Role::DepartmentHead | Role::DepartmentUser);
        let ceo = by == Role::EnterpriseCeo;
        let ok = match (self, to) {
            (Draft, Submitted) => staff,
            (Submitted, Reviewed | Approved | Rejected) => ceo,
            (Reviewed, Approved | Rejected) => ceo,
            (Rejected, Draft) => staff,
            _ => false,
        };
        if ok { Ok(to) } else { Err(InvalidTransition { from: self, to }) }
    }
}

impl FromStr for ReportStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| format!("unknown report status {s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::{ReportStatus::*, *};
    use proptest::prelude::*;

    #[test]
    fn the_happy_path_and_the_rework_loop() {
        assert_eq!(Draft.submit(), Ok(Submitted));
        assert_eq!(Submitted.review(Rejected), Ok(Rejected));
        assert_eq!(Rejected.edit(), Ok(Draft));
        assert_eq!(Draft.submit().and_then(|s| s.review(Reviewed)).and_then(|s| s.review(Approved)), Ok(Approved));
    }

    #[test]
    fn approved_is_final_and_only_drafts_and_rejections_are_editable() {
        for to in ReportStatus::ALL {
            for by in [Role::PlatformAdmin, Role::EnterpriseCeo, Role::DepartmentHead, Role::DepartmentUser] {
                assert!(Approved.to(to, by).is_err());
            }
        }
        assert_eq!(ReportStatus::ALL.iter().filter(|s| s.is_editable()).count(), 2);
        assert!(Submitted.edit().is_err());
        assert!(Draft.review(Approved).is_err(), "a draft is not the CEO's to review");
        assert!(Submitted.review(Draft).is_err());
    }

    fn status() -> impl Strategy<Value = ReportStatus> {
        proptest::sample::select(ReportStatus::ALL.to_vec())
    }

    fn role() -> impl Strategy<Value = Role> {
        proptest::sample::select(vec![Role::PlatformAdmin, Role::EnterpriseCeo, Role::DepartmentHead, Role::DepartmentUser])
    }

    proptest! {
        /// The platform admin never moves a report; staff never review; the CEO never submits.
        #[test]
        fn each_move_belongs_to_one_kind_of_person(from in status(), to in status(), by in role()) {
            if let Ok(next) = from.to(to, by) {
                prop_assert_eq!(next, to);
                prop_assert_ne!(by, Role::PlatformAdmin);
                let reviewing = matches!(to, Reviewed | Approved | Rejected);
                prop_assert_eq!(by == Role::EnterpriseCeo, reviewing);
            }
        }

        /// Any walk of permitted moves that reaches approved stays there, and a report the CEO
        /// has seen (submitted or later) only returns to the department through a rejection.
        #[test]
        fn walks_never_leave_approved(steps in proptest::collection::vec((status(), role()), 0..30)) {
            let mut current = Draft;
            for (to, by) in steps {
                if let Ok(next) = current.to(to, by) {
                    prop_assert!(current != Approved);
                    if next == Draft {
                        prop_assert_eq!(current, Rejected);
                    }
                    current = next;
                }
            }
        }
    }
}
