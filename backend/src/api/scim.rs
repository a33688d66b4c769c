//! Provisioning (SCIM 2.0, RFC 7643 and 7644) at `/api/v1/scim/v2`: an enterprise's identity
//! provider creates, changes, deactivates and deletes its department staff with a service
//! credential that has the `scim:write` scope (its CEO makes it on the Integrations screen), or
//! reads them with `scim:read`. The User resource and its schema are `user`'s, PATCH is
//! `patch`'s, what the server says of itself `discovery`'s. Filters and paths are parsed by the
//! `scim_v2` crate; people
//! are made and changed through the same functions as `POST /users` and `PUT /users/{id}`, so
//! a deactivation ends their sessions and tokens at once, and everything is audited. Errors are
//! SCIM's (`scim_errors` rewrites the problem details of everything under the prefix).

mod discovery;
mod patch;
mod user;

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
    filter::{AttrExp, AttrPath, CompValue, CompareOp, Filter},
    models::others::PatchOp,
};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use self::user::Wanted;
use super::{
    ApiTags,
    provisioning::{ScimDeletion, scim_deletion},
    users::{CreateUser, UpdateUser, create_user, delete_user, erase_user, find_manageable, update_user_noting},
};
use crate::{
    audit::Changes,
    auth::{BearerAuth, Caller},
    domain::{FieldErrors, FieldIssue, Role, UserStatus},
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

/// The caller's enterprise: SCIM is an enterprise's (its CEO's, or their service credential's).
fn enterprise(caller: &Caller) -> Result<Uuid, AppError> {
    match (caller.role, caller.enterprise_id) {
        (Role::EnterpriseCeo, Some(id)) => Ok(id),
        _ => Err(AppError::Forbidden),
    }
}

/// One of the enterprise's department staff, else 404 (a person whose data was erased too: the
/// directory has nothing of them left to manage).
async fn staff_member(state: &AppState, caller: &Caller, id: &str) -> Result<UserRecord, AppError> {
    let id: Uuid = id.parse().map_err(|_| AppError::NotFound)?;
    find_manageable(state, caller, id).await.and_then(|u| if u.erased_at.is_some() { Err(AppError::NotFound) } else { Ok(u) })
}

/// The person as a resource, with what the directory set on them.
async fn shown(state: &AppState, user: &UserRecord) -> Result<Value, AppError> {
    let kept = store::users::scim_attributes(&state.db, &[user.id]).await?;
    Ok(user::resource(state, user, kept.get(&user.id)))
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

/// Applies a body to a person: their account (name, e-mail, status, language, password when one
/// is sent) through `PUT /users/{id}`'s function, audited there with what the directory set when
/// that changed too (a creation's is `POST /users`'s entry), then what the directory set. Answers
/// the person as a resource.
async fn apply(state: &AppState, caller: &Caller, user: UserRecord, wanted: &Wanted, created: bool) -> Result<Value, AppError> {
    keep_external_id(state, &user, wanted.external_id.as_deref()).await?;
    let before = store::users::scim_attributes(&state.db, &[user.id]).await?.remove(&user.id);
    let before = before
        .as_ref()
        .and_then(Value::as_object)
        .map(|k| k.iter().filter(|(key, _)| *key != "seen").map(|(k, v)| (k.clone(), v.clone())).collect::<Map<_, _>>());
    let directory = if created || before.as_ref() == Some(&wanted.kept) {
        Changes::new()
    } else {
        Changes::new().changed("directory", before, Some(wanted.kept.clone()))
    };
    let status = if wanted.active { UserStatus::Active } else { UserStatus::Inactive };
    let change = UpdateUser {
        full_name: wanted.full_name.clone().filter(|name| *name != user.full_name),
        email: (!wanted.email.eq_ignore_ascii_case(&user.email)).then(|| wanted.email.clone()),
        role: None,
        status: (status != user.status()).then_some(status),
        department_id: MaybeUndefined::Undefined,
        password: wanted.password.clone(),
    };
    let unchanged =
        change.full_name.is_none() && change.email.is_none() && change.status.is_none() && change.password.is_none() && directory.is_empty();
    let user = if unchanged { user } else { update_user_noting(state, caller, user, &change, directory).await? };
    let mut tx = state.db.begin().await?;
    if let Some(locale) = wanted.locale.filter(|l| l.as_str() != user.locale) {
        store::users::update_profile(&mut tx, user.id, &store::users::ProfileChanges { locale: Some(locale), ..Default::default() }).await?;
    }
    let user = store::users::find_for_update(&mut tx, user.id).await?.ok_or(AppError::NotFound)?;
    let kept = user::kept_after(wanted, &user);
    store::users::set_scim_attributes(&mut *tx, user.id, &kept).await?;
    tx.commit().await?;
    Ok(user::resource(state, &user, Some(&kept)))
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

/// `attributes` and `excludedAttributes` (RFC 7644 section 3.4.2.5): the attributes an answer
/// shows, or leaves out, as `name` or `name.sub` (the schema's URN may come first). `id` and
/// `schemas` are always shown.
#[derive(Default)]
struct Projection {
    attributes: Vec<(String, Option<String>)>,
    excluded: Vec<(String, Option<String>)>,
}

impl Projection {
    fn parse(attributes: Option<&str>, excluded: Option<&str>) -> Self {
        let names = |list: Option<&str>| -> Vec<(String, Option<String>)> {
            list.into_iter()
                .flat_map(|l| l.split(','))
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(|n| {
                    let n = n.get(..USER.len()).filter(|p| p.eq_ignore_ascii_case(USER)).map_or(n, |_| n[USER.len()..].trim_start_matches(':'));
                    match n.split_once('.') {
                        Some((name, sub)) => (name.to_ascii_lowercase(), Some(sub.to_ascii_lowercase())),
                        None => (n.to_ascii_lowercase(), None),
                    }
                })
                .collect()
        };
        Self { attributes: names(attributes), excluded: names(excluded) }
    }

    fn from_lists(attributes: &[String], excluded: &[String]) -> Self {
        Self::parse(Some(&attributes.join(",")), Some(&excluded.join(",")))
    }

    fn apply(&self, resource: Value) -> Value {
        let Value::Object(mut object) = resource else { return resource };
        let always = |k: &str| matches!(k, "id" | "schemas");
        if !self.attributes.is_empty() {
            object.retain(|key, value| {
                let key = key.to_ascii_lowercase();
                if always(&key) {
                    return true;
                }
                let subs: Vec<_> = self.attributes.iter().filter(|(name, _)| *name == key).map(|(_, sub)| sub.as_deref()).collect();
                if subs.is_empty() {
                    return false;
                }
                if !subs.contains(&None) {
                    let only = |inner: &mut Map<String, Value>| inner.retain(|k, _| subs.contains(&Some(k.to_ascii_lowercase().as_str())));
                    match value {
                        Value::Object(inner) => only(inner),
                        Value::Array(elements) => elements.iter_mut().filter_map(Value::as_object_mut).for_each(only),
                        _ => {}
                    }
                }
                true
            });
        } else if !self.excluded.is_empty() {
            object.retain(|key, value| {
                let key = key.to_ascii_lowercase();
                if always(&key) {
                    return true;
                }
                for (_, sub) in self.excluded.iter().filter(|(name, _)| *name == key) {
                    match sub {
                        None => return false,
                        Some(sub) => {
                            let drop = |inner: &mut Map<String, Value>| inner.retain(|k, _| k.to_ascii_lowercase() != *sub);
                            match value {
                                Value::Object(inner) => drop(inner),
                                Value::Array(elements) => elements.iter_mut().filter_map(Value::as_object_mut).for_each(drop),
                                _ => {}
                            }
                        }
                    }
                }
                true
            });
        }
        Value::Object(object)
    }
}

fn list(resources: Vec<Value>, total: i64, start_index: i64) -> Value {
    json!({ "schemas": [LIST], "totalResults": total, "startIndex": start_index, "itemsPerPage": resources.len(), "Resources": resources })
}

/// A page of the enterprise's people: a `GET /Users` or a search.
async fn search(
    state: &AppState,
    caller: &Caller,
    filter: Option<&str>,
    start_index: Option<i64>,
    count: Option<i64>,
    projection: &Projection,
) -> Result<Value, AppError> {
    let enterprise_id = enterprise(caller)?;
    let (email, external_id) = match filter.map(str::trim).filter(|f| !f.is_empty()) {
        Some(filter) if filter.len() > 1000 => return Err(bad("invalidFilter", "A filter is at most 1,000 characters")),
        Some(filter) => filter_of(filter)?,
        None => (None, None),
    };
    let start_index = start_index.unwrap_or(1).max(1);
    let count = count.unwrap_or(i64::from(MAX_COUNT)).clamp(0, i64::from(MAX_COUNT));
    let filter = store::users::UserFilter {
        enterprise_id: Some(enterprise_id),
        roles_in: Some(vec![Role::DepartmentHead, Role::DepartmentUser]),
        email,
        external_id,
        without_erased: true,
        ..Default::default()
    };
    let (rows, total) = store::users::list_at(&state.db, &filter, start_index - 1, count).await?;
    let kept = store::users::scim_attributes(&state.db, &rows.iter().map(|u| u.id).collect::<Vec<_>>()).await?;
    let resources = rows.iter().map(|u| projection.apply(user::resource(state, u, kept.get(&u.id)))).collect();
    Ok(list(resources, total, start_index))
}

/// A `SearchRequest` (RFC 7644 section 3.4.3), as `POST /.search` receives it.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct SearchRequest {
    filter: Option<String>,
    start_index: Option<i64>,
    count: Option<i64>,
    attributes: Vec<String>,
    excluded_attributes: Vec<String>,
}

fn search_request(body: Value) -> Result<SearchRequest, AppError> {
    serde_json::from_value(body).map_err(|e| bad("invalidSyntax", &format!("Not a SCIM SearchRequest: {e}")))
}

/// A discovery resource by id, else 404.
fn by_id(resources: Vec<Value>, id: &str) -> Result<Found, ScimError> {
    resources
        .into_iter()
        .find(|r| r["id"].as_str().is_some_and(|i| i.eq_ignore_ascii_case(id)))
        .map(|r| Found::Ok(Json(r)))
        .ok_or_else(|| AppError::NotFound.into())
}

#[OpenApi(prefix_path = "/scim/v2", tag = "ApiTags::Provisioning")]
impl ScimApi {
    /// SCIM: what this server supports
    #[oai(path = "/ServiceProviderConfig", method = "get", operation_id = "getScimServiceProviderConfig")]
    async fn config(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("getScimServiceProviderConfig")?;
        enterprise(&auth.0)?;
        Ok(Found::Ok(Json(discovery::service_provider_config(&state))))
    }

    /// SCIM: the schemas
    ///
    /// The User's, and the three that describe discovery (ServiceProviderConfig, ResourceType,
    /// Schema).
    #[oai(path = "/Schemas", method = "get", operation_id = "listScimSchemas")]
    async fn schemas(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("listScimSchemas")?;
        enterprise(&auth.0)?;
        let schemas = discovery::schemas(&state);
        let total = schemas.len() as i64;
        Ok(Found::Ok(Json(list(schemas, total, 1))))
    }

    /// SCIM: one schema, by its URN
    #[oai(path = "/Schemas/:id", method = "get", operation_id = "getScimSchema")]
    async fn schema(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(max_length = 200))] id: Path<String>,
    ) -> Result<Found, ScimError> {
        auth.0.require("getScimSchema")?;
        enterprise(&auth.0)?;
        by_id(discovery::schemas(&state), &id.0)
    }

    /// SCIM: the resource types
    #[oai(path = "/ResourceTypes", method = "get", operation_id = "listScimResourceTypes")]
    async fn resource_types(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Found, ScimError> {
        auth.0.require("listScimResourceTypes")?;
        enterprise(&auth.0)?;
        let types = discovery::resource_types(&state);
        let total = types.len() as i64;
        Ok(Found::Ok(Json(list(types, total, 1))))
    }

    /// SCIM: one resource type
    #[oai(path = "/ResourceTypes/:id", method = "get", operation_id = "getScimResourceType")]
    async fn resource_type(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(max_length = 200))] id: Path<String>,
    ) -> Result<Found, ScimError> {
        auth.0.require("getScimResourceType")?;
        enterprise(&auth.0)?;
        by_id(discovery::resource_types(&state), &id.0)
    }

    /// SCIM: list the enterprise's people
    ///
    /// Its department staff, newest first; `filter` takes `userName eq "…"` or `externalId eq
    /// "…"`. `startIndex` is 1-based; `count` at most 100. `attributes` or `excludedAttributes`
    /// (comma-separated) choose what each resource shows.
    #[oai(path = "/Users", method = "get", operation_id = "listScimUsers")]
    #[allow(clippy::too_many_arguments)]
    async fn list_users(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(max_length = 1000))] filter: Query<Option<String>>,
        #[oai(name = "startIndex")] start_index: Query<Option<i64>>,
        count: Query<Option<i64>>,
        #[oai(validator(max_length = 1000))] attributes: Query<Option<String>>,
        #[oai(name = "excludedAttributes", validator(max_length = 1000))] excluded_attributes: Query<Option<String>>,
    ) -> Result<Found, ScimError> {
        auth.0.require("listScimUsers")?;
        let projection = Projection::parse(attributes.0.as_deref(), excluded_attributes.0.as_deref());
        Ok(Found::Ok(Json(search(&state, &auth.0, filter.0.as_deref(), start_index.0, count.0, &projection).await?)))
    }

    /// SCIM: search the enterprise's people
    ///
    /// `GET /Users`'s search as a `SearchRequest` body (`filter`, `startIndex`, `count`,
    /// `attributes`, `excludedAttributes`).
    #[oai(path = "/Users/.search", method = "post", operation_id = "searchScimUsers")]
    async fn search_users(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("searchScimUsers")?;
        let request = search_request(body.0)?;
        let projection = Projection::from_lists(&request.attributes, &request.excluded_attributes);
        Ok(Found::Ok(Json(search(&state, &auth.0, request.filter.as_deref(), request.start_index, request.count, &projection).await?)))
    }

    /// SCIM: search every resource type
    ///
    /// As `POST /Users/.search`: people are the resources this server serves.
    #[oai(path = "/.search", method = "post", operation_id = "searchScim")]
    async fn search_all(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("searchScim")?;
        let request = search_request(body.0)?;
        let projection = Projection::from_lists(&request.attributes, &request.excluded_attributes);
        Ok(Found::Ok(Json(search(&state, &auth.0, request.filter.as_deref(), request.start_index, request.count, &projection).await?)))
    }

    /// SCIM: provision a person
    ///
    /// A department user of the enterprise (in no department until the CEO places them). Without
    /// `password` they are invited by e-mail to choose one.
    #[oai(path = "/Users", method = "post", operation_id = "createScimUser")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<Value>) -> Result<Created, ScimError> {
        auth.0.require("createScimUser")?;
        let enterprise_id = enterprise(&auth.0)?;
        let wanted = user::wanted(&body.0)?;
        if let Some(external_id) = &wanted.external_id {
            let taken = store::users::UserFilter { enterprise_id: Some(enterprise_id), external_id: Some(external_id.clone()), ..Default::default() };
            if store::users::list_at(&state.db, &taken, 0, 1).await?.1 > 0 {
                return Err(AppError::EmailTaken { field: "externalId" }.into());
            }
        }
        let create = CreateUser {
            full_name: wanted.full_name.clone().unwrap_or_else(|| wanted.email.split('@').next().unwrap_or_default().to_owned()),
            email: wanted.email.clone(),
            password: wanted.password.clone(),
            role: Role::DepartmentUser,
            enterprise_id: Some(enterprise_id),
            department_id: None,
            locale: wanted.locale,
        };
        let created = create_user(&state, &auth.0, &create).await?;
        let resource = apply(&state, &auth.0, created, &Wanted { password: None, ..wanted }, true).await?;
        Ok(Created::Created(Json(resource)))
    }

    /// SCIM: one person
    #[oai(path = "/Users/:id", method = "get", operation_id = "getScimUser")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<String>,
        #[oai(validator(max_length = 1000))] attributes: Query<Option<String>>,
        #[oai(name = "excludedAttributes", validator(max_length = 1000))] excluded_attributes: Query<Option<String>>,
    ) -> Result<Found, ScimError> {
        auth.0.require("getScimUser")?;
        enterprise(&auth.0)?;
        let resource = shown(&state, &staff_member(&state, &auth.0, &id.0).await?).await?;
        Ok(Found::Ok(Json(Projection::parse(attributes.0.as_deref(), excluded_attributes.0.as_deref()).apply(resource))))
    }

    /// SCIM: replace a person
    ///
    /// Everything the resource holds, as sent (what is left out is removed): `active: false`
    /// deactivates them (their sessions and tokens end at once).
    #[oai(path = "/Users/:id", method = "put", operation_id = "replaceScimUser")]
    async fn replace(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("replaceScimUser")?;
        enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        let wanted = user::wanted(&body.0)?;
        Ok(Found::Ok(Json(apply(&state, &auth.0, user, &wanted, false).await?)))
    }

    /// SCIM: change a person
    ///
    /// RFC 7644's PatchOp: `add`, `replace` and `remove` of any attribute the User schema
    /// declares, with a `path` (a sub-attribute: `name.givenName`; a filter:
    /// `emails[type eq "work"].value`) or without one (a value object); at most 100 operations.
    #[oai(path = "/Users/:id", method = "patch", operation_id = "patchScimUser")]
    async fn patch(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>, body: Json<Value>) -> Result<Found, ScimError> {
        auth.0.require("patchScimUser")?;
        enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        let patch: PatchOp = serde_json::from_value(body.0).map_err(|e| bad("invalidSyntax", &format!("Not a SCIM PatchOp: {e}")))?;
        let Value::Object(mut resource) = shown(&state, &user).await? else { return Err(AppError::NotFound.into()) };
        patch::apply(&mut resource, patch)?;
        let wanted = user::wanted(&Value::Object(resource))?;
        Ok(Found::Ok(Json(apply(&state, &auth.0, user, &wanted, false).await?)))
    }

    /// SCIM: delete a person
    ///
    /// Their sessions and tokens end at once. Someone who wrote reports is kept for the record:
    /// 409, deactivate them (`active: false`) instead.
    #[oai(path = "/Users/:id", method = "delete", operation_id = "deleteScimUser")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<String>) -> Result<Deleted, ScimError> {
        auth.0.require("deleteScimUser")?;
        let ent = enterprise(&auth.0)?;
        let user = staff_member(&state, &auth.0, &id.0).await?;
        // As the enterprise chose: the account deleted, or the person erased.
        match scim_deletion(&state, ent).await? {
            ScimDeletion::Erase => drop(erase_user(&state, &auth.0, user).await?),
            ScimDeletion::Delete => delete_user(&state, &auth.0, user).await?,
        }
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
/// one. Called by `edge::request_rules` on SCIM's answers.
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

    #[test]
    fn attributes_show_only_what_they_name_and_excluded_attributes_leave_it_out_but_id_stays() {
        let ann = json!({
            "schemas": [USER], "id": "1", "userName": "ann@example.com", "displayName": "Ann",
            "name": { "givenName": "Ann", "familyName": "Lee" }, "emails": [{ "value": "ann@example.com", "type": "work" }],
        });
        let only = Projection::parse(Some("userName, urn:ietf:params:scim:schemas:core:2.0:User:name.familyName"), None).apply(ann.clone());
        assert_eq!(only, json!({ "schemas": [USER], "id": "1", "userName": "ann@example.com", "name": { "familyName": "Lee" } }));
        let without = Projection::parse(None, Some("DISPLAYNAME,emails.type,id")).apply(ann);
        assert_eq!(
            without,
            json!({ "schemas": [USER], "id": "1", "userName": "ann@example.com", "name": { "givenName": "Ann", "familyName": "Lee" }, "emails": [{ "value": "ann@example.com" }] })
        );
    }
}
