//! Safe retries (IETF httpapi draft "The Idempotency-Key HTTP Header Field"). A POST carrying
//! `Idempotency-Key` is done once per caller and key: a repeat with the same request (method,
//! path, query and body) within 24 hours gets the first answer again (status, body, `Location`;
//! marked `Idempotent-Replayed: true`) without being done again; the same key with another request
//! is 422 `idempotency_key_reused`; a repeat while the first is still running is 409 `conflict`
//! (reason `request_in_progress`). Answers 5xx, 429, 401 and 403 are not kept (nothing was done,
//! or it is unknown): the key is free again. The records live in Redis, shared by every instance; without
//! Redis such a POST is refused with 503 rather than risk doing it twice.
//!
//! The caller is the credential the bearer verifies as (its session or token), checked before
//! anything is replayed: a bearer that no longer verifies replays nothing (the operation answers
//! it). Without a bearer that verifies, the caller is the client's address on that one operation
//! (method and path): an anonymous request never learns that a key was used on another, and an
//! operation that needs a credential answers it 401 whatever the key (a 401 or 403 is not kept:
//! nothing was done).
//!
//! A secret is never kept: the answer of an operation in `WITHHELD` (a session, a program's token,
//! a webhook's signing secret, an authenticator's seed, recovery codes) is not stored; its repeat
//! is not done again either, but refused with 409 `conflict`, reason `answer_withheld` (look up
//! what the first request made instead).

