//! What an enterprise uses and the limits it may use up to (`usage`): read by the platform admin
//! and the enterprise's own CEO, limits set by the platform admin.

use chrono::{Days, NaiveDate, Utc};
use poem::web::Data;
use poem_openapi::{Enum, Object, OpenApi, param::Path, param::Query, payload::Json};
use uuid::Uuid;

use super::{
    ApiTags,
    managed::find_managed,
    types::{Page, paging},
};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::BearerAuth,
    config::TenantLimits,
    domain::{FieldErrors, FieldIssue},
    error::AppError,
    state::AppState,
    store::{self, usage::OwnLimits},
    tenancy,
};

#[derive(Default)]
pub struct UsageApi;

/// What the enterprise holds now.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UsageNow {
    /// Its people, deactivated ones included (erased ones are not).
    pub people: i64,
    /// Sessions of its people live now.
    pub active_sessions: i64,
    /// The size on disk of its schema: tables, indexes and TOAST.
    pub storage_bytes: i64,
    pub spreadsheets: i64,
    pub reports: i64,
}

/// Limits; a missing one is no limit.
#[derive(Debug, Clone, Copy, Default, Object)]
#[oai(rename_all = "camelCase")]
pub struct UsageLimits {
    #[oai(skip_serializing_if_is_none)]
    pub people: Option<i64>,
    #[oai(skip_serializing_if_is_none)]
    pub storage_bytes: Option<i64>,
    #[oai(skip_serializing_if_is_none)]
    pub api_calls_per_minute: Option<i64>,
}

impl From<TenantLimits> for UsageLimits {
    fn from(l: TenantLimits) -> Self {
        Self {
            people: l.people.map(i64::from),
            storage_bytes: l.storage_bytes.and_then(|n| i64::try_from(n).ok()),
            api_calls_per_minute: l.api_calls_per_minute.map(i64::from),
        }
    }
}

impl From<OwnLimits> for UsageLimits {
    fn from(l: OwnLimits) -> Self {
        Self { people: l.people.map(i64::from), storage_bytes: l.storage_bytes, api_calls_per_minute: l.api_calls_per_minute.map(i64::from) }
    }
}

/// One day's counts (UTC days).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UsageDay {
    pub date: NaiveDate,
    /// Calls to `/api/v1` made with the enterprise's credentials (sessions and tokens), refused
    /// ones included.
    pub api_calls: i64,
    /// E-mails sent to its people.
    pub emails: i64,
    /// Exports of the enterprise asked for.
    pub exports: i64,
    /// Sign-ins of its people.
    pub sign_ins: i64,
}

/// What an enterprise uses (docs/api.md, "A tenant's life").
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseUsage {
    pub current: UsageNow,
    /// The limits in force: the enterprise's own, else the platform's defaults.
    pub limits: UsageLimits,
    /// The enterprise's own limits (`PUT …/limits`); a missing one takes the platform's default.
    pub own_limits: UsageLimits,
    /// Every day from `from` to `to`, oldest first (days with nothing counted are zeros).
    pub daily: Vec<UsageDay>,
}

/// An enterprise's own limits. A missing (or null) one takes the platform's default
/// (`TENANT_LIMIT_*`), which may be none.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SetEnterpriseLimits {
    #[oai(validator(minimum(value = "1"), maximum(value = "1000000")))]
    pub people: Option<i64>,
    /// At most 1 PiB.
    #[oai(validator(minimum(value = "1"), maximum(value = "1125899906842624")))]
    pub storage_bytes: Option<i64>,
    #[oai(validator(minimum(value = "1"), maximum(value = "1000000")))]
    pub api_calls_per_minute: Option<i64>,
}

/// The limits after a change.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseLimits {
    /// In force: the enterprise's own, else the platform's defaults.
    pub limits: UsageLimits,
    /// The enterprise's own.
    pub own_limits: UsageLimits,
}

/// What the platform's usage overview sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "camelCase")]
pub enum UsageSort {
    Name,
    People,
    ActiveSessions,
    StorageBytes,
    SpreadsheetBytes,
    ExportBytes,
    ApiCalls,
    Emails,
    Exports,
    SignIns,
}

/// A sort's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum SortOrder {
    Asc,
    Desc,
}

/// One enterprise in the platform's usage overview.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EnterpriseUsageSummary {
    pub enterprise_id: Uuid,
    pub name: String,
    pub is_active: bool,
    /// Its people, deactivated ones included (erased ones are not).
    pub people: i64,
    pub active_sessions: i64,
    /// Its schema on disk: tables, indexes and TOAST.
    pub storage_bytes: i64,
    /// Of `storageBytes`, its spreadsheets.
    pub spreadsheet_bytes: i64,
    /// Its export archives stored until they expire.
    pub export_bytes: i64,
    /// Over the `days` up to today (UTC), as `daily` of its usage counts them.
    pub api_calls: i64,
    pub emails: i64,
    pub exports: i64,
    pub sign_ins: i64,
    /// The limits in force.
    pub limits: UsageLimits,
}

