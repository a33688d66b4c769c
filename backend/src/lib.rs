//! The enterprise platform's server: see docs/architecture.md for the map.

pub mod accounts;
pub mod api;
pub mod app;
pub mod audit;
pub mod auth;
pub mod cache;
pub mod cli;
pub mod config;
pub mod connection;
pub mod db;
pub mod domain;
pub mod edge;
pub mod error;
pub mod export;
pub mod generations;
pub mod geoip;
pub mod mail;
pub mod metrics;
pub mod realtime;
pub mod seed;
pub mod spreadsheet;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod tenancy;
pub mod webhooks;