use base64::{Engine, engine::general_purpose::STANDARD};
use deadpool_redis::redis;
use poem::{
    Endpoint, IntoResponse, Request, Response,
    http::{HeaderValue, Method, StatusCode, header},
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{
    auth::{ClientInfo, security},
    domain::{FieldErrors, FieldIssue},
    error::{AppError, Conflict, ErrorBody, render_poem_error},
    state::AppState,
};

/// How long an answer is kept for replay.
const KEEP_SECS: u64 = 24 * 3600;
/// How long a request may hold its key while running (a crashed instance frees it after this).
const RUNNING_SECS: u64 = 300;
/// Answers larger than this are not kept (the key is freed instead).
const MAX_KEPT_BYTES: usize = 4 * 1024 * 1024;
const MAX_KEY_CHARS: usize = 255;

/// The operations whose answers hold a secret: never kept for replay.
pub const WITHHELD: &[&str] = &[
    "login",
    "verifyLogin",
    "startLoginTotpEnrollment",
    "acceptInvitation",
    "startTotpEnrollment",
    "confirmTotpEnrollment",
    "regenerateRecoveryCodes",
    "finishPasskeySignIn",
    "startSsoSignIn",
    "finishSsoSignIn",
    "createApiToken",
    "createServiceToken",
    "createWebhook",
    "rotateWebhookSecret",
];

#[derive(Serialize, Deserialize)]
struct Record {
    /// The request's fingerprint: method, path and body.
    fingerprint: String,
    /// `None` while running, or when the answer held a secret (`withheld`).
    answer: Option<Answer>,
    /// Done, but its answer held a secret and was not kept.
    #[serde(default)]
    withheld: bool,
}

#[derive(Serialize, Deserialize)]
struct Answer {
    status: u16,
    content_type: Option<String>,
    location: Option<String>,
    body: String,
}

fn digest(parts: &[&[u8]]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    STANDARD.encode(&hash.finalize()[..24])
}

fn refuse_key() -> Response {
    let mut errors = FieldErrors::new();
    errors.check::<()>("Idempotency-Key", Err(FieldIssue::Invalid));
    poem::error::ResponseError::as_response(&AppError::from(errors))
}

fn reused() -> Response {
    let status = StatusCode::UNPROCESSABLE_ENTITY;
    let body = ErrorBody::new(status, "idempotency_key_reused", "This Idempotency-Key was used for another request");
    Response::builder().status(status).content_type(crate::error::PROBLEM_JSON).body(serde_json::to_vec(&body).unwrap_or_default())
}

pub async fn once<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<Response> {
    let key = match req.headers().get("idempotency-key") {
        Some(key) if req.method() == Method::POST => key.clone(),
        _ => return Ok(ep.call(req).await?.into_response()),
    };
    let Some(key) = key.to_str().ok().filter(|k| !k.is_empty() && k.len() <= MAX_KEY_CHARS) else {
        return Ok(refuse_key());
    };
    let state = req.data::<AppState>().expect("AppState is attached to every request").clone();
    let caller = match security::verified(&security::Bearers::of(&state), &mut req).await {
        Ok(Some(caller)) => digest(&[b"credential", caller.session_id.as_bytes()]),
        // The bearer could not be checked (PostgreSQL away): the answer the operation would give.
        Err(err) => return Ok(poem::error::ResponseError::as_response(&err)),
        Ok(None) => {
            let address = req.data::<ClientInfo>().and_then(|c| c.ip).map(|ip| ip.to_string()).unwrap_or_default();
            digest(&[b"address", address.as_bytes(), req.method().as_str().as_bytes(), req.uri().path().as_bytes()])
        }
    };
    let redis_key = state.cache.key(&["idempotency", &caller, &digest(&[key.as_bytes()])]);
    // The body limit has already bounded the body (app::limit_body).
    let body = req.take_body().into_bytes().await?;
    let (method, path, query) = (req.method().as_str().to_owned(), req.uri().path().to_owned(), req.uri().query().unwrap_or_default().to_owned());
    let fingerprint = digest(&[method.as_bytes(), path.as_bytes(), query.as_bytes(), &body]);
    req.set_body(body);

    let running = serde_json::to_string(&Record { fingerprint: fingerprint.clone(), answer: None, withheld: false }).expect("serializes");
    let claimed = async {
        let mut conn = state.cache.conn().await?;
        let set: Option<String> =
            redis::cmd("SET").arg(&redis_key).arg(&running).arg("NX").arg("EX").arg(RUNNING_SECS).query_async(&mut *conn).await?;
        if set.is_some() {
            return anyhow::Ok(None);
        }
        let existing: Option<String> = redis::cmd("GET").arg(&redis_key).query_async(&mut *conn).await?;
        anyhow::Ok(Some(existing))
    }
    .await;
    match claimed {
        Err(err) => {
            tracing::warn!(error = %err, "redis unavailable; a POST with Idempotency-Key refused");
            return Ok(poem::error::ResponseError::as_response(&AppError::Busy { retry_after_secs: 1 }));
        }
        // Expired between SET and GET: rare; the client retries.
        Ok(Some(None)) => return Ok(poem::error::ResponseError::as_response(&AppError::Conflict(Conflict::RequestInProgress))),
        Ok(Some(Some(existing))) => {
            let Ok(record) = serde_json::from_str::<Record>(&existing) else {
                return Ok(poem::error::ResponseError::as_response(&AppError::Conflict(Conflict::RequestInProgress)));
            };
            if record.fingerprint != fingerprint {
                return Ok(reused());
            }
            return Ok(match record.answer {
                None if record.withheld => poem::error::ResponseError::as_response(&AppError::Conflict(Conflict::AnswerWithheld)),
                None => poem::error::ResponseError::as_response(&AppError::Conflict(Conflict::RequestInProgress)),
                Some(answer) => replay(answer),
            });
        }
        Ok(None) => {}
    }

    let resp = match ep.call(req).await {
        Ok(resp) => resp.into_response(),
        Err(err) => render_poem_error(err),
    };
    let status = resp.status();
    let withheld = resp.extensions().get::<poem_openapi::OperationId>().is_some_and(|op| WITHHELD.contains(&op.0));
    let (parts, body) = resp.into_parts();
    let bytes = body.into_bytes().await.unwrap_or_default();
    let refused_caller = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
    let keep = !status.is_server_error() && status != StatusCode::TOO_MANY_REQUESTS && !refused_caller && bytes.len() <= MAX_KEPT_BYTES;
    let header_text = |name| parts.headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok()).map(str::to_owned);
    let stored = async {
        let mut conn = state.cache.conn().await?;
        if keep {
            // A refusal holds no secret and is replayed as any answer; a success is withheld.
            let answer = (!withheld || !status.is_success()).then(|| Answer {
                status: status.as_u16(),
                content_type: header_text(header::CONTENT_TYPE),
                location: header_text(header::LOCATION),
                body: STANDARD.encode(&bytes),
            });
            let withheld = answer.is_none();
            let record = serde_json::to_string(&Record { fingerprint, answer, withheld })?;
            redis::cmd("SET").arg(&redis_key).arg(record).arg("EX").arg(KEEP_SECS).query_async::<()>(&mut *conn).await?;
        } else {
            redis::cmd("DEL").arg(&redis_key).query_async::<()>(&mut *conn).await?;
        }
        anyhow::Ok(())
    }
    .await;
    if let Err(err) = stored {
        tracing::warn!(error = %err, "could not keep an idempotent answer");
    }
    Ok(Response::from_parts(parts, bytes.into()))
}

fn replay(answer: Answer) -> Response {
    let mut resp = Response::builder()
        .status(StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK))
        .body(STANDARD.decode(answer.body).unwrap_or_default());
    let headers = resp.headers_mut();
    for (name, value) in [(header::CONTENT_TYPE, answer.content_type), (header::LOCATION, answer.location)] {
        if let Some(v) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(name, v);
        }
    }
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    resp
}
