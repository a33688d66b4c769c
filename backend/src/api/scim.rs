//! Provisioning (SCIM 2.0, RFC 7643 and 7644) at `/api/v1/scim/v2`: an enterprise's identity
//! provider creates, changes, deactivates and deletes its department staff with a service
//! credential that has the `scim:write` scope (its CEO makes it on the Integrations screen), or
//! reads them with `scim:read`. Filters and PATCH paths are parsed by the `scim_v2` crate; people
//! are made and changed through the same functions as `POST /users` and `PUT /users/{id}`, so
//! a deactivation ends their sessions and tokens at once, and everything is audited. Errors are
//! SCIM's (`scim_errors` rewrites the problem details of everything under the prefix).

use poem::{
    Response,
    http::{HeaderValue, StatusCode, header},
    web::Data,
};
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
};
use scim_v2::{
    filter::{AttrExp, AttrPath, CompValue, CompareOp, Filter, PatchPath, ValFilter},
    models::others::{OperationTarget, PatchOp, PatchOperation},
};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::{
    ApiTags,
    users::{CreateUser, UpdateUser, create_user, delete_user, find_manageable, update_user},
};
use crate::{
    auth::{BearerAuth, Caller},
    domain::{FieldErrors, FieldIssue, Lang, Role, UserStatus},
    error::{AppError, ErrorBody},
    state::AppState,
    store::{self, users::UserRecord},
};

const USER: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
const LIST: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
/// The largest page (`count`).
pub const MAX_COUNT: u32 = 100;
/// Where the API is mounted, and SCIM under it.
const PREFIX: &str = "/api/v1/scim/v2";

#[derive(Default)]
pub struct ScimApi;

/// SCIM's media type, for what SCIM answers.
const SCIM_JSON: &str = "application/scim+json";

#[derive(Debug, ApiResponse)]
pub enum Found {
    /// The resource, or a `ListResponse`.
    #[oai(status = 200, content_type = "application/scim+json")]
    Ok(Json<Value>),
}

#[derive(Debug, ApiResponse)]
pub enum Created {
    /// The person, as SCIM shows them.
    #[oai(status = 201, content_type = "application/scim+json")]
    Created(Json<Value>),
}

#[derive(Debug, ApiResponse)]
pub enum Deleted {
    /// The person is gone (their sessions and tokens with them).
    #[oai(status = 204)]
    Deleted,
}

/// A SCIM error (RFC 7644 section 3.12).
#[derive(Debug, Object, serde::Serialize)]
#[oai(rename_all = "camelCase")]
#[serde(rename_all = "camelCase")]
pub struct ScimErrorBody {
    /// `["urn:ietf:params:scim:api:messages:2.0:Error"]`.
    pub schemas: Vec<String>,
    /// The HTTP status, as text.
    pub status: String,
    /// For a 400: `invalidFilter`, `invalidPath`, `invalidSyntax`, `invalidValue`, `noTarget`,
    /// `mutability`; for a 409: `uniqueness`.
    #[oai(skip_serializing_if_is_none)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scim_type: Option<String>,
    pub detail: String,
}

