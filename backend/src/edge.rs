//! Rules every request and response passes at the edge, whatever route serves it: text that
//! PostgreSQL cannot store is refused, SCIM's errors take its format, a write moves its tenant's
//! data generation, HEAD is answered wherever GET is, responses are compressed
//! when the client accepts it, and every response carries the security headers.

use std::sync::Arc;

use poem::{
    Body, Endpoint, IntoResponse, Request, Response,
    http::{HeaderValue, Method, StatusCode, header},
    web::{Compress, CompressionAlgo},
};
use serde_json::Value;

use crate::{
    auth::ClientInfo,
    auth::token::TokenKeys,
    config::MapTiles,
    domain::{FieldErrors, FieldIssue},
    error::AppError,
    generations::Generations,
};

/// What `request_rules` touches: the token keys that say whose tenant a write is for, and the
/// generations it moves.
pub struct WriteRules {
    pub tokens: Arc<TokenKeys>,
    pub generations: Generations,
}

/// The innermost of the outer layers: three rules of every request, each its own function,
/// composed here in one layer rather than three. (A layer of poem's `around` nests its future in
/// the next one's; in a debug build every nested poll frame is large, and the API tests' servers
/// run on the test's own thread, whose 2 MiB stack one more layer overflowed.)
///
/// - Text PostgreSQL cannot store is refused (`refuse_nul`).
/// - SCIM answers in its own format, whoever refused the request (`api::scim_errors`).
/// - A write moves its tenant's data generation once done, so that no instance serves a read it
///   kept from before it (`generations::moved_by`).
///
/// `rules` holds what the last rule touches, shared by every request (one `Arc` each).
pub async fn request_rules<E: Endpoint>(ep: E, req: Request, rules: Arc<WriteRules>) -> poem::Result<Response> {
    let moves = crate::generations::moved_by(&req, &rules.tokens);
    let answer =
        if crate::api::is_scim(req.uri().path()) { Ok(crate::api::scim_errors(refuse_nul(ep, req).await).await) } else { refuse_nul(ep, req).await };
    if let Some(enterprise) = moves {
        Box::pin(rules.generations.bump(enterprise)).await;
    }
    answer
}

/// PostgreSQL refuses the NUL character in text, so a NUL anywhere a client can put one (a path,
/// a query parameter, a JSON string or key under any JSON media type, a form field, a multipart
/// field's name, text or file name) is refused here with 400 `validation_failed` naming the
/// field, before any handler could pass it to the database. The bytes of uploaded files are
/// theirs to hold.
async fn refuse_nul<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<Response> {
    if let Some(field) = nul_in_uri(&req) {
        return Ok(refused(&field));
    }
    let kind = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(BodyKind::of).unwrap_or(BodyKind::Other);
    if kind != BodyKind::Other {
        // The body limit (app::limit_body) has already refused anything larger than allowed.
        let bytes = req.take_body().into_bytes().await?;
        let found = match &kind {
            BodyKind::Json => nul_in_json(&bytes),
            BodyKind::Form => form_urlencoded::parse(&bytes).find(|(k, v)| k.contains('\0') || v.contains('\0')).map(|(k, _)| k.replace('\0', "")),
            BodyKind::Multipart(boundary) => nul_in_multipart(bytes.clone(), boundary).await,
            BodyKind::Other => None,
        };
        if let Some(field) = found {
            return Ok(refused(&field));
        }
        req.set_body(bytes);
    }
    Ok(ep.call(req).await?.into_response())
}

/// How a request body is parsed, by its media type (compared without regard to case, as
/// poem-openapi does): JSON (`application/json`, any `…/…+json`), a URL-encoded form, multipart.
#[derive(Debug, PartialEq, Eq)]
enum BodyKind {
    Json,
    Form,
    Multipart(String),
    Other,
}

impl BodyKind {
    fn of(content_type: &str) -> Self {
        let Ok(mime) = content_type.parse::<mime::Mime>() else { return Self::Other };
        let subtype = mime.subtype().as_str().to_ascii_lowercase();
        let suffix = mime.suffix().map(|s| s.as_str().to_ascii_lowercase());
        match mime.type_().as_str().to_ascii_lowercase().as_str() {
            _ if subtype == "json" || suffix.as_deref() == Some("json") => Self::Json,
            "application" if subtype == "x-www-form-urlencoded" => Self::Form,
            "multipart" => mime.get_param(mime::BOUNDARY).map_or(Self::Other, |b| Self::Multipart(b.as_str().to_owned())),
            _ => Self::Other,
        }
    }
}

