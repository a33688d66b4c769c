//! An enterprise re-created from its archive (`enterprise_import`): uploaded and followed by the
//! platform admin.

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{ApiResponse, Enum, Multipart, Object, OpenApi, param::Path, payload::Json, types::multipart::Upload};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    api_errors,
    audit::Audit,
    auth::BearerAuth,
    domain::{FieldErrors, FieldIssue},
    enterprise_import::{self, Inspected, Options, Refused},
    error::AppError,
    state::AppState,
    store::{self, imports::ImportRecord},
};

#[derive(Default)]
pub struct ImportsApi;

/// Where an import is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ImportStatus {
    Queued,
    Running,
    Ready,
    Failed,
}

/// What a running import is writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ImportStage {
    Queued,
    Checking,
    Departments,
    People,
    Reports,
    Spreadsheets,
    Audit,
    Invitations,
    Ready,
    Failed,
}

/// Something the archive holds that was not imported.
#[derive(Debug, Object)]
pub struct LeftOut {
    /// `messenger`, `webhooks`, `singleSignOn` or `spreadsheet`.
    pub what: String,
    /// Why, in words.
    pub why: String,
}

/// What an import made.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ImportResult {
    /// The archive's ids were kept (false: one was already used here, so every one of them was
    /// replaced, consistently).
    pub ids_kept: bool,
    /// How many of each were written: `people`, `departments`, `reports`, `reportEvents`,
    /// `spreadsheets`, `auditEvents`.
    pub counts: std::collections::BTreeMap<String, i64>,
    /// How many people were e-mailed an invitation to choose a password again.
    pub invited: i64,
    pub left_out: Vec<LeftOut>,
}

/// An enterprise re-created from its archive (docs/api.md, "A tenant's life").
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseImport {
    pub id: Uuid,
    pub status: ImportStatus,
    /// 0-100.
    #[oai(validator(minimum(value = "0"), maximum(value = "100")))]
    pub progress: i32,
    pub stage: ImportStage,
    pub created_at: DateTime<Utc>,
    #[oai(nullable)]
    pub finished_at: Option<DateTime<Utc>>,
    /// The enterprise the archive holds.
    pub enterprise_name: String,
    /// When ready: the enterprise made.
    #[oai(nullable)]
    pub enterprise_id: Option<Uuid>,
    /// When ready: what was imported and what was left out.
    #[oai(nullable)]
    pub result: Option<ImportResult>,
    /// When failed: why, in words (nothing of the import was kept).
    #[oai(nullable)]
    pub error: Option<String>,
}

