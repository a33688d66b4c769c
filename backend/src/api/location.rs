//! `Location` on every 201: where the created resource is read (or, for a token, revoked), built
//! from the created body's ids. One table names, for each operation that creates, the path and
//! the body members that fill it.

use poem::{Body, Endpoint, IntoResponse, Request, Response, http::HeaderValue, http::StatusCode, http::header};
use poem_openapi::OperationId;

/// Operation, path template (`{member}` is a member of the created body).
const CREATED_AT: &[(&str, &str)] = &[
    ("createEnterprise", "/enterprises/{id}"),
    ("createUser", "/users/{id}"),
    ("createDepartmentReport", "/reports/{id}"),
    ("registerMessagingKeys", "/messaging/keys/{userId}"),
    ("createConversation", "/messaging/conversations/{id}"),
    ("createGroupChat", "/messaging/conversations/{id}"),
    ("sendMessage", "/messaging/conversations/{conversationId}/messages"),
    ("createSpreadsheet", "/spreadsheets/{id}"),
    ("importSpreadsheet", "/spreadsheets/{id}"),
    ("createApiToken", "/api-tokens/{id}"),
    ("createServiceToken", "/enterprises/{enterpriseId}/service-tokens/{id}"),
];

/// The template filled from `body`; `None` when a member is missing.
fn fill(template: &str, body: &serde_json::Value) -> Option<String> {
    let mut out = String::from("/api/v1");
    for segment in template.split('/').skip(1) {
        out.push('/');
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(member) => out.push_str(body.get(member)?.as_str()?),
            None => out.push_str(segment),
        }
    }
    Some(out)
}

pub async fn locate<E: Endpoint>(ep: E, req: Request) -> poem::Result<Response> {
    let resp = ep.call(req).await?.into_response();
    if resp.status() != StatusCode::CREATED || resp.headers().contains_key(header::LOCATION) {
        return Ok(resp);
    }
    let Some(template) = resp.extensions().get::<OperationId>().and_then(|op| CREATED_AT.iter().find(|(id, _)| *id == op.0)).map(|(_, t)| *t) else {
        return Ok(resp);
    };
    let (mut parts, body) = resp.into_parts();
    let bytes = body.into_bytes().await?;
    let location = serde_json::from_slice(&bytes).ok().and_then(|body| fill(template, &body));
    if let Some(v) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        parts.headers.insert(header::LOCATION, v);
    }
    Ok(Response::from_parts(parts, Body::from(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_filled_from_the_created_body() {
        let body = serde_json::json!({ "id": "t1", "enterpriseId": "e1" });
        assert_eq!(fill("/enterprises/{enterpriseId}/service-tokens/{id}", &body).as_deref(), Some("/api/v1/enterprises/e1/service-tokens/t1"));
        assert_eq!(fill("/users/{userId}", &body), None);
    }
}
