//! What poem-openapi refuses before an operation runs (a query parameter out of range, a path
//! segment that is no UUID, a body that does not fit the schema) becomes 400 `validation_failed`
//! naming the field as the contract does (`pageSize`, `deptId`, `body`), never the framework's
//! internals (`param0`, `"string_uuid"`).

use std::sync::OnceLock;

use poem::{
    Endpoint, IntoResponse, Request, Response,
    http::{Method, StatusCode, header},
};
use poem_openapi::error::{ParseMultipartError, ParseParamError, ParsePathError, ParseRequestPayloadError};

use serde_json::Value;

use crate::{
    domain::{FieldErrors, FieldIssue},
    error::AppError,
};

/// One operation's path, split at `/`: literal segments, and `{name}` for parameters.
struct Template {
    method: Method,
    segments: Vec<String>,
    /// The JSON body's schema, when the operation takes one.
    body: Option<Value>,
}

/// The API document (relative to `/api/v1`) and every operation's path template.
fn document() -> &'static (Value, Vec<Template>) {
    static DOCUMENT: OnceLock<(Value, Vec<Template>)> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let spec: Value = serde_json::from_str(super::spec_json()).expect("the document is JSON");
        let mut out = Vec::new();
        for (path, item) in spec["paths"].as_object().into_iter().flatten() {
            for (method, operation) in item.as_object().into_iter().flatten() {
                let Ok(method) = method.to_ascii_uppercase().parse::<Method>() else { continue };
                let body = operation["requestBody"]["content"].get("application/json").map(|m| m["schema"].clone());
                out.push(Template { method, segments: path.split('/').map(str::to_owned).collect(), body });
            }
        }
        (spec, out)
    })
}

fn templates() -> &'static [Template] {
    &document().1
}

/// The operation serving `method path`: of the templates it fits, the one with the most literal
/// segments (`/users/me` before `/users/{id}`), as the router picks.
fn template(method: &Method, path: &str) -> Option<&'static Template> {
    let path = path.strip_prefix("/api/v1").unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let is_param = |t: &str| t.starts_with('{') && t.ends_with('}');
    templates()
        .iter()
        .filter(|t| t.method == method && t.segments.len() == segments.len() && t.segments.iter().zip(&segments).all(|(t, s)| is_param(t) || t == s))
        .max_by_key(|t| t.segments.iter().filter(|s| !is_param(s)).count())
}

/// A schema with its `$ref` followed (to the document's components).
fn resolve(schema: &Value) -> &Value {
    let spec = &document().0;
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => &spec["components"]["schemas"][name],
        None => schema,
    }
}

/// The values an integer `format` holds.
fn integer_range(format: Option<&str>) -> Option<(f64, f64)> {
    Some(match format? {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" => (i64::MIN as f64, i64::MAX as f64),
        "uint8" => (0.0, u8::MAX.into()),
        "uint16" => (0.0, u16::MAX.into()),
        "uint32" => (0.0, u32::MAX.into()),
        "uint64" => (0.0, u64::MAX as f64),
        _ => return None,
    })
}

/// Whether `value` fits `schema` as far as a consumer's mistakes go: its JSON type, an enum's
/// values, a number's range, a string's length and format, an array's items. `Err` says how it does not.
fn fits(schema: &Value, value: &Value) -> Result<(), FieldIssue> {
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        return if any.iter().any(|s| fits(resolve(s), value).is_ok()) { Ok(()) } else { Err(FieldIssue::Invalid) };
    }
    let schema = resolve(schema);
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if !types.iter().any(|t| *t == kind || (*t == "number" && kind == "integer")) {
        return Err(if kind == "null" { FieldIssue::Required } else { FieldIssue::Invalid });
    }
    if let (Some(values), false) = (schema["enum"].as_array(), value.is_null())
        && !values.contains(value)
    {
        return Err(FieldIssue::Invalid);
    }
    if let Value::Number(number) = value
        && let Some(n) = number.as_f64()
        && (schema["minimum"].as_f64().is_some_and(|min| n < min)
            || schema["maximum"].as_f64().is_some_and(|max| n > max)
            || integer_range(schema["format"].as_str()).is_some_and(|(min, max)| n < min || n > max))
    {
        return Err(FieldIssue::Invalid);
    }
    if let Value::String(text) = value {
        if schema["maxLength"].as_u64().is_some_and(|max| text.chars().count() as u64 > max) {
            return Err(FieldIssue::TooLong);
        }
        if schema["minLength"].as_u64().is_some_and(|min| (text.chars().count() as u64) < min) {
            return Err(FieldIssue::Invalid);
        }
        let parses = match schema["format"].as_str() {
            Some("uuid") => uuid::Uuid::parse_str(text).is_ok(),
            Some("date-time") => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
            Some("date") => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
            _ => true,
        };
        if !parses {
            return Err(FieldIssue::Invalid);
        }
    }
    if let Value::Array(items) = value {
        if schema["maxItems"].as_u64().is_some_and(|max| items.len() as u64 > max) {
            return Err(FieldIssue::Invalid);
        }
        if let Some(item) = schema.get("items") {
            items.iter().try_for_each(|v| fits(item, v))?;
        }
    }
    if let Value::Object(members) = value
        && let Some((_, issue)) = object_refusal(schema, members, "")
    {
        return Err(issue);
    }
    Ok(())
}

