//! Who is calling: passwords, tokens, sessions, the bearer scheme, sign-in and its rate limit.

pub mod api_token;
pub mod client;
pub mod domain_proof;
pub mod mfa;
pub mod passkeys;
pub mod password;
pub mod permissions;
pub mod policy;
pub mod rate_limit;
pub mod security;
pub mod sessions;
pub mod sign_in;
pub mod sso;
pub mod token;

pub use client::ClientInfo;
pub use security::{BearerAuth, Caller, Credential};
