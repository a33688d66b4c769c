//! Prometheus metrics (the `metrics` facade and its Prometheus exporter), served at `/metrics`
//! only to a scraper holding `METRICS_TOKEN` (404 without the setting). Counters and histograms
//! are recorded where things happen; gauges (pools, sockets, tenants) are read at each scrape.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `http_requests_total` | method, route, status | requests answered; `route` is the path with ids as `:id` |
//! | `http_request_duration_seconds` | method, route | latency histogram |
//! | `db_pool_connections` | pool (`requests`, `tenant_ddl`), state (`idle`, `in_use`) | PostgreSQL pool use |
//! | `db_unavailable_total` | | database errors answered 503 (pool wait, lost connection, timeout) |
//! | `redis_errors_total` | | Redis calls that failed (sessions fall back to PostgreSQL) |
//! | `websocket_connections` | | sockets open on this instance |
//! | `websocket_dropped_total` | | sockets closed for being too slow for their events (4408) |
//! | `sign_in_failures_total` | reason (`invalid_credentials`, `inactive`, `rate_limited`) | refused sign-ins |
//! | `tenants` | | tenant schemas |
//! | `tenant_migrations_pending` | | tenant schemas behind the newest tenant migration, or that failed one |

use std::sync::OnceLock;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::state::AppState;

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

/// A request path as a route template: every segment that is a UUID becomes `:id`, so the
/// labels stay few whatever the ids.
pub fn route(path: &str) -> String {
    if !path.starts_with("/api/") {
        return if matches!(path, "/healthz" | "/readyz" | "/metrics") { path.to_owned() } else { "(app)".to_owned() };
    }
    path.split('/').map(|segment| if uuid::Uuid::parse_str(segment).is_ok() { ":id" } else { segment }).collect::<Vec<_>>().join("/")
}

pub fn request(method: &str, path: &str, status: u16, seconds: f64) {
    let route = route(path);
    metrics::counter!("http_requests_total", "method" => method.to_owned(), "route" => route.clone(), "status" => status.to_string()).increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method.to_owned(), "route" => route).record(seconds);
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

/// The exposition text, with the gauges read now.
pub async fn render(state: &AppState) -> String {
    for (name, pool) in [("requests", &state.db), ("tenant_ddl", &state.tenant_ddl)] {
        let (size, idle) = (pool.size() as f64, pool.num_idle() as f64);
        metrics::gauge!("db_pool_connections", "pool" => name, "state" => "idle").set(idle);
        metrics::gauge!("db_pool_connections", "pool" => name, "state" => "in_use").set(size - idle);
    }
    metrics::gauge!("websocket_connections").set(state.realtime.connections() as f64);
    if let Ok((tenants, pending)) = crate::store::enterprises::tenant_state(&state.db, crate::tenancy::latest_version()).await {
        metrics::gauge!("tenants").set(tenants as f64);
        metrics::gauge!("tenant_migrations_pending").set(pending as f64);
    }
    handle().render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_keep_their_shape_and_lose_their_ids() {
        assert_eq!(route("/api/v1/reports/0190f7a2-8d15-776f-9968-2ef9c6fcea31/export"), "/api/v1/reports/:id/export");
        assert_eq!(route("/api/v1/enterprises"), "/api/v1/enterprises");
        assert_eq!(route("/healthz"), "/healthz");
        assert_eq!(route("/admin/enterprises/0190f7a2-8d15-776f-9968-2ef9c6fcea31"), "(app)", "the app's pages are one label");
    }
}
