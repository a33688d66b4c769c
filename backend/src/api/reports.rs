use crate::realtime::{Audience, Event};
use chrono::{DateTime, NaiveDate, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
};
use sqlx::PgConnection;
use uuid::Uuid;

use super::{
    ApiTags,
    enterprises::Deleted,
    raw_json::RawJson,
    types::{Page, UserSummary, paging},
};
use serde_json::json;

use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, Caller},
    domain::{FieldErrors, FieldIssue, ReportStatus, Role, text},
    error::AppError,
    state::AppState,
    store::{
        self,
        reports::{EventRecord, NewReport, ReportChanges, ReportFilter, ReportRecord, ReportSort},
    },
    tenancy::{self, SchemaName},
};

#[derive(Default)]
pub struct ReportsApi;

/// A table of figures the detail screen charts. Every row has one cell per column.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportData {
    #[oai(validator(max_items = 50))]
    pub columns: Vec<String>,
    /// Cells are strings, numbers or null. A column after the first that holds a number is a
    /// number column: its other cells must be numbers or null (else 400, the cell named
    /// `data.rows.<row>.<column>` in `fields`, counted from 0). The chart draws number columns.
    #[oai(validator(max_items = 10000))]
    pub rows: Vec<Vec<serde_json::Value>>,
}

/// A department's report.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Report {
    pub id: Uuid,
    pub department_id: Uuid,
    pub title: String,
    pub content: String,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub status: ReportStatus,
    #[oai(nullable)]
    pub data: Option<ReportData>,
    pub created_by: UserSummary,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[oai(nullable)]
    pub submitted_at: Option<DateTime<Utc>>,
    #[oai(nullable)]
    pub reviewed_by: Option<UserSummary>,
    #[oai(nullable)]
    pub reviewed_at: Option<DateTime<Utc>>,
    #[oai(nullable)]
    pub review_notes: Option<String>,
}

/// One status change in a report's audit trail.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportEvent {
    pub id: Uuid,
    /// Null if that person's account was deleted since.
    #[oai(nullable)]
    pub actor: Option<UserSummary>,
    /// Null for the report's creation.
    #[oai(nullable)]
    pub from_status: Option<ReportStatus>,
    pub to_status: ReportStatus,
    #[oai(nullable)]
    pub notes: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A report with its audit trail.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportDetail {
    #[oai(flatten)]
    pub report: Report,
    pub history: Vec<ReportEvent>,
}

/// A new report. `status` is `draft` (the default) or `submitted`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateReport {
    #[oai(validator(max_length = 200))]
    pub title: String,
    #[oai(validator(max_length = 100000))]
    pub content: String,
    pub period_start: NaiveDate,
    pub period_end: NaiveDate,
    pub status: Option<ReportStatus>,
    pub data: Option<ReportData>,
}

/// Changes to a draft or rejected report; absent fields stay, `data: null` removes the table.
/// Editing a rejected report makes it a draft again; `status: submitted` also submits it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateReport {
    #[oai(validator(max_length = 200))]
    pub title: Option<String>,
    #[oai(validator(max_length = 100000))]
    pub content: Option<String>,
    pub period_start: Option<NaiveDate>,
    pub period_end: Option<NaiveDate>,
    pub status: Option<ReportStatus>,
    #[oai(nullable)]
    pub data: MaybeUndefined<ReportData>,
}

/// The CEO's verdict: `reviewed`, `approved` or `rejected` (notes required to reject).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReviewReport {
    pub status: ReportStatus,
    #[oai(validator(max_length = 10000))]
    pub review_notes: Option<String>,
}

#[derive(Debug, ApiResponse)]
pub enum CreatedReport {
    /// The report exists.
    #[oai(status = 201)]
    Created(Json<ReportDetail>),
}

/// A downloadable form of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Fields, the data table and a native chart.
    Xlsx,
    /// The data table.
    Csv,
    /// Title, department, period, status, content, the data table and the review notes.
    Pdf,
}

impl ExportFormat {
    pub const ALL: [Self; 3] = [Self::Xlsx, Self::Csv, Self::Pdf];

