//! The routes: the API, its document and docs page, health checks, and the single-page app.

use std::{
    future::Future,
    net::SocketAddr,
    path::Path,
    time::{Duration, Instant},
};

use anyhow::Context;
use poem::{
    Endpoint, EndpointExt, IntoResponse, Request, Response, Route, Server, get, handler,
    http::{HeaderValue, StatusCode},
    listener::{Acceptor, Listener, TcpListener},
    web::Data,
};
use sha2::Digest;
use uuid::Uuid;

use crate::{api, auth, edge, error::render_poem_error, state::AppState};

/// The whole application as one endpoint.
pub fn routes(state: AppState) -> impl Endpoint {
    let api = api::service();
    let spec = api::spec_json();
    let mut route = Route::new()
        .at("/api/openapi.json", poem::endpoint::make_sync(move |_| Response::builder().content_type("application/json").body(spec)))
        .at("/api/docs", api_docs(docs_html()))
        // The guide for programs (docs/api.md), linked from the document's introduction.
        .at(
            "/api/guide.md",
            poem::endpoint::make_sync(|_| Response::builder().content_type("text/markdown; charset=utf-8").body(include_str!("../../docs/api.md"))),
        )
        .at(
            "/api/v1/ws",
            get(crate::realtime::socket::ws).data(crate::realtime::socket::Sockets {
                hub: state.realtime.clone(),
                sessions: state.sessions.clone(),
                tokens: state.tokens.clone(),
                recheck: state.config.intervals.socket_recheck,
            }),
        )
        // Inside out: Location on 201, conditional requests, bodies checked against their schema
        // (before any precondition) and parse failures named, safe retries, request limits.
        .nest("/api/v1", api.around(api::locate).around(api::conditional).around(api::name_fields).around(api::once).around(api::limit))
        .at("/api/*", api_not_found)
        .at("/healthz", get(healthz))
        .at("/readyz", get(readyz))
        .at("/app-config.json", app_config(&state))
        .at("/metrics", get(metrics));
    if let Some(dir) = state.config.static_dir.as_deref() {
        route = route.nest("/", spa(dir));
    }

    let trusted = state.config.trusted_proxies.clone();
    let max_body = state.config.max_body_bytes;
    let max_spreadsheet_body = state.config.max_spreadsheet_body_bytes.max(max_body);
    let max_import_body = state.config.tenant_import_max_bytes.max(max_body);
    let csp = edge::content_security_policy(state.config.map_tiles.as_ref());
    let write_rules = std::sync::Arc::new(edge::WriteRules { tokens: state.tokens.clone(), generations: state.generations.clone() });
    route
        .around(move |ep, req| edge::request_rules(ep, req, write_rules.clone()))
        .around(move |ep, req| {
            // Workbooks travel whole (saves as base64, imports as files): a larger limit there.
            // And an enterprise's archive, larger still.
            let path = req.uri().path();
            let max = if path == "/api/v1/enterprises/imports" {
                max_import_body
            } else if path.contains("/spreadsheets") {
                max_spreadsheet_body
            } else {
                max_body
            };
            limit_body(ep, req, max)
        })
        .around(edge::compress)
        .around(edge::head_as_get)
        .catch_all_error(|err| async move { render_poem_error(err) })
        .around(move |ep, req| edge::security_headers(ep, req, csp.clone()))
        .around(move |ep, req| {
            let trusted = trusted.clone();
            async move { auth::client::attach(ep, req, &trusted).await }
        })
        .around(log_request)
        .around(crate::connection::attach)
        .data(state)
}

/// What the web app needs to know about this deployment before it draws a screen: for now the
/// monitoring map's optional tile server. Outside the API (it is not part of the contract).
fn app_config(state: &AppState) -> impl Endpoint + use<> {
    let tiles = state.config.map_tiles.as_ref();
    let body = serde_json::json!({
        "mapTileUrl": tiles.map(|t| &t.url),
        "mapAttribution": tiles.and_then(|t| t.attribution.as_ref()),
    })
    .to_string();
    get(poem::endpoint::make_sync(move |_| {
        Response::builder().content_type("application/json").header("cache-control", "no-cache").body(body.clone())
    }))
}