impl ScimErrorBody {
    fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// SCIM's error body for an answer of `status` whose problem details are `problem`.
fn scim_error(status: StatusCode, problem: &ErrorBody) -> ScimErrorBody {
    let fields = problem.fields.iter().flat_map(|f| f.iter());
    let scim_type = match status {
        StatusCode::CONFLICT if problem.fields.is_some() => Some("uniqueness".to_owned()),
        StatusCode::BAD_REQUEST => fields.map(|(k, _)| k.clone()).find(|k| SCIM_TYPES.contains(&k.as_str())).or(Some("invalidValue".into())),
        _ => None,
    };
    ScimErrorBody { schemas: vec![ERROR.into()], status: status.as_u16().to_string(), scim_type, detail: problem.message.clone() }
}

/// The `scimType`s of a 400.
const SCIM_TYPES: [&str; 6] = ["invalidFilter", "invalidPath", "invalidSyntax", "invalidValue", "noTarget", "mutability"];

#[derive(Debug, ApiResponse)]
pub enum ScimError {
    /// Not a SCIM resource, filter or PatchOp (`scimType` says which).
    #[oai(status = 400, content_type = "application/scim+json")]
    BadRequest(Json<ScimErrorBody>),
    /// No token, or a dead one.
    #[oai(status = 401, content_type = "application/scim+json")]
    Unauthorized(Json<ScimErrorBody>),
    /// A token without the `scim:read` / `scim:write` scope, or a caller who is not an
    /// enterprise's CEO (or their service credential).
    #[oai(status = 403, content_type = "application/scim+json")]
    Forbidden(Json<ScimErrorBody>),
    /// No such person in the caller's enterprise (its department staff).
    #[oai(status = 404, content_type = "application/scim+json")]
    NotFound(Json<ScimErrorBody>),
    /// `userName` or `externalId` taken (`uniqueness`), or a person who wrote reports
    /// (deactivate them instead).
    #[oai(status = 409, content_type = "application/scim+json")]
    Conflict(Json<ScimErrorBody>),
    /// Busy, or a dependency did not answer in time; retry after `Retry-After` seconds.
    #[oai(status = 503, content_type = "application/scim+json")]
    Unavailable(Json<ScimErrorBody>, #[oai(header = "Retry-After")] u64),
    /// Unexpected server error; details are in the server log.
    #[oai(status = 500, content_type = "application/scim+json")]
    Internal(Json<ScimErrorBody>),
}

impl From<AppError> for ScimError {
    fn from(err: AppError) -> Self {
        let status = err.status();
        let body = Json(scim_error(status, &err.body()));
        match status {
            StatusCode::BAD_REQUEST => Self::BadRequest(body),
            StatusCode::UNAUTHORIZED => Self::Unauthorized(body),
            StatusCode::FORBIDDEN => Self::Forbidden(body),
            StatusCode::NOT_FOUND => Self::NotFound(body),
            StatusCode::CONFLICT => Self::Conflict(body),
            StatusCode::SERVICE_UNAVAILABLE => {
                Self::Unavailable(body, if let AppError::Busy { retry_after_secs } = err { retry_after_secs } else { 1 })
            }
            _ => Self::Internal(body),
        }
    }
}

crate::api_errors!(@via_app_error ScimError: sqlx::Error, anyhow::Error, crate::domain::FieldErrors, crate::domain::InvalidTransition);

/// A SCIM error's `scimType` and detail, as a 400.
fn bad(scim_type: &str, detail: &str) -> AppError {
    let mut errors = FieldErrors::new();
    errors.check::<()>(scim_type, Err(FieldIssue::Invalid));
    AppError::Explained(errors, detail.into())
}

/// The person as a SCIM User resource.
fn resource(state: &AppState, user: &UserRecord) -> Value {
    let (given, family) = match user.full_name.split_once(' ') {
        Some((given, family)) => (given, family),
        None => (user.full_name.as_str(), ""),
    };
    let mut resource = json!({
        "schemas": [USER],
        "id": user.id,
        "userName": user.email,
        "name": { "formatted": user.full_name, "givenName": given, "familyName": family },
        "displayName": user.full_name,
        "emails": [{ "value": user.email, "type": "work", "primary": true }],
        "active": user.status() == UserStatus::Active,
        "preferredLanguage": user.locale,
        "meta": {
            "resourceType": "User",
            "created": user.created_at,
            "lastModified": user.updated_at,
            "location": format!("{}{PREFIX}/Users/{}", state.config.mail.public_url, user.id),
        },
    });
    if let Some(external_id) = &user.scim_external_id {
        resource["externalId"] = json!(external_id);
    }
    resource
}

/// What a SCIM User body asks for.
struct Wanted {
    email: String,
    full_name: String,
    active: bool,
    external_id: Option<String>,
    password: Option<String>,
    locale: Option<Lang>,
}

/// A boolean, or the text Entra ID sends for one (`"True"`, `"False"`).
fn boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// Reads a User body (POST, PUT, or a resource PATCH has changed). Attribute names are matched
/// without regard to case, as RFC 7643 says.
fn wanted(body: &Value) -> Result<Wanted, AppError> {
    let Some(object) = body.as_object() else { return Err(bad("invalidSyntax", "The body is not a SCIM User")) };
    let lowered: Map<String, Value> = object.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.clone())).collect();
    let body = Value::Object(lowered);
    let primary_email = body.get("emails").and_then(Value::as_array).and_then(|emails| {
        emails.iter().find(|e| e.get("primary").and_then(boolean) == Some(true)).or(emails.first()).and_then(|e| text(e, "value"))
    });
    let user_name = text(&body, "username").ok_or_else(|| bad("invalidValue", "userName is required"))?;
    // Accounts are e-mail addresses: the userName, or else the primary e-mail.
    let email = [Some(user_name), primary_email]
        .into_iter()
        .flatten()
        .find(|e| crate::domain::Email::parse(e).is_ok())
        .ok_or_else(|| bad("invalidValue", "userName (or the primary e-mail) must be an e-mail address"))?;
    let name = body.get("name");
    let formatted = name.and_then(|n| text(n, "formatted"));
    let parts = name.map(|n| [text(n, "givenName"), text(n, "familyName")].into_iter().flatten().collect::<Vec<_>>().join(" "));
    let full_name = text(&body, "displayname")
        .map(str::to_owned)
        .or(formatted.map(str::to_owned))
        .or(parts.filter(|p| !p.is_empty()))
        .unwrap_or_else(|| email.split('@').next().unwrap_or(email).to_owned());
    let active = match body.get("active") {
        None | Some(Value::Null) => true,
        Some(value) => boolean(value).ok_or_else(|| bad("invalidValue", "active must be true or false"))?,
    };
    let locale = text(&body, "preferredlanguage")
        .or(text(&body, "locale"))
        .map(|l| if l.to_ascii_lowercase().starts_with("fr") { Lang::Fr } else { Lang::En });
    Ok(Wanted {
        email: email.to_owned(),
        full_name: crate::domain::text::line(&full_name, crate::domain::text::MAX_NAME)
            .map_err(|_| bad("invalidValue", "displayName (or name) must be one line of at most 200 characters, without control characters"))?
            .to_owned(),
        active,
        external_id: text(&body, "externalid").map(str::to_owned),
        password: text(&body, "password").map(str::to_owned),
        locale,
    })
}

