//! API integration tests: the real server on a real socket, a fresh PostgreSQL database per test
//! (copied from a migrated template, `database.rs`) and its own Redis key prefix.

mod accounts;
mod auth;
mod dashboards;
mod database;
mod deletion;
mod departments;
mod enterprise_export;
mod enterprise_import;
mod enterprises;
mod erasure;
mod errors;
mod events;
mod exports;
mod hardening;
mod helpers;
mod layout;
mod messaging;
mod mfa;
mod migrations;
mod monitoring;
mod openapi;
mod passkeys;
mod permissions;
mod pgbouncer;
mod programs;
mod reports;
mod scim;
mod sealed;
mod security;
mod serving;
mod spreadsheets;
mod sso;
mod usage;
mod users;
