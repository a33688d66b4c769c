use poem::web::Data;
use poem_openapi::{ApiResponse, Object, OpenApi, param::Path, payload::Json, types::MaybeUndefined};
use sqlx::PgConnection;
use uuid::Uuid;

use super::{ApiTags, managed::managed_tenant, types::UserSummary};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::BearerAuth,
    domain::{DepartmentType, FieldErrors, FieldIssue, Role},
    error::AppError,
    state::AppState,
    store::{self, departments::MemberRecord, users::UserRecord},
    tenancy,
};

#[derive(Default)]
pub struct DepartmentsApi;

/// One of an enterprise's five departments.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Department {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    #[oai(rename = "type")]
    pub kind: DepartmentType,
    pub description: String,
    /// Null when the department has no head.
    #[oai(nullable)]
    pub head: Option<UserSummary>,
    pub members: Vec<UserSummary>,
}

/// Changes to a department; absent fields stay. `headId: null` removes the head.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateDepartment {
    #[oai(validator(max_length = 2000))]
    pub description: Option<String>,
    /// A person of this enterprise's staff; they join the department and become its head.
    #[oai(nullable)]
    pub head_id: MaybeUndefined<Uuid>,
}

/// Whom to add to the department.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AssignUser {
    pub user_id: Uuid,
}

#[derive(Debug, ApiResponse)]
pub enum MembershipChanged {
    /// Done.
    #[oai(status = 204)]
    Done,
}

api_errors!(DepartmentError {
    /// A field is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such enterprise, department or user for this caller.
    404 NotFound,
});

fn member_summary(m: &MemberRecord) -> UserSummary {
    UserSummary { id: m.id, full_name: m.full_name.clone(), email: m.email.clone(), role: m.role.parse().unwrap_or(Role::DepartmentUser) }
}

/// The departments (all, or one) with their heads and members, inside a tenant transaction.
pub async fn load_departments(tx: &mut PgConnection, enterprise_id: Uuid, only: Option<Uuid>) -> Result<Vec<Department>, AppError> {
    let records = match only {
        Some(id) => store::departments::find(tx, id).await?.into_iter().collect(),
        None => store::departments::list(tx).await?,
    };
    let ids: Vec<Uuid> = records.iter().map(|d| d.id).collect();
    // A head is always a member of their department (they join it, and leaving it ends the headship).
    let members = store::departments::members(tx, &ids).await?;
    Ok(records
        .into_iter()
        .map(|d| Department {
            id: d.id,
            enterprise_id,
            kind: d.kind.parse().unwrap_or(DepartmentType::Operations),
            description: d.description,
            head: d.head_id.and_then(|h| members.iter().find(|m| m.id == h)).map(member_summary),
            members: members.iter().filter(|m| m.department_id == d.id).map(member_summary).collect(),
        })
        .collect())
}