    pub fn media_type(self) -> &'static str {
        match self {
            Self::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            Self::Csv => "text/csv; charset=utf-8",
            Self::Pdf => "application/pdf",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Xlsx => "xlsx",
            Self::Csv => "csv",
            Self::Pdf => "pdf",
        }
    }
}

#[derive(ApiResponse)]
pub enum ExportedReport {
    /// The file, named after the department, title and period.
    #[oai(status = 200)]
    File(poem_openapi::payload::Attachment<Vec<u8>>, #[oai(header = "Content-Type")] String),
}

api_errors!(ExportError {
    /// A parameter is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such report for this caller.
    404 NotFound,
});

api_errors!(ReportError {
    /// A field is missing or invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such report or department for this caller.
    404 NotFound,
    /// The report's status does not allow this (`invalid_transition`); or a new report once the
    /// enterprise's storage is at its limit (`limit_reached`, `limit` `storageBytes`).
    409 Conflict,
});

/// Where the caller works: the tenant schema, and their own department for staff.
struct Scope {
    enterprise_id: Uuid,
    schema: SchemaName,
    department: Option<Uuid>,
    /// Whether the caller is, right now, the head of `department`.
    heads_department: bool,
}

impl Scope {
    /// Staff see their department's reports in every status; the CEO and the platform admin
    /// see every department's, but never drafts.
    fn can_read(&self, caller: &Caller, r: &ReportRecord) -> bool {
        may_read(caller, self.department, r)
    }

    /// Its author, or the head of its department.
    fn can_write(&self, caller: &Caller, r: &ReportRecord) -> bool {
        self.department == Some(r.department_id) && (r.created_by == caller.user_id || self.heads_department)
    }
}

/// `Scope::can_read`, given the caller's department (staff only).
fn may_read(caller: &Caller, department: Option<Uuid>, r: &ReportRecord) -> bool {
    match caller.role {
        Role::DepartmentHead | Role::DepartmentUser => department == Some(r.department_id),
        _ => r.status().visible_to_reviewers(),
    }
}

impl Scope {
    /// The report, if the caller may read it (anything else is 404).
    async fn readable(&self, tx: &mut PgConnection, caller: &Caller, id: Uuid) -> Result<ReportRecord, AppError> {
        let report = store::reports::find(tx, id).await?;
        report.filter(|r| self.can_read(caller, r)).ok_or(AppError::NotFound)
    }