/// Where `value` does not fit an object's `schema`: a required member missing, or a member that
/// does not fit its property (named by its path below the body, `cells.0.value`).
fn object_refusal(schema: &Value, members: &serde_json::Map<String, Value>, at: &str) -> Option<(String, FieldIssue)> {
    let name = |member: &str| if at.is_empty() { member.to_owned() } else { format!("{at}.{member}") };
    for required in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        if members.get(required).is_none_or(Value::is_null) {
            return Some((name(required), FieldIssue::Required));
        }
    }
    for (member, value) in members {
        // A map's values (`additionalProperties`), or a declared member's own schema.
        let Some(property) = schema["properties"].get(member).or_else(|| schema.get("additionalProperties").filter(|s| s.is_object())) else {
            continue;
        };
        // An optional member sent as null is taken as absent (as poem-openapi reads it).
        if value.is_null() {
            continue;
        }
        let property = resolve(property);
        if let (Some(inner), true) = (value.as_object(), property["type"] == "object") {
            if let Some(refusal) = object_refusal(property, inner, &name(member)) {
                return Some(refusal);
            }
        } else if let Err(issue) = fits(property, value) {
            return Some((name(member), issue));
        }
    }
    None
}

/// What the operation's schema refuses in a JSON body that parses: the member and why, or
/// `body` itself.
fn body_refusal(schema: &Value, value: &Value) -> Option<(String, FieldIssue)> {
    let schema = resolve(schema);
    match value.as_object() {
        Some(members) if schema["type"] == "object" => object_refusal(schema, members, ""),
        _ => fits(schema, value).err().map(|issue| ("body".to_owned(), issue)),
    }
}

/// The member of a JSON body that its operation's schema refuses, and why; `body` when the body
/// is not JSON or not an object, or the refusal lies deeper than its members.
fn body_field(method: &Method, path: &str, body: &[u8]) -> (String, FieldIssue) {
    let whole = |issue| ("body".to_owned(), issue);
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return whole(FieldIssue::Invalid) };
    let Some(schema) = template(method, path).and_then(|t| t.body.as_ref()) else { return whole(FieldIssue::Invalid) };
    if value.is_null() {
        return whole(FieldIssue::Required);
    }
    body_refusal(schema, &value).unwrap_or_else(|| whole(FieldIssue::Invalid))
}

/// Checked before the operation runs (and before its preconditions: a body the operation cannot
/// take is refused as such, not answered 412) for an operation that takes JSON: a body that is
/// missing, is not JSON, or whose members the schema refuses (at most `PRECHECKED_BYTES`;
/// larger ones, a spreadsheet's workbook, are left to their types). poem-openapi reads a JSON
/// number or boolean sent for a string as its text (`{"name": false}` would name an enterprise
/// "false"); the contract says a string, so such a body is refused as any other misfit is.
fn refused_before(method: &Method, path: &str, body: &[u8]) -> Option<(String, FieldIssue)> {
    let schema = template(method, path)?.body.as_ref()?;
    if body.is_empty() {
        return Some(("body".to_owned(), FieldIssue::Required));
    }
    if body.len() > PRECHECKED_BYTES {
        // Its syntax only, without building it.
        return serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err().then(|| ("body".to_owned(), FieldIssue::Invalid));
    }
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return Some(("body".to_owned(), FieldIssue::Invalid)) };
    if value.is_null() {
        return Some(("body".to_owned(), FieldIssue::Required));
    }
    body_refusal(schema, &value)
}

/// Bodies up to this size are checked against their schema before the operation (parsing one
/// costs a few times its size in memory).
const PRECHECKED_BYTES: usize = 256 * 1024;

/// The name of the `index`th path parameter of the operation serving `method path`.
fn path_param_name(method: &Method, path: &str, index: usize) -> Option<String> {
    let name = template(method, path)?.segments.iter().filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')).nth(index)?;
    Some(name.to_owned())
}

/// The field a parse failure names and why (`required` when a value is missing).
fn refused_field(err: &poem::Error, method: &Method, path: &str, body: &[u8]) -> Option<(String, FieldIssue)> {
    let missing = |reason: &str| if reason.contains("expects an input value") { FieldIssue::Required } else { FieldIssue::Invalid };
    if let Some(e) = err.downcast_ref::<ParseParamError>() {
        return Some((e.name.to_owned(), missing(&e.reason)));
    }
    if let Some(e) = err.downcast_ref::<ParsePathError>() {
        let index = e.name.strip_prefix("param").and_then(|n| n.parse().ok()).unwrap_or(0);
        return Some((path_param_name(method, path, index).unwrap_or_else(|| "path".to_owned()), FieldIssue::Invalid));
    }
    if err.is::<ParseRequestPayloadError>() {
        return Some(body_field(method, path, body));
    }
    if err.is::<ParseMultipartError>() {
        return Some(("body".to_owned(), FieldIssue::Invalid));
    }
    None
}

