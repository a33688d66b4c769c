//! Conditional requests (RFC 9110 section 13). A successful JSON GET carries an `ETag` (a hash of
//! the JSON the caller sees, before any content coding) and `Cache-Control: private, no-cache`;
//! `If-None-Match` with that tag answers 304 without a body. A PUT with `If-Match` goes ahead only
//! when the resource, read just before as the same caller, still has one of the given tags (or
//! `*` and it exists); otherwise 412 `precondition_failed`. The check and the write are two steps,
//! so two writers racing within those milliseconds can both pass: where that matters the resource
//! has its own version inside the write (a spreadsheet's `version`).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use poem::{
    Body, Endpoint, IntoResponse, Request, Response,
    http::{HeaderValue, Method, StatusCode, header},
};
use sha2::{Digest, Sha256};

use crate::{
    domain::{FieldErrors, FieldIssue},
    error::{AppError, ErrorBody, PROBLEM_JSON},
};

/// The strong tag of a JSON body.
fn tag(body: &[u8]) -> String {
    format!("\"{}\"", URL_SAFE_NO_PAD.encode(&Sha256::digest(body)[..18]))
}

/// Whether a header listing tags (`"a", W/"b"` or `*`) names `tag`; `weak` allows `W/` ones.
fn lists(header: &str, tag: &str, weak: bool) -> bool {
    header.split(',').map(str::trim).any(|t| t == "*" || t == tag || (weak && t.strip_prefix("W/") == Some(tag)))
}

/// Whether an `If-Match` value is a list of entity tags (`"x"`, `W/"x"`) or `*`, as RFC 9110
/// writes them; anything else (an empty value) matches nothing a client could mean.
fn well_formed(header: &str) -> bool {
    let tag = |t: &str| t.len() >= 2 && t.starts_with('"') && t.ends_with('"') && !t[1..t.len() - 1].contains('"');
    header.trim() == "*" || header.split(',').map(str::trim).all(|t| tag(t.strip_prefix("W/").unwrap_or(t)))
}

fn is_json(resp: &Response) -> bool {
    resp.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|ct| ct.starts_with("application/json"))
}

/// Reads a successful JSON answer and tags it: (the answer with its body, its tag).
async fn tagged(resp: Response) -> (Response, Option<String>) {
    if resp.status() != StatusCode::OK || !is_json(&resp) {
        return (resp, None);
    }
    let (parts, body) = resp.into_parts();
    let bytes = body.into_bytes().await.unwrap_or_default();
    let etag = tag(&bytes);
    (Response::from_parts(parts, Body::from(bytes)), Some(etag))
}

pub async fn conditional<E: Endpoint>(ep: E, req: Request) -> poem::Result<Response> {
    let method = req.method().clone();
    if method == Method::GET {
        let if_none_match = req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (mut resp, etag) = tagged(ep.call(req).await?.into_response()).await;
        let Some(etag) = etag else { return Ok(resp) };
        if if_none_match.is_some_and(|h| lists(&h, &etag, true)) {
            resp = Response::builder().status(StatusCode::NOT_MODIFIED).finish();
        }
        let headers = resp.headers_mut();
        headers.insert(header::ETAG, HeaderValue::from_str(&etag).expect("a tag is header-safe"));
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-cache"));
        return Ok(resp);
    }
    let if_match = req.headers().get(header::IF_MATCH).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if method == Method::PUT
        && let Some(if_match) = if_match
    {
        if !well_formed(&if_match) {
            let mut errors = FieldErrors::new();
            errors.check::<()>("If-Match", Err(FieldIssue::Invalid));
            return Err(AppError::from(errors).into());
        }
        // The resource as this caller sees it now.
        let mut current = Request::builder().method(Method::GET).uri(req.uri().clone()).finish();
        *current.headers_mut() = req.headers().clone();
        current.headers_mut().remove(header::IF_MATCH);
        current.headers_mut().remove(header::CONTENT_TYPE);
        current.headers_mut().remove(header::CONTENT_LENGTH);
        *current.extensions_mut() = req.extensions().clone();
        let (_, etag) = match ep.call(current).await {
            Ok(resp) => tagged(resp.into_response()).await,
            Err(_) => (Response::default(), None),
        };
        // Nothing readable there (404, 403): the PUT itself answers why.
        if let Some(etag) = etag
            && !lists(&if_match, &etag, false)
        {
            let status = StatusCode::PRECONDITION_FAILED;
            let body = ErrorBody::new(status, "precondition_failed", "This resource changed since you read it; read it again and retry");
            return Ok(Response::builder().status(status).content_type(PROBLEM_JSON).body(serde_json::to_vec(&body).unwrap_or_default()));
        }
    }
    Ok(ep.call(req).await?.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_if_match_that_lists_no_tag_is_malformed() {
        for good in ["*", "\"a\"", "W/\"a\", \"b\"", " \"a\" "] {
            assert!(well_formed(good), "{good}");
        }
        for bad in ["", " ", "a", "\"a", "\"a\" b", "\"a\",", "*, \"a\""] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn tags_match_as_rfc_9110_compares_them() {
        let t = tag(b"{\"a\":1}");
        assert_ne!(t, tag(b"{\"a\":2}"));
        assert!(lists(&t, &t, false) && lists(&format!("\"x\", {t}"), &t, false) && lists("*", &t, false));
        assert!(lists(&format!("W/{t}"), &t, true), "If-None-Match compares weakly");
        assert!(!lists(&format!("W/{t}"), &t, false), "If-Match compares strongly");
        assert!(!lists("\"other\"", &t, true));
    }
}
