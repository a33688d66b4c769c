use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
};
use uuid::Uuid;

use super::{
    ApiTags,
    enterprises::Deleted,
    types::{Page, User, paging},
};
use serde_json::json;

use crate::{
    accounts, api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, Caller, password},
    domain::{Email, FieldErrors, FieldIssue, Lang, Password, Role, UserStatus, text},
    error::{AppError, Conflict},
    state::AppState,
    store::{
        self,
        users::{DeleteError, UserChanges, UserFilter, UserRecord},
    },
    tenancy,
};

#[derive(Default)]
pub struct UsersApi;

/// What an erasure did, as stable codes. `removed`: `name`, `email`, `password`, `sessions`,
/// `sign_in_history`, `api_tokens`, `passkeys`, `authenticator`, `recovery_codes`, `invitations`,
/// `pending_emails`, `directory_identity`, `messenger_keys`, `conversations`, `messages`,
/// `department_head`, `exports` (the enterprise's archives, which held them). `kept` (attributed to the pseudonym): `reports`, `reviews`, `spreadsheets`,
/// `audit_entries`.
#[derive(Debug, Object)]
pub struct Erasure {
    pub removed: Vec<String>,
    pub kept: Vec<String>,
}

/// A new account. The platform admin creates any role (`enterpriseId` required for tenant
/// roles); a CEO creates department heads and users in their own enterprise. Without a
/// `password` the person is invited: they receive an e-mail with a link (7 days, single use) to
/// choose their own.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateUser {
    #[oai(validator(max_length = 200))]
    pub full_name: String,
    #[oai(validator(max_length = 320))]
    pub email: String,
    /// Omitted: the person is invited by e-mail and chooses their password.
    #[oai(validator(max_length = 1024))]
    pub password: Option<String>,
    pub role: Role,
    pub enterprise_id: Option<Uuid>,
    pub department_id: Option<Uuid>,
    /// The person's language (their e-mails, starting with the invitation); English by default.
    pub locale: Option<Lang>,
}

/// Changes to an account; absent fields stay. `departmentId: null` takes the user out of their
/// department. `status: inactive` signs them out at once.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateUser {
    #[oai(validator(max_length = 200))]
    pub full_name: Option<String>,
    #[oai(validator(max_length = 320))]
    pub email: Option<String>,
    pub role: Option<Role>,
    pub status: Option<UserStatus>,
    #[oai(nullable)]
    pub department_id: MaybeUndefined<Uuid>,
    #[oai(validator(max_length = 1024))]
    pub password: Option<String>,
}

#[derive(Debug, ApiResponse)]
pub enum CreatedUser {
    /// The account exists: it can sign in with the password given, or its invitation is on its way.
    #[oai(status = 201)]
    Created(Json<User>),
}

#[derive(Debug, ApiResponse)]
pub enum InvitationSent {
    /// A new invitation is on its way; the earlier link no longer works.
    #[oai(status = 202)]
    Accepted,
}

api_errors!(UserError {
    /// A field is missing or invalid (`validation_failed`, with `fields`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such user, enterprise or department for this caller.
    404 NotFound,
    /// The e-mail is taken, or the change would lock the caller out (`conflict`); or a new
    /// person past the enterprise's limit of people (`limit_reached`, `limit` `people`).
    409 Conflict,
});

api_errors!(UserReadError {
    /// A filter is invalid.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// The caller's role may not do this.
    403 Forbidden,
    /// No such user or enterprise for this caller.
    404 NotFound,
});

const STAFF: [Role; 2] = [Role::DepartmentHead, Role::DepartmentUser];

#[OpenApi(prefix_path = "/users", tag = "ApiTags::Users")]
impl UsersApi {
    /// Create a user
    ///
    /// Creates an account that can sign in at once with the given password, or, without one, invites the person by e-mail to choose theirs. The platform admin creates any role; a CEO creates department heads and users of their enterprise.
    #[oai(path = "/", method = "post", operation_id = "createUser")]
    async fn create(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<CreateUser>) -> Result<CreatedUser, UserError> {
        auth.0.require("createUser")?;
        Ok(CreatedUser::Created(Json(create_user(&state, &auth.0, &body).await?.into())))
    }