impl From<ImportRecord> for EnterpriseImport {
    fn from(i: ImportRecord) -> Self {
        let status = match i.status.as_str() {
            "queued" => ImportStatus::Queued,
            "running" => ImportStatus::Running,
            "ready" => ImportStatus::Ready,
            _ => ImportStatus::Failed,
        };
        let stage = match i.stage.as_str() {
            "queued" => ImportStage::Queued,
            "checking" => ImportStage::Checking,
            "departments" => ImportStage::Departments,
            "people" => ImportStage::People,
            "reports" => ImportStage::Reports,
            "spreadsheets" => ImportStage::Spreadsheets,
            "audit" => ImportStage::Audit,
            "invitations" => ImportStage::Invitations,
            "ready" => ImportStage::Ready,
            _ => ImportStage::Failed,
        };
        let result = i.result.filter(|_| status == ImportStatus::Ready).map(|r| ImportResult {
            ids_kept: r["idsKept"].as_bool().unwrap_or(true),
            counts: r["counts"].as_object().map(|c| c.iter().map(|(k, v)| (k.clone(), v.as_i64().unwrap_or(0))).collect()).unwrap_or_default(),
            invited: r["invited"].as_i64().unwrap_or(0),
            left_out: r["leftOut"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .map(|x| LeftOut {
                            what: x["what"].as_str().unwrap_or_default().to_owned(),
                            why: x["why"].as_str().unwrap_or_default().to_owned(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        });
        Self {
            id: i.id,
            status,
            progress: i.progress,
            stage,
            created_at: i.created_at,
            finished_at: i.finished_at,
            enterprise_name: i.enterprise_name,
            enterprise_id: i.enterprise_id.filter(|_| status == ImportStatus::Ready),
            result,
            error: i.error.filter(|_| status == ImportStatus::Failed),
        }
    }
}

#[derive(Debug, Multipart)]
pub struct ImportEnterprise {
    /// The archive an export wrote (`application/zip`), at most `TENANT_IMPORT_MAX_BYTES`.
    pub archive: Upload,
    /// E-mail the people an invitation to choose a password again (default true).
    pub invite: Option<bool>,
}

#[derive(Debug, ApiResponse)]
pub enum ImportAccepted {
    /// Checked and started: follow it with `GET /enterprises/imports/{importId}`.
    #[oai(status = 202)]
    Accepted(Json<EnterpriseImport>),
}

api_errors!(ImportError {
    /// Not an enterprise archive, or one of a newer format (`validation_failed`, `fields.archive`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin imports enterprises (`forbidden`).
    403 Forbidden,
    /// An enterprise has this name already, or an account here has one of its people's
    /// addresses (`conflict`).
    409 Conflict,
});

api_errors!(ImportReadError {
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin imports enterprises (`forbidden`).
    403 Forbidden,
    /// No such import (`not_found`).
    404 NotFound,
});

/// Imports the list shows.
const LISTED: i64 = 10;

fn refused(err: Refused) -> AppError {
    let mut errors = FieldErrors::new();
    errors.check::<()>("archive", Err(FieldIssue::Invalid));
    AppError::Explained(errors, err.to_string())
}

#[OpenApi(prefix_path = "/enterprises/imports", tag = "ApiTags::Enterprises")]
impl ImportsApi {
    /// Import an enterprise
    ///
    /// The platform admin. Re-creates an enterprise from the archive its export wrote (format
    /// version 1 or 2), in the background: the enterprise, its departments, people, reports with
    /// their review history, spreadsheets and audit log, in one transaction (all or nothing). Its
    /// ids are kept unless one is already used here; then all are replaced consistently. People
    /// choose a password again (an invitation by e-mail unless `invite` is false). The archive is
    /// checked first: not an archive, or a newer format, is a 400; a name or an address already
    /// used here is a 409.
    #[oai(path = "/", method = "post", operation_id = "importEnterprise")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, body: ImportEnterprise) -> Result<ImportAccepted, ImportError> {
        auth.0.require("importEnterprise")?;
        // Our own copy of the upload, which lives until the job ends.
        let copy = tempfile::NamedTempFile::new().map_err(|e| AppError::Unexpected(e.into()))?.into_temp_path();
        {
            let mut from = body.archive.into_async_read();
            let mut to = tokio::fs::File::create(&copy).await.map_err(|e| AppError::Unexpected(e.into()))?;
            tokio::io::copy(&mut from, &mut to).await.map_err(|e| AppError::Unexpected(e.into()))?;
        }
        let path = copy.to_path_buf();
        let inspected: Inspected = tokio::task::spawn_blocking(move || enterprise_import::inspect(&path))
            .await
            .map_err(|e| AppError::Unexpected(e.into()))?
            .map_err(refused)?;
        if store::enterprises::name_taken(&state.db, &inspected.name).await? {
            return Err(AppError::EnterpriseNameTaken.into());
        }
        if !store::imports::emails_taken(&state.db, &inspected.emails).await?.is_empty() {
            return Err(AppError::EmailTaken { field: "archive" }.into());
        }
        let record = store::imports::create(&state.db, Some(auth.0.user_id), &inspected.name, Utc::now()).await?;
        let inviter = store::users::find_by_id(&state.db, auth.0.user_id).await?.map(|u| u.full_name).unwrap_or_default();
        let options = Options { actor: Audit::of(state.geoip.as_ref(), &auth.0).0, inviter, invite: body.invite.unwrap_or(true) };
        enterprise_import::start(&state.db, record.id, copy, inspected, options);
        Ok(ImportAccepted::Accepted(Json(record.into())))
    }

    /// List imports
    ///
    /// The ten latest, newest first.
    #[oai(path = "/", method = "get", operation_id = "listEnterpriseImports")]
    async fn list(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<Vec<EnterpriseImport>>, ImportReadError> {
        auth.0.require("listEnterpriseImports")?;
        let now = Utc::now();
        let imports = store::imports::list(&state.db, LISTED, now - enterprise_import::STALE_AFTER, now).await?;
        Ok(Json(imports.into_iter().map(EnterpriseImport::from).collect()))
    }

    /// Get an import
    ///
    /// Its status and progress (percent and stage); when ready, the enterprise made and what was
    /// left out; when failed, why.
    #[oai(path = "/:importId", method = "get", operation_id = "getEnterpriseImport")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "importId")] import_id: Path<Uuid>,
    ) -> Result<Json<EnterpriseImport>, ImportReadError> {
        auth.0.require("getEnterpriseImport")?;
        let now = Utc::now();
        let import = store::imports::find(&state.db, import_id.0, now - enterprise_import::STALE_AFTER, now).await?.ok_or(AppError::NotFound)?;
        Ok(Json(import.into()))
    }
}
