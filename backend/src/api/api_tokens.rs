//! Tokens for programs: a person's own access tokens, and the service credentials an enterprise
//! owns (made by its CEO or the platform admin), which outlive whoever made them. Managed from a
//! signed-in session only: a token cannot make or list tokens.

use chrono::{DateTime, Duration, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    enterprises::Deleted,
    types::{Page, paging},
};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, Caller, api_token},
    domain::{FieldErrors, FieldIssue, Role, text},
    error::{AppError, Conflict},
    state::AppState,
    store::{
        self,
        api_tokens::{NewToken, Owner, TokenRecord},
    },
};

#[derive(Default)]
pub struct ApiTokensApi;

/// Default lifetime of a token made without `expiresAt`.
const DEFAULT_DAYS: i64 = 90;
/// The latest `expiresAt` accepted, from now.
const MAX_DAYS: i64 = 366;

/// A new token.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateApiToken {
    /// What the token is for, to recognise it in lists (1 to 100 characters).
    #[oai(validator(max_length = 200))]
    pub name: String,
    /// `<area>:read` or `<area>:write` (write includes read) for the areas `enterprises`,
    /// `users`, `reports`, `dashboards`, `monitoring`, `spreadsheets`, `audit`, `webhooks`, `scim`. A
    /// token never does more than its owner's role allows, whatever its scopes.
    #[oai(validator(max_items = 32))]
    pub scopes: Vec<String>,
    /// When it stops working: in the future, at most 366 days ahead. Default: 90 days from now.
    pub expires_at: Option<DateTime<Utc>>,
}

/// A token as its owner sees it: never the secret.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ApiToken {
    pub id: Uuid,
    pub name: String,
    pub scopes: Vec<String>,
    /// The secret's first characters (`ept_…` personal, `eps_…` service), to recognise it by.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Null until first used; updated at most once a minute.
    #[oai(nullable)]
    pub last_used_at: Option<DateTime<Utc>>,
    /// The enterprise a service credential belongs to; null for a personal token of the admin.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    /// Who made it (for a service credential, possibly someone no longer here).
    #[oai(nullable)]
    pub created_by: Option<Uuid>,
}

impl From<TokenRecord> for ApiToken {
    fn from(t: TokenRecord) -> Self {
        Self {
            id: t.id,
            name: t.name,
            scopes: t.scopes,
            prefix: t.prefix,
            created_at: t.created_at,
            expires_at: t.expires_at,
            last_used_at: t.last_used_at,
            enterprise_id: t.enterprise_id,
            created_by: t.created_by,
        }
    }
}

/// A token just made, with its secret: shown this once.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreatedApiToken {
    #[oai(flatten)]
    pub made: ApiToken,
    /// The secret. Send it as `Authorization: Bearer <token>`; it is not shown again.
    pub token: String,
}

#[derive(Debug, ApiResponse)]
pub enum TokenCreated {
    /// The token exists; its secret is in this answer only.
    #[oai(status = 201)]
    Created(Json<CreatedApiToken>),
}

api_errors!(TokenError {
    /// A field is missing or invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller may not do this, or calls with a program's token (`forbidden`).
    403 Forbidden,
    /// No such token or enterprise for this caller.
    404 NotFound,
    /// Already 50 live tokens (`conflict`, reason `too_many_tokens`): revoke one first.
    409 Conflict,
});

/// Checks a new token's fields: (name, scopes sorted without repeats, expiry).
fn parse(body: &CreateApiToken) -> Result<(String, Vec<String>, DateTime<Utc>), AppError> {
    let mut errors = FieldErrors::new();
    let name = errors.check("name", text::line(&body.name, 100));
    let mut scopes = body.scopes.clone();
    scopes.sort();
    scopes.dedup();
    let scopes_ok = if scopes.is_empty() {
        Err(FieldIssue::Required)
    } else if scopes.iter().all(|s| api_token::is_scope(s)) {
        Ok(())
    } else {
        Err(FieldIssue::Invalid)
    };
    errors.check("scopes", scopes_ok);
    let now = Utc::now();
    let expires_at = errors.check(
        "expiresAt",
        match body.expires_at {
            None => Ok(now + Duration::days(DEFAULT_DAYS)),
            Some(at) if at <= now || at > now + Duration::days(MAX_DAYS) => Err(FieldIssue::Invalid),
            Some(at) => Ok(at),
        },
    );
    errors.into_result()?;
    let (Some(name), Some(expires_at)) = (name, expires_at) else { unreachable!("no field errors") };
    Ok((name.to_owned(), scopes, expires_at))
}

/// Makes a token for `user_id` (a person's) or for the enterprise (a service credential).
async fn create(state: &AppState, caller: &Caller, owner: Owner, role: Role, body: &CreateApiToken) -> Result<CreatedApiToken, AppError> {
    let (name, scopes, expires_at) = parse(body)?;
    let (user_id, enterprise_id, service) = match owner {
        Owner::User(id) => (Some(id), caller.enterprise_id, false),
        Owner::Enterprise(id) => (None, Some(id), true),
    };
    let (secret, prefix, hash) = api_token::generate(service);
    let token = NewToken {
        id: Uuid::now_v7(),
        user_id,
        enterprise_id,
        role: role.as_str(),
        created_by: caller.user_id,
        name: &name,
        scopes: &scopes,
        prefix: &prefix,
        secret_hash: &hash,
        expires_at,
    };
    let record = store::api_tokens::create(&state.db, token).await?.ok_or(AppError::Conflict(Conflict::TooManyTokens))?;
    tracing::info!(token_id = %record.id, service, by = %caller.user_id, "api token created");
    let facts = Changes::new().with("scopes", &record.scopes).with("service", service).with("expiresAt", record.expires_at);
    Audit::of(state.geoip.as_ref(), caller)
        .record_alone(&state.db, enterprise_id, "token.created", Some(Target::new("token", record.id, &record.name)), facts)
        .await?;
    Ok(CreatedApiToken { made: record.into(), token: secret })
}

