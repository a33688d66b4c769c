use chrono::{DateTime, NaiveDate, Utc};
use poem::web::Data;
use poem_openapi::{Object, OpenApi, param::Query, payload::Json};
use uuid::Uuid;

use super::{
    ApiTags,
    reports::Report,
    types::{Page, UserSummary, paging},
};
use crate::{
    api_errors,
    auth::BearerAuth,
    domain::{DepartmentType, ReportStatus, Role},
    error::AppError,
    state::AppState,
    store::{
        self,
        reports::{ReportFilter, ReportSort},
    },
    tenancy::{self, SchemaName},
};

#[derive(Default)]
pub struct DashboardsApi;

/// Reports by status; drafts are the departments' own and are not counted.
#[derive(Debug, Default, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct StatusCounts {
    pub submitted: i64,
    pub reviewed: i64,
    pub approved: i64,
    pub rejected: i64,
}

impl StatusCounts {
    fn add(&mut self, status: &str, n: i64) {
        match status {
            "submitted" => self.submitted += n,
            "reviewed" => self.reviewed += n,
            "approved" => self.approved += n,
            "rejected" => self.rejected += n,
            _ => {}
        }
    }
}

/// One department on the CEO's dashboard.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DepartmentSummary {
    pub id: Uuid,
    #[oai(rename = "type")]
    pub kind: DepartmentType,
    #[oai(nullable)]
    pub head: Option<UserSummary>,
    pub member_count: i64,
    pub reports: StatusCounts,
}

/// A status change on the CEO's dashboard.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Activity {
    pub report_id: Uuid,
    pub report_title: String,
    pub department_id: Uuid,
    #[oai(nullable)]
    pub actor: Option<UserSummary>,
    #[oai(nullable)]
    pub from_status: Option<ReportStatus>,
    pub to_status: ReportStatus,
    #[oai(nullable)]
    pub notes: Option<String>,
    pub at: DateTime<Utc>,
}

/// What the CEO sees first: departments with their reports by status, what waits for review,
/// and the latest changes.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CeoDashboard {
    pub enterprise_id: Uuid,
    pub enterprise_name: String,
    pub departments: Vec<DepartmentSummary>,
    pub totals: StatusCounts,
    /// Submitted or reviewed: waiting for the CEO's decision.
    pub pending_reviews: i64,
    pub recent_activity: Vec<Activity>,
}

/// Accounts by role.
#[derive(Debug, Default, Object)]
#[oai(rename_all = "camelCase")]
pub struct RoleCounts {
    pub platform_admin: i64,
    pub enterprise_ceo: i64,
    pub department_head: i64,
    pub department_user: i64,
}

/// Enterprises by state.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseCounts {
    pub active: i64,
    pub inactive: i64,
}

/// The platform at a glance.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AdminDashboard {
    pub enterprises: EnterpriseCounts,
    pub users_by_role: RoleCounts,
    pub reports_by_status: StatusCounts,
    /// Sessions neither ended nor expired.
    pub active_sessions: i64,
}

/// One day of platform activity (UTC).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct DayStatistics {
    pub date: NaiveDate,
    pub enterprises_created: i64,
    pub sign_ins: i64,
    /// Reports that reached each status that day.
    pub reports: StatusCounts,
}

/// Time series for the admin dashboard's charts.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AdminStatistics {
    pub days: Vec<DayStatistics>,
}

api_errors!(DashboardError {
    /// A parameter is invalid.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Another role's dashboard.
    403 Forbidden,
});

api_errors!(DashboardReportsError {
    /// A parameter is invalid.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only a CEO has this list.
    403 Forbidden,
    /// No such department in the caller's enterprise.
    404 NotFound,
});