/// The caller's enterprise: SCIM is an enterprise's (its CEO's, or their service credential's).
fn enterprise(caller: &Caller) -> Result<Uuid, AppError> {
    match (caller.role, caller.enterprise_id) {
        (Role::EnterpriseCeo, Some(id)) => Ok(id),
        _ => Err(AppError::Forbidden),
    }
}

/// One of the enterprise's department staff, else 404.
async fn staff_member(state: &AppState, caller: &Caller, id: &str) -> Result<UserRecord, AppError> {
    let id: Uuid = id.parse().map_err(|_| AppError::NotFound)?;
    find_manageable(state, caller, id).await
}

/// Sets the person's `externalId` (a 409 when another person of the enterprise has it).
async fn keep_external_id(state: &AppState, user: &UserRecord, external_id: Option<&str>) -> Result<(), AppError> {
    if user.scim_external_id.as_deref() == external_id {
        return Ok(());
    }
    let mut tx = state.db.begin().await?;
    if !store::users::set_external_id(&mut tx, user.id, external_id).await? {
        return Err(AppError::EmailTaken { field: "externalId" });
    }
    tx.commit().await?;
    Ok(())
}

/// Applies a body to a person: their name, e-mail, status and language (and password, when one
/// is sent).
async fn apply(state: &AppState, caller: &Caller, user: UserRecord, wanted: &Wanted) -> Result<UserRecord, AppError> {
    keep_external_id(state, &user, wanted.external_id.as_deref()).await?;
    let status = if wanted.active { UserStatus::Active } else { UserStatus::Inactive };
    let change = UpdateUser {
        full_name: (wanted.full_name != user.full_name).then(|| wanted.full_name.clone()),
        email: (!wanted.email.eq_ignore_ascii_case(&user.email)).then(|| wanted.email.clone()),
        role: None,
        status: (status != user.status()).then_some(status),
        department_id: MaybeUndefined::Undefined,
        password: wanted.password.clone(),
    };
    let unchanged = change.full_name.is_none() && change.email.is_none() && change.status.is_none() && change.password.is_none();
    let user = if unchanged { user } else { update_user(state, caller, user, &change).await? };
    if let Some(locale) = wanted.locale.filter(|l| l.as_str() != user.locale) {
        let mut tx = state.db.begin().await?;
        store::users::update_profile(&mut tx, user.id, &store::users::ProfileChanges { locale: Some(locale), ..Default::default() }).await?;
        tx.commit().await?;
    }
    store::users::find_by_id(&state.db, user.id).await?.ok_or(AppError::NotFound)
}