/// The enterprise whose service credentials the caller manages: the admin any existing one, a
/// CEO their own (anything else is 404).
async fn managed_enterprise(state: &AppState, caller: &Caller, id: Uuid) -> Result<Uuid, AppError> {
    if caller.role != Role::PlatformAdmin && caller.enterprise_id != Some(id) {
        return Err(AppError::NotFound);
    }
    store::enterprises::find(&state.db, id).await?.map(|e| e.id).ok_or(AppError::NotFound)
}

#[OpenApi(tag = "ApiTags::Tokens")]
impl ApiTokensApi {
    /// Create a personal access token
    ///
    /// A token for programs acting as the caller, within its scopes. The secret is in this answer
    /// only. It stops working when revoked or expired, and at once when its owner is
    /// deactivated, deleted or changes role. It is not a session: it never appears in
    /// monitoring and cannot use the messenger.
    #[oai(path = "/api-tokens", method = "post", operation_id = "createApiToken")]
    async fn create_personal(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<CreateApiToken>) -> Result<TokenCreated, TokenError> {
        auth.0.require("createApiToken")?;
        let created = create(&state, &auth.0, Owner::User(auth.0.user_id), auth.0.role, &body).await?;
        Ok(TokenCreated::Created(Json(created)))
    }

    /// List my tokens
    ///
    /// The caller's live tokens (neither revoked nor expired), newest first; never the secrets.
    #[oai(path = "/api-tokens", method = "get", operation_id = "listApiTokens")]
    async fn list_personal(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(minimum(value = "1"), maximum(value = "100000")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<ApiToken>>, TokenError> {
        auth.0.require("listApiTokens")?;
        let paging = paging(page.0, page_size.0);
        let (items, total) = store::api_tokens::list(&state.db, Owner::User(auth.0.user_id), paging).await?;
        Ok(Json(Page::new(items.into_iter().map(Into::into).collect(), total, paging)))
    }

    /// Revoke one of my tokens
    ///
    /// The token is refused from this instant, on every instance.
    #[oai(path = "/api-tokens/:id", method = "delete", operation_id = "deleteApiToken")]
    async fn delete_personal(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Deleted, TokenError> {
        auth.0.require("deleteApiToken")?;
        if !store::api_tokens::revoke(&state.db, Owner::User(auth.0.user_id), id.0).await? {
            return Err(AppError::NotFound.into());
        }
        tracing::info!(token_id = %id.0, by = %auth.0.user_id, "api token revoked");
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(&state.db, auth.0.enterprise_id, "token.revoked", Some(Target::id("token", id.0)), Changes::new())
            .await?;
        Ok(Deleted::Deleted)
    }

    /// Create a service credential
    ///
    /// A token the enterprise owns, for an integration that must outlive whoever set it up. It
    /// acts for the enterprise as its CEO may, within its scopes, except what only a person does
    /// (`getMe`, reviewing a report). The CEO makes them for their enterprise, the platform admin
    /// for any.
    #[oai(path = "/enterprises/:id/service-tokens", method = "post", operation_id = "createServiceToken")]
    async fn create_service(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<CreateApiToken>,
    ) -> Result<TokenCreated, TokenError> {
        auth.0.require("createServiceToken")?;
        let enterprise = managed_enterprise(&state, &auth.0, id.0).await?;
        let created = create(&state, &auth.0, Owner::Enterprise(enterprise), Role::EnterpriseCeo, &body).await?;
        Ok(TokenCreated::Created(Json(created)))
    }

    /// List an enterprise's service credentials
    ///
    /// The enterprise's live service credentials (neither revoked nor expired), newest first; never the secrets.
    #[oai(path = "/enterprises/:id/service-tokens", method = "get", operation_id = "listServiceTokens")]
    async fn list_service(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(minimum(value = "1"), maximum(value = "100000")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<ApiToken>>, TokenError> {
        auth.0.require("listServiceTokens")?;
        let enterprise = managed_enterprise(&state, &auth.0, id.0).await?;
        let paging = paging(page.0, page_size.0);
        let (items, total) = store::api_tokens::list(&state.db, Owner::Enterprise(enterprise), paging).await?;
        Ok(Json(Page::new(items.into_iter().map(Into::into).collect(), total, paging)))
    }

    /// Revoke a service credential
    ///
    /// The credential is refused from this instant, on every instance.
    #[oai(path = "/enterprises/:id/service-tokens/:tokenId", method = "delete", operation_id = "deleteServiceToken")]
    async fn delete_service(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "tokenId")] token_id: Path<Uuid>,
    ) -> Result<Deleted, TokenError> {
        auth.0.require("deleteServiceToken")?;
        let enterprise = managed_enterprise(&state, &auth.0, id.0).await?;
        if !store::api_tokens::revoke(&state.db, Owner::Enterprise(enterprise), token_id.0).await? {
            return Err(AppError::NotFound.into());
        }
        tracing::info!(token_id = %token_id.0, by = %auth.0.user_id, "service credential revoked");
        let target = Some(Target::id("token", token_id.0));
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(&state.db, Some(enterprise), "token.revoked", target, Changes::new().with("service", true))
            .await?;
        Ok(Deleted::Deleted)
    }
}