#[OpenApi(prefix_path = "/enterprises", tag = "ApiTags::Departments")]
impl DepartmentsApi {
    /// Get a department
    ///
    /// The platform admin, the enterprise's CEO, or the department's own staff.
    #[oai(path = "/:id/departments/:deptId", method = "get", operation_id = "getDepartment")]
    async fn get(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "deptId")] dept_id: Path<Uuid>,
    ) -> Result<Json<Department>, DepartmentError> {
        auth.0.require("getDepartment")?;
        let caller = &auth.0;
        let own_department = if caller.role.is_tenant_role() && !matches!(caller.role, Role::EnterpriseCeo) {
            store::users::find_by_id(&state.db, caller.user_id).await?.and_then(|u| u.department_id)
        } else {
            None
        };
        caller.may_read_department(id.0, dept_id.0, own_department)?;
        let enterprise = store::enterprises::find(&state.db, id.0).await?.ok_or(AppError::NotFound)?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema()).await?;
        let department = load_departments(&mut tx, enterprise.id, Some(dept_id.0)).await?.pop().ok_or(AppError::NotFound)?;
        tx.commit().await?;
        Ok(Json(department))
    }

    /// Update a department
    ///
    /// Its description and head. The platform admin or the enterprise's CEO.
    #[oai(path = "/:id/departments/:deptId", method = "put", operation_id = "updateDepartment")]
    async fn update(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "deptId")] dept_id: Path<Uuid>,
        body: Json<UpdateDepartment>,
    ) -> Result<Json<Department>, DepartmentError> {
        auth.0.require("updateDepartment")?;
        let mut errors = FieldErrors::new();
        let description = body.description.as_deref().and_then(|d| errors.check("description", crate::domain::text::paragraphs(d, 2000)));
        errors.into_result().map_err(AppError::from)?;
        let enterprise = managed_tenant(&state, &auth, id.0).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema).await?;
        let Some(department) = store::departments::find(&mut tx, dept_id.0).await? else {
            return Err(AppError::NotFound.into());
        };
        let mut ended = Vec::new();
        let replaced = match &body.head_id {
            MaybeUndefined::Undefined => None,
            MaybeUndefined::Null => department.head_id,
            MaybeUndefined::Value(new_head) => department.head_id.filter(|p| p != new_head),
        };
        if let (MaybeUndefined::Value(new_head), Some(previous)) = (&body.head_id, replaced) {
            store::users::lock_all(&mut tx, &[*new_head, previous]).await?;
        }
        let head = match &body.head_id {
            MaybeUndefined::Undefined => None,
            MaybeUndefined::Null => Some(None),
            MaybeUndefined::Value(user_id) => {
                let user = staff_of(&mut tx, enterprise.id, *user_id, "headId").await?;
                if let Some(previous) = user.department_id.filter(|d| *d != dept_id.0) {
                    store::departments::clear_head(&mut tx, previous, user.id).await?;
                }
                let changes =
                    store::users::UserChanges { role: Some(Role::DepartmentHead), department_id: Some(Some(dept_id.0)), ..Default::default() };
                ended.extend(store::users::update(&mut tx, user.id, &changes).await?);
                Some(Some(user.id))
            }
        };
        // The head being replaced or removed becomes a department user (their sessions end).
        if let Some(previous) = replaced
            && store::users::find_for_update(&mut tx, previous).await?.is_some()
        {
            ended.extend(end_headship(&mut tx, dept_id.0, previous).await?);
        }
        store::departments::update(&mut tx, dept_id.0, description, head).await.map_err(AppError::gone_is_not_found)?;
        let after = load_departments(&mut tx, enterprise.id, Some(dept_id.0)).await?.pop().ok_or(AppError::NotFound)?;
        let audit = Audit::of(state.geoip.as_ref(), &auth.0);
        let target = Target::new("department", after.id, after.kind.as_str());
        if description.is_some_and(|d| d != department.description) {
            let diff = Changes::new().changed("description", department.description.as_str(), after.description.as_str());
            audit.record(&mut tx, Some(enterprise.id), "department.updated", Some(target), diff).await?;
        }
        let new_head = after.head.as_ref().map(|h| h.id);
        if new_head != department.head_id {
            let diff =
                Changes::new().changed("headId", department.head_id, new_head).with("headName", after.head.as_ref().map(|h| h.full_name.as_str()));
            audit.record(&mut tx, Some(enterprise.id), "department.head_changed", Some(target), diff).await?;
        }
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(Json(after))
    }

    /// Assign a user to a department
    ///
    /// A department head or user of the same enterprise; they leave any other department.
    #[oai(path = "/:id/departments/:deptId/users", method = "post", operation_id = "assignDepartmentUser")]
    async fn assign(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "deptId")] dept_id: Path<Uuid>,
        body: Json<AssignUser>,
    ) -> Result<MembershipChanged, DepartmentError> {
        auth.0.require("assignDepartmentUser")?;
        let enterprise = managed_tenant(&state, &auth, id.0).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema).await?;
        if !store::departments::exists(&mut tx, dept_id.0).await? {
            return Err(AppError::NotFound.into());
        }
        let user = staff_of(&mut tx, enterprise.id, body.user_id, "userId").await?;
        let mut ended = Vec::new();
        if let Some(previous) = user.department_id.filter(|d| *d != dept_id.0) {
            ended = end_headship(&mut tx, previous, user.id).await?;
        }
        let changes = store::users::UserChanges { department_id: Some(Some(dept_id.0)), ..Default::default() };
        store::users::update(&mut tx, user.id, &changes).await?;
        if user.department_id != Some(dept_id.0) {
            let diff = Changes::new().changed("departmentId", user.department_id, Some(dept_id.0));
            Audit::of(state.geoip.as_ref(), &auth.0)
                .record(&mut tx, Some(enterprise.id), "department.member_added", Some(Target::new("user", user.id, &user.full_name)), diff)
                .await?;
        }
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(MembershipChanged::Done)
    }

    /// Remove a user from a department
    ///
    /// Takes the user out of the department (they stay in the enterprise); a department head removed is no longer its head.
    #[oai(path = "/:id/departments/:deptId/users/:userId", method = "delete", operation_id = "removeDepartmentUser")]
    async fn remove(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "deptId")] dept_id: Path<Uuid>,
        #[oai(name = "userId")] user_id: Path<Uuid>,
    ) -> Result<MembershipChanged, DepartmentError> {
        auth.0.require("removeDepartmentUser")?;
        let enterprise = managed_tenant(&state, &auth, id.0).await?;
        let mut tx = tenancy::begin(&state.db, &enterprise.schema).await?;
        let user = store::users::find_for_update(&mut tx, user_id.0).await?;
        let Some(user) = user.filter(|u| u.enterprise_id == Some(enterprise.id) && u.department_id == Some(dept_id.0)) else {
            return Err(AppError::NotFound.into());
        };
        let ended = end_headship(&mut tx, dept_id.0, user.id).await?;
        let changes = store::users::UserChanges { department_id: Some(None), ..Default::default() };
        store::users::update(&mut tx, user.id, &changes).await?;
        let diff = Changes::new().changed("departmentId", Some(dept_id.0), None);
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, Some(enterprise.id), "department.member_removed", Some(Target::new("user", user.id, &user.full_name)), diff)
            .await?;
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(MembershipChanged::Done)
    }
}