/// Which people a filter asks for: `userName eq "…"` or `externalId eq "…"` (what Okta and
/// Entra ID send), else `invalidFilter`.
fn filter_of(filter: &str) -> Result<(Option<String>, Option<String>), AppError> {
    let parsed: Filter = filter.parse().map_err(|_| bad("invalidFilter", "This filter is not SCIM's filter syntax"))?;
    match parsed {
        Filter::Attr(AttrExp::Comparison(AttrPath { uri: None, name, sub_attr: None }, CompareOp::Eq, CompValue::Str(value))) => {
            match name.to_ascii_lowercase().as_str() {
                "username" => Ok((Some(value), None)),
                "externalid" => Ok((None, Some(value))),
                _ => Err(bad("invalidFilter", "Filters name userName or externalId, with eq")),
            }
        }
        _ => Err(bad("invalidFilter", "Filters name userName or externalId, with eq")),
    }
}

/// The attribute a PATCH path names, as a key of the resource (`name.givenName` is `name` then
/// `givenName`); `emails[type eq "work"].value` is the primary e-mail.
fn patch_key(path: &PatchPath) -> Result<Vec<String>, AppError> {
    let key = match path {
        PatchPath::Attr(AttrPath { name, sub_attr, .. }) => {
            let mut key = vec![name.clone()];
            key.extend(sub_attr.clone());
            key
        }
        PatchPath::Value(value_path) if value_path.attr.name.eq_ignore_ascii_case("emails") => {
            let work_or_primary = match &value_path.filter {
                ValFilter::Attr(AttrExp::Comparison(attr, CompareOp::Eq, value)) => {
                    (attr.name.eq_ignore_ascii_case("type") && *value == CompValue::Str("work".into()))
                        || (attr.name.eq_ignore_ascii_case("primary") && *value == CompValue::True)
                }
                _ => false,
            };
            if !work_or_primary || value_path.sub_attr.as_deref().is_some_and(|s| !s.eq_ignore_ascii_case("value")) {
                return Err(bad("invalidPath", "Only the work or primary e-mail can be changed"));
            }
            return Ok(vec!["userName".into()]);
        }
        PatchPath::Value(_) => return Err(bad("invalidPath", "This attribute cannot be changed here")),
    };
    let known = ["active", "userName", "displayName", "externalId", "name", "preferredLanguage", "password", "emails"];
    if !known.iter().any(|k| k.eq_ignore_ascii_case(&key[0])) {
        return Err(bad("invalidPath", "This attribute cannot be changed here"));
    }
    Ok(key)
}

/// Sets `key` (one or two levels, matched without regard to case) in a resource.
fn set(resource: &mut Value, key: &[String], value: Option<Value>) {
    let Some(object) = resource.as_object_mut() else { return };
    let existing = object.keys().find(|k| k.eq_ignore_ascii_case(&key[0])).cloned().unwrap_or_else(|| key[0].clone());
    match (key.len(), value) {
        (1, Some(value)) => {
            object.insert(existing, value);
        }
        (1, None) => {
            object.remove(&existing);
        }
        (_, value) => {
            let inner = object.entry(existing).or_insert_with(|| json!({}));
            if !inner.is_object() {
                *inner = json!({});
            }
            set(inner, &key[1..], value);
        }
    }
}

