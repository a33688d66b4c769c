//! An enterprise's export (`enterprise_export`): asked for, followed, downloaded. The platform
//! admin, and the enterprise's own CEO.

use chrono::{DateTime, Utc};
use futures_util::stream;
use poem::{Body, web::Data};
use poem_openapi::{ApiResponse, Enum, Object, OpenApi, param::Path, payload::Attachment, payload::Json};
use uuid::Uuid;

use super::{ApiTags, managed::find_managed};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::BearerAuth,
    error::AppError,
    state::AppState,
    store::{self, exports::ExportRecord},
};

#[derive(Default)]
pub struct ExportsApi;

/// Where an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ExportStatus {
    Queued,
    Running,
    Ready,
    Failed,
    Expired,
}

/// What a running export is writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ExportStage {
    Queued,
    People,
    Departments,
    Reports,
    Spreadsheets,
    Audit,
    Messenger,
    Storing,
    Ready,
    Failed,
    Expired,
}

/// An export of one enterprise: a zip archive of everything it holds (docs/api.md, "A tenant's
/// life").
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseExport {
    pub id: Uuid,
    pub status: ExportStatus,
    /// 0-100.
    #[oai(validator(minimum(value = "0"), maximum(value = "100")))]
    pub progress: i32,
    pub stage: ExportStage,
    pub created_at: DateTime<Utc>,
    /// When it was ready or failed.
    #[oai(nullable)]
    pub finished_at: Option<DateTime<Utc>>,
    /// When ready: where to download it (with the same bearer token).
    #[oai(nullable)]
    pub download_url: Option<String>,
    /// When ready: when its archive is deleted (`TENANT_EXPORT_TTL_HOURS` after it was ready).
    #[oai(nullable)]
    pub expires_at: Option<DateTime<Utc>>,
    /// When ready: the archive's size.
    #[oai(nullable)]
    pub size_bytes: Option<i64>,
    /// When ready: the archive's SHA-256, in hexadecimal.
    #[oai(nullable)]
    pub sha256: Option<String>,
    /// When failed: why, in words.
    #[oai(nullable)]
    pub error: Option<String>,
}

impl From<ExportRecord> for EnterpriseExport {
    fn from(e: ExportRecord) -> Self {
        let status = match e.status.as_str() {
            "queued" => ExportStatus::Queued,
            "running" => ExportStatus::Running,
            "ready" => ExportStatus::Ready,
            "failed" => ExportStatus::Failed,
            _ => ExportStatus::Expired,
        };
        let stage = match e.stage.as_str() {
            "queued" => ExportStage::Queued,
            "people" => ExportStage::People,
            "departments" => ExportStage::Departments,
            "reports" => ExportStage::Reports,
            "spreadsheets" => ExportStage::Spreadsheets,
            "audit" => ExportStage::Audit,
            "messenger" => ExportStage::Messenger,
            "storing" => ExportStage::Storing,
            "ready" => ExportStage::Ready,
            "failed" => ExportStage::Failed,
            _ => ExportStage::Expired,
        };
        let ready = status == ExportStatus::Ready;
        Self {
            download_url: ready.then(|| format!("/api/v1/enterprises/{}/exports/{}/download", e.enterprise_id, e.id)),
            expires_at: e.expires_at.filter(|_| ready),
            size_bytes: e.size_bytes.filter(|_| ready),
            sha256: e.sha256.filter(|_| ready),
            error: e.error.filter(|_| status == ExportStatus::Failed),
            id: e.id,
            status,
            progress: e.progress,
            stage,
            created_at: e.created_at,
            finished_at: e.finished_at,
        }
    }
}

#[derive(Debug, ApiResponse)]
pub enum ExportAccepted {
    /// Queued (or the export already queued or running for this enterprise): follow it with
    /// `GET …/exports/{exportId}`.
    #[oai(status = 202)]
    Accepted(Json<EnterpriseExport>),
}

#[derive(ApiResponse)]
pub enum ExportFile {
    /// The archive (`application/zip`): `manifest.json` and the files it lists.
    #[oai(status = 200, content_type = "application/zip")]
    File(Attachment<Body>),
}

api_errors!(ExportError {
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (`forbidden`).
    403 Forbidden,
    /// No such enterprise or export for this caller (`not_found`).
    404 NotFound,
});