/// Prometheus metrics for a scraper holding `METRICS_TOKEN` (as a bearer token); without the
/// setting the route does not exist (404), with a wrong token it is 401.
#[handler]
async fn metrics(req: &Request, state: Data<&AppState>) -> Response {
    let Some(expected) = state.config.metrics_token.as_deref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let given = req.headers().get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let matches = given.is_some_and(|g| sha2::Sha256::digest(g.as_bytes()) == sha2::Sha256::digest(expected.as_bytes()));
    if !matches {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let gauges = crate::metrics::Gauges {
        pools: [("requests", &state.db), ("tenant_ddl", &state.tenant_ddl)].map(|(name, pool)| (name, pool.size(), pool.num_idle())).to_vec(),
        websocket_connections: state.realtime.connections(),
        spreadsheet_workers: state.engine.running(),
        tenants: crate::store::enterprises::tenant_state(&state.db, crate::tenancy::latest_version()).await.ok(),
    };
    Response::builder().content_type("text/plain; version=0.0.4").body(crate::metrics::render(&gauges))
}

/// Binds the configured address and returns where it listens and the server to await, which
/// stops gracefully at SIGINT or SIGTERM.
pub async fn listen(state: AppState) -> anyhow::Result<(SocketAddr, impl Future<Output = anyhow::Result<()>> + Send + use<>)> {
    listen_until(state, shutdown_signal()).await
}

/// As `listen`, stopping when `shutdown` completes: no new connections; WebSockets closed with
/// 1001 "going away" (clients reconnect, to another instance behind a balancer); requests in
/// flight finish within 10 s; then the heartbeats still buffered are written.
pub async fn listen_until<S: Future<Output = ()> + Send + 'static>(
    state: AppState,
    shutdown: S,
) -> anyhow::Result<(SocketAddr, impl Future<Output = anyhow::Result<()>> + Send + use<S>)> {
    let addr = state.config.bind_addr;
    crate::sealed::prepare(&state.db, &state.config.data_keys).await?;
    crate::metrics::handle();
    crate::realtime::tasks::spawn(&state.realtime, &state.sessions, &state.db, &state.config.intervals);
    crate::webhooks::dispatcher::spawn(crate::webhooks::dispatcher::Dispatcher {
        db: state.db.clone(),
        keys: state.config.data_keys.clone(),
        events: state.config.events.clone(),
        trusted_roots: state.config.trusted_roots.clone(),
        hub: state.realtime.clone(),
    });
    crate::tenancy::spares::spawn(state.tenant_ddl.clone(), state.config.tenant_spares);
    crate::enterprise_deletion::spawn(&state.db, &state.tenant_ddl, &state.sessions);
    crate::enterprise_export::spawn(&state.exporter());
    crate::usage::spawn(state.usage.clone(), state.db.clone());
    crate::mail::sender::spawn(crate::mail::sender::Sender {
        db: state.db.clone(),
        mail: state.config.mail.clone(),
        usage: state.usage.clone(),
        poll: state.config.events.outbox_poll,
    })?;
    let acceptor = TcpListener::bind(addr).into_acceptor().await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = acceptor.local_addr().into_iter().find_map(|a| a.as_socket_addr().copied()).context("no local address")?;
    let acceptor = crate::connection::Watched(acceptor);
    let after = state.clone();
    let server = async move {
        let hub = after.realtime.clone();
        let stopping = async move {
            shutdown.await;
            hub.close_all(crate::realtime::close::GOING_AWAY);
        };
        // HTTP/1.1 and h2c both: every limit (body, time, headers) holds whatever the protocol,
        // and an HTTP/2 connection may carry at most 100 requests at once.
        let served = Server::new_with_acceptor(acceptor)
            .http2_max_concurrent_streams(100)
            .run_with_graceful_shutdown(routes(state), stopping, Some(Duration::from_secs(10)))
            .await
            .context("server failed");
        if let Err(err) = after.sessions.flush_seen().await {
            tracing::warn!(error = %err, "could not write the last heartbeats");
        }
        after.realtime.flush_monitors().await;
        if let Err(err) = after.usage.flush(&after.db).await {
            tracing::warn!(error = %err, "could not write the last usage counts");
        }
        served
    };
    Ok((local, server))
}

