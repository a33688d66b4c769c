//! Prometheus metrics (the `metrics` facade and its Prometheus exporter), served at `/metrics`
//! only to a scraper holding `METRICS_TOKEN` (404 without the setting). Counters and histograms
//! are recorded where things happen; gauges (pools, sockets, tenants) are read at each scrape.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `http_requests_total` | method, route, status | requests answered; `route` is the operation id (`getReport`), a fixed path outside the API, `unmatched` or `(app)` |
//! | `http_request_duration_seconds` | method, route | latency histogram |
//! | `db_pool_connections` | pool (`requests`, `tenant_ddl`), state (`idle`, `in_use`) | PostgreSQL pool use |
//! | `db_unavailable_total` | | database errors answered 503 (pool wait, lost connection, timeout) |
//! | `redis_errors_total` | | Redis calls that failed (sessions fall back to PostgreSQL) |
//! | `websocket_connections` | | sockets open on this instance |
//! | `spreadsheet_workers` | | spreadsheet engine worker processes alive on this instance |
//! | `websocket_dropped_total` | | sockets closed for being too slow for their events (4408) |
//! | `sign_in_failures_total` | reason (`invalid_credentials`, `inactive`, `rate_limited`) | refused sign-ins |
//! | `emails_total` | outcome (`sent`, `refused`, `retried`, `failed`) | e-mails the sender handled |
//! | `background_task_restarts_total` | task (`mail_sender`, `webhook_dispatcher`) | background loops started again after a panic |
//! | `tenants` | | tenant schemas |
//! | `tenant_migrations_pending` | | tenant schemas behind the newest tenant migration, or that failed one |

use std::sync::OnceLock;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process's recorder, installed at the first call.
pub fn handle() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full("http_request_duration_seconds".into()),
                &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0],
            )
            .expect("buckets are not empty")
            .install_recorder()
            .expect("the only metrics recorder of the process")
    })
}

/// The `route` label of a request: the operation id of the API operation that answered
/// (`getReport`), one of the few fixed paths outside the API, `unmatched` for any other path
/// under `/api`, and `(app)` for the web app's pages and files. The labels are fixed by the code,
/// never by what clients send.
pub fn route(operation: Option<&'static str>, path: &str) -> &'static str {
    if let Some(operation) = operation {
        return operation;
    }
    const FIXED: [&str; 6] = ["/healthz", "/readyz", "/metrics", "/api/openapi.json", "/api/docs", "/api/v1/ws"];
    match FIXED.iter().find(|p| **p == path) {
        Some(p) => p,
        None if path == "/api" || path.starts_with("/api/") => "unmatched",
        None => "(app)",
    }
}

pub fn request(method: &str, route: &'static str, status: u16, seconds: f64) {
    let method = match method {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "DELETE" => "DELETE",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    };
    metrics::counter!("http_requests_total", "method" => method, "route" => route, "status" => status.to_string()).increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route).record(seconds);
}

pub fn sign_in_failure(reason: &'static str) {
    metrics::counter!("sign_in_failures_total", "reason" => reason).increment(1);
}

pub fn redis_error() {
    metrics::counter!("redis_errors_total").increment(1);
}

pub fn db_unavailable() {
    metrics::counter!("db_unavailable_total").increment(1);
}

pub fn websocket_dropped() {
    metrics::counter!("websocket_dropped_total").increment(1);
}

/// What the gauges say now, read by whoever serves the scrape (`app.rs`).
pub struct Gauges {
    /// Each PostgreSQL pool's name, size and idle connections.
    pub pools: Vec<(&'static str, u32, usize)>,
    pub websocket_connections: usize,
    pub spreadsheet_workers: usize,
    /// Tenant schemas, and those behind the newest tenant migration (none: could not be read).
    pub tenants: Option<(i64, i64)>,
}

/// The exposition text, with the gauges as given.
pub fn render(gauges: &Gauges) -> String {
    for &(name, size, idle) in &gauges.pools {
        let (size, idle) = (f64::from(size), idle as f64);
        metrics::gauge!("db_pool_connections", "pool" => name, "state" => "idle").set(idle);
        metrics::gauge!("db_pool_connections", "pool" => name, "state" => "in_use").set(size - idle);
    }
    metrics::gauge!("websocket_connections").set(gauges.websocket_connections as f64);
    metrics::gauge!("spreadsheet_workers").set(gauges.spreadsheet_workers as f64);
    if let Some((tenants, pending)) = gauges.tenants {
        metrics::gauge!("tenants").set(tenants as f64);
        metrics::gauge!("tenant_migrations_pending").set(pending as f64);
    }
    handle().render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_operations_or_a_fixed_few() {
        assert_eq!(route(Some("exportReport"), "/api/v1/reports/0190f7a2-8d15-776f-9968-2ef9c6fcea31/export"), "exportReport");
        assert_eq!(route(None, "/api/v1/made-up-path-segment"), "unmatched");
        assert_eq!(route(None, "/api/v1/ws"), "/api/v1/ws");
        assert_eq!(route(None, "/healthz"), "/healthz");
        assert_eq!(route(None, "/admin/enterprises/0190f7a2-8d15-776f-9968-2ef9c6fcea31"), "(app)", "the app's pages are one label");
    }
}
