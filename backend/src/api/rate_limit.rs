//! Request limits a program can see (IETF httpapi draft "RateLimit header fields"): every API
//! answer carries `RateLimit-Policy: "default";q=<requests>;w=<seconds>` and `RateLimit:
//! "default";r=<remaining>;t=<seconds to reset>`; past the limit, 429 `rate_limited` with
//! `Retry-After`. Counted per credential (a session or a program's token) when the bearer checks
//! out, and otherwise per client address: a made-up bearer buys no budget of its own (and makes no
//! counter of its own). Fixed windows are held in Redis so every instance shares them. Without
//! Redis, requests are not limited (and carry no headers): sign-in has its own limits that hold
//! then too.
//!
//! An enterprise with a limit of API calls per minute (`usage`) has a second policy,
//! `"enterprise";q=<calls>;w=60`, counted for everyone of the enterprise together; past it, 429
//! `limit_reached` (`limit: "apiCallsPerMinute"`). Every call made with an enterprise's
//! credentials is counted in its daily usage, refused ones included.

use poem::{Endpoint, IntoResponse, Request, Response, http::HeaderValue};
use uuid::Uuid;

use crate::{
    auth::{Caller, ClientInfo, security},
    error::{AppError, Limit},
    state::AppState,
    usage::Counter,
};

/// The window of the enterprises' per-minute policy.
const ENTERPRISE_WINDOW: u64 = 60;

/// Who a request counts against: its credential when the bearer verifies, else the client's
/// address.
fn counted_as(caller: Option<&Caller>, req: &Request) -> String {
    match caller {
        Some(caller) => format!("c:{}", caller.session_id),
        None => format!("ip:{}", req.data::<ClientInfo>().and_then(|c| c.ip).map(|ip| ip.to_string()).unwrap_or_default()),
    }
}

/// One policy's state after this request: (quota, window, requests counted, seconds to reset).
#[derive(Debug, Clone, Copy)]
struct Window {
    quota: u64,
    window: u64,
    counted: u64,
    reset: u64,
}

impl Window {
    fn over(self) -> bool {
        self.counted > self.quota
    }
}

/// Counts the request in a fixed window of `window` seconds under `key`.
async fn incr(conn: &mut (impl deadpool_redis::redis::aio::ConnectionLike + Send), key: &str, window: u64, quota: u64) -> anyhow::Result<Window> {
    let now = chrono::Utc::now().timestamp().max(0) as u64;
    let key = format!("{key}:{}", now / window);
    let (counted,): (u64,) = deadpool_redis::redis::pipe().incr(&key, 1).expire(&key, window as i64 + 1).ignore().query_async(conn).await?;
    Ok(Window { quota, window, counted, reset: window - now % window })
}

/// The request's windows (the default policy's, the enterprise's), or `None` without Redis.
async fn count(state: &AppState, who: &str, enterprise: Option<Uuid>) -> Option<(Option<Window>, Option<Window>)> {
    let limits = state.config.api_limits;
    let counted = async {
        let mut conn = state.cache.conn().await?;
        let default = match limits.requests {
            0 => None,
            quota => {
                let window = limits.window.as_secs().max(1);
                Some(incr(&mut *conn, &state.cache.key(&["api-requests", who]), window, u64::from(quota)).await?)
            }
        };
        let mut own = None;
        if let Some(enterprise) = enterprise
            && let Some(quota) =
                crate::usage::api_calls_per_minute((&state.cache, &state.db, state.config.tenant_limits), &mut *conn, enterprise).await?
        {
            let key = state.cache.key(&["enterprise-api-calls", &enterprise.to_string()]);
            own = Some(incr(&mut *conn, &key, ENTERPRISE_WINDOW, u64::from(quota)).await?);
        }
        anyhow::Ok((default, own))
    }
    .await;
    match counted {
        Ok(windows) => Some(windows),
        Err(err) => {
            tracing::warn!(error = %err, "redis unavailable; API requests not limited");
            None
        }
    }
}

pub async fn limit<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<Response> {
    let state = req.data::<AppState>().expect("AppState is attached to every request").clone();
    let caller = match security::verified(&security::Bearers::of(&state), &mut req).await {
        Ok(caller) => caller,
        // The bearer could not be checked (PostgreSQL away): the answer the operation would give.
        Err(err) => return Ok(poem::error::ResponseError::as_response(&err)),
    };
    let enterprise = caller.as_ref().and_then(|c| c.enterprise_id);
    if let Some(enterprise) = enterprise {
        state.usage.add(enterprise, Counter::ApiCall);
    }
    if state.config.api_limits.requests == 0 && enterprise.is_none() {
        return Ok(ep.call(req).await?.into_response());
    }
    let who = counted_as(caller.as_ref(), &req);
    let Some((default, own)) = count(&state, &who, enterprise).await else {
        return Ok(ep.call(req).await?.into_response());
    };
    let mut resp = if let Some(w) = default.filter(|w| w.over()) {
        poem::error::ResponseError::as_response(&AppError::RateLimited { retry_after_secs: w.reset })
    } else if let Some(w) = own.filter(|w| w.over()) {
        poem::error::ResponseError::as_response(&AppError::LimitReached(Limit::ApiCallsPerMinute { retry_after_secs: w.reset }))
    } else {
        match ep.call(req).await {
            Ok(resp) => resp.into_response(),
            Err(err) => crate::error::render_poem_error(err),
        }
    };
    let policies: Vec<(&str, Window)> = [("default", default), ("enterprise", own)].into_iter().filter_map(|(n, w)| Some((n, w?))).collect();
    if policies.is_empty() {
        return Ok(resp);
    }
    let policy = policies.iter().map(|(n, w)| format!("\"{n}\";q={};w={}", w.quota, w.window)).collect::<Vec<_>>().join(", ");
    let current =
        policies.iter().map(|(n, w)| format!("\"{n}\";r={};t={}", w.quota.saturating_sub(w.counted), w.reset)).collect::<Vec<_>>().join(", ");
    let headers = resp.headers_mut();
    for (name, value) in [("ratelimit-policy", policy), ("ratelimit", current)] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    }
    Ok(resp)
}