/// 400 `validation_failed` naming `field`.
fn refused(field: String, issue: FieldIssue) -> poem::Error {
    let mut errors = FieldErrors::new();
    errors.check::<()>(&field, Err(issue));
    AppError::from(errors).into()
}

/// Wraps the API: parse failures become `validation_failed` naming their field.
/// No GET, HEAD or OPTIONS operation takes a body (one DELETE does), so reads, the hot path, never
/// pay for the operation lookup below.
fn takes_body(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

pub async fn name_fields<E: Endpoint>(ep: E, mut req: Request) -> poem::Result<Response> {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    // JSON bodies are kept (the body limit has bounded them) to say which member was refused.
    let json = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|ct| ct.contains("json"));
    let body = if json {
        let bytes = req.take_body().into_bytes().await?;
        req.set_body(bytes.clone());
        bytes
    } else {
        bytes::Bytes::new()
    };
    if json {
        if let Some((field, issue)) = refused_before(&method, &path, &body) {
            return Err(refused(field, issue));
        }
    } else if takes_body(&method) && template(&method, &path).is_some_and(|t| t.body.is_some()) {
        return Err(poem::Error::from_string("expected `application/json`", StatusCode::UNSUPPORTED_MEDIA_TYPE));
    }
    match ep.call(req).await {
        Ok(resp) => Ok(resp.into_response()),
        Err(err) => match refused_field(&err, &method, &path, &body) {
            Some((field, issue)) => Err(refused(field, issue)),
            None => Err(err),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_read_operation_takes_a_body_so_reads_skip_the_lookup() {
        let with_body: Vec<_> = templates().iter().filter(|t| t.body.is_some() && !takes_body(&t.method)).map(|t| t.segments.join("/")).collect();
        assert!(with_body.is_empty(), "read operations with a body: {with_body:?}");
        assert!(takes_body(&Method::DELETE), "DELETE /auth/mfa/totp takes a body");
    }

    #[test]
    fn a_refused_body_names_its_member() {
        let users = "/api/v1/users";
        let field = |body: &str| {
            let (name, issue) = body_field(&Method::POST, users, body.as_bytes());
            (name, issue.code())
        };
        let ok = r#""fullName": "A", "email": "a@b.c", "password": "p", "role": "DepartmentUser""#;
        assert_eq!(field(r#"{"fullName": 5}"#), ("email".into(), "required"));
        assert_eq!(field(&format!(r#"{{{ok}, "enterpriseId": "nope"}}"#)), ("enterpriseId".into(), "invalid"));
        assert_eq!(field(r#"{"fullName": "A", "email": "a@b.c", "password": "p", "role": "Boss"}"#), ("role".into(), "invalid"));
        assert_eq!(field(r#"{"fullName": false, "email": "a@b.c", "password": "p", "role": "DepartmentUser"}"#), ("fullName".into(), "invalid"));
        assert_eq!(field("[1]"), ("body".into(), "invalid"));
        assert_eq!(field("{"), ("body".into(), "invalid"));
    }

    #[test]
    fn a_body_whose_members_do_not_fit_is_refused_before_the_operation() {
        let users = "/api/v1/users";
        let before = |body: &str| refused_before(&Method::POST, users, body.as_bytes()).map(|(name, issue)| (name, issue.code()));
        let ok = r#""email": "a@b.c", "role": "DepartmentUser""#;
        assert_eq!(before(&format!(r#"{{"fullName": "A", {ok}}}"#)), None);
        assert_eq!(before(&format!(r#"{{"fullName": 5, {ok}}}"#)), Some(("fullName".into(), "invalid")));
        assert_eq!(before(&format!(r#"{{"fullName": "A", "password": true, {ok}}}"#)), Some(("password".into(), "invalid")));
        let save = |body: &str| refused_before(&Method::PUT, "/api/v1/spreadsheets/x", body.as_bytes()).map(|(name, issue)| (name, issue.code()));
        assert_eq!(save(r#"{"name": "S", "version": -2147483649, "content": "{}"}"#), Some(("version".into(), "invalid")));
        assert_eq!(save(r#"{"name": "S", "version": 3, "content": "{}"}"#), None);
        // Optional and null: absent, as poem-openapi reads it.
        assert_eq!(before(&format!(r#"{{"fullName": "A", "password": null, {ok}}}"#)), None);
        // Not JSON, or no body at all.
        assert_eq!(before("{"), Some(("body".into(), "invalid")));
        assert_eq!(before(""), Some(("body".into(), "required")));
        // An operation without a JSON body is left to its own parsing.
        assert_eq!(refused_before(&Method::GET, users, b"{"), None);
    }

    #[test]
    fn path_parameters_are_named_as_the_document_names_them() {
        let dept = "/api/v1/enterprises/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c/departments/nope";
        assert_eq!(path_param_name(&Method::GET, dept, 1).as_deref(), Some("deptId"));
        assert_eq!(path_param_name(&Method::GET, "/api/v1/reports/x", 0).as_deref(), Some("id"));
        assert_eq!(path_param_name(&Method::GET, "/api/v1/no/such/route", 0), None);
    }
}
