//! The OpenAPI document as served (`/api/openapi.json`, Swagger UI) and committed
//! (`openapi.json`): poem-openapi's, made OpenAPI 3.1 and completed with what poem-openapi cannot
//! say itself. poem-openapi writes 3.0 and has no way to write 3.1's forms (upstream
//! poem-web/poem#914), so one pass here turns its output into a document that validators and
//! client generators accept without hand edits:
//!
//! - `nullable` becomes 3.1's `type: [T, "null"]`, and for references `anyOf: [{$ref}, {type:
//!   "null"}]` (3.0's `nullable` beside `allOf` is what broke generated clients);
//! - non-standard formats become standard ones (`naive-date` is `date`; unsigned integers are
//!   `int64` or no format, with `minimum: 0`);
//! - media types are plain `application/json`; header names lower case; a `Content-Type`
//!   response header (which OpenAPI ignores) is dropped;
//! - what the middleware in front of every operation answers is documented on each: 413 and 415
//!   for bodies, 429 and the `RateLimit` headers (`api/rate_limit.rs`), `Idempotency-Key` with 409
//!   and 422 on POSTs (`api/idempotency.rs`), `ETag` / `If-None-Match` / 304 on GETs and
//!   `If-Match` / 412 on PUTs (`api/conditional.rs`);
//! - the token scheme is described beside the session one, each operation naming the scope a
//!   program's token needs (`auth::permissions::SCOPES`); sign-in needs no credential;
//! - a GET never answers 409 (the error enums it shares with writes say it could), but for the
//!   few that do (`GETS_THAT_CONFLICT`);
//! - report and spreadsheet downloads list each media type, as bytes.

use serde_json::{Map, Value, json};

use super::{audit, reports, service, spreadsheets};
use crate::auth::permissions;

const JSON: &str = "application/json";
/// The GETs whose own 409 is real: an export's download before it is ready, or after it failed or
/// expired (`export_not_ready`).
const GETS_THAT_CONFLICT: &[&str] = &["downloadEnterpriseExport"];
const PROBLEM: &str = crate::error::PROBLEM_JSON;

/// The document, made once per process: every server a process starts (each API test starts
/// one or two) serves the same, and making it took about 0.2 s of CPU in a debug build.
pub fn spec_json() -> &'static str {
    static DOCUMENT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DOCUMENT.get_or_init(make_spec_json)
}

fn make_spec_json() -> String {
    let mut spec: Value = serde_json::from_str(&service().spec()).expect("poem-openapi writes JSON");
    to_openapi_31(&mut spec);
    optional_members_take_null(&mut spec);
    spec["info"]["license"] = json!({ "name": "Proprietary", "identifier": "LicenseRef-Proprietary" });
    complete_operations(&mut spec);
    let mut json = serde_json::to_string_pretty(&spec).expect("a JSON value serializes");
    json.push('\n');
    json
}

/// Rewrites 3.0 idioms into 3.1 ones, everywhere in the document.
fn to_openapi_31(spec: &mut Value) {
    spec["openapi"] = json!("3.1.0");
    rewrite(spec);
}

fn rewrite(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(rewrite),
        Value::Object(map) => {
            map.values_mut().for_each(rewrite);
            if map.remove("nullable") == Some(Value::Bool(true)) {
                make_nullable(map);
            }
            // A described reference, `allOf: [{$ref}, {description}]` in 3.0, is a `$ref` with
            // siblings in 3.1.
            let described = match map.get("allOf").and_then(Value::as_array) {
                Some(all) if all.len() == 2 && all[0].get("$ref").is_some() && annotation_only(&all[1]) => all[0].get("$ref").cloned(),
                _ => None,
            };
            if let Some(reference) = described {
                map.remove("allOf");
                map.insert("$ref".into(), reference);
            }
            match map.get("format").and_then(Value::as_str) {
                Some("naive-date") => {
                    map.insert("format".into(), json!("date"));
                }
                Some("uint8" | "uint16" | "uint32") => {
                    map.insert("format".into(), json!("int64"));
                    map.entry("minimum").or_insert(json!(0));
                }
                Some("uint64") => {
                    map.remove("format");
                    map.entry("minimum").or_insert(json!(0));
                }
                _ => {}
            }
            for key in ["content", "headers"] {
                if let Some(Value::Object(inner)) = map.get_mut(key) {
                    let renamed: Map<String, Value> = std::mem::take(inner)
                        .into_iter()
                        .filter(|(name, _)| key != "headers" || !name.eq_ignore_ascii_case("content-type"))
                        .map(|(name, value)| {
                            let name = if key == "headers" {
                                name.to_ascii_lowercase()
                            } else if name.starts_with("application/json") {
                                JSON.to_owned()
                            } else {
                                name
                            };
                            (name, value)
                        })
                        .collect();
                    *inner = renamed;
                }
            }
        }
        _ => {}
    }
}