api_errors!(OverviewError {
    /// A bad `sort`, `order`, `days` or page (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Only the platform admin sees every enterprise's usage (`forbidden`).
    403 Forbidden,
});

api_errors!(UsageError {
    /// `from` or `to` is not a date, `from` is after `to`, or they span more than 366 days
    /// (`validation_failed`, with `fields`); a limit below 1 or too large.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (`forbidden`).
    403 Forbidden,
    /// No such enterprise for this caller (`not_found`).
    404 NotFound,
});

/// The longest span `daily` covers.
const MAX_DAYS: u64 = 366;
/// The span when `from` is not given: the 30 days up to `to`.
const DEFAULT_DAYS: u64 = 30;

#[OpenApi(prefix_path = "/enterprises", tag = "ApiTags::Enterprises")]
impl UsageApi {
    /// An enterprise's usage
    ///
    /// The platform admin, or the enterprise's CEO. What it holds now, its limits, and its
    /// daily counts from `from` to `to` (UTC dates, both included; by default the 30 days up to
    /// today, at most 366).
    #[oai(path = "/:id/usage", method = "get", operation_id = "getEnterpriseUsage")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        from: Query<Option<NaiveDate>>,
        to: Query<Option<NaiveDate>>,
    ) -> Result<Json<EnterpriseUsage>, UsageError> {
        auth.0.require("getEnterpriseUsage")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let to = to.0.unwrap_or_else(|| Utc::now().date_naive());
        let from = from.0.unwrap_or_else(|| to.checked_sub_days(Days::new(DEFAULT_DAYS - 1)).unwrap_or(to));
        let mut errors = FieldErrors::new();
        if from > to {
            errors.check::<()>("from", Err(FieldIssue::Invalid));
        } else if (to - from).num_days() >= MAX_DAYS as i64 {
            errors.check::<()>("from", Err(FieldIssue::TooLong));
        }
        errors.into_result()?;

        // This instance's counts not yet written are written first.
        if let Err(err) = state.usage.flush(&state.db).await {
            tracing::warn!(error = %err, "could not write the usage counters before a read");
        }
        let own = store::usage::limits(&state.db, enterprise.id).await?.ok_or(AppError::NotFound)?;
        let people = store::usage::people(&state.db, enterprise.id).await?;
        let active_sessions = store::usage::active_sessions(&state.db, enterprise.id).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema()).await?;
        let (reports, spreadsheets) = store::usage::holdings(&mut tx).await?;
        let citus = tenancy::citus::enabled(&mut tx).await?;
        let storage_bytes = store::usage::schema_bytes(&mut tx, &enterprise.schema(), citus).await?;
        tx.commit().await?;

        let counted = store::usage::daily(&state.db, enterprise.id, from, to).await?;
        let mut counted = counted.into_iter().peekable();
        let daily = from
            .iter_days()
            .take_while(|day| *day <= to)
            .map(|date| {
                let c = counted.next_if(|(day, _)| *day == date).map(|(_, c)| c).unwrap_or_default();
                UsageDay { date, api_calls: c.api_calls, emails: c.emails, exports: c.exports, sign_ins: c.sign_ins }
            })
            .collect();
        Ok(Json(EnterpriseUsage {
            current: UsageNow { people, active_sessions, storage_bytes, spreadsheets, reports },
            limits: crate::usage::in_force(own, state.config.tenant_limits).into(),
            own_limits: own.into(),
            daily,
        }))
    }

    /// Every enterprise's usage
    ///
    /// The platform admin. Each enterprise with what it holds now (people, live sessions, its
    /// schema on disk and the spreadsheets' part of it, stored export archives), its counts over
    /// the `days` up to today (1 to 366, default 30) and its limits in force, sorted by `sort`
    /// (default `storageBytes`) in `order` (default `desc`; ties by name), a page at a time.
    #[oai(path = "/usage", method = "get", operation_id = "listEnterpriseUsage")]
    #[allow(clippy::too_many_arguments)]
    async fn overview(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        sort: Query<Option<UsageSort>>,
        order: Query<Option<SortOrder>>,
        #[oai(validator(minimum(value = "1"), maximum(value = "366")))] days: Query<Option<u32>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<EnterpriseUsageSummary>>, OverviewError> {
        auth.0.require("listEnterpriseUsage")?;
        let paging = paging(page.0, page_size.0);
        let now = Utc::now();
        let today = now.date_naive();
        let since = today.checked_sub_days(Days::new(u64::from(days.0.unwrap_or(DEFAULT_DAYS as u32)) - 1)).unwrap_or(today);
        if let Err(err) = state.usage.flush(&state.db).await {
            tracing::warn!(error = %err, "could not write the usage counters before a read");
        }
        let mut conn = state.db.acquire().await?;
        let citus = tenancy::citus::enabled(&mut conn).await?;
        let mut rows = store::usage::overview(&mut conn, since, now, citus).await?;
        drop(conn);
        let key = |o: &store::usage::Overview| -> i64 {
            match sort.0.unwrap_or(UsageSort::StorageBytes) {
                UsageSort::Name => 0,
                UsageSort::People => o.people,
                UsageSort::ActiveSessions => o.active_sessions,
                UsageSort::StorageBytes => o.storage_bytes,
                UsageSort::SpreadsheetBytes => o.spreadsheet_bytes,
                UsageSort::ExportBytes => o.export_bytes,
                UsageSort::ApiCalls => o.counts.api_calls,
                UsageSort::Emails => o.counts.emails,
                UsageSort::Exports => o.counts.exports,
                UsageSort::SignIns => o.counts.sign_ins,
            }
        };
        let descending = order.0.unwrap_or(SortOrder::Desc) == SortOrder::Desc;
        rows.sort_by(|a, b| {
            let by_key = if descending { key(b).cmp(&key(a)) } else { key(a).cmp(&key(b)) };
            let by_name = a.name.to_lowercase().cmp(&b.name.to_lowercase());
            let by_name = if sort.0 == Some(UsageSort::Name) && descending { by_name.reverse() } else { by_name };
            by_key.then(by_name).then(a.id.cmp(&b.id))
        });
        let total = rows.len() as i64;
        let start = (paging.page.saturating_sub(1) as usize).saturating_mul(paging.page_size as usize);
        let items = rows
            .into_iter()
            .skip(start)
            .take(paging.page_size as usize)
            .map(|o| EnterpriseUsageSummary {
                enterprise_id: o.id,
                name: o.name,
                is_active: o.is_active,
                people: o.people,
                active_sessions: o.active_sessions,
                storage_bytes: o.storage_bytes,
                spreadsheet_bytes: o.spreadsheet_bytes,
                export_bytes: o.export_bytes,
                api_calls: o.counts.api_calls,
                emails: o.counts.emails,
                exports: o.counts.exports,
                sign_ins: o.counts.sign_ins,
                limits: crate::usage::in_force(o.limits, state.config.tenant_limits).into(),
            })
            .collect();
        Ok(Json(Page::new(items, total, paging)))
    }

    /// Set an enterprise's limits
    ///
    /// The platform admin. Replaces the enterprise's own limits: a missing one takes the
    /// platform's default. Past a limit, what would cross it is refused with `limit_reached`
    /// naming it: a new person (409, `people`), a new report or spreadsheet (409,
    /// `storageBytes`), an API call by anyone of the enterprise (429 with `RateLimit` headers,
    /// `apiCallsPerMinute`). Lowering a limit below what is used removes nothing.
    #[oai(path = "/:id/limits", method = "put", operation_id = "setEnterpriseLimits")]
    async fn set_limits(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<SetEnterpriseLimits>,
    ) -> Result<Json<EnterpriseLimits>, UsageError> {
        auth.0.require("setEnterpriseLimits")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let narrow = |n: Option<i64>| n.and_then(|n| i32::try_from(n).ok());
        let own =
            OwnLimits { people: narrow(body.people), storage_bytes: body.storage_bytes, api_calls_per_minute: narrow(body.api_calls_per_minute) };
        let before = store::usage::limits(&state.db, enterprise.id).await?.ok_or(AppError::NotFound)?;
        store::usage::set_limits(&state.db, enterprise.id, own).await?;
        crate::usage::limits_changed(&state.cache, enterprise.id).await;
        let shown =
            |l: OwnLimits| serde_json::json!({ "people": l.people, "storageBytes": l.storage_bytes, "apiCallsPerMinute": l.api_calls_per_minute });
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record_alone(
                &state.db,
                Some(enterprise.id),
                "enterprise.limits_changed",
                Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
                Changes::new().with("before", shown(before)).with("after", shown(own)),
            )
            .await?;
        Ok(Json(EnterpriseLimits { limits: crate::usage::in_force(own, state.config.tenant_limits).into(), own_limits: own.into() }))
    }
}