    /// List users
    ///
    /// The platform admin sees everyone; a CEO sees their enterprise's department staff.
    /// `q` searches names and e-mails.
    #[allow(clippy::too_many_arguments)]
    #[oai(path = "/", method = "get", operation_id = "listUsers")]
    async fn list(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        role: Query<Option<Role>>,
        status: Query<Option<UserStatus>>,
        #[oai(name = "enterpriseId")] enterprise_id: Query<Option<Uuid>>,
        #[oai(name = "departmentId")] department_id: Query<Option<Uuid>>,
        q: Query<Option<String>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<User>>, UserReadError> {
        auth.0.require("listUsers")?;
        let caller = &auth.0;
        let mut filter = UserFilter {
            role: role.0,
            status: status.0,
            enterprise_id: enterprise_id.0,
            department_id: department_id.0,
            q: q.0,
            roles_in: None,
            ..Default::default()
        };
        if !caller.is_admin() {
            if filter.enterprise_id.is_some_and(|id| Some(id) != caller.enterprise_id) {
                return Err(AppError::NotFound.into());
            }
            filter.enterprise_id = caller.enterprise_id;
            filter.roles_in = Some(STAFF.to_vec());
        }
        let paging = paging(page.0, page_size.0);
        let (rows, total) = store::users::list(&state.db, &filter, paging).await?;
        Ok(Json(Page::new(rows.into_iter().map(User::from).collect(), total, paging)))
    }

    /// Get a user
    ///
    /// One account, as the platform admin (anyone) or a CEO (their enterprise's staff) sees it.
    #[oai(path = "/:id", method = "get", operation_id = "getUser")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<User>, UserReadError> {
        auth.0.require("getUser")?;
        Ok(Json(find_manageable(&state, &auth.0, id.0).await?.into()))
    }

    /// Update a user
    ///
    /// Changes the fields sent. Deactivating a user, changing their role or password ends their sessions at once; deactivating or a new role also revokes their tokens.
    #[oai(path = "/:id", method = "put", operation_id = "updateUser")]
    async fn update(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>, body: Json<UpdateUser>) -> Result<Json<User>, UserError> {
        auth.0.require("updateUser")?;
        let user = find_manageable(&state, &auth.0, id.0).await?;
        Ok(Json(update_user(&state, &auth.0, user, &body).await?.into()))
    }