#[OpenApi(tag = "ApiTags::Dashboards")]
impl DashboardsApi {
    /// The CEO's dashboard
    ///
    /// The enterprise at a glance: counts, the reports waiting for review, and recent activity.
    #[oai(path = "/dashboard/ceo", method = "get", operation_id = "getCeoDashboard")]
    async fn ceo(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<CeoDashboard>, DashboardError> {
        auth.0.require("getCeoDashboard")?;
        let caller = &auth.0;
        let (Role::EnterpriseCeo, Some(enterprise_id)) = (caller.role, caller.enterprise_id) else {
            return Err(AppError::Forbidden.into());
        };
        let enterprise = store::enterprises::find(&state.db, enterprise_id).await?.ok_or(AppError::Forbidden)?;
        let mut tx = tenancy::begin(&state.db, &SchemaName::for_enterprise(enterprise_id)).await?;
        let rows = store::dashboards::departments(&mut tx).await?;
        let counts = store::dashboards::report_counts(&mut tx).await?;
        let activity = store::dashboards::recent_activity(&mut tx, 10).await?;
        let mut departments = Vec::with_capacity(rows.len());
        let mut totals = StatusCounts::default();
        for d in rows {
            let head = match d.head_id {
                Some(id) => store::users::find_by_id(&mut *tx, id).await?.as_ref().map(UserSummary::from),
                None => None,
            };
            let mut reports = StatusCounts::default();
            for (_, status, n) in counts.iter().filter(|(dept, _, _)| *dept == d.id) {
                reports.add(status, *n);
                totals.add(status, *n);
            }
            departments.push(DepartmentSummary {
                id: d.id,
                kind: d.kind.parse().unwrap_or(DepartmentType::Operations),
                head,
                member_count: d.member_count,
                reports,
            });
        }
        tx.commit().await?;
        let recent_activity = activity
            .into_iter()
            .map(|a| Activity {
                report_id: a.report_id,
                report_title: a.report_title,
                department_id: a.department_id,
                actor: a.actor_id.map(|id| UserSummary::from_columns(id, a.actor_name, a.actor_email, a.actor_role)),
                from_status: a.from_status.and_then(|s| s.parse().ok()),
                to_status: a.to_status.parse().unwrap_or(ReportStatus::Submitted),
                notes: a.notes,
                at: a.at,
            })
            .collect();
        Ok(Json(CeoDashboard {
            enterprise_id,
            enterprise_name: enterprise.name,
            pending_reviews: totals.submitted + totals.reviewed,
            departments,
            totals,
            recent_activity,
        }))
    }

    /// The CEO's report list
    ///
    /// Every department's reports but drafts, filtered by department, status, period and text.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/dashboard/reports", method = "get", operation_id = "listCeoReports")]
    async fn reports(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "departmentId")] department_id: Query<Option<Uuid>>,
        status: Query<Option<ReportStatus>>,
        q: Query<Option<String>>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
        sort: Query<Option<ReportSort>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Report>>, DashboardReportsError> {
        auth.0.require("listCeoReports")?;
        let caller = &auth.0;
        let (Role::EnterpriseCeo, Some(enterprise_id)) = (caller.role, caller.enterprise_id) else {
            return Err(AppError::Forbidden.into());
        };
        let filter = ReportFilter { department_id: department_id.0, status: status.0, hide_drafts: true, q: q.0, from: from.0, to: to.0 };
        let schema = SchemaName::for_enterprise(enterprise_id);
        Ok(Json(super::reports::report_page(&state, &schema, &filter, sort.0, paging(page.0, page_size.0)).await?))
    }

    /// The platform admin's dashboard
    ///
    /// Platform-wide counts and recent activity, across every enterprise.
    #[oai(path = "/admin/dashboard", method = "get", operation_id = "getAdminDashboard")]
    async fn admin(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<AdminDashboard>, DashboardError> {
        auth.0.require("getAdminDashboard")?;
        let counts = store::dashboards::platform_counts(&state.db).await?;
        let mut users_by_role = RoleCounts::default();
        for (role, n) in store::dashboards::users_by_role(&state.db).await? {
            match role.parse::<Role>() {
                Ok(Role::PlatformAdmin) => users_by_role.platform_admin = n,
                Ok(Role::EnterpriseCeo) => users_by_role.enterprise_ceo = n,
                Ok(Role::DepartmentHead) => users_by_role.department_head = n,
                Ok(Role::DepartmentUser) => users_by_role.department_user = n,
                Err(_) => {}
            }
        }
        let mut reports_by_status = StatusCounts::default();
        for (status, n) in store::dashboards::reports_by_status(&state.db).await? {
            reports_by_status.add(&status, n);
        }
        Ok(Json(AdminDashboard {
            enterprises: EnterpriseCounts { active: counts.active_enterprises, inactive: counts.inactive_enterprises },
            users_by_role,
            reports_by_status,
            active_sessions: counts.active_sessions,
        }))
    }

    /// Platform statistics
    ///
    /// One entry per day for the last `days` days (default 30, at most 365).
    #[oai(path = "/admin/statistics", method = "get", operation_id = "getAdminStatistics")]
    async fn statistics(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(minimum(value = "1"), maximum(value = "365")))] days: Query<Option<i32>>,
    ) -> Result<Json<AdminStatistics>, DashboardError> {
        auth.0.require("getAdminStatistics")?;
        let rows = store::dashboards::daily(&state.db, days.0.unwrap_or(30)).await?;
        Ok(Json(AdminStatistics {
            days: rows
                .into_iter()
                .map(|r| DayStatistics {
                    date: r.day,
                    enterprises_created: r.enterprises_created,
                    sign_ins: r.sign_ins,
                    reports: StatusCounts { submitted: r.submitted, reviewed: r.reviewed, approved: r.approved, rejected: r.rejected },
                })
                .collect(),
        }))
    }
}