    /// The report, if the caller may also change it (readable but not theirs: 403).
    async fn writable(&self, tx: &mut PgConnection, caller: &Caller, id: Uuid) -> Result<ReportRecord, AppError> {
        let report = self.readable(tx, caller, id).await?;
        if self.can_write(caller, &report) { Ok(report) } else { Err(AppError::Forbidden) }
    }
}

/// One page of reports of a tenant, in its own transaction.
pub async fn report_page(
    state: &AppState,
    schema: &SchemaName,
    filter: &ReportFilter,
    sort: Option<ReportSort>,
    paging: crate::store::Paging,
) -> Result<Page<Report>, AppError> {
    let mut tx = tenancy::begin(&state.db, schema).await?;
    if let Some(department) = filter.department_id
        && !store::departments::exists(&mut tx, department).await?
    {
        return Err(AppError::NotFound);
    }
    let (rows, total) = store::reports::list(&mut tx, filter, sort.unwrap_or_default(), paging).await?;
    tx.commit().await?;
    Ok(Page::new(rows.into_iter().map(Report::from).collect(), total, paging))
}

/// The scope of one report: as `scope`, but the platform admin need not name the enterprise
/// (any link to a report works): it comes from the report's id.
async fn report_scope(state: &AppState, caller: &Caller, enterprise_id: Option<Uuid>, report: Uuid) -> Result<Scope, AppError> {
    let enterprise_id = match enterprise_id {
        None if caller.is_admin() => Some(store::reports::enterprise_of(&state.db, report).await?.ok_or(AppError::NotFound)?),
        given => given,
    };
    scope(state, caller, enterprise_id).await
}

/// Resolves the tenant: from the token for tenant users (another enterprise is 404), from
/// `enterpriseId` for the platform admin (required).
async fn scope(state: &AppState, caller: &Caller, enterprise_id: Option<Uuid>) -> Result<Scope, AppError> {
    if caller.is_admin() {
        let Some(id) = enterprise_id else {
            let mut errors = FieldErrors::new();
            errors.check::<()>("enterpriseId", Err(FieldIssue::Required));
            return Err(errors.into());
        };
        let enterprise = store::enterprises::find(&state.db, id).await?.ok_or(AppError::NotFound)?;
        return Ok(Scope { enterprise_id: id, schema: enterprise.schema(), department: None, heads_department: false });
    }
    let (own, schema) = own_tenant(caller, enterprise_id)?;
    let (department, heads_department) = match caller.role {
        Role::DepartmentHead | Role::DepartmentUser => store::users::workplace(&state.db, caller.user_id, &schema).await?.unwrap_or_default(),
        _ => (None, false),
    };
    Ok(Scope { enterprise_id: own, schema, department, heads_department })
}

/// A tenant user's own enterprise and its schema, from the token; another enterprise named is 404.
fn own_tenant(caller: &Caller, enterprise_id: Option<Uuid>) -> Result<(Uuid, SchemaName), AppError> {
    let own = caller.enterprise_id.ok_or(AppError::Forbidden)?;
    if enterprise_id.is_some_and(|id| id != own) {
        return Err(AppError::NotFound);
    }
    Ok((own, SchemaName::for_enterprise(own)))
}

impl From<ReportRecord> for Report {
    fn from(r: ReportRecord) -> Self {
        let status = r.status();
        let data = r.data.and_then(|d| {
            let columns = serde_json::from_value(d.get("columns")?.clone()).ok()?;
            let rows = serde_json::from_value(d.get("rows")?.clone()).ok()?;
            Some(ReportData { columns, rows })
        });
        Self {
            id: r.id,
            department_id: r.department_id,
            title: r.title,
            content: r.content,
            period_start: r.period_start,
            period_end: r.period_end,
            status,
            data,
            created_by: UserSummary::from_columns(r.created_by, r.created_by_name, r.created_by_email, r.created_by_role),
            created_at: r.created_at,
            updated_at: r.updated_at,
            submitted_at: r.submitted_at,
            reviewed_by: r.reviewed_by.map(|id| UserSummary::from_columns(id, r.reviewed_by_name, r.reviewed_by_email, Some("EnterpriseCeo".into()))),
            reviewed_at: r.reviewed_at,
            review_notes: r.review_notes,
        }
    }
}

impl From<EventRecord> for ReportEvent {
    fn from(e: EventRecord) -> Self {
        Self {
            id: e.id,
            actor: e.actor_id.map(|id| UserSummary::from_columns(id, e.actor_name, e.actor_email, e.actor_role)),
            from_status: e.from_status.and_then(|s| s.parse().ok()),
            to_status: e.to_status.parse().unwrap_or(ReportStatus::Draft),
            notes: e.notes,
            created_at: e.created_at,
        }
    }
}

async fn detail(tx: &mut PgConnection, id: Uuid) -> Result<ReportDetail, AppError> {
    let report = store::reports::find(tx, id).await?.ok_or(AppError::NotFound)?;
    let history = store::reports::events(tx, id).await?.into_iter().map(ReportEvent::from).collect();
    Ok(ReportDetail { report: report.into(), history })
}

/// The event of a report that `actor` moved from `from` to its current status, and who hears it: its
/// author, its department's head and, unless it is a draft (the CEO never sees drafts), the CEO.
/// Computed inside the transaction, announced after it commits (`announce`).
async fn status_changed(
    tx: &mut PgConnection,
    enterprise_id: Uuid,
    report: &Report,
    from: ReportStatus,
    actor: Uuid,
) -> Result<Option<(Audience, Event)>, AppError> {
    if report.status == from {
        return Ok(None);
    }
    let head = store::departments::find(tx, report.department_id).await?.and_then(|d| d.head_id);
    let audience = Audience::Tenant {
        enterprise: enterprise_id,
        users: std::iter::once(report.created_by.id).chain(head).collect(),
        ceo: report.status != ReportStatus::Draft,
    };
    let event = Event::ReportStatusChanged {
        report_id: report.id,
        department_id: report.department_id,
        title: report.title.chars().take(200).collect(),
        from_status: Some(from.as_str().to_owned()),
        status: report.status.as_str().to_owned(),
        actor_id: actor,
    };
    Ok(Some((audience, event)))
}

/// What happened to a report, written in the change's own transaction: its audit entry and,
/// for the events webhooks hear (`webhooks::EVENTS`), its outbox row. `action` is `created`,
/// `updated`, `submitted`, `reviewed`, `approved`, `rejected`, `deleted` or `exported`.
#[allow(clippy::too_many_arguments)]
async fn record(
    state: &AppState,
    tx: &mut PgConnection,
    caller: &Caller,
    enterprise: Uuid,
    report: &Report,
    action: &str,
    changes: Changes,
) -> Result<(), AppError> {
    let action = format!("report.{action}");
    Audit::of(state.geoip.as_ref(), caller)
        .record(tx, Some(enterprise), &action, Some(Target::new("report", report.id, &report.title)), changes)
        .await?;
    if crate::webhooks::EVENTS.contains(&action.as_str()) {
        let data = json!({
            "reportId": report.id,
            "enterpriseId": enterprise,
            "departmentId": report.department_id,
            "title": report.title,
            "status": report.status.as_str(),
            "periodStart": report.period_start,
            "periodEnd": report.period_end,
            "authorId": report.created_by.id,
            "actorId": caller.user_id,
            "reviewNotes": report.review_notes,
        });
        store::outbox::webhook_event(tx, Some(enterprise), &action, data).await?;
    }
    notify(state, tx, enterprise, report, &action).await
}

/// E-mails what the people concerned want to hear of (`mail::notify`: several to one person in a
/// short while go out as one digest): a submission to the enterprise's CEO, a review to the author.
async fn notify(state: &AppState, tx: &mut PgConnection, enterprise: Uuid, report: &Report, action: &str) -> Result<(), AppError> {
    let (kind, recipients, actor) = match action {
        "report.submitted" => {
            let ceos = store::users::ceos_of(&mut *tx, enterprise).await?;
            ("report_submitted", ceos, report.created_by.full_name.clone())
        }
        "report.reviewed" | "report.approved" | "report.rejected" => {
            let reviewer = report.reviewed_by.as_ref().map(|r| r.full_name.clone()).unwrap_or_default();
            let kind = match action {
                "report.approved" => "report_approved",
                "report.rejected" => "report_rejected",
                _ => "report_reviewed",
            };
            (kind, vec![report.created_by.id], reviewer)
        }
        _ => return Ok(()),
    };
    let department = store::departments::find(tx, report.department_id).await?.map(|d| d.kind);
    for recipient in recipients {
        let path = if kind == "report_submitted" {
            format!("/ceo/reports/{}", report.id)
        } else {
            format!("/department/{}/reports/{}", report.department_id, report.id)
        };
        let item = json!({
            "kind": kind,
            "actor": actor,
            "title": report.title,
            "departmentType": department,
            "notes": report.review_notes,
            "path": path,
        });
        crate::mail::notify(tx, &state.config.mail, Some(enterprise), recipient, item).await?;
    }
    Ok(())
}

/// The action a review that ended in `status` records.
fn review_action(status: ReportStatus) -> &'static str {
    match status {
        ReportStatus::Approved => "approved",
        ReportStatus::Rejected => "rejected",
        _ => "reviewed",
    }
}

