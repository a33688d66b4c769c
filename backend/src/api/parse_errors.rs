//! What poem-openapi refuses before an operation runs (a query parameter out of range, a path
//! segment that is no UUID, a body that does not fit the schema) becomes 400 `validation_failed`
//! naming the field as the contract does (`pageSize`, `deptId`, `body`), never the framework's
//! internals (`param0`, `"string_uuid"`).

use std::sync::OnceLock;

use poem::{Endpoint, IntoResponse, Request, Response, http::Method};
use poem_openapi::error::{ParseMultipartError, ParseParamError, ParsePathError, ParseRequestPayloadError};

use crate::{
    domain::{FieldErrors, FieldIssue},
    error::AppError,
};

/// One operation's path, split at `/`: literal segments, and `{name}` for parameters.
struct Template {
    method: Method,
    segments: Vec<String>,
}

/// Every operation's path template, from the API document (relative to `/api/v1`).
fn templates() -> &'static [Template] {
    static TEMPLATES: OnceLock<Vec<Template>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        let spec: serde_json::Value = serde_json::from_str(&super::service().spec()).expect("poem-openapi writes JSON");
        let mut out = Vec::new();
        for (path, item) in spec["paths"].as_object().into_iter().flatten() {
            for method in item.as_object().into_iter().flat_map(|m| m.keys()) {
                let Ok(method) = method.to_ascii_uppercase().parse::<Method>() else { continue };
                out.push(Template { method, segments: path.split('/').map(str::to_owned).collect() });
            }
        }
        out
    })
}

/// The name of the `index`th path parameter of the operation serving `method path`.
fn path_param_name(method: &Method, path: &str, index: usize) -> Option<String> {
    let path = path.strip_prefix("/api/v1").unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let template = templates().iter().find(|t| {
        t.method == method
            && t.segments.len() == segments.len()
            && t.segments.iter().zip(&segments).all(|(t, s)| (t.starts_with('{') && t.ends_with('}')) || t == s)
    })?;
    let name = template.segments.iter().filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')).nth(index)?;
    Some(name.to_owned())
}

/// The field a parse failure names and why (`required` when a value is missing).
fn refused_field(err: &poem::Error, method: &Method, path: &str) -> Option<(String, FieldIssue)> {
    let missing = |reason: &str| if reason.contains("expects an input value") { FieldIssue::Required } else { FieldIssue::Invalid };
    if let Some(e) = err.downcast_ref::<ParseParamError>() {
        return Some((e.name.to_owned(), missing(&e.reason)));
    }
    if let Some(e) = err.downcast_ref::<ParsePathError>() {
        let index = e.name.strip_prefix("param").and_then(|n| n.parse().ok()).unwrap_or(0);
        return Some((path_param_name(method, path, index).unwrap_or_else(|| "path".to_owned()), FieldIssue::Invalid));
    }
    if let Some(e) = err.downcast_ref::<ParseRequestPayloadError>() {
        return Some(("body".to_owned(), missing(&e.reason)));
    }
    if err.is::<ParseMultipartError>() {
        return Some(("body".to_owned(), FieldIssue::Invalid));
    }
    None
}

/// Wraps the API: parse failures become `validation_failed` naming their field.
pub async fn name_fields<E: Endpoint>(ep: E, req: Request) -> poem::Result<Response> {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    match ep.call(req).await {
        Ok(resp) => Ok(resp.into_response()),
        Err(err) => match refused_field(&err, &method, &path) {
            Some((field, issue)) => {
                let mut errors = FieldErrors::new();
                errors.check::<()>(&field, Err(issue));
                Err(AppError::from(errors).into())
            }
            None => Err(err),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_named_as_the_document_names_them() {
        let dept = "/api/v1/enterprises/0193b7c2-5f6e-7d4a-9c1b-2a3e4f5a6b7c/departments/nope";
        assert_eq!(path_param_name(&Method::GET, dept, 1).as_deref(), Some("deptId"));
        assert_eq!(path_param_name(&Method::GET, "/api/v1/reports/x", 0).as_deref(), Some("id"));
        assert_eq!(path_param_name(&Method::GET, "/api/v1/no/such/route", 0), None);
    }
}
