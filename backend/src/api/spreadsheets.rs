//! Department spreadsheets: the engine's bytes stored per department, saved with optimistic
//! concurrency, and the server's own evaluation for downloads, XLSX imports and report data
//! (`crate::spreadsheet`). Department staff work in their own department; the CEO reads their
//! enterprise's; the platform admin does not see them. Other tenants' ids are 404.

use base64::{Engine, engine::general_purpose::STANDARD as B64};
use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Multipart, Object, OpenApi,
    param::{Path, Query},
    payload::{Attachment, Json},
    types::multipart::Upload,
};
use uuid::Uuid;

use crate::connection::Gone;

use super::{
    ApiTags,
    reports::ReportData,
    types::{Page, paging},
};
use crate::{
    api_errors,
    auth::{BearerAuth, Caller},
    domain::{FieldErrors, FieldIssue, Role, text},
    error::AppError,
    spreadsheet::{
        self, SheetError,
        worker::{EngineError, Job, Output},
    },
    state::AppState,
    store::{self, spreadsheets as db},
    tenancy::{self, SchemaName},
};

/// Largest XLSX accepted for import.
pub const MAX_IMPORT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Default)]
pub struct SpreadsheetsApi;

/// A spreadsheet in a list.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SpreadsheetSummary {
    pub id: Uuid,
    pub department_id: Uuid,
    pub name: String,
    /// Goes up by one with every save.
    pub version: i32,
    /// The engine (and version) whose bytes `content` holds.
    pub engine_version: String,
    #[oai(nullable)]
    pub created_by: Option<Uuid>,
    #[oai(nullable)]
    pub created_by_name: Option<String>,
    pub created_at: DateTime<Utc>,
    #[oai(nullable)]
    pub updated_by: Option<Uuid>,
    #[oai(nullable)]
    pub updated_by_name: Option<String>,
    pub updated_at: DateTime<Utc>,
}

impl From<db::SummaryRecord> for SpreadsheetSummary {
    fn from(s: db::SummaryRecord) -> Self {
        Self {
            id: s.id,
            department_id: s.department_id,
            name: s.name,
            version: s.version,
            engine_version: s.engine_version,
            created_by: s.created_by,
            created_by_name: s.created_by_name,
            created_at: s.created_at,
            updated_by: s.updated_by,
            updated_by_name: s.updated_by_name,
            updated_at: s.updated_at,
        }
    }
}

/// A spreadsheet with its workbook.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Spreadsheet {
    pub id: Uuid,
    pub department_id: Uuid,
    pub name: String,
    pub version: i32,
    pub engine_version: String,
    /// Base64 of the engine's bytes (IronCalc's own format, of `engineVersion`).
    pub content: String,
    #[oai(nullable)]
    pub created_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    #[oai(nullable)]
    pub updated_by: Option<Uuid>,
    pub updated_at: DateTime<Utc>,
    /// Whether the caller may save it (department staff); the CEO reads only.
    pub editable: bool,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateSpreadsheet {
    /// 1 to 200 characters.
    pub name: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SaveSpreadsheet {
    /// Base64 of the engine's bytes.
    pub content: String,
    /// The version this content was made from; 409 `conflict` when someone saved since.
    pub version: i32,
    /// A new name, 1 to 200 characters.
    pub name: Option<String>,
}

/// The new version after a save.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Saved {
    pub id: Uuid,
    pub version: i32,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Multipart)]
pub struct ImportSpreadsheet {
    /// The .xlsx file, at most 8 MiB.
    pub file: Upload,
    /// The spreadsheet's name (default: the file's name without extension).
    pub name: Option<String>,
}

/// A downloadable form of a spreadsheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum SheetFormat {
    /// Every sheet, with formulas and their values.
    Xlsx,
    /// One sheet's values.
    Csv,
}

impl SheetFormat {
    pub const ALL: [Self; 2] = [Self::Xlsx, Self::Csv];

    pub fn media_type(self) -> &'static str {
        match self {
            Self::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            Self::Csv => "text/csv; charset=utf-8",
        }
    }
}