async fn announce(state: &AppState, announcement: Option<(Audience, Event)>) {
    if let Some((audience, event)) = announcement {
        state.realtime.publish(audience, event).await;
    }
}

/// Checks a data table: one cell per column, cells are strings, numbers or null.
fn check_data(errors: &mut FieldErrors, data: &ReportData) {
    let columns_ok = data.columns.iter().all(|c| !c.trim().is_empty() && c.chars().count() <= 100);
    let rows_ok = data.rows.iter().all(|row| {
        row.len() == data.columns.len()
            && row.iter().all(|cell| match cell {
                serde_json::Value::Null | serde_json::Value::Number(_) => true,
                serde_json::Value::String(s) => s.chars().count() <= 1000,
                _ => false,
            })
    });
    if !columns_ok || !rows_ok {
        errors.check::<()>("data", Err(FieldIssue::Invalid));
        return;
    }
    // A number column (any column after the first, the labels, that holds a number) holds only
    // numbers and empty cells: text there would be a bar the chart silently drops. Each such
    // cell is named, `data.rows.<row>.<column>`, from 0.
    for column in 1..data.columns.len() {
        if !data.rows.iter().any(|row| row[column].is_number()) {
            continue;
        }
        for (r, row) in data.rows.iter().enumerate() {
            if row[column].is_string() {
                errors.check::<()>(&format!("data.rows.{r}.{column}"), Err(FieldIssue::Invalid));
            }
        }
    }
}