/// Ends `user_id`'s headship of the department, if they hold it: the department has no head and
/// they become a department user, so their sessions end (docs/architecture.md, Roles). The caller
/// has locked the user's row. Returns the ended sessions, to forget in the cache after commit.
pub async fn end_headship(tx: &mut PgConnection, department_id: Uuid, user_id: Uuid) -> Result<Vec<store::sessions::EndedSession>, AppError> {
    if !store::departments::clear_head(&mut *tx, department_id, user_id).await? {
        return Ok(Vec::new());
    }
    let changes = store::users::UserChanges { role: Some(Role::DepartmentUser), ..Default::default() };
    Ok(store::users::update(tx, user_id, &changes).await?)
}

/// A department head or user of this enterprise, locked (`find_for_update`); another
/// enterprise's user is 404, a CEO or admin is refused as a field error.
async fn staff_of(tx: &mut PgConnection, enterprise_id: Uuid, user_id: Uuid, field: &str) -> Result<UserRecord, AppError> {
    let user = store::users::find_for_update(&mut *tx, user_id).await?;
    let user = user.filter(|u| u.enterprise_id == Some(enterprise_id)).ok_or(AppError::NotFound)?;
    if !matches!(user.role(), Role::DepartmentHead | Role::DepartmentUser) {
        let mut errors = FieldErrors::new();
        errors.check::<()>(field, Err(FieldIssue::Invalid));
        return Err(errors.into());
    }
    Ok(user)
}