#[derive(ApiResponse)]
pub enum SpreadsheetFile {
    /// The file, named after the spreadsheet.
    #[oai(status = 200)]
    File(Attachment<Vec<u8>>, #[oai(header = "Content-Type")] String),
}

#[derive(Debug, ApiResponse)]
pub enum Created<T: poem_openapi::types::ToJSON + Send + Sync> {
    /// Made.
    #[oai(status = 201)]
    Created(Json<T>),
}

#[derive(Debug, ApiResponse)]
pub enum Done {
    /// Deleted.
    #[oai(status = 204)]
    Done,
}

api_errors!(SpreadsheetError {
    /// A field or file is invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (the CEO reads only; the admin has no access).
    403 Forbidden,
    /// No such department or spreadsheet for this caller.
    404 NotFound,
    /// Someone saved since `version` (`conflict`, reason `stale_version`): reload, or keep a copy;
    /// or a new spreadsheet once the enterprise's storage is at its limit (`limit_reached`,
    /// `limit` `storageBytes`).
    409 Conflict,
});

/// Where the caller may act: their tenant, and (staff) their own department.
struct Scope {
    enterprise: Uuid,
    schema: SchemaName,
    /// Staff: their department; the CEO: none (every department, read-only).
    department: Option<Uuid>,
    editable: bool,
}

async fn scope(state: &AppState, caller: &Caller) -> Result<Scope, AppError> {
    let enterprise = caller.enterprise_id.ok_or(AppError::Forbidden)?;
    let schema = SchemaName::for_enterprise(enterprise);
    match caller.role {
        Role::EnterpriseCeo => Ok(Scope { enterprise, schema, department: None, editable: false }),
        Role::DepartmentHead | Role::DepartmentUser => {
            let (department, _) = store::users::workplace(&state.db, caller.user_id, &schema).await?.unwrap_or_default();
            // Staff in no department have nowhere to keep spreadsheets: every id is 404 to them.
            Ok(Scope { enterprise, schema, department: Some(department.unwrap_or(Uuid::nil())), editable: true })
        }
        Role::PlatformAdmin => Err(AppError::Forbidden),
    }
}

impl Scope {
    /// The department, if the caller may see its spreadsheets.
    async fn department(&self, tx: &mut sqlx::PgConnection, id: Uuid) -> Result<(), AppError> {
        let visible = match self.department {
            Some(own) => own == id,
            None => store::departments::exists(tx, id).await?,
        };
        if visible { Ok(()) } else { Err(AppError::NotFound) }
    }

    async fn find(&self, tx: &mut sqlx::PgConnection, id: Uuid) -> Result<db::SpreadsheetRecord, AppError> {
        let sheet = db::find(tx, id).await?.ok_or(AppError::NotFound)?;
        if self.department.is_some_and(|own| own != sheet.summary.department_id) {
            return Err(AppError::NotFound);
        }
        Ok(sheet)
    }

