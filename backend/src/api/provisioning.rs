//! How an enterprise's directory provisions its people (SCIM, `api/scim.rs`): what a deletion by
//! the directory does. The platform admin, or the enterprise's CEO.

use poem::web::Data;
use poem_openapi::{Enum, Object, OpenApi, param::Path, payload::Json};
use uuid::Uuid;

use super::{ApiTags, managed::find_managed};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::BearerAuth,
    state::AppState,
    store,
};

#[derive(Default)]
pub struct ProvisioningApi;

/// What SCIM's `DELETE /Users/{id}` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum ScimDeletion {
    /// The account is deleted (409 while the person wrote reports, which need their author).
    Delete,
    /// The person is erased (`POST /users/{id}/erasure`): their personal data removed, their
    /// reports, reviews, spreadsheets and audit entries kept under "Former member #n".
    Erase,
}

impl ScimDeletion {
    fn as_str(self) -> &'static str {
        match self {
            Self::Delete => "delete",
            Self::Erase => "erase",
        }
    }
}

/// An enterprise's provisioning settings.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Provisioning {
    pub scim_deletion: ScimDeletion,
}

api_errors!(ProvisioningError {
    /// A value that is not one of the choices (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this (`forbidden`).
    403 Forbidden,
    /// No such enterprise for this caller (`not_found`).
    404 NotFound,
});

/// What the enterprise chose (`delete` until it chooses).
pub async fn scim_deletion(state: &AppState, enterprise: Uuid) -> sqlx::Result<ScimDeletion> {
    let chosen = store::enterprises::scim_deletion(&state.db, enterprise).await?;
    Ok(if chosen.as_deref() == Some("erase") { ScimDeletion::Erase } else { ScimDeletion::Delete })
}

#[OpenApi(prefix_path = "/enterprises", tag = "ApiTags::Enterprises")]
impl ProvisioningApi {
    /// An enterprise's provisioning settings
    ///
    /// What its directory deleting someone through SCIM does: `delete` their account, or
    /// `erase` their personal data and keep their work under a pseudonym.
    #[oai(path = "/:id/provisioning", method = "get", operation_id = "getEnterpriseProvisioning")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Provisioning>, ProvisioningError> {
        auth.0.require("getEnterpriseProvisioning")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        Ok(Json(Provisioning { scim_deletion: scim_deletion(&state, enterprise.id).await? }))
    }

    /// Change an enterprise's provisioning settings
    ///
    /// Audited (`enterprise.provisioning_changed`).
    #[oai(path = "/:id/provisioning", method = "put", operation_id = "updateEnterpriseProvisioning")]
    async fn update(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<Provisioning>,
    ) -> Result<Json<Provisioning>, ProvisioningError> {
        auth.0.require("updateEnterpriseProvisioning")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let before = scim_deletion(&state, enterprise.id).await?;
        let mut tx = state.db.begin().await?;
        store::enterprises::set_scim_deletion(&mut tx, enterprise.id, body.scim_deletion.as_str()).await?;
        let changes = Changes::new().changed("scimDeletion", &before.as_str(), &body.scim_deletion.as_str());
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(
                &mut tx,
                Some(enterprise.id),
                "enterprise.provisioning_changed",
                Some(Target::new("enterprise", enterprise.id, &enterprise.name)),
                changes,
            )
            .await?;
        tx.commit().await?;
        Ok(Json(Provisioning { scim_deletion: body.scim_deletion }))
    }
}