/// An optional member of a request body may be null, which the server reads as absent
/// (poem-openapi's reading: `None`, or the member's default): the document says so, on every
/// schema a request body reaches. Otherwise input the document forbids would be taken, and
/// clients that send `null` for "none" (ours do) would be outside the contract.
fn optional_members_take_null(spec: &mut Value) {
    fn reached(v: &Value, schemas: &Map<String, Value>, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if let Some(name) = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
                    && !out.iter().any(|n| n == name)
                {
                    out.push(name.to_owned());
                    if let Some(schema) = schemas.get(name) {
                        reached(schema, schemas, out);
                    }
                }
                map.values().for_each(|inner| reached(inner, schemas, out));
            }
            Value::Array(items) => items.iter().for_each(|inner| reached(inner, schemas, out)),
            _ => {}
        }
    }
    fn takes_null(schema: &Value) -> bool {
        schema["type"].as_array().is_some_and(|types| types.contains(&json!("null")))
            || schema["anyOf"].as_array().is_some_and(|any| any.iter().any(|s| s["type"] == "null"))
    }
    fn widen(schema: &mut Value) {
        let required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
        let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else { return };
        for (name, member) in properties.iter_mut() {
            // Inline objects are members' own schemas: their optional members too.
            widen(member);
            if !required.contains(&json!(name))
                && !takes_null(member)
                && let Some(map) = member.as_object_mut()
            {
                make_nullable(map);
            }
        }
    }
    let mut names = Vec::new();
    let schemas = spec["components"]["schemas"].as_object().cloned().unwrap_or_default();
    for item in spec["paths"].as_object().into_iter().flat_map(|paths| paths.values()) {
        for operation in item.as_object().into_iter().flat_map(|ops| ops.values()) {
            reached(&operation["requestBody"], &schemas, &mut names);
        }
    }
    for name in names {
        if let Some(schema) = spec["components"]["schemas"].get_mut(&name) {
            widen(schema);
        }
    }
}

/// A schema that only describes (what poem-openapi puts beside a `$ref` in `allOf`).
fn annotation_only(v: &Value) -> bool {
    v.as_object().is_some_and(|m| m.keys().all(|k| k == "description" || k == "title"))
}

/// A schema that may also be null, in 3.1's words.
fn make_nullable(map: &mut Map<String, Value>) {
    // poem-openapi's nullable reference: `allOf: [{$ref}, {nullable, description?}]` (the second
    // already stripped of `nullable`; its description is also the outer one).
    let reference = match map.get("allOf").and_then(Value::as_array) {
        Some(all) if all.len() == 2 && all[0].get("$ref").is_some() && annotation_only(&all[1]) => Some(all[0].clone()),
        _ => map.get("$ref").map(|r| json!({ "$ref": r })),
    };
    if let Some(reference) = reference {
        map.remove("allOf");
        map.remove("$ref");
        map.insert("anyOf".into(), json!([reference, { "type": "null" }]));
        return;
    }
    if let Some(Value::String(t)) = map.get("type").cloned() {
        map.insert("type".into(), json!([t, "null"]));
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.push(Value::Null);
        }
    }
}

fn problem(description: &str) -> Value {
    json!({ "description": description, "content": { PROBLEM: { "schema": { "$ref": "#/components/schemas/ApiError" } } } })
}