/// Applies a PATCH's operations to the resource as it is.
fn patched(mut resource: Value, patch: PatchOp) -> Result<Value, AppError> {
    // The e-mails follow userName here: one account, one address.
    if let Some(object) = resource.as_object_mut() {
        object.remove("emails");
    }
    for operation in patch.operations {
        match operation {
            PatchOperation::Add(target) | PatchOperation::Replace(target) => match target {
                OperationTarget::WithPath { path, value } => set(&mut resource, &patch_key(&path)?, Some(value)),
                OperationTarget::WithoutPath { value } => {
                    for (key, value) in value {
                        // Entra ID sends `name.givenName` as one key.
                        let path: PatchPath = key.parse().map_err(|_| bad("invalidPath", "This attribute cannot be changed here"))?;
                        let key = patch_key(&path)?;
                        if key.len() == 1 && value.is_object() && key[0].eq_ignore_ascii_case("name") {
                            for (sub, v) in value.as_object().into_iter().flatten() {
                                set(&mut resource, &[key[0].clone(), sub.clone()], Some(v.clone()));
                            }
                        } else {
                            set(&mut resource, &key, Some(value));
                        }
                    }
                }
            },
            PatchOperation::Remove { path, .. } => {
                let key = patch_key(&path)?;
                if !key[0].eq_ignore_ascii_case("externalId") {
                    return Err(bad("mutability", "Only externalId can be removed"));
                }
                set(&mut resource, &key, None);
            }
        }
    }
    Ok(resource)
}

fn service_provider_config(state: &AppState) -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
        "documentationUri": format!("{}/api/docs", state.config.mail.public_url),
        "patch": { "supported": true },
        "bulk": { "supported": false, "maxOperations": 0, "maxPayloadSize": 0 },
        "filter": { "supported": true, "maxResults": MAX_COUNT },
        "changePassword": { "supported": true },
        "sort": { "supported": false },
        "etag": { "supported": false },
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "Service credential",
            "description": "A service credential (eps_…) with the scim:write scope, made by the enterprise's CEO",
            "primary": true,
        }],
        "meta": { "resourceType": "ServiceProviderConfig", "location": format!("{}{PREFIX}/ServiceProviderConfig", state.config.mail.public_url) },
    })
}

/// The User schema as served: the attributes this server keeps (RFC 7643 section 4.1).
fn user_schema(state: &AppState) -> Value {
    let attribute = |name: &str, kind: &str, required: bool, mutability: &str, returned: &str, uniqueness: &str, description: &str| {
        json!({
            "name": name, "type": kind, "multiValued": false, "description": description, "required": required,
            "caseExact": false, "mutability": mutability, "returned": returned, "uniqueness": uniqueness,
        })
    };
    let mut name = attribute("name", "complex", false, "readWrite", "default", "none", "The person's name");
    name["subAttributes"] = json!([
        attribute("formatted", "string", false, "readWrite", "default", "none", "The full name"),
        attribute("givenName", "string", false, "readWrite", "default", "none", "The given name"),
        attribute("familyName", "string", false, "readWrite", "default", "none", "The family name"),
    ]);
    let mut emails = attribute("emails", "complex", false, "readWrite", "default", "none", "The account's e-mail address (its userName)");
    emails["multiValued"] = json!(true);
    emails["subAttributes"] = json!([
        attribute("value", "string", false, "readWrite", "default", "none", "The address"),
        attribute("type", "string", false, "readWrite", "default", "none", "work"),
        attribute("primary", "boolean", false, "readWrite", "default", "none", "Always true"),
    ]);
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
        "id": USER,
        "name": "User",
        "description": "A department member of the enterprise",
        "attributes": [
            attribute("userName", "string", true, "readWrite", "default", "server", "The person's e-mail address, which signs them in"),
            name,
            attribute("displayName", "string", false, "readWrite", "default", "none", "The name shown in the app"),
            emails,
            attribute("active", "boolean", false, "readWrite", "default", "none", "False: deactivated, their sessions and tokens ended"),
            attribute("preferredLanguage", "string", false, "readWrite", "default", "none", "en or fr: their e-mails and the app"),
            attribute("password", "string", false, "writeOnly", "never", "none", "Without one, the person is invited by e-mail"),
        ],
        "meta": { "resourceType": "Schema", "location": format!("{}{PREFIX}/Schemas/{USER}", state.config.mail.public_url) },
    })
}

fn resource_type(state: &AppState) -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "A department member of the enterprise",
        "schema": USER,
        "meta": { "resourceType": "ResourceType", "location": format!("{}{PREFIX}/ResourceTypes/User", state.config.mail.public_url) },
    })
}

