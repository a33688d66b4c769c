//! The HTTP API under /api/v1: one module per OpenAPI tag. Handlers are thin: parse, authorize,
//! call, map.

mod auth;
mod dashboards;
mod departments;
mod enterprises;
mod reports;
mod types;
mod users;

use poem_openapi::{OpenApiService, Tags};

pub use types::User;

#[derive(Tags)]
pub enum ApiTags {
    /// Signing in and out, and who the caller is.
    Auth,
    /// Tenants: each enterprise has its own schema, CEO and five departments.
    Enterprises,
    /// An enterprise's departments: heads and members.
    Departments,
    /// Accounts: the platform admin manages everyone, a CEO their department staff.
    Users,
    /// Department reports and the CEO's review: draft, submitted, reviewed, approved, rejected.
    Reports,
    /// What each role sees first: counts, pending work, time series.
    Dashboards,
}

pub type Api = (auth::AuthApi, enterprises::EnterprisesApi, departments::DepartmentsApi, users::UsersApi, reports::ReportsApi, dashboards::DashboardsApi);

/// The API service; `base` is where it is mounted (written into the document's `servers`).
pub fn service() -> OpenApiService<Api, ()> {
    OpenApiService::new((auth::AuthApi, enterprises::EnterprisesApi, departments::DepartmentsApi, users::UsersApi, reports::ReportsApi, dashboards::DashboardsApi), "Enterprise Platform API", env!("CARGO_PKG_VERSION"))
        .description(
            "Multi-tenant enterprise management platform. Every error is `{ code, message, fields? }` \
             with a stable `code`. Lists are pages `{ items, total, page, pageSize }`. Authenticate \
             with `Authorization: Bearer <token>` from `POST /auth/login`.",
        )
        .server("/api/v1")
}

/// The OpenAPI document as committed in `openapi.json`.
pub fn spec_json() -> String {
    let mut json = service().spec();
    json.push('\n');
    json
}
