use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    departments::{Department, load_departments},
    managed::{find_managed, managed_tenant},
    types::{Page, User, UserSummary, paging},
};
use crate::{
    api_errors,
    audit::Audit,
    auth::{BearerAuth, password},
    domain::{Email, FieldErrors, Password, Role, text},
    error::AppError,
    state::AppState,
    store::{
        self,
        enterprises::{EnterpriseChanges, EnterpriseFilter, EnterpriseRecord, NewEnterprise},
        users::UserFilter,
    },
    tenancy,
};

#[derive(Default)]
pub struct EnterprisesApi;

/// A tenant of the platform.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Enterprise {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    pub is_active: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Null if the CEO's account was deleted.
    #[oai(nullable)]
    pub ceo: Option<UserSummary>,
    /// When its deletion was asked for: it is suspended until it is restored or purged. Null
    /// when no deletion is scheduled.
    #[oai(nullable)]
    pub deletion_scheduled_at: Option<DateTime<Utc>>,
    /// When it will be purged for good, unless restored before. Null when no deletion is
    /// scheduled.
    #[oai(nullable)]
    pub purge_after: Option<DateTime<Utc>>,
}

impl From<EnterpriseRecord> for Enterprise {
    fn from(e: EnterpriseRecord) -> Self {
        let ceo = match (e.ceo_id, e.ceo_full_name, e.ceo_email) {
            (Some(id), Some(full_name), Some(email)) => Some(UserSummary { id, full_name, email, role: Role::EnterpriseCeo }),
            _ => None,
        };
        Self {
            id: e.id,
            name: e.name,
            description: e.description,
            is_active: e.is_active,
            created_at: e.created_at,
            updated_at: e.updated_at,
            ceo,
            deletion_scheduled_at: e.deletion_scheduled_at,
            purge_after: e.purge_after,
        }
    }
}

/// An enterprise with its departments and counts.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseDetail {
    #[oai(flatten)]
    pub enterprise: Enterprise,
    pub departments: Vec<Department>,
    pub user_count: i64,
    /// Reports the CEO can see (drafts are the department's own).
    pub report_count: i64,
}

/// A new enterprise and its CEO's account.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateEnterprise {
    #[oai(validator(max_length = 200))]
    pub name: String,
    #[oai(validator(max_length = 2000))]
    pub description: Option<String>,
    #[oai(validator(max_length = 200))]
    pub ceo_full_name: String,
    #[oai(validator(max_length = 320))]
    pub ceo_email: String,
    /// Omitted: the CEO is invited by e-mail and chooses their password.
    #[oai(validator(max_length = 1024))]
    pub ceo_password: Option<String>,
    /// The CEO's language (their e-mails, starting with the invitation); English by default.
    pub ceo_locale: Option<crate::domain::Lang>,
}

/// Changes to an enterprise; absent fields stay. Deactivating signs its people out at once.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateEnterprise {
    #[oai(validator(max_length = 200))]
    pub name: Option<String>,
    #[oai(validator(max_length = 2000))]
    pub description: Option<String>,
    pub is_active: Option<bool>,
}

#[derive(Debug, ApiResponse)]
pub enum CreatedEnterprise {
    /// The enterprise, its CEO, its schema and its five departments exist.
    #[oai(status = 201)]
    Created(Json<Enterprise>),
}

#[derive(Debug, ApiResponse)]
pub enum Deleted {
    /// Deleted.
    #[oai(status = 204)]
    Deleted,
}

/// A deletion scheduled: the enterprise is suspended until `purgeAfter`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DeletionScheduled {
    /// Always `scheduled`.
    pub status: String,
    /// When it will be purged for good, unless restored before.
    pub purge_after: DateTime<Utc>,
}

#[derive(Debug, ApiResponse)]
pub enum DeleteAccepted {
    /// Suspended at once; purged after the recovery window (`TENANT_DELETION_GRACE_DAYS`).
    #[oai(status = 202)]
    Scheduled(Json<DeletionScheduled>),
}

/// The name of the enterprise, typed again to confirm its purge.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PurgeEnterprise {
    #[oai(validator(max_length = 200))]
    pub confirm_name: String,
}

#[derive(Debug, ApiResponse)]
pub enum Purged {
    /// Purged: its schema, its people and every row it owned are gone.
    #[oai(status = 204)]
    Purged,
}