    fn require_edit(&self) -> Result<(), AppError> {
        if self.editable { Ok(()) } else { Err(AppError::Forbidden) }
    }
}

fn name(errors: &mut FieldErrors, field: &str, value: &str) -> String {
    errors.check(field, text::line(value, text::MAX_NAME)).map(str::to_owned).unwrap_or_default()
}

fn sheet_error(field: &'static str, err: SheetError) -> AppError {
    let field = match err {
        SheetError::NoSuchSheet => "sheet",
        SheetError::InvalidRange => "range",
        _ => field,
    };
    let (issue, message) = match err {
        SheetError::TooLarge => (FieldIssue::TooLong, None),
        SheetError::TooComplex(why) => (FieldIssue::TooComplex, Some(why)),
        SheetError::TooSlow => (FieldIssue::TooComplex, Some("The workbook takes too long to compute: simplify its formulas".to_owned())),
        SheetError::OutOfMemory => (FieldIssue::TooLong, Some("The workbook needs more memory to compute than the server allows".to_owned())),
        SheetError::Invalid | SheetError::NoSuchSheet | SheetError::InvalidRange => (FieldIssue::Invalid, None),
    };
    let mut errors = FieldErrors::new();
    errors.check::<()>(field, Err(issue));
    match message {
        Some(message) => AppError::Explained(errors, message),
        None => AppError::Validation(errors),
    }
}

/// Runs engine work in a worker process (`spreadsheet::worker`): bounded in time and memory, one
/// job at a time per enterprise, 503 when the slots stay busy.
async fn engine(state: &AppState, gone: &Gone, scope: &Scope, job: Job, input: &[u8], field: &'static str) -> Result<Output, AppError> {
    state.engine.run(Some(scope.enterprise), job, input, &gone.0).await.map_err(|err| match err {
        EngineError::Sheet(err) => sheet_error(field, err),
        EngineError::Busy => AppError::Busy { retry_after_secs: 5 },
        // Nobody reads this answer.
        EngineError::Gone => AppError::Busy { retry_after_secs: 1 },
        EngineError::Failed(err) => AppError::Unexpected(err),
    })
}

fn file_of(output: Output) -> Result<Vec<u8>, AppError> {
    match output {
        Output::Bytes(bytes) => Ok(bytes),
        Output::Range(..) => Err(AppError::Unexpected(anyhow::anyhow!("the engine answered a range where a file was asked"))),
    }
}

#[OpenApi(tag = "ApiTags::Spreadsheets")]
impl SpreadsheetsApi {
    /// A department's spreadsheets
    ///
    /// The most recently saved first. Staff list their own department's; the CEO any of their
    /// enterprise's departments.
    #[oai(path = "/departments/:id/spreadsheets", method = "get", operation_id = "listSpreadsheets")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<SpreadsheetSummary>>, SpreadsheetError> {
        auth.0.require("listSpreadsheets")?;
        let scope = scope(&state, &auth.0).await?;
        let paging = paging(page.0, page_size.0);
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        scope.department(&mut tx, id.0).await?;
        let (rows, total) = db::list(&mut tx, id.0, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(Into::into).collect(), total, paging)))
    }

    /// Create a spreadsheet
    ///
    /// An empty workbook with one sheet, made by the server's engine.
    #[oai(path = "/departments/:id/spreadsheets", method = "post", operation_id = "createSpreadsheet")]
    async fn create(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<CreateSpreadsheet>,
    ) -> Result<Created<SpreadsheetSummary>, SpreadsheetError> {
        auth.0.require("createSpreadsheet")?;
        let mut errors = FieldErrors::new();
        let name = name(&mut errors, "name", &body.name);
        errors.into_result()?;
        let scope = scope(&state, &auth.0).await?;
        scope.require_edit()?;
        let content = spreadsheet::empty(&name);
        self.insert(&state, &scope, &auth.0, id.0, &name, &content, None).await
    }

    /// Import an XLSX file
    ///
    /// A new spreadsheet from the file (`multipart/form-data`, field `file`), evaluated by the
    /// server. A file that is not a readable XLSX, or too large once unzipped, is a 400.
    #[oai(path = "/departments/:id/spreadsheets/import", method = "post", operation_id = "importSpreadsheet")]
    async fn import(
        &self,
        state: Data<&AppState>,
        gone: Data<&Gone>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: ImportSpreadsheet,
    ) -> Result<Created<SpreadsheetSummary>, SpreadsheetError> {
        auth.0.require("importSpreadsheet")?;
        let scope = scope(&state, &auth.0).await?;
        scope.require_edit()?;
        let mut errors = FieldErrors::new();
        let default_name =
            body.file.file_name().map(|f| f.rsplit_once('.').map_or(f, |(stem, _)| stem).to_owned()).unwrap_or_else(|| "Imported".into());
        let name = name(&mut errors, "name", body.name.as_deref().unwrap_or(&default_name));
        errors.into_result()?;
        let file = body.file.into_vec().await.map_err(|e| AppError::Unexpected(e.into()))?;
        if file.len() > MAX_IMPORT_BYTES {
            return Err(sheet_error("file", SheetError::TooLarge).into());
        }
        let content = file_of(engine(&state, &gone, &scope, Job::Import { name: name.clone() }, &file, "file").await?)?;
        self.insert(&state, &scope, &auth.0, id.0, &name, &content, Some(file.len())).await
    }

    /// A spreadsheet
    ///
    /// The workbook as the engine stores it (base64), with its `version` for the next save.
    #[oai(path = "/spreadsheets/:id", method = "get", operation_id = "getSpreadsheet")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Spreadsheet>, SpreadsheetError> {
        auth.0.require("getSpreadsheet")?;
        let scope = scope(&state, &auth.0).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let s = scope.find(&mut tx, id.0).await?;
        Ok(Json(Spreadsheet {
            id: s.summary.id,
            department_id: s.summary.department_id,
            name: s.summary.name,
            version: s.summary.version,
            engine_version: s.summary.engine_version,
            content: B64.encode(&s.content),
            created_by: s.summary.created_by,
            created_at: s.summary.created_at,
            updated_by: s.summary.updated_by,
            updated_at: s.summary.updated_at,
            editable: scope.editable,
        }))
    }

    /// Save a spreadsheet
    ///
    /// New content (the engine's bytes, checked by the server's engine) and optionally a new
    /// name, made from `version`: 409 when someone saved since, and 409 `limit_reached`
    /// (`storageBytes`) for a save that makes the workbook larger once the enterprise's schema is
    /// at its storage limit.
    #[oai(path = "/spreadsheets/:id", method = "put", operation_id = "saveSpreadsheet")]
    async fn save(
        &self,
        state: Data<&AppState>,
        gone: Data<&Gone>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<SaveSpreadsheet>,
    ) -> Result<Json<Saved>, SpreadsheetError> {
        auth.0.require("saveSpreadsheet")?;
        let scope = scope(&state, &auth.0).await?;
        scope.require_edit()?;
        let mut errors = FieldErrors::new();
        let new_name = body.name.as_deref().map(|n| name(&mut errors, "name", n));
        let content = errors.check("content", B64.decode(body.content.as_bytes()).map_err(|_| FieldIssue::Invalid));
        errors.into_result()?;
        let content = content.unwrap_or_default();
        engine(&state, &gone, &scope, Job::Check, &content, "content").await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        scope.find(&mut tx, id.0).await?;
        // A save that grows the workbook is new data: refused once the schema is at its storage
        // limit (one that shrinks it or keeps its size always passes).
        if content.len() as i64 > db::content_bytes(&mut tx, id.0).await?.unwrap_or(0) {
            crate::usage::check_storage(&mut tx, state.config.tenant_limits, scope.enterprise, &scope.schema).await?;
        }
        let version = db::save(&mut tx, id.0, body.version, &content, new_name.as_deref(), auth.0.user_id)
            .await?
            .ok_or(AppError::Conflict(crate::error::Conflict::StaleVersion))?;
        tx.commit().await?;
        Ok(Json(Saved { id: id.0, version, updated_at: Utc::now() }))
    }

    /// Delete a spreadsheet
    ///
    /// Deletes the spreadsheet for everyone; reports that took data from it keep their copy.
    #[oai(path = "/spreadsheets/:id", method = "delete", operation_id = "deleteSpreadsheet")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, SpreadsheetError> {
        auth.0.require("deleteSpreadsheet")?;
        let scope = scope(&state, &auth.0).await?;
        scope.require_edit()?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        scope.find(&mut tx, id.0).await?;
        db::delete(&mut tx, id.0).await?;
        tx.commit().await?;
        Ok(Done::Done)
    }

    /// Download a spreadsheet
    ///
    /// As XLSX (every sheet, formulas and values) or CSV (one sheet's values: the first, or
    /// `sheet`), evaluated by the server.
    #[oai(path = "/spreadsheets/:id/export", method = "get", operation_id = "exportSpreadsheet")]
    async fn export(
        &self,
        state: Data<&AppState>,
        gone: Data<&Gone>,
        auth: BearerAuth,
        id: Path<Uuid>,
        format: Query<SheetFormat>,
        #[oai(validator(max_length = 200))] sheet: Query<Option<String>>,
    ) -> Result<SpreadsheetFile, SpreadsheetError> {
        auth.0.require("exportSpreadsheet")?;
        let scope = scope(&state, &auth.0).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let s = scope.find(&mut tx, id.0).await?;
        let format = format.0;
        let extension = match format {
            SheetFormat::Xlsx => "xlsx",
            SheetFormat::Csv => "csv",
        };
        let target = crate::audit::Target::new("spreadsheet", id.0, &s.summary.name);
        crate::audit::Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, Some(scope.enterprise), "spreadsheet.exported", Some(target), crate::audit::Changes::new().with("format", extension))
            .await?;
        tx.commit().await?;
        let job = match format {
            SheetFormat::Xlsx => Job::Xlsx,
            SheetFormat::Csv => Job::Csv { sheet: sheet.0 },
        };
        let bytes = file_of(engine(&state, &gone, &scope, job, &s.content, "content").await?)?;
        let file_name = format!("{}.{extension}", slug::slugify(&s.summary.name));
        Ok(SpreadsheetFile::File(Attachment::new(bytes).filename(file_name), format.media_type().to_owned()))
    }

    /// A range as report data
    ///
    /// The server's evaluated values of `range` (`A1:D20`; the first row names the columns) on
    /// the first sheet or `sheet`: a report's `data` table, ready for POST or PUT of a report.
    #[oai(path = "/spreadsheets/:id/range", method = "get", operation_id = "getSpreadsheetRange")]
    async fn range(
        &self,
        state: Data<&AppState>,
        gone: Data<&Gone>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(max_length = 30))] range: Query<String>,
        #[oai(validator(max_length = 200))] sheet: Query<Option<String>>,
    ) -> Result<Json<ReportData>, SpreadsheetError> {
        auth.0.require("getSpreadsheetRange")?;
        let scope = scope(&state, &auth.0).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let s = scope.find(&mut tx, id.0).await?;
        tx.commit().await?;
        let job = Job::Range { sheet: sheet.0, range: range.0.to_ascii_uppercase() };
        match engine(&state, &gone, &scope, job, &s.content, "range").await? {
            Output::Range(columns, rows) => Ok(Json(ReportData { columns, rows })),
            Output::Bytes(_) => Err(AppError::Unexpected(anyhow::anyhow!("the engine answered a file where a range was asked")).into()),
        }
    }
}

