//! What a caller may reach of an enterprise they manage (the platform admin: any; its CEO: their
//! own), shared by the enterprise, department and report operations.

use uuid::Uuid;

use crate::{
    auth::BearerAuth,
    error::AppError,
    state::AppState,
    store::{self, enterprises::EnterpriseRecord},
    tenancy::SchemaName,
};

/// The enterprise, if the caller manages it (admin: any; CEO: their own; others: 403/404).
pub async fn find_managed(state: &AppState, auth: &BearerAuth, id: Uuid) -> Result<EnterpriseRecord, AppError> {
    auth.0.require_enterprise_manager(id)?;
    store::enterprises::find(&state.db, id).await?.ok_or(AppError::NotFound)
}

/// An enterprise as tenant calls need it: its id and its schema.
pub struct Tenant {
    pub id: Uuid,
    pub schema: SchemaName,
}

/// Like `find_managed`, for calls that only work inside the tenant: no row to read beyond
/// knowing it exists.
pub async fn managed_tenant(state: &AppState, auth: &BearerAuth, id: Uuid) -> Result<Tenant, AppError> {
    auth.0.require_enterprise_manager(id)?;
    if store::enterprises::exists(&state.db, id).await? { Ok(Tenant { id, schema: SchemaName::for_enterprise(id) }) } else { Err(AppError::NotFound) }
}