fn list(resources: Vec<Value>, total: i64, start_index: i64) -> Value {
    json!({ "schemas": [LIST], "totalResults": total, "startIndex": start_index, "itemsPerPage": resources.len(), "Resources": resources })
}

#[OpenApi(prefix_path = "/scim/v2", tag = "ApiTags::Provisioning")]
impl ScimApi {
    /// SCIM: what this server supports
    #[oai(path = "/ServiceProviderConfig", method = "get", operation_id = "getScimServiceProviderConfig")]
    async fn config(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("getScimServiceProviderConfig")?;
        enterprise(&auth.0)?;
        Ok(Found::Ok(Json(service_provider_config(&state))))
    }

    /// SCIM: the schemas
    #[oai(path = "/Schemas", method = "get", operation_id = "listScimSchemas")]
    async fn schemas(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("listScimSchemas")?;
        enterprise(&auth.0)?;
        Ok(Found::Ok(Json(list(vec![user_schema(&state)], 1, 1))))
    }

    /// SCIM: the resource types
    #[oai(path = "/ResourceTypes", method = "get", operation_id = "listScimResourceTypes")]
    async fn resource_types(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("listScimResourceTypes")?;
        enterprise(&auth.0)?;
        Ok(Found::Ok(Json(list(vec![resource_type(&state)], 1, 1))))
    }

    /// SCIM: list the enterprise's people
    ///
    /// Its department staff, newest first; `filter` takes `userName eq "…"` or `externalId eq
    /// "…"`. `startIndex` is 1-based; `count` at most 100.
    #[oai(path = "/Users", method = "get", operation_id = "listScimUsers")]
    async fn list_users(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(max_length = 1000))] filter: Query<Option<String>>,
        #[oai(name = "startIndex")] start_index: Query<Option<i64>>,
        count: Query<Option<i64>>,
    ) -> Result<Found, ScimError> {
        auth.0.require("listScimUsers")?;
        let enterprise_id = enterprise(&auth.0)?;
        let (email, external_id) = match filter.0.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
            Some(filter) => filter_of(filter)?,
            None => (None, None),
        };
        let start_index = start_index.0.unwrap_or(1).max(1);
        let count = count.0.unwrap_or(i64::from(MAX_COUNT)).clamp(0, i64::from(MAX_COUNT));
        let filter = store::users::UserFilter {
            enterprise_id: Some(enterprise_id),
            roles_in: Some(vec![Role::DepartmentHead, Role::DepartmentUser]),
            email,
            external_id,
            ..Default::default()
        };
        let (rows, total) = store::users::list_at(&state.db, &filter, start_index - 1, count).await?;
        Ok(Found::Ok(Json(list(rows.iter().map(|u| resource(&state, u)).collect(), total, start_index))))
    }

    /// SCIM: provision a person
    ///
    /// A department user of the enterprise (in no department until the CEO places them). Without
    /// `password` they are invited by e-mail to choose one.
    #[oai(path = "/Users", method = "post", operation_id = "createScimUser")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<Value>) -> Result<Created, ScimError> {
        auth.0.require("createScimUser")?;
        let enterprise_id = enterprise(&auth.0)?;
        let wanted = wanted(&body.0)?;
        if let Some(external_id) = &wanted.external_id {
            let taken = store::users::UserFilter { enterprise_id: Some(enterprise_id), external_id: Some(external_id.clone()), ..Default::default() };
            if store::users::list_at(&state.db, &taken, 0, 1).await?.1 > 0 {
                return Err(AppError::EmailTaken { field: "externalId" }.into());
            }
        }
        let create = CreateUser {
            full_name: wanted.full_name.clone(),
            email: wanted.email.clone(),
            password: wanted.password.clone(),
            role: Role::DepartmentUser,
            enterprise_id: Some(enterprise_id),
            department_id: None,
            locale: wanted.locale,
        };
        let user = create_user(&state, &auth.0, &create).await?;
        let user = apply(&state, &auth.0, user, &Wanted { password: None, ..wanted }).await?;
        Ok(Created::Created(Json(resource(&state, &user))))
    }

    /// SCIM: one person
    #[oai(path = "/Users/:id", method = "get", operation_id = "getScimUser")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>) -> Result<Found, ScimError> {
        auth.0.require("getScimUser")?;
        enterprise(&auth.0)?;
        Ok(Found::Ok(Json(resource(&state, &staff_member(&state, &auth.0, &id.0).await?))))
    }

    /// SCIM: replace a person
    ///
    /// Their name, e-mail, status (`active: false` deactivates them: their sessions and tokens
    /// end at once), language and external id, as sent.
    #[oai(path = "/Users/:id", method = "put", operation_id = "replaceScimUser")]
    async fn replace(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("replaceScimUser")?;
        enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        let wanted = wanted(&body.0)?;
        let user = apply(&state, &auth.0, user, &wanted).await?;
        Ok(Found::Ok(Json(resource(&state, &user))))
    }

    /// SCIM: change a person
    ///
    /// RFC 7644's PatchOp: `add` and `replace` of `active`, `userName`, `displayName`, `name`
    /// (and its sub-attributes), `emails[type eq "work"].value`, `externalId`,
    /// `preferredLanguage`, with or without `path`; `remove` of `externalId`.
    #[oai(path = "/Users/:id", method = "patch", operation_id = "patchScimUser")]
    async fn patch(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("patchScimUser")?;
        enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        let patch: PatchOp = serde_json::from_value(body.0).map_err(|e| bad("invalidSyntax", &format!("Not a SCIM PatchOp: {e}")))?;
        let changed = patched(resource(&state, &user), patch)?;
        let wanted = wanted(&changed)?;
        let user = apply(&state, &auth.0, user, &wanted).await?;
        Ok(Found::Ok(Json(resource(&state, &user))))
    }

    /// SCIM: delete a person
    ///
    /// Their sessions and tokens end at once. Someone who wrote reports is kept for the record:
    /// 409, deactivate them (`active: false`) instead.
    #[oai(path = "/Users/:id", method = "delete", operation_id = "deleteScimUser")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>) -> Result<Deleted, ScimError> {
        auth.0.require("deleteScimUser")?;
        enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        delete_user(&state, &auth.0, user).await?;
        Ok(Deleted::Deleted)
    }
}

