//! Data access, one module per aggregate. SQL lives here and nowhere else.

pub mod account_tokens;
pub mod api_tokens;
pub mod audit;
pub mod dashboards;
pub mod departments;
pub mod enterprises;
pub mod exports;
pub mod imports;
pub mod messaging;
pub mod mfa;
pub mod outbox;
pub mod passkeys;
pub mod reports;
pub mod sessions;
pub mod spreadsheets;
pub mod sso;
pub mod usage;
pub mod users;
pub mod webhooks;

/// The unique or check constraint a write violated. On Citus the error comes from a worker's
/// shard of the table: the constraint is named only in the message, with the shard id appended
/// (`users_email_key_102009`), and both are taken off here.
pub fn violated_constraint(err: &sqlx::Error) -> Option<String> {
    let e = err.as_database_error()?;
    let name = match e.constraint() {
        Some(name) => name,
        None if matches!(e.code().as_deref(), Some("23505" | "23514")) => e.message().split('"').nth(1)?,
        None => return None,
    };
    // On Citus a shard's constraint: `<name>_<shard id>`.
    let base =
        name.rsplit_once('_').filter(|(_, shard)| !shard.is_empty() && shard.bytes().all(|b| b.is_ascii_digit())).map_or(name, |(base, _)| base);
    Some(base.to_owned())
}

/// `%`, `_` and `\` match themselves in a search box.
pub fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

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