fn data_json(data: &ReportData) -> serde_json::Value {
    serde_json::json!({ "columns": data.columns, "rows": data.rows })
}

fn check_period(errors: &mut FieldErrors, start: NaiveDate, end: NaiveDate) {
    if end < start {
        errors.check::<()>("periodEnd", Err(FieldIssue::Invalid));
    }
}

/// Builds the file (CPU-bound for large tables: runs on the blocking pool).
fn render(r: ReportRecord, department: &str, format: ExportFormat, lang: crate::export::Lang) -> Result<(String, Vec<u8>), AppError> {
    let report = Report::from(r);
    let (columns, rows) = report.data.map(|d| (d.columns, d.rows)).unwrap_or_default();
    let file = crate::export::ReportFile {
        title: &report.title,
        department: department.parse().unwrap_or(crate::domain::DepartmentType::Operations),
        period_start: report.period_start,
        period_end: report.period_end,
        status: report.status,
        author: &report.created_by.full_name,
        created_at: report.created_at,
        submitted_at: report.submitted_at,
        reviewer: report.reviewed_by.as_ref().map(|u| u.full_name.as_str()),
        reviewed_at: report.reviewed_at,
        review_notes: report.review_notes.as_deref(),
        content: &report.content,
        columns: &columns,
        rows: &rows,
        lang,
    };
    let bytes = match format {
        ExportFormat::Xlsx => crate::export::xlsx(&file)?,
        ExportFormat::Csv => crate::export::csv(&file)?,
        ExportFormat::Pdf => crate::export::pdf(&file),
    };
    Ok((crate::export::file_name(&file, format.extension()), bytes))
}

