//! Data access, one module per aggregate. SQL lives here and nowhere else.

pub mod sessions;
pub mod users;