api_errors!(ListError {
    /// Bad filter or page (`bad_request`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (`forbidden`).
    403 Forbidden,
});

api_errors!(CreateError {
    /// A field is missing or invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin creates enterprises.
    403 Forbidden,
    /// Another enterprise has this name, ignoring case and accents (`conflict`, `fields.name =
    /// taken`), or the CEO's e-mail is taken (`conflict`, `fields.ceoEmail = taken`).
    409 Conflict,
});

api_errors!(ItemError {
    /// A field is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such enterprise for this caller (`not_found`).
    404 NotFound,
});

api_errors!(DeleteError {
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin deletes enterprises.
    403 Forbidden,
    /// No such enterprise (`not_found`).
    404 NotFound,
});

api_errors!(RestoreError {
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin restores enterprises.
    403 Forbidden,
    /// No such enterprise (`not_found`).
    404 NotFound,
    /// Its deletion is not scheduled (`conflict`, reason `deletion_not_scheduled`).
    409 Conflict,
});

api_errors!(PurgeError {
    /// `confirmName` is not the enterprise's name (`confirmation_mismatch`), or is missing.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin purges enterprises.
    403 Forbidden,
    /// No such enterprise (`not_found`).
    404 NotFound,
    /// Its deletion is not scheduled: delete it first (`conflict`, reason
    /// `deletion_not_scheduled`).
    409 Conflict,
});

api_errors!(UpdateError {
    /// A field is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin changes enterprises.
    403 Forbidden,
    /// No such enterprise (`not_found`).
    404 NotFound,
    /// Another enterprise has this name, ignoring case and accents (`conflict`, `fields.name =
    /// taken`), or `isActive: true` for an enterprise whose deletion is scheduled (`conflict`,
    /// reason `deletion_scheduled`: restore it instead).
    409 Conflict,
});

impl From<store::enterprises::DeletionRefused> for AppError {
    fn from(refused: store::enterprises::DeletionRefused) -> Self {
        match refused {
            store::enterprises::DeletionRefused::NotFound => Self::NotFound,
            store::enterprises::DeletionRefused::NotScheduled => Self::Conflict(crate::error::Conflict::DeletionNotScheduled),
            store::enterprises::DeletionRefused::NameMismatch => Self::ConfirmationMismatch,
        }
    }
}

