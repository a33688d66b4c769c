//! Data access, one module per aggregate. SQL lives here and nowhere else.

pub mod dashboards;
pub mod departments;
pub mod enterprises;
pub mod messaging;
pub mod reports;
pub mod sessions;
pub mod spreadsheets;
pub mod users;

/// A page request: `page` from 1, `page_size` 1..=100 (validated at the API edge).
#[derive(Debug, Clone, Copy)]
pub struct Paging {
    pub page: u32,
    pub page_size: u32,
}

impl Paging {
    pub fn limit(self) -> i64 {
        i64::from(self.page_size)
    }

    pub fn offset(self) -> i64 {
        i64::from(self.page.saturating_sub(1)) * i64::from(self.page_size)
    }
}