impl SpreadsheetsApi {
    /// Stores a new spreadsheet (`imported`: the size of the file it came from) with its audit
    /// entry and its `spreadsheet.created` event, in one transaction.
    #[allow(clippy::too_many_arguments)]
    async fn insert(
        &self,
        state: &AppState,
        scope: &Scope,
        caller: &Caller,
        department: Uuid,
        name: &str,
        content: &[u8],
        imported: Option<usize>,
    ) -> Result<Created<SpreadsheetSummary>, SpreadsheetError> {
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        scope.department(&mut tx, department).await?;
        crate::usage::check_storage(&mut tx, state.config.tenant_limits, scope.enterprise, &scope.schema).await?;
        store::users::hold(&mut tx, caller.user_id).await.map_err(AppError::gone_is_not_found)?;
        let id = db::insert(
            &mut tx,
            db::NewSpreadsheet { department_id: department, name, content, engine_version: spreadsheet::ENGINE_VERSION, by: caller.user_id },
        )
        .await?;
        let created = db::find(&mut tx, id).await?.ok_or_else(|| AppError::Unexpected(anyhow::anyhow!("a spreadsheet just made")))?;
        let audit = crate::audit::Audit::of(state.geoip.as_ref(), caller);
        let target = crate::audit::Target::new("spreadsheet", id, name);
        let action = if imported.is_some() { "spreadsheet.imported" } else { "spreadsheet.created" };
        let facts = crate::audit::Changes::new().with("departmentId", department);
        let facts = if let Some(bytes) = imported { facts.with("fileBytes", bytes) } else { facts };
        audit.record(&mut tx, Some(scope.enterprise), action, Some(target), facts).await?;
        let data = serde_json::json!({
            "spreadsheetId": id, "enterpriseId": scope.enterprise, "departmentId": department, "name": name,
            "imported": imported.is_some(), "actorId": caller.user_id,
        });
        store::outbox::webhook_event(&mut tx, Some(scope.enterprise), "spreadsheet.created", data).await?;
        tx.commit().await?;
        Ok(Created::Created(Json(created.summary.into())))
    }
}