#[OpenApi(prefix_path = "/enterprises", tag = "ApiTags::Enterprises")]
impl EnterprisesApi {
    /// List enterprises
    ///
    /// Platform admin only. `q` searches the name and the CEO's e-mail.
    #[oai(path = "/", method = "get", operation_id = "listEnterprises")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        q: Query<Option<String>>,
        active: Query<Option<bool>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Enterprise>>, ListError> {
        auth.0.require("listEnterprises")?;
        let paging = paging(page.0, page_size.0);
        let (rows, total) = store::enterprises::list(&state.db, &EnterpriseFilter { q: q.0, active: active.0 }, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(Enterprise::from).collect(), total, paging)))
    }

    /// Create an enterprise
    ///
    /// In one transaction: the enterprise, its CEO, its own schema and its five departments.
    /// Names are unique across the platform, ignoring case and accents ("Acme" and "ACMÉ" are
    /// one name).
    #[oai(path = "/", method = "post", operation_id = "createEnterprise")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<CreateEnterprise>) -> Result<CreatedEnterprise, CreateError> {
        auth.0.require("createEnterprise")?;
        let mut errors = FieldErrors::new();
        let name = errors.check("name", text::line(&body.name, text::MAX_NAME));
        let ceo_full_name = errors.check("ceoFullName", text::line(&body.ceo_full_name, text::MAX_NAME));
        let description = errors.check("description", text::paragraphs(body.description.as_deref().unwrap_or(""), 2000));
        let ceo_email = errors.check("ceoEmail", Email::parse(&body.ceo_email));
        let ceo_password = match body.ceo_password.as_deref() {
            Some(p) => errors.check("ceoPassword", Password::parse(p)).map(Some),
            None => Some(None),
        };
        let (Some(name), Some(description), Some(ceo_full_name), Some(ceo_email), Some(ceo_password)) =
            (name, description, ceo_full_name, ceo_email, ceo_password)
        else {
            return Err(AppError::from(errors).into());
        };
        // A CEO at another enterprise's proven single sign-on domain would be sent to its provider.
        crate::accounts::sso_domain_allows(&state.db, &ceo_email, None, "ceoEmail").await?;
        // Hash on the blocking pool while the transaction builds the schema.
        let hashing = tokio::spawn(async move {
            match ceo_password {
                Some(p) => password::hash(&p).await.map(Some),
                None => Ok(None),
            }
        });
        let hash = async { hashing.await.map_err(anyhow::Error::from)? };
        let inviter = store::users::find_by_id(&state.db, auth.0.user_id).await?.map(|u| u.full_name).unwrap_or_default();
        let new = NewEnterprise {
            name,
            description,
            ceo_full_name,
            ceo_email: &ceo_email,
            ceo_locale: body.ceo_locale.unwrap_or_default(),
            inviter: crate::accounts::Inviter { id: Some(auth.0.user_id), name: &inviter },
        };
        let id = match store::enterprises::create_with_tenant(&state.tenant_ddl, new, hash, &Audit::of(state.geoip.as_ref(), &auth.0).0).await {
            Ok(id) => id,
            Err(e) if e.downcast_ref::<sqlx::Error>().is_some_and(store::enterprises::is_duplicate_name) => {
                return Err(AppError::EnterpriseNameTaken.into());
            }
            Err(e) if e.downcast_ref::<sqlx::Error>().is_some_and(store::users::is_duplicate_email) => {
                return Err(AppError::EmailTaken { field: "ceoEmail" }.into());
            }
            Err(e) => return Err(AppError::from(e).into()),
        };
        let created = store::enterprises::find(&state.db, id).await?.ok_or(AppError::NotFound)?;
        tracing::info!(enterprise_id = %id, "enterprise created");
        Ok(CreatedEnterprise::Created(Json(created.into())))
    }

    /// Get an enterprise
    ///
    /// With its departments and counts. The platform admin, or the enterprise's own CEO.
    #[oai(path = "/:id", method = "get", operation_id = "getEnterprise")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<EnterpriseDetail>, ItemError> {
        auth.0.require("getEnterprise")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema()).await?;
        let departments = load_departments(&mut tx, enterprise.id, None).await?;
        let report_count = store::reports::visible_count(&mut tx).await?;
        tx.commit().await?;
        let user_count = store::enterprises::user_count(&state.db, enterprise.id).await?;
        Ok(Json(EnterpriseDetail { enterprise: enterprise.into(), departments, user_count, report_count }))
    }

    /// Update an enterprise
    ///
    /// Platform admin only. `isActive: false` ends every session of its people at once. Names are
    /// unique across the platform, ignoring case and accents.
    #[oai(path = "/:id", method = "put", operation_id = "updateEnterprise")]
    async fn update(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<UpdateEnterprise>,
    ) -> Result<Json<Enterprise>, UpdateError> {
        auth.0.require("updateEnterprise")?;
        let mut errors = FieldErrors::new();
        let name = body.name.as_deref().and_then(|n| errors.check("name", text::line(n, text::MAX_NAME)));
        let description = body.description.as_deref().and_then(|d| errors.check("description", text::paragraphs(d, 2000)));
        errors.into_result()?;
        if body.is_active == Some(true) && store::enterprises::find(&state.db, id.0).await?.is_some_and(|e| e.deletion_scheduled_at.is_some()) {
            return Err(AppError::Conflict(crate::error::Conflict::DeletionScheduled).into());
        }
        let changes = EnterpriseChanges { name, description, is_active: body.is_active };
        let ended = match store::enterprises::update(&state.db, id.0, changes, &Audit::of(state.geoip.as_ref(), &auth.0).0).await {
            Ok(ended) => ended.ok_or(AppError::NotFound)?,
            Err(e) if store::enterprises::is_duplicate_name(&e) => return Err(AppError::EnterpriseNameTaken.into()),
            Err(e) => return Err(AppError::from(e).into()),
        };
        state.sessions.ended(&ended).await;
        let updated = store::enterprises::find(&state.db, id.0).await?.ok_or(AppError::NotFound)?;
        Ok(Json(updated.into()))
    }

    /// Delete an enterprise
    ///
    /// Platform admin only. Suspends it at once (nobody signs in, every session ends, its tokens
    /// and webhooks stop) and schedules its purge after the recovery window
    /// (`TENANT_DELETION_GRACE_DAYS`, 30 days by default); its CEO is told by e-mail. Within the
    /// window `restore` brings it back as it was, and `purge` ends it at once. Deleting it again
    /// answers the same schedule.
    #[oai(path = "/:id", method = "delete", operation_id = "deleteEnterprise")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<DeleteAccepted, DeleteError> {
        auth.0.require("deleteEnterprise")?;
        let grace = state.config.tenant_deletion_grace;
        let (purge_after, ended) = store::enterprises::schedule_deletion(&state.db, id.0, grace, &Audit::of(state.geoip.as_ref(), &auth.0).0)
            .await?
            .ok_or(AppError::NotFound)?;
        state.sessions.ended(&ended).await;
        tracing::info!(enterprise_id = %id.0, %purge_after, "enterprise deletion scheduled");
        Ok(DeleteAccepted::Scheduled(Json(DeletionScheduled { status: "scheduled".to_owned(), purge_after })))
    }

    /// Restore an enterprise
    ///
    /// Platform admin only, within the recovery window: the deletion is cancelled and the
    /// enterprise is as it was (active again if it was active; its people sign in again with the
    /// same passwords, its tokens and webhooks resume). Its CEO is told by e-mail.
    #[oai(path = "/:id/restore", method = "post", operation_id = "restoreEnterprise")]
    async fn restore(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Enterprise>, RestoreError> {
        auth.0.require("restoreEnterprise")?;
        store::enterprises::restore(&state.db, id.0, &Audit::of(state.geoip.as_ref(), &auth.0).0).await?.map_err(AppError::from)?;
        tracing::info!(enterprise_id = %id.0, "enterprise restored");
        let restored = store::enterprises::find(&state.db, id.0).await?.ok_or(AppError::NotFound)?;
        Ok(Json(restored.into()))
    }

    /// Purge an enterprise now
    ///
    /// Platform admin only, for an enterprise whose deletion is scheduled, with its name typed
    /// again. Its schema, its people and every row it owns are dropped at once, for good; the
    /// platform's audit log keeps that it was purged. Its CEO is told by e-mail.
    #[oai(path = "/:id/purge", method = "post", operation_id = "purgeEnterprise")]
    async fn purge(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>, body: Json<PurgeEnterprise>) -> Result<Purged, PurgeError> {
        auth.0.require("purgeEnterprise")?;
        let ended = store::enterprises::purge(&state.tenant_ddl, id.0, Some(&body.confirm_name), &Audit::of(state.geoip.as_ref(), &auth.0).0)
            .await?
            .map_err(AppError::from)?;
        state.sessions.ended(&ended).await;
        tracing::info!(enterprise_id = %id.0, "enterprise purged");
        Ok(Purged::Purged)
    }

    /// List an enterprise's users
    ///
    /// `role` may be repeated (`?role=DepartmentHead&role=DepartmentUser`); `q` searches names
    /// and e-mails.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/:id/users", method = "get", operation_id = "listEnterpriseUsers")]
    async fn users(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        role: Query<Option<Vec<Role>>>,
        q: Query<Option<String>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<User>>, ItemError> {
        auth.0.require("listEnterpriseUsers")?;
        let enterprise = managed_tenant(&state, &auth, id.0).await?;
        let paging = paging(page.0, page_size.0);
        let roles_in = role.0.clone().filter(|roles| !roles.is_empty());
        let filter = UserFilter { enterprise_id: Some(enterprise.id), roles_in, q: q.0, ..Default::default() };
        let (rows, total) = store::users::list(&state.db, &filter, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(User::from).collect(), total, paging)))
    }

    /// List an enterprise's departments
    ///
    /// The enterprise's five departments with their heads and member counts.
    #[oai(path = "/:id/departments", method = "get", operation_id = "listEnterpriseDepartments")]
    async fn departments(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Vec<Department>>, ItemError> {
        auth.0.require("listEnterpriseDepartments")?;
        let enterprise = managed_tenant(&state, &auth, id.0).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema).await?;
        let departments = load_departments(&mut tx, enterprise.id, None).await?;
        tx.commit().await?;
        Ok(Json(departments))
    }
}