#[OpenApi(tag = "ApiTags::Reports")]
impl ReportsApi {
    /// Create a report
    ///
    /// By a department head or user, in their own department.
    #[oai(path = "/departments/:id/reports", method = "post", operation_id = "createDepartmentReport")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>, body: Json<CreateReport>) -> Result<CreatedReport, ReportError> {
        auth.0.require("createDepartmentReport")?;
        let caller = &auth.0;
        let scope = scope(&state, caller, None).await?;
        if scope.department != Some(id.0) {
            return Err(AppError::NotFound.into());
        }
        let mut errors = FieldErrors::new();
        let title = errors.check("title", text::line(&body.title, text::MAX_NAME));
        check_period(&mut errors, body.period_start, body.period_end);
        let status = body.status.unwrap_or(ReportStatus::Draft);
        if !matches!(status, ReportStatus::Draft | ReportStatus::Submitted) {
            errors.check::<()>("status", Err(FieldIssue::Invalid));
        }
        if let Some(data) = &body.data {
            check_data(&mut errors, data);
        }
        let Some(title) = title.filter(|_| errors.is_empty()) else {
            return Err(AppError::from(errors).into());
        };
        let data = body.data.as_ref().map(data_json);
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        crate::usage::check_storage(&mut tx, state.config.tenant_limits, scope.enterprise_id, &scope.schema).await?;
        let new = NewReport {
            enterprise_id: scope.enterprise_id,
            department_id: id.0,
            title,
            content: &body.content,
            period_start: body.period_start,
            period_end: body.period_end,
            status,
            data: data.as_ref(),
            created_by: caller.user_id,
        };
        let report_id = store::reports::insert(&mut tx, new).await.map_err(AppError::gone_is_not_found)?;
        let created = detail(&mut tx, report_id).await?;
        record(&state, &mut tx, caller, scope.enterprise_id, &created.report, "created", Changes::new()).await?;
        if created.report.status == ReportStatus::Submitted {
            record(&state, &mut tx, caller, scope.enterprise_id, &created.report, "submitted", Changes::new()).await?;
        }
        tx.commit().await?;
        Ok(CreatedReport::Created(Json(created)))
    }

    /// List a department's reports
    ///
    /// Its staff see every status; the CEO and the platform admin (with `enterpriseId`) see
    /// everything but drafts. `from`/`to` keep reports whose period overlaps them.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/departments/:id/reports", method = "get", operation_id = "listDepartmentReports")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        status: Query<Option<ReportStatus>>,
        q: Query<Option<String>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        sort: Query<Option<ReportSort>>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Report>>, ReportError> {
        auth.0.require("listDepartmentReports")?;
        let caller = &auth.0;
        let scope = scope(&state, caller, enterprise_id.0).await?;
        let staff = matches!(caller.role, Role::DepartmentHead | Role::DepartmentUser);
        if staff && scope.department != Some(id.0) {
            return Err(AppError::NotFound.into());
        }
        let filter = ReportFilter { department_id: Some(id.0), status: status.0, hide_drafts: !staff, q: q.0, from: from.0, to: to.0 };
        Ok(Json(report_page(&state, &scope.schema, &filter, sort.0, paging(page.0, page_size.0)).await?))
    }

    /// Get a report
    ///
    /// With its audit trail. The platform admin may pass `enterpriseId`; without it the report's
    /// enterprise is found from the report.
    #[oai(path = "/reports/:id", method = "get", operation_id = "getReport")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
    ) -> Result<RawJson<ReportDetail>, ReportError> {
        auth.0.require("getReport")?;
        let caller = &auth.0;
        // The tenant as `scope` resolves it, but the reader's department comes with the report:
        // one statement, one round trip (the platform admin's tenant is looked up).
        let (schema, kept) = if caller.is_admin() {
            (report_scope(&state, caller, enterprise_id.0, id.0).await?.schema, None)
        } else {
            // What this reader was last given, while nothing in the tenant has changed since:
            // no SQL (`generations`).
            let (enterprise, schema) = own_tenant(caller, enterprise_id.0)?;
            let stamp = Box::pin(state.generations.current(enterprise)).await;
            if let Some(body) = stamp.and_then(|stamp| state.report_reads.get(caller.user_id, id.0, stamp)) {
                return Ok(RawJson::new(body));
            }
            (schema, stamp)
        };
        let read = store::reports::read(&state.db, &schema, id.0, caller.user_id).await?.ok_or(AppError::NotFound)?;
        if !may_read(caller, read.reader_department, &read.report) {
            return Err(AppError::NotFound.into());
        }
        let history = read.history.0.into_iter().map(ReportEvent::from).collect();
        let answer = RawJson::of(&ReportDetail { report: read.report.into(), history });
        if let Some(stamp) = kept {
            state.report_reads.keep(caller.user_id, id.0, stamp, answer.bytes());
        }
        Ok(answer)
    }

    /// Update a report
    ///
    /// Its author or department head, while it is a draft or rejected.
    #[oai(path = "/reports/:id", method = "put", operation_id = "updateReport")]
    async fn update(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<UpdateReport>,
    ) -> Result<Json<ReportDetail>, ReportError> {
        auth.0.require("updateReport")?;
        let caller = &auth.0;
        let scope = scope(&state, caller, None).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let report = scope.writable(&mut tx, caller, id.0).await?;
        let current = report.status();
        let edited = current.edit()?;
        let mut errors = FieldErrors::new();
        let title = body.title.as_deref().and_then(|t| errors.check("title", text::line(t, text::MAX_NAME)));
        check_period(&mut errors, body.period_start.unwrap_or(report.period_start), body.period_end.unwrap_or(report.period_end));
        if let MaybeUndefined::Value(data) = &body.data {
            check_data(&mut errors, data);
        }
        if body.status.is_some_and(|s| !matches!(s, ReportStatus::Draft | ReportStatus::Submitted)) {
            errors.check::<()>("status", Err(FieldIssue::Invalid));
        }
        errors.into_result()?;
        let data = match &body.data {
            MaybeUndefined::Undefined => None,
            MaybeUndefined::Null => Some(None),
            MaybeUndefined::Value(d) => Some(Some(data_json(d))),
        };
        let changes = ReportChanges {
            title,
            content: body.content.as_deref(),
            period_start: body.period_start,
            period_end: body.period_end,
            data: data.as_ref().map(Option::as_ref),
        };
        store::reports::update(&mut tx, report.id, &changes).await?;
        if edited != current {
            store::reports::transition(&mut tx, scope.enterprise_id, report.id, caller.user_id, current, edited, None)
                .await
                .map_err(AppError::gone_is_not_found)?;
        }
        if body.status == Some(ReportStatus::Submitted) {
            let submitted = edited.submit()?;
            store::reports::transition(&mut tx, scope.enterprise_id, report.id, caller.user_id, edited, submitted, None)
                .await
                .map_err(AppError::gone_is_not_found)?;
        }
        let updated = detail(&mut tx, report.id).await?;
        let diff = Changes::new()
            .changed("title", report.title.as_str(), updated.report.title.as_str())
            .changed("periodStart", report.period_start, updated.report.period_start)
            .changed("periodEnd", report.period_end, updated.report.period_end)
            .changed("status", current.as_str(), updated.report.status.as_str())
            .with("contentChanged", body.content.as_deref().is_some_and(|c| c != report.content))
            .with("dataChanged", !matches!(body.data, MaybeUndefined::Undefined));
        record(&state, &mut tx, caller, scope.enterprise_id, &updated.report, "updated", diff).await?;
        if updated.report.status == ReportStatus::Submitted && current != ReportStatus::Submitted {
            record(&state, &mut tx, caller, scope.enterprise_id, &updated.report, "submitted", Changes::new()).await?;
        }
        let announcement = status_changed(&mut tx, scope.enterprise_id, &updated.report, current, caller.user_id).await?;
        tx.commit().await?;
        announce(&state, announcement).await;
        Ok(Json(updated))
    }

    /// Delete a report
    ///
    /// Its author or department head, while it is a draft or rejected.
    #[oai(path = "/reports/:id", method = "delete", operation_id = "deleteReport")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Deleted, ReportError> {
        auth.0.require("deleteReport")?;
        let caller = &auth.0;
        let scope = scope(&state, caller, None).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let report = scope.writable(&mut tx, caller, id.0).await?;
        if !report.status().is_editable() {
            return Err(AppError::InvalidTransition(crate::domain::InvalidTransition { from: report.status(), to: report.status() }).into());
        }
        let gone = Report::from(report.clone());
        store::reports::delete(&mut tx, report.id).await?;
        record(&state, &mut tx, caller, scope.enterprise_id, &gone, "deleted", Changes::new()).await?;
        tx.commit().await?;
        Ok(Deleted::Deleted)
    }

    /// Review a report
    ///
    /// The enterprise's CEO marks it reviewed, approves it, or rejects it with notes.
    #[oai(path = "/reports/:id/review", method = "post", operation_id = "reviewReport")]
    async fn review(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<ReviewReport>,
    ) -> Result<Json<ReportDetail>, ReportError> {
        auth.0.require("reviewReport")?;
        let caller = &auth.0;
        let notes = body.review_notes.as_deref().map(str::trim).filter(|n| !n.is_empty());
        if body.status == ReportStatus::Rejected && notes.is_none() {
            let mut errors = FieldErrors::new();
            errors.check::<()>("reviewNotes", Err(FieldIssue::Required));
            return Err(AppError::from(errors).into());
        }
        let scope = scope(&state, caller, None).await?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let report = scope.readable(&mut tx, caller, id.0).await?;
        let from = report.status();
        let to = from.review(body.status)?;
        store::reports::transition(&mut tx, scope.enterprise_id, report.id, caller.user_id, from, to, notes)
            .await
            .map_err(AppError::gone_is_not_found)?;
        let reviewed = detail(&mut tx, report.id).await?;
        let diff = Changes::new().changed("status", from.as_str(), to.as_str()).with("reviewNotes", notes.is_some());
        record(&state, &mut tx, caller, scope.enterprise_id, &reviewed.report, review_action(to), diff).await?;
        let announcement = status_changed(&mut tx, scope.enterprise_id, &reviewed.report, from, caller.user_id).await?;
        tx.commit().await?;
        announce(&state, announcement).await;
        Ok(Json(reviewed))
    }

    /// Download a report
    ///
    /// As XLSX, CSV or PDF, for whoever may read it (the platform admin may pass `enterpriseId`).
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/reports/:id/export", method = "get", operation_id = "exportReport")]
    async fn export(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        format: Query<ExportFormat>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        /// The language of the labels and dates (default: from `Accept-Language`, else the caller's account language).
        lang: Query<Option<crate::export::Lang>>,
        #[oai(name = "Accept-Language")] accept_language: poem_openapi::param::Header<Option<String>>,
    ) -> Result<ExportedReport, ExportError> {
        auth.0.require("exportReport")?;
        let scope = report_scope(&state, &auth.0, enterprise_id.0, id.0).await?;
        // Taken before the report is read: waiting exports hold no report data.
        let _slot = crate::export::slot().await.ok_or(AppError::Busy { retry_after_secs: 5 })?;
        let mut tx = tenancy::begin(&state.db, &scope.schema).await?;
        let report = scope.readable(&mut tx, &auth.0, id.0).await?;
        let department = store::departments::find(&mut tx, report.department_id).await?.ok_or(AppError::NotFound)?;
        let format = format.0;
        let summary = Report::from(report.clone());
        record(&state, &mut tx, &auth.0, scope.enterprise_id, &summary, "exported", Changes::new().with("format", format.extension())).await?;
        tx.commit().await?;
        // The language asked for, else the browser's, else the one on the caller's account.
        let lang = match (lang.0, accept_language.0.as_deref()) {
            (Some(lang), _) => lang,
            (None, Some(header)) => crate::export::Lang::from_accept_language(header),
            (None, None) => {
                store::users::find_by_id(&state.db, auth.0.user_id).await?.map(|u| crate::domain::Lang::from_code(&u.locale)).unwrap_or_default()
            }
        };
        let (name, bytes) = tokio::task::spawn_blocking(move || render(report, &department.kind, format, lang))
            .await
            .map_err(|e| AppError::Unexpected(e.into()))??;
        let file = poem_openapi::payload::Attachment::new(bytes).filename(name);
        Ok(ExportedReport::File(file, format.media_type().to_owned()))
    }

    /// List an enterprise's reports
    ///
    /// Every department's reports but drafts, for the platform admin or the enterprise's CEO.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/enterprises/:id/reports", method = "get", operation_id = "listEnterpriseReports")]
    async fn enterprise_reports(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "departmentId")] department_id: Query<Option<Uuid>>,
        status: Query<Option<ReportStatus>>,
        q: Query<Option<String>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        sort: Query<Option<ReportSort>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Report>>, ReportError> {
        auth.0.require("listEnterpriseReports")?;
        let enterprise = super::managed::managed_tenant(&state, &auth, id.0).await?;
        let filter = ReportFilter { department_id: department_id.0, status: status.0, hide_drafts: true, q: q.0, from: from.0, to: to.0 };
        Ok(Json(report_page(&state, &enterprise.schema, &filter, sort.0, paging(page.0, page_size.0)).await?))
    }
}
