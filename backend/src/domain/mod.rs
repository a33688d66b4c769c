//! Types that validate themselves: once a request becomes one of these, nothing re-checks it.

mod department;
mod email;
mod lang;
mod password;
mod report;
mod role;
pub mod session;
pub mod text;
mod validation;

pub use department::DepartmentType;
pub use email::Email;
pub use lang::Lang;
pub use password::Password;
pub use report::{InvalidTransition, ReportStatus};
pub use role::{Role, UserStatus};
pub use validation::{FieldErrors, FieldIssue};