    /// Delete a user
    ///
    /// Their sessions end at once. Cannot be undone.
    #[oai(path = "/:id", method = "delete", operation_id = "deleteUser")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Deleted, UserError> {
        auth.0.require("deleteUser")?;
        let user = find_manageable(&state, &auth.0, id.0).await?;
        delete_user(&state, &auth.0, user).await?;
        Ok(Deleted::Deleted)
    }

    /// Erase a person's data
    ///
    /// The platform admin for anyone, a CEO for their enterprise's staff. Everything that
    /// identifies the person goes at once: name, e-mail, password, sessions and sign-in history,
    /// API tokens, passkeys, authenticator and recovery codes, invitations, e-mails waiting for
    /// them, their directory and single sign-on identity, their messenger keys and memberships, and
    /// the ciphertext of the messages they sent. The account stays as "Former member #n" (numbered
    /// within the enterprise), so that their reports, reviews, spreadsheets and audit entries keep
    /// an author that names nobody; the audit log shows them under that name, without their
    /// address or browser. The answer lists what was removed and what was kept. Cannot be undone.
    #[oai(path = "/:id/erasure", method = "post", operation_id = "eraseUser")]
    async fn erase(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Erasure>, UserError> {
        auth.0.require("eraseUser")?;
        let user = find_manageable(&state, &auth.0, id.0).await?;
        let erased = erase_user(&state, &auth.0, user).await?;
        Ok(Json(Erasure {
            removed: erased.removed.iter().map(|r| (*r).to_owned()).collect(),
            kept: erased.kept.iter().map(|k| (*k).to_owned()).collect(),
        }))
    }

    /// Resend an invitation
    ///
    /// Sends the person a new invitation (7 days, single use); the earlier link stops working. Only for someone who has not accepted yet (409 otherwise).
    #[oai(path = "/:id/invitation", method = "post", operation_id = "resendInvitation")]
    async fn resend_invitation(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<InvitationSent, UserError> {
        auth.0.require("resendInvitation")?;
        let caller = &auth.0;
        let user = find_manageable(&state, caller, id.0).await?;
        let mut tx = state.db.begin().await?;
        let user = store::users::find_for_update(&mut tx, user.id).await?.ok_or(AppError::NotFound)?;
        if user.erased_at.is_some() {
            return Err(AppError::Conflict(Conflict::Erased).into());
        }
        if user.password_hash.is_some() {
            return Err(AppError::Conflict(Conflict::AlreadyAccepted).into());
        }
        let inviter = inviter_name(&mut tx, caller, user.enterprise_name.as_deref()).await?;
        let enterprise = user.enterprise_id.zip(user.enterprise_name.as_deref());
        accounts::invite(&mut tx, user.id, enterprise, &accounts::Inviter { id: caller.person_id(), name: &inviter }).await?;
        Audit::of(state.geoip.as_ref(), caller)
            .record(&mut tx, user.enterprise_id, "user.invitation_sent", Some(Target::new("user", user.id, &user.full_name)), Changes::new())
            .await?;
        tx.commit().await?;
        Ok(InvitationSent::Accepted)
    }
}

/// Creates an account (`createUser`, and SCIM's provisioning): the caller's checks done, the
/// audit entry and webhook event written, an invitation sent when there is no password.
pub(super) async fn create_user(state: &AppState, caller: &Caller, body: &CreateUser) -> Result<UserRecord, AppError> {
    let mut errors = FieldErrors::new();
    let full_name = errors.check("fullName", text::line(&body.full_name, text::MAX_NAME));
    let email = errors.check("email", Email::parse(&body.email));
    let password = match body.password.as_deref() {
        Some(p) => errors.check("password", Password::parse(p)).map(Some),
        None => Some(None),
    };
    let enterprise_id = match caller.role {
        Role::PlatformAdmin => match (body.role.is_tenant_role(), body.enterprise_id) {
            (true, None) => errors.check("enterpriseId", Err(FieldIssue::Required)),
            (false, Some(_)) => errors.check("enterpriseId", Err(FieldIssue::Invalid)),
            (_, id) => id,
        },
        _ => {
            if !STAFF.contains(&body.role) {
                return Err(AppError::Forbidden);
            }
            if body.enterprise_id.is_some_and(|id| Some(id) != caller.enterprise_id) {
                return Err(AppError::NotFound);
            }
            caller.enterprise_id
        }
    };
    if body.department_id.is_some() && !STAFF.contains(&body.role) {
        errors.check::<()>("departmentId", Err(FieldIssue::Invalid));
    }
    let (Some(full_name), Some(email), Some(password)) = (full_name, email, password) else {
        return Err(AppError::from(errors));
    };
    errors.into_result()?;
    crate::accounts::sso_domain_allows(&state.db, &email, enterprise_id, "email").await?;

    let hash = match &password {
        Some(p) => Some(password::hash(p).await?),
        None => None,
    };
    let mut tx = state.db.begin().await?;
    let mut enterprise_name = None;
    if let Some(enterprise_id) = enterprise_id {
        crate::usage::check_people(&mut tx, state.config.tenant_limits, enterprise_id).await?;
        let enterprise = store::enterprises::find(&state.db, enterprise_id).await?.ok_or(AppError::NotFound)?;
        enterprise_name = Some(enterprise.name.clone());
        if let Some(department_id) = body.department_id {
            tenancy::set_search_path(&mut tx, &enterprise.schema()).await?;
            if !store::departments::exists(&mut tx, department_id).await? {
                return Err(AppError::NotFound);
            }
        }
    }
    let new = store::users::NewUser {
        enterprise_id,
        department_id: body.department_id,
        role: body.role,
        full_name,
        email: &email,
        password_hash: hash.as_deref(),
        locale: body.locale.unwrap_or_default(),
    };
    let id = store::users::insert(&mut *tx, new).await.map_err(duplicate_email)?;
    if hash.is_none() {
        let enterprise = enterprise_id.zip(enterprise_name.as_deref());
        let inviter = inviter_name(&mut tx, caller, enterprise_name.as_deref()).await?;
        accounts::invite(&mut tx, id, enterprise, &accounts::Inviter { id: caller.person_id(), name: &inviter }).await?;
    }
    let made = store::users::find_for_update(&mut tx, id).await?.ok_or(AppError::NotFound)?;
    let facts = Changes::new()
        .with("role", made.role().as_str())
        .with("email", &made.email)
        .with("departmentId", made.department_id)
        .with("invited", hash.is_none());
    record(state, &mut tx, caller, &made, "user.created", facts).await?;
    tx.commit().await?;
    let user = store::users::find_by_id(&state.db, id).await?.ok_or(AppError::NotFound)?;
    tracing::info!(user_id = %id, role = body.role.as_str(), "user created");
    Ok(user)
}

/// Changes a user the caller may manage (`updateUser`, and SCIM's): ends their sessions when
/// deactivated, demoted or given a new password; audited, with webhook events.
async fn update_user(state: &AppState, caller: &Caller, user: UserRecord, body: &UpdateUser) -> Result<UserRecord, AppError> {
    update_user_noting(state, caller, user, body, Changes::new()).await
}

/// As `update_user`, with more that changed (`extra`: what SCIM's directory set) in the same
/// audit entry.
pub(super) async fn update_user_noting(
    state: &AppState,
    caller: &Caller,
    user: UserRecord,
    body: &UpdateUser,
    extra: Changes,
) -> Result<UserRecord, AppError> {
    if user.erased_at.is_some() {
        return Err(AppError::Conflict(Conflict::Erased));
    }
    let mut errors = FieldErrors::new();
    let full_name = body.full_name.as_deref().and_then(|n| errors.check("fullName", text::line(n, text::MAX_NAME)));
    let email = body.email.as_deref().and_then(|e| errors.check("email", Email::parse(e)));
    let password = body.password.as_deref().and_then(|p| errors.check("password", Password::parse(p)));
    if let Some(role) = body.role {
        let allowed = if caller.is_admin() { role.is_tenant_role() == user.role().is_tenant_role() } else { STAFF.contains(&role) };
        if !allowed {
            errors.check::<()>("role", Err(FieldIssue::Invalid));
        }
    }
    let new_department = match &body.department_id {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(d) => Some(Some(*d)),
    };
    let final_role = body.role.unwrap_or(user.role());
    if new_department.flatten().is_some() && !STAFF.contains(&final_role) {
        errors.check::<()>("departmentId", Err(FieldIssue::Invalid));
    }
    errors.into_result()?;
    if user.id == caller.user_id && (body.status == Some(UserStatus::Inactive) || body.role.is_some_and(|r| r != user.role())) {
        return Err(AppError::Conflict(Conflict::OwnAccount));
    }
    if let Some(email) = &email {
        crate::accounts::sso_domain_allows(&state.db, email, user.enterprise_id, "email").await?;
    }

    let hash = match &password {
        Some(p) => Some(password::hash(p).await?),
        None => None,
    };
    let mut tx = state.db.begin().await?;
    // Locked and read again: a concurrent change of their department is seen, not undone.
    let user = store::users::find_for_update(&mut tx, user.id).await?.ok_or(AppError::NotFound)?;
    let final_role = body.role.unwrap_or(user.role());
    let mut demoted = None;
    if user.enterprise_id.is_some() {
        tenancy::set_search_path(&mut tx, &user.realm()).await?;
        if let Some(Some(department_id)) = new_department
            && !store::departments::exists(&mut tx, department_id).await?
        {
            return Err(AppError::NotFound);
        }
        // Leaving a department, or no longer a head, ends the headship; unless a role is
        // given, the former head becomes a department user.
        if let Some(current) = user.department_id
            && (new_department.is_some_and(|d| d != Some(current)) || final_role != Role::DepartmentHead)
            && store::departments::clear_head(&mut tx, current, user.id).await?
            && body.role.is_none()
        {
            demoted = Some(Role::DepartmentUser);
        }
    }
    let changes = UserChanges {
        full_name,
        email: email.as_ref(),
        role: body.role.or(demoted),
        status: body.status,
        department_id: new_department,
        password_hash: hash.as_deref(),
    };
    let ended = store::users::update(&mut tx, user.id, &changes).await.map_err(duplicate_email)?;
    let after = store::users::find_for_update(&mut tx, user.id).await?.ok_or(AppError::NotFound)?;
    let diff = Changes::new()
        .changed("fullName", &user.full_name, &after.full_name)
        .changed("email", &user.email, &after.email)
        .changed("role", user.role().as_str(), after.role().as_str())
        .changed("status", user.status().as_str(), after.status().as_str())
        .changed("departmentId", user.department_id, after.department_id);
    let diff = if hash.is_some() { diff.with("passwordChanged", true) } else { diff };
    let diff = diff.merge(extra);
    record(state, &mut tx, caller, &after, "user.updated", diff.clone()).await?;
    if user.role() != after.role() {
        let role = Changes::new().changed("role", user.role().as_str(), after.role().as_str());
        record(state, &mut tx, caller, &after, "user.role_changed", role).await?;
    }
    if user.status() != after.status() {
        let action = if after.status() == UserStatus::Inactive { "user.deactivated" } else { "user.reactivated" };
        record(state, &mut tx, caller, &after, action, Changes::new()).await?;
    }
    tx.commit().await?;
    state.sessions.ended(&ended).await;
    store::users::find_by_id(&state.db, user.id).await?.ok_or(AppError::NotFound)
}

/// Deletes a user the caller may manage (`deleteUser`, and SCIM's): their sessions end at once.
pub(super) async fn delete_user(state: &AppState, caller: &Caller, user: UserRecord) -> Result<(), AppError> {
    if user.id == caller.user_id {
        return Err(AppError::Conflict(Conflict::OwnAccount));
    }
    let mut tx = tenancy::begin(&state.db, &user.realm()).await?;
    let ended = store::users::delete(&mut tx, &user).await.map_err(|e| match e {
        DeleteError::HasReports => AppError::Conflict(Conflict::HasReports),
        DeleteError::Gone => AppError::NotFound,
        DeleteError::Db(e) => e.into(),
    })?;
    record(state, &mut tx, caller, &user, "user.deleted", Changes::new().with("role", user.role().as_str())).await?;
    tx.commit().await?;
    state.sessions.ended(&ended).await;
    tracing::info!(user_id = %user.id, "user deleted");
    Ok(())
}

/// Erases a person (`eraseUser`, and SCIM's DELETE where the enterprise chose erasure): audited,
/// their sessions ended everywhere.
pub(super) async fn erase_user(state: &AppState, caller: &Caller, user: UserRecord) -> Result<store::users::Erased, AppError> {
    if user.id == caller.user_id {
        return Err(AppError::Conflict(Conflict::OwnAccount));
    }
    let mut tx = tenancy::begin(&state.db, &user.realm()).await?;
    let erased = store::users::erase(&mut tx, &user).await?.ok_or(AppError::Conflict(Conflict::Erased))?;
    let changes = Changes::new().with("removed", &erased.removed).with("kept", &erased.kept);
    Audit::of(state.geoip.as_ref(), caller)
        .record(&mut tx, user.enterprise_id, "user.erased", Some(Target::new("user", user.id, &erased.pseudonym)), changes)
        .await?;
    tx.commit().await?;
    state.sessions.ended(&erased.ended).await;
    tracing::info!(user_id = %user.id, "user erased");
    Ok(erased)
}

/// Who an invitation says it is from: the person inviting, or for a program of the enterprise
/// (a service credential, SCIM's provisioning) the enterprise.
async fn inviter_name(tx: &mut sqlx::PgConnection, caller: &Caller, enterprise: Option<&str>) -> Result<String, AppError> {
    Ok(match caller.person_id() {
        Some(id) => store::users::find_by_id(&mut *tx, id).await?.map(|u| u.full_name).unwrap_or_default(),
        None => enterprise.unwrap_or_default().to_owned(),
    })
}

/// What happened to a user, in the change's transaction: the audit entry and, for the events
/// webhooks hear, the outbox row (the user as they are after it; never a password).
async fn record(
    state: &AppState,
    tx: &mut sqlx::PgConnection,
    caller: &Caller,
    user: &UserRecord,
    action: &str,
    changes: Changes,
) -> Result<(), AppError> {
    record_as(tx, Audit::of(state.geoip.as_ref(), caller), caller.user_id, user, action, changes).await
}

/// As `record`, for an actor that is not a request's caller (single sign-on's provisioning: the
/// person themself, through their identity provider).
pub(super) async fn record_as(
    tx: &mut sqlx::PgConnection,
    audit: Audit,
    actor_id: Uuid,
    user: &UserRecord,
    action: &str,
    changes: Changes,
) -> Result<(), AppError> {
    audit.record(tx, user.enterprise_id, action, Some(Target::new("user", user.id, &user.full_name)), changes).await?;
    if crate::webhooks::EVENTS.contains(&action) {
        let data = json!({
            "userId": user.id,
            "enterpriseId": user.enterprise_id,
            "departmentId": user.department_id,
            "fullName": user.full_name,
            "email": user.email,
            "role": user.role().as_str(),
            "status": user.status().as_str(),
            "actorId": actor_id,
        });
        store::outbox::webhook_event(tx, user.enterprise_id, action, data).await?;
    }
    Ok(())
}

/// The user, if the caller may manage them: the admin anyone; a CEO their own enterprise's
/// department staff (anyone else is 404); staff nobody (403).
pub(super) async fn find_manageable(state: &AppState, caller: &Caller, id: Uuid) -> Result<UserRecord, AppError> {
    let user = store::users::find_by_id(&state.db, id).await?.ok_or(AppError::NotFound)?;
    if caller.is_admin() || (user.enterprise_id == caller.enterprise_id && STAFF.contains(&user.role())) { Ok(user) } else { Err(AppError::NotFound) }
}

fn duplicate_email(e: sqlx::Error) -> AppError {
    if store::users::is_duplicate_email(&e) { AppError::EmailTaken { field: "email" } } else { e.into() }
}