/// The name of the first multipart field whose name, file name or text (a field without a file
/// name) holds a NUL. A body multer cannot read is left to the operation's own parser.
async fn nul_in_multipart(bytes: bytes::Bytes, boundary: &str) -> Option<String> {
    let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(bytes) });
    let mut multipart = multer::Multipart::new(stream, boundary);
    while let Ok(Some(field)) = multipart.next_field().await {
        let name = field.name().unwrap_or("").replace('\0', "");
        let label = if name.is_empty() { "body".to_owned() } else { name };
        if field.name().is_some_and(|n| n.contains('\0')) || field.file_name().is_some_and(|n| n.contains('\0')) {
            return Some(label);
        }
        if field.file_name().is_none() && field.bytes().await.ok()?.contains(&0) {
            return Some(label);
        }
    }
    None
}

fn refused(field: &str) -> Response {
    let mut errors = FieldErrors::new();
    errors.check::<()>(field, Err(FieldIssue::InvalidCharacter));
    poem::error::ResponseError::as_response(&AppError::from(errors))
}

/// The query parameter (or `path`) whose decoded text holds a NUL.
fn nul_in_uri(req: &Request) -> Option<String> {
    let path = req.uri().path();
    if path.contains('\0') || path.to_ascii_lowercase().contains("%00") {
        return Some("path".to_owned());
    }
    let query = req.uri().query()?;
    form_urlencoded::parse(query.as_bytes()).find(|(k, v)| k.contains('\0') || v.contains('\0')).map(|(k, _)| k.replace('\0', ""))
}

/// The dotted path (`data.rows.3.1`) of the first JSON string or key holding a NUL. Only bodies
/// whose bytes hold the escape `\u0000` (JSON has no other way to write it) are parsed.
fn nul_in_json(bytes: &[u8]) -> Option<String> {
    if !bytes.windows(6).any(|w| w == b"\\u0000") {
        return None;
    }
    // Not JSON: the operation's own parser answers 400.
    let value: Value = serde_json::from_slice(bytes).ok()?;
    fn walk(v: &Value, path: &mut Vec<String>) -> Option<String> {
        match v {
            Value::String(s) if s.contains('\0') => Some(path.join(".")),
            Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
                path.push(i.to_string());
                let found = walk(item, path);
                path.pop();
                found
            }),
            Value::Object(map) => map.iter().find_map(|(k, item)| {
                path.push(k.replace('\0', ""));
                let found = if k.contains('\0') { Some(path.join(".")) } else { walk(item, path) };
                path.pop();
                found
            }),
            _ => None,
        }
    }
    walk(&value, &mut Vec::new()).map(|p| if p.is_empty() { "body".to_owned() } else { p })
}

/// HEAD is answered wherever GET is: the request is routed as a GET, and the server sends the
/// GET's headers without its body (hyper drops the body of a response to HEAD).
pub async fn head_as_get<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<E::Output> {
    if req.method() == Method::HEAD {
        req.set_method(Method::GET);
    }
    ep.call(req).await
}

/// Compresses responses (brotli or gzip, as the client prefers) that are worth it: a body of
/// text (JSON, JavaScript, CSS, HTML, SVG, plain text) of 1 KiB or more that is not already
/// encoded. Files, empty answers and precompressed assets pass as they are. Request bodies are
/// never decompressed: a compressed upload could expand past the body limit.
pub async fn compress<E: Endpoint>(ep: E, req: Request) -> poem::Result<Response> {
    let algo = negotiate(req.headers().get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or(""));
    let mut resp = ep.call(req).await?.into_response();
    let Some(algo) = algo else { return Ok(resp) };
    let headers = resp.headers();
    let compressible = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ["application/json", "text/", "application/javascript", "image/svg+xml"].iter().any(|t| ct.starts_with(t)));
    let encoded = headers.contains_key(header::CONTENT_ENCODING);
    let attachment = headers.contains_key(header::CONTENT_DISPOSITION);
    let big_enough =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok()).is_none_or(|len| len >= 1024);
    if !compressible || encoded || attachment || !big_enough || resp.status() == StatusCode::NO_CONTENT {
        return Ok(resp);
    }
    let body = resp.take_body().into_bytes().await?;
    if body.len() < 1024 {
        resp.set_body(body);
        return Ok(resp);
    }
    resp.headers_mut().append(header::VARY, HeaderValue::from_static("accept-encoding"));
    resp.set_body(Body::from(body));
    Ok(Compress::new(resp, algo).into_response())
}