api_errors!(DownloadError {
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (`forbidden`).
    403 Forbidden,
    /// No such enterprise or export for this caller (`not_found`).
    404 NotFound,
    /// The export is not ready yet, failed or has expired (`conflict`, reason `export_not_ready`).
    409 Conflict,
});

/// Exports the list shows.
const LISTED: i64 = 10;

#[OpenApi(prefix_path = "/enterprises", tag = "ApiTags::Enterprises")]
impl ExportsApi {
    /// Export an enterprise
    ///
    /// The platform admin, or the enterprise's CEO. Starts a background job that writes
    /// everything the enterprise holds into one zip archive: people, departments, reports with
    /// their review history and tables (JSON and XLSX), the dashboard's figures, spreadsheets
    /// (XLSX), the audit log, webhook and single sign-on settings (without secrets) and the
    /// messenger as the server holds it (ciphertext and membership: it is end-to-end encrypted).
    /// Whoever asked is e-mailed when it is ready. One export runs at a time per enterprise:
    /// asking again while one is queued or running answers that one.
    #[oai(path = "/:id/exports", method = "post", operation_id = "createEnterpriseExport")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<ExportAccepted, ExportError> {
        auth.0.require("createEnterpriseExport")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let (export, new) = store::exports::create(&state.db, enterprise.id, auth.0.user_id, Utc::now()).await?;
        if new {
            state.usage.add(enterprise.id, crate::usage::Counter::Export);
            Audit::of(state.geoip.as_ref(), &auth.0)
                .record_alone(
                    &state.db,
                    Some(enterprise.id),
                    "enterprise.export_requested",
                    Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
                    Changes::new().with("exportId", export.id.to_string()),
                )
                .await?;
            crate::enterprise_export::start(&state.exporter(), export.id);
        }
        Ok(ExportAccepted::Accepted(Json(export.into())))
    }

    /// List an enterprise's exports
    ///
    /// The ten latest, newest first.
    #[oai(path = "/:id/exports", method = "get", operation_id = "listEnterpriseExports")]
    async fn list(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Vec<EnterpriseExport>>, ExportError> {
        auth.0.require("listEnterpriseExports")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let exports = store::exports::list(&state.db, enterprise.id, LISTED).await?;
        Ok(Json(exports.into_iter().map(EnterpriseExport::from).collect()))
    }

    /// Get an export
    ///
    /// Its status and progress (percent and stage); when ready, its download address, size and
    /// expiry.
    #[oai(path = "/:id/exports/:exportId", method = "get", operation_id = "getEnterpriseExport")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "exportId")] export_id: Path<Uuid>,
    ) -> Result<Json<EnterpriseExport>, ExportError> {
        auth.0.require("getEnterpriseExport")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let export = store::exports::find(&state.db, enterprise.id, export_id.0).await?.ok_or(AppError::NotFound)?;
        Ok(Json(export.into()))
    }

    /// Download an export
    ///
    /// The archive, while the export is ready (until `expiresAt`).
    #[oai(path = "/:id/exports/:exportId/download", method = "get", operation_id = "downloadEnterpriseExport")]
    async fn download(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "exportId")] export_id: Path<Uuid>,
    ) -> Result<ExportFile, DownloadError> {
        auth.0.require("downloadEnterpriseExport")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let export = store::exports::find(&state.db, enterprise.id, export_id.0).await?.ok_or(AppError::NotFound)?;
        if export.status != "ready" || export.expires_at.is_none_or(|at| at <= Utc::now()) {
            return Err(AppError::Conflict(crate::error::Conflict::ExportNotReady).into());
        }
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(
                &state.db,
                Some(enterprise.id),
                "enterprise.export_downloaded",
                Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
                Changes::new().with("exportId", export.id.to_string()),
            )
            .await?;
        // One part in memory at a time, read as the client takes them.
        let db = state.db.clone();
        let parts = stream::unfold(0i32, move |seq| {
            let db = db.clone();
            async move {
                match store::exports::part(&db, export.id, seq).await {
                    Ok(Some(bytes)) => Some((Ok::<_, std::io::Error>(bytes::Bytes::from(bytes)), seq + 1)),
                    Ok(None) => None,
                    Err(err) => Some((Err(std::io::Error::other(err)), i32::MAX)),
                }
            }
        });
        let name = format!("{}-export-{}.zip", slug::slugify(&enterprise.name), export.created_at.format("%Y-%m-%d"));
        Ok(ExportFile::File(Attachment::new(Body::from_bytes_stream(parts)).filename(name)))
    }
}
