//! Request limits a program can see (IETF httpapi draft "RateLimit header fields"): every API
//! answer carries `RateLimit-Policy: "default";q=<requests>;w=<seconds>` and `RateLimit:
//! "default";r=<remaining>;t=<seconds to reset>`; past the limit, 429 `rate_limited` with
//! `Retry-After`. Counted per credential (a session or a program's token) when the bearer checks
//! out, and otherwise per client address: a made-up bearer buys no budget of its own (and makes no
//! counter of its own). Fixed windows are held in Redis so every instance shares them. Without
//! Redis, requests are not limited (and carry no headers): sign-in has its own limits that hold
//! then too.

use poem::{Endpoint, IntoResponse, Request, Response, http::HeaderValue};

use crate::{
    auth::{ClientInfo, security},
    error::AppError,
    state::AppState,
};

/// Who a request counts against: its credential when the bearer verifies, else the client's
/// address.
async fn counted_as(state: &AppState, req: &mut Request) -> Result<String, AppError> {
    Ok(match security::verified(state, req).await? {
        Some(caller) => format!("c:{}", caller.session_id),
        None => format!("ip:{}", req.data::<ClientInfo>().and_then(|c| c.ip).map(|ip| ip.to_string()).unwrap_or_default()),
    })
}

/// (requests counted in this window, seconds until it resets), or `None` without Redis.
async fn count(state: &AppState, who: &str) -> Option<(u64, u64)> {
    let window = state.config.api_limits.window.as_secs().max(1);
    let now = chrono::Utc::now().timestamp().max(0) as u64;
    let key = state.cache.key(&["api-requests", who, &(now / window).to_string()]);
    let counted = async {
        let mut conn = state.cache.conn().await?;
        let (n,): (u64,) = deadpool_redis::redis::pipe().incr(&key, 1).expire(&key, window as i64 + 1).ignore().query_async(&mut *conn).await?;
        anyhow::Ok(n)
    }
    .await;
    match counted {
        Ok(n) => Some((n, window - now % window)),
        Err(err) => {
            tracing::warn!(error = %err, "redis unavailable; API requests not limited");
            None
        }
    }
}

pub async fn limit<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<Response> {
    let state = req.data::<AppState>().expect("AppState is attached to every request").clone();
    let limits = state.config.api_limits;
    if limits.requests == 0 {
        return Ok(ep.call(req).await?.into_response());
    }
    let who = match counted_as(&state, &mut req).await {
        Ok(who) => who,
        // The bearer could not be checked (PostgreSQL away): the answer the operation would give.
        Err(err) => return Ok(poem::error::ResponseError::as_response(&err)),
    };
    let Some((n, reset)) = count(&state, &who).await else {
        return Ok(ep.call(req).await?.into_response());
    };
    let quota = u64::from(limits.requests);
    let mut resp = if n > quota {
        poem::error::ResponseError::as_response(&AppError::RateLimited { retry_after_secs: reset })
    } else {
        match ep.call(req).await {
            Ok(resp) => resp.into_response(),
            Err(err) => crate::error::render_poem_error(err),
        }
    };
    let headers = resp.headers_mut();
    let policy = format!("\"default\";q={quota};w={}", limits.window.as_secs().max(1));
    let current = format!("\"default\";r={};t={reset}", quota.saturating_sub(n));
    for (name, value) in [("ratelimit-policy", policy), ("ratelimit", current)] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    }
    Ok(resp)
}