/// Serves until SIGINT or SIGTERM.
pub async fn serve(state: AppState) -> anyhow::Result<()> {
    let (addr, server) = listen(state).await?;
    tracing::info!(%addr, "listening");
    server.await
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = ctrl_c => {},
        _ = term.recv() => {},
    }
    tracing::info!("shutting down");
}

/// The built SPA, through tower-http's file server: precompressed `.br` / `.gz` files (written by
/// the frontend build) are served to clients that accept them, with conditional and range
/// requests. Client routes (no file extension) get index.html, never cached, so a new release is
/// picked up at once; a missing asset is a real 404, so a stale bundle fails loudly instead of
/// parsing HTML as JavaScript. Hashed files under /assets never change: cached for a year.
fn spa(dir: &Path) -> impl Endpoint + use<> {
    use tower_http::services::{ServeDir, ServeFile};
    let assets = ServeDir::new(dir).precompressed_br().precompressed_gzip();
    let index = ServeFile::new(dir.join("index.html")).precompressed_br().precompressed_gzip();
    poem::endpoint::make(move |req: Request| {
        let path = req.uri().path().to_owned();
        let is_asset = path.rsplit('/').next().is_some_and(|last| last.contains('.'));
        let (assets, index) = (assets.clone(), index.clone());
        async move {
            let mut resp = if is_asset { serve_file(assets, &req).await } else { serve_file(index, &req).await }?;
            let cache = if is_asset && path.starts_with("/assets/") && resp.status().is_success() {
                "public, max-age=31536000, immutable"
            } else {
                "no-cache"
            };
            resp.headers_mut().insert("cache-control", HeaderValue::from_static(cache));
            Ok::<_, poem::Error>(resp)
        }
    })
}

/// Calls a tower-http file service with the request's method, path and headers.
async fn serve_file<S, B>(service: S, req: &Request) -> poem::Result<Response>
where
    S: tower::Service<poem::http::Request<()>, Response = poem::http::Response<B>, Error = std::convert::Infallible>,
    B: http_body::Body<Data = bytes::Bytes, Error = std::io::Error> + Send + 'static,
{
    use tower::ServiceExt;
    let mut forwarded =
        poem::http::Request::builder().method(req.method().clone()).uri(req.uri().clone()).body(()).map_err(poem::error::InternalServerError)?;
    *forwarded.headers_mut() = req.headers().clone();
    let Ok(resp) = service.oneshot(forwarded).await;
    let (parts, body) = resp.into_parts();
    let mut out = Response::builder().status(parts.status).body(poem::Body::from_bytes_stream(http_body_util::BodyDataStream::new(body)));
    *out.headers_mut() = parts.headers;
    Ok(out)
}

/// Swagger UI, under a policy of its own: it lives on the origin that holds the token, so only
/// its own inline scripts (allowed by hash) run, it connects only here, and nothing frames it.
/// Swagger UI's page, made once per process (as the document): it embeds the document it is
/// given, ours, with the statuses `spec_json` adds.
fn docs_html() -> &'static str {
    static PAGE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let api = api::service();
        api.swagger_ui_html().replace(&api.spec(), api::spec_json())
    })
}