/// Documents, on each operation, what the middleware and the security scheme do.
fn complete_operations(spec: &mut Value) {
    let components = spec["components"].as_object_mut().expect("poem-openapi writes components");
    components.insert(
        "headers".into(),
        json!({
            "RateLimit-Policy": { "description": "The request limit: `\"default\";q=<requests>;w=<window seconds>`.", "schema": { "type": "string" } },
            "RateLimit": { "description": "What is left of it: `\"default\";r=<remaining>;t=<seconds until the window resets>`.", "schema": { "type": "string" } },
            "Retry-After": { "description": "Seconds to wait before retrying.", "schema": { "type": "integer", "minimum": 0 } },
            "ETag": { "description": "The representation's tag, for `If-None-Match` and `If-Match`.", "schema": { "type": "string" } },
            "Location": { "description": "Where the created resource is read.", "schema": { "type": "string" } },
        }),
    );
    components.insert(
        "parameters".into(),
        json!({
            "Idempotency-Key": { "name": "Idempotency-Key", "in": "header", "required": false, "schema": { "type": "string", "minLength": 1, "maxLength": 255 },
                "description": "Makes a retry safe: a repeat with the same key and request (method, path, query and body) within 24 hours replays the first answer instead of doing it again; an answer that held a secret (a token, a signing secret, recovery codes) is never kept, and its repeat is refused (409, reason `answer_withheld`)." },
            "If-None-Match": { "name": "If-None-Match", "in": "header", "required": false, "schema": { "type": "string" },
                "description": "An `ETag` from an earlier answer: 304 without a body when it still matches." },
            "If-Match": { "name": "If-Match", "in": "header", "required": false, "schema": { "type": "string" },
                "description": "The `ETag` read before changing: 412 when the resource changed since." },
        }),
    );
    let schemes = components.entry("securitySchemes").or_insert(json!({})).as_object_mut().expect("an object");
    schemes.insert(
        "ApiToken".into(),
        json!({ "type": "http", "scheme": "bearer", "bearerFormat": "ept_… or eps_…",
            "description": "A program's token from `POST /api-tokens` (personal, `ept_`) or `POST /enterprises/{id}/service-tokens` (an enterprise's service credential, `eps_`), sent as `Authorization: Bearer <token>`. Each operation lists the scope it needs." }),
    );
    let session_scheme = schemes.keys().find(|k| *k != "ApiToken").cloned().unwrap_or_else(|| "BearerAuth".into());
    let rate_headers =
        json!({ "ratelimit-policy": { "$ref": "#/components/headers/RateLimit-Policy" }, "ratelimit": { "$ref": "#/components/headers/RateLimit" } });

    for (path, item) in spec["paths"].as_object_mut().into_iter().flatten() {
        // SCIM answers every refusal in its own format (`api::scim::scim_errors`).
        let scim = path.starts_with("/scim/v2");
        for (method, operation) in item.as_object_mut().into_iter().flatten() {
            let id = operation["operationId"].as_str().unwrap_or_default().to_owned();
            let downloads: &[&str] = match id.as_str() {
                "exportReport" => &reports::ExportFormat::ALL.map(reports::ExportFormat::media_type),
                "exportSpreadsheet" => &spreadsheets::SheetFormat::ALL.map(spreadsheets::SheetFormat::media_type),
                "exportAuditEvents" => &audit::AuditFormat::ALL.map(audit::AuditFormat::media_type),
                _ => &[],
            };
            if !downloads.is_empty() {
                let files: Map<String, Value> =
                    downloads.iter().map(|m| ((*m).to_owned(), json!({ "schema": { "type": "string", "format": "binary" } }))).collect();
                operation["responses"]["200"]["content"] = Value::Object(files);
            }
            if permissions::PUBLIC.contains(&id.as_str()) {
                operation["security"] = json!([]);
            } else if let Some(scope) = permissions::scope(&id) {
                let scopes = if scope.is_empty() { json!([]) } else { json!([scope]) };
                operation["security"] = json!([{ session_scheme.clone(): [] }, { "ApiToken": scopes }]);
            }
            let mut parameters: Vec<Value> = Vec::new();
            let has_body = operation.get("requestBody").is_some();
            // Identity providers send `application/scim+json`, which the JSON bodies accept.
            if scim
                && let Some(content) = operation.get_mut("requestBody").and_then(|b| b.get_mut("content")).and_then(Value::as_object_mut)
                && let Some(json_body) = content.get(JSON).cloned()
            {
                content.insert("application/scim+json".into(), json_body);
            }
            let responses = operation["responses"].as_object_mut().expect("every operation has responses");
            for (status, response) in responses.iter_mut() {
                if response.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
                    response["description"] = json!(success_description(status, response));
                }
                if status.starts_with('2') {
                    let headers = response.as_object_mut().expect("an object").entry("headers").or_insert(json!({}));
                    headers.as_object_mut().expect("an object").extend(rate_headers.as_object().expect("an object").clone());
                    if status == "201" {
                        headers["location"] = json!({ "$ref": "#/components/headers/Location" });
                    }
                }
            }
            if method == "get" {
                if !GETS_THAT_CONFLICT.contains(&id.as_str()) {
                    responses.remove("409");
                }
                if let Some(ok) = responses.get_mut("200")
                    && ok["content"].get(JSON).is_some()
                {
                    ok["headers"]["etag"] = json!({ "$ref": "#/components/headers/ETag" });
                    responses.insert("304".into(), json!({ "description": "Not modified: the `If-None-Match` tag still matches." }));
                    parameters.push(json!({ "$ref": "#/components/parameters/If-None-Match" }));
                }
            }
            if method == "put" {
                responses.insert("412".into(), problem("The resource changed since the `If-Match` tag was read (`precondition_failed`)."));
                parameters.push(json!({ "$ref": "#/components/parameters/If-Match" }));
            }
            if method == "post" {
                parameters.push(json!({ "$ref": "#/components/parameters/Idempotency-Key" }));
                let running = "A request with the same `Idempotency-Key` is still running (`conflict`, reason `request_in_progress`), or was done and its answer held a secret, which is never replayed (reason `answer_withheld`).";
                match responses.get_mut("409") {
                    Some(conflict) => {
                        let said = conflict["description"].as_str().unwrap_or_default().to_owned();
                        conflict["description"] = json!(format!("{said} Or: {running}"));
                    }
                    None => {
                        responses.insert("409".into(), problem(running));
                    }
                }
                responses.insert("422".into(), problem("The `Idempotency-Key` was used for another request (`idempotency_key_reused`)."));
                responses
                    .entry("400")
                    .or_insert_with(|| problem("The `Idempotency-Key` is empty or longer than 255 characters (`validation_failed`)."));
            }
            let mut too_many = problem("Over the request limit (`rate_limited`); retry after `Retry-After` seconds.");
            too_many["headers"] = json!({ "retry-after": { "$ref": "#/components/headers/Retry-After" } });
            responses.entry("429").or_insert(too_many);
            if has_body {
                responses.entry("413").or_insert_with(|| problem("The body is larger than the server accepts (`payload_too_large`)."));
                responses.entry("415").or_insert_with(|| problem("The body is not sent as `application/json` (`unsupported_media_type`)."));
            }
            if scim {
                for response in responses.values_mut() {
                    if let Some(content) = response.get_mut("content").and_then(Value::as_object_mut)
                        && content.remove("application/problem+json").is_some()
                    {
                        content.insert("application/scim+json".into(), json!({ "schema": { "$ref": "#/components/schemas/ScimErrorBody" } }));
                    }
                }
            }
            responses.sort_keys();
            if !parameters.is_empty() {
                let list = operation.as_object_mut().expect("an object").entry("parameters").or_insert(json!([]));
                list.as_array_mut().expect("an array").extend(parameters);
            }
        }
    }
}

/// A success response's description where poem-openapi has none (an operation returning its
/// payload directly): named after what it carries.
fn success_description(status: &str, response: &Value) -> String {
    let schema = response["content"].as_object().and_then(|c| c.values().next()).map(|m| &m["schema"]);
    let name = |r: &Value| r.get("$ref").and_then(Value::as_str).and_then(|r| r.rsplit('/').next()).map(str::to_owned);
    let what = match schema {
        Some(s) if s["type"] == "array" => name(&s["items"]).map(|n| format!("The list of {n}.")),
        Some(s) => name(s).map(|n| match n.strip_prefix("Page_") {
            Some(item) => format!("One page of {item}."),
            None => format!("The {n}."),
        }),
        None => None,
    };
    what.unwrap_or_else(|| match status {
        "204" => "Done; no content.".to_owned(),
        _ => "Success.".to_owned(),
    })
}