/// The coding to use for an `Accept-Encoding` value: brotli, else gzip, among those the client
/// accepts with a non-zero weight (`identity` and others are served uncompressed).
fn negotiate(accept: &str) -> Option<CompressionAlgo> {
    let accepted = |name: &str| {
        accept.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or("");
            let weight = parts.find_map(|p| p.strip_prefix("q=")).map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
            (coding.eq_ignore_ascii_case(name) || coding == "*") && weight.is_some_and(|q| q > 0.0)
        })
    };
    if accepted("br") {
        Some(CompressionAlgo::BR)
    } else if accepted("gzip") {
        Some(CompressionAlgo::GZIP)
    } else {
        None
    }
}

/// The Content-Security-Policy of every response but Swagger UI's: same-origin everything, the
/// spreadsheet engine's WebAssembly, and images from the map's tile server when one is configured.
/// `connect-src 'self'` also covers the same origin's WebSocket (CSP 3).
pub fn content_security_policy(map_tiles: Option<&MapTiles>) -> HeaderValue {
    let tiles = map_tiles.map(|t| format!(" {}", t.origin)).unwrap_or_default();
    let csp = format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob:{tiles}; connect-src 'self'; font-src 'self' data:; worker-src 'self' blob:; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    );
    HeaderValue::from_str(&csp).expect("an origin serialised by url is header-safe")
}

/// The security headers of every response (the app, the API, errors). Swagger UI sets a stricter
/// policy of its own first, which is kept. HSTS is sent when a trusted proxy says the client used
/// HTTPS.
pub async fn security_headers<E: Endpoint>(ep: E, req: Request, csp: HeaderValue) -> poem::Result<Response> {
    let https = req.extensions().get::<ClientInfo>().is_some_and(|c| c.https);
    let mut resp = ep.call(req).await?.into_response();
    let headers = resp.headers_mut();
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    let defaults = [(header::X_CONTENT_TYPE_OPTIONS, "nosniff"), (header::REFERRER_POLICY, "same-origin"), (header::X_FRAME_OPTIONS, "DENY")];
    for (name, value) in defaults {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    if https {
        headers.insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000; includeSubDomains"));
    }
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_in_json_is_found_by_its_field_path() {
        assert_eq!(nul_in_json(br#"{"description":"a\u0000b"}"#).as_deref(), Some("description"));
        assert_eq!(nul_in_json(br#"{"data":{"rows":[["x","\u0000"]]}}"#).as_deref(), Some("data.rows.0.1"));
        assert_eq!(nul_in_json(br#"{"a\u0000":1}"#).as_deref(), Some("a"));
        assert_eq!(nul_in_json(br#"{"description":"a\\u0000b"}"#), None, "an escaped backslash is not a NUL");
        assert_eq!(nul_in_json(br#"{"description":"plain"}"#), None);
    }

    #[test]
    fn every_json_media_type_forms_and_multipart_are_checked() {
        for json in
            ["application/json", "APPLICATION/JSON", "application/json; charset=utf-8", "application/merge-patch+json", "application/vnd.x+json"]
        {
            assert_eq!(BodyKind::of(json), BodyKind::Json, "{json}");
        }
        assert_eq!(BodyKind::of("application/x-www-form-urlencoded"), BodyKind::Form);
        assert_eq!(BodyKind::of("Multipart/Form-Data; boundary=abc"), BodyKind::Multipart("abc".into()));
        assert_eq!(BodyKind::of("application/octet-stream"), BodyKind::Other);
        assert_eq!(BodyKind::of("not a type"), BodyKind::Other);
    }

    #[test]
    fn accept_encoding_prefers_brotli_and_honours_zero_weights() {
        assert!(matches!(negotiate("gzip, deflate, br, zstd"), Some(CompressionAlgo::BR)));
        assert!(matches!(negotiate("gzip"), Some(CompressionAlgo::GZIP)));
        assert!(matches!(negotiate("br;q=0, gzip;q=0.5"), Some(CompressionAlgo::GZIP)));
        assert!(negotiate("identity").is_none());
        assert!(negotiate("").is_none());
        assert!(negotiate("gzip;q=0").is_none());
    }
}