fn api_docs(html: &'static str) -> impl Endpoint {
    use base64::Engine;
    let mut hashes = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let Some(open_end) = rest[start..].find('>').map(|i| start + i + 1) else { break };
        let Some(close) = rest[open_end..].find("</script>").map(|i| open_end + i) else { break };
        let digest = sha2::Sha256::digest(&rest.as_bytes()[open_end..close]);
        hashes.push(format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest)));
        rest = &rest[close..];
    }
    let csp = format!(
        "default-src 'none'; script-src {}; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
         base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        hashes.join(" ")
    );
    let csp = HeaderValue::from_str(&csp).expect("a header-safe policy");
    poem::endpoint::make_sync(move |_| {
        let mut resp = poem::web::Html(html).into_response();
        let headers = resp.headers_mut();
        headers.insert("content-security-policy", csp.clone());
        headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
        headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
        headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
        resp
    })
}

#[handler]
fn api_not_found() -> poem::Result<()> {
    Err(poem::Error::from_status(StatusCode::NOT_FOUND))
}

/// Liveness: the process answers. Cheap on purpose.
#[handler]
fn healthz() -> &'static str {
    "ok"
}

/// Readiness: PostgreSQL and Redis answer. Says which is down, never why: the errors (hosts,
/// users, messages) go to the log, not to whoever asks.
#[handler]
async fn readyz(state: Data<&AppState>) -> (StatusCode, String) {
    let db = sqlx::query("select 1").execute(&state.db).await.map(drop).map_err(anyhow::Error::from);
    let redis = state.cache.ping().await;
    let mut down = Vec::new();
    if let Err(e) = db {
        tracing::warn!(error = %e, "readiness: postgres unavailable");
        down.push("postgres");
    }
    if let Err(e) = redis {
        tracing::warn!(error = %e, "readiness: redis unavailable");
        down.push("redis");
    }
    if down.is_empty() { (StatusCode::OK, "ready".into()) } else { (StatusCode::SERVICE_UNAVAILABLE, format!("unavailable: {}", down.join(", "))) }
}

/// Refuses bodies over `max` bytes with 413, whatever the protocol or framing: a declared
/// `Content-Length` over the limit is refused before anything is read (hyper and h2 refuse a body
/// longer than its declared length), and a body of unknown length (HTTP/1.1 chunked, HTTP/2 or
/// h2c without `content-length`) is read up to `max` bytes and refused at the first byte past it,
/// so no body over the limit is ever held whole.
async fn limit_body<E: Endpoint>(ep: E, mut req: Request, max: usize) -> poem::Result<E::Output> {
    let declared = req.headers().get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|len| len > max) {
        return Err(poem::Error::from_status(StatusCode::PAYLOAD_TOO_LARGE));
    }
    let body = req.take_body();
    if declared.is_some() || body.is_empty() {
        req.set_body(body);
    } else {
        req.set_body(body.into_bytes_limit(max).await?);
    }
    ep.call(req).await
}

/// One structured line per request: method, path (never the query, which may carry secrets),
/// status, latency and request id, which is also returned as `x-request-id`.
async fn log_request<E: Endpoint>(ep: E, req: Request) -> poem::Result<Response> {
    let start = Instant::now();
    let request_id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .map(str::to_owned)
        .unwrap_or_else(|| Uuid::now_v7().to_string());
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let span = tracing::info_span!("request", %method, %path, request_id = %request_id);
    let context = crate::error::RequestContext { id: request_id.clone(), path: path.clone() };
    let call = crate::error::REQUEST.scope(context, ep.call(req));
    let mut resp = tracing::Instrument::instrument(call, span.clone()).await?.into_response();
    let status = resp.status().as_u16();
    let route = crate::metrics::route(resp.extensions().get::<poem_openapi::OperationId>().map(|o| o.0), &path);
    crate::metrics::request(method.as_str(), route, status, start.elapsed().as_secs_f64());
    let latency_ms = (start.elapsed().as_secs_f64() * 100_000.0).round() / 100.0;
    span.in_scope(|| tracing::info!(status, latency_ms, "request"));
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        resp.headers_mut().insert("x-request-id", v);
    }
    Ok(resp)
}