/// Whether a request is SCIM's.
pub fn is_scim(path: &str) -> bool {
    path.starts_with(PREFIX)
}

/// SCIM's own error bodies (RFC 7644 section 3.12) and media type for everything under
/// `/api/v1/scim/v2`, whoever refused the request (the edge's checks, the token check, the rate
/// limit, a handler): the problem details' status and message, with a `scimType` where SCIM has
/// one. Called by `edge::refuse_nul` on SCIM's answers.
pub async fn scim_errors(result: poem::Result<Response>) -> Response {
    let resp = match result {
        Ok(resp) => resp,
        Err(err) => crate::error::render_poem_error(err),
    };
    let problem = resp.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|ct| ct.starts_with("application/problem+json"));
    if !problem {
        return resp;
    }
    let status = resp.status();
    let (mut parts, body) = resp.into_parts();
    let bytes = body.into_bytes().await.unwrap_or_default();
    let problem: ErrorBody = serde_json::from_slice(&bytes).unwrap_or_else(|_| ErrorBody::new(status, "internal", "The request was refused"));
    let error = serde_json::to_vec(&scim_error(status, &problem).to_json()).unwrap_or_default();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(SCIM_JSON));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, error.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_name_user_name_or_external_id_with_eq_and_anything_else_is_an_invalid_filter() {
        assert_eq!(filter_of(r#"userName eq "ann@example.com""#).unwrap(), (Some("ann@example.com".into()), None));
        assert_eq!(filter_of(r#"externalId eq "00u1""#).unwrap(), (None, Some("00u1".into())));
        for refused in [r#"userName zz "x""#, r#"title eq "x""#, r#"userName co "x""#, "not a filter", r#"userName eq "a" or userName eq "b""#] {
            let err = filter_of(refused).unwrap_err();
            let body = scim_error(err.status(), &err.body());
            assert_eq!((body.status.as_str(), body.scim_type.as_deref()), ("400", Some("invalidFilter")), "{refused}: {body:?}");
        }
    }
}
