//! Single sign-on per enterprise (OpenID Connect, `auth::sso`): the CEO's (or the admin's)
//! settings, the sign-in page's e-mail-first question, and the two legs of a sign-in. A person the
//! provider names is signed in if their account is in the enterprise; an unknown person of its
//! domains is created with the default role and department (just-in-time), or refused
//! (invitation-only).

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{
    Enum, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{ApiTags, accounts::Done, auth::LoginResult, managed::find_managed, mfa::wrong};
use crate::{
    api_errors,
    audit::{Audit, Changes, Target},
    auth::{BearerAuth, ClientInfo, domain_proof, sign_in, sso::Identity},
    domain::{Email, FieldErrors, FieldIssue, Role},
    error::{AppError, Conflict, IssuerRefused, SsoFailure},
    state::AppState,
    store::{
        self,
        sso::{SsoChange, SsoRecord},
        users::UserRecord,
    },
    tenancy::{self, SchemaName},
};

#[derive(Default)]
pub struct SsoApi;

/// A claimed domain.
#[derive(poem_openapi::ApiResponse)]
pub enum CreatedSsoDomain {
    /// Claimed, pending its proof.
    #[oai(status = 201)]
    Created(Json<SsoDomain>),
}

/// The sign-in's side of single sign-on (public operations, under Auth).
#[derive(Default)]
pub struct SsoSignInApi;

/// The most domains one enterprise's provider may sign in.
const MAX_DOMAINS: usize = 20;

/// What happens to a person the provider names who has no account yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "snake_case")]
pub enum SsoProvisioning {
    /// Their account is made at their first sign-in, with the default role and department.
    JustInTime,
    /// They are refused (`sso_failed`, reason `not_invited`) until someone creates their account.
    InvitationOnly,
}

impl SsoProvisioning {
    fn as_str(self) -> &'static str {
        match self {
            Self::JustInTime => "just_in_time",
            Self::InvitationOnly => "invitation_only",
        }
    }
}

/// An enterprise's single sign-on.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoSettings {
    /// False: none yet (the other fields are the defaults of a new one).
    pub configured: bool,
    /// The provider's issuer URL.
    #[oai(nullable)]
    pub issuer: Option<String>,
    #[oai(nullable)]
    pub client_id: Option<String>,
    /// The client secret is never sent back: only whether one is stored.
    pub client_secret_set: bool,
    /// The e-mail domains the provider signs in, lower case.
    pub domains: Vec<String>,
    /// People of these domains must sign in through the provider: their password is refused
    /// (`sso_required`), except the break-glass CEO's, who must then pass a second factor.
    pub required: bool,
    pub provisioning: SsoProvisioning,
    /// The role of a person made at their first sign-in: `DepartmentUser` or `DepartmentHead`.
    pub default_role: Role,
    /// Their department; null: none.
    #[oai(nullable)]
    pub default_department_id: Option<Uuid>,
    /// The CEO who may still sign in with a password (and a second factor) while SSO is
    /// required: the way in when the provider fails.
    #[oai(nullable)]
    pub break_glass_user_id: Option<Uuid>,
    /// Whether the break-glass CEO has a second factor (without one, their password is refused
    /// too).
    pub break_glass_ready: bool,
    /// The provider leaves `email_verified` out of its ID tokens: an address it does not call
    /// verified is taken (one it calls unverified never is). Off, `email_verified` must be true.
    pub accept_unverified_email: bool,
    /// A sign-in needs a second factor: the provider's (asked for with `acr_values`, read from
    /// the ID token's `amr`/`acr`), or else the platform's own. Whatever this says, a person who
    /// has a second factor here is asked for it when the provider asserted none.
    pub require_mfa: bool,
    /// Register this redirect URI with the provider for the client.
    pub redirect_uri: String,
    #[oai(nullable)]
    pub updated_at: Option<DateTime<Utc>>,
}

/// New single sign-on settings (all of them: this replaces what is stored).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoSettingsChange {
    /// The provider's issuer URL; its discovery document must answer.
    #[oai(validator(max_length = 2000))]
    pub issuer: String,
    #[oai(validator(max_length = 500))]
    pub client_id: String,
    /// Required the first time; omitted or null keeps the stored one.
    #[oai(validator(max_length = 2000))]
    pub client_secret: Option<String>,
    /// 1 to 20 domains, each owned by no other enterprise.
    #[oai(validator(max_items = 20, max_length = 253))]
    pub domains: Vec<String>,
    #[oai(default)]
    pub required: bool,
    pub provisioning: SsoProvisioning,
    /// `DepartmentUser` (the default) or `DepartmentHead`.
    pub default_role: Option<Role>,
    pub default_department_id: Option<Uuid>,
    pub break_glass_user_id: Option<Uuid>,
    /// The provider leaves `email_verified` out of its ID tokens (default false).
    #[oai(default)]
    pub accept_unverified_email: bool,
    /// A sign-in needs a second factor, the provider's or ours (default false).
    #[oai(default)]
    pub require_mfa: bool,
}

/// A domain the enterprise claims for its single sign-on, and its proof.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoDomain {
    /// Lower case.
    pub domain: String,
    /// `verified`: it routes its people to the enterprise's provider; `pending`: it routes
    /// nobody until its TXT record is found (or the platform admin approves it).
    pub status: SsoDomainStatus,
    /// Publish a TXT record at this name…
    pub txt_name: String,
    /// …holding this text.
    pub txt_value: String,
    #[oai(nullable)]
    pub verified_at: Option<DateTime<Utc>>,
    /// `dns` (its TXT record was found) or `admin` (the platform admin approved it).
    #[oai(nullable)]
    pub verified_by: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum SsoDomainStatus {
    Pending,
    Verified,
}

impl From<store::sso::DomainRecord> for SsoDomain {
    fn from(r: store::sso::DomainRecord) -> Self {
        Self {
            status: if r.verified_at.is_some() { SsoDomainStatus::Verified } else { SsoDomainStatus::Pending },
            txt_name: domain_proof::txt_name(&r.domain),
            txt_value: domain_proof::txt_value(&r.token),
            domain: r.domain,
            verified_at: r.verified_at,
            verified_by: r.verified_by,
        }
    }
}

/// A domain to claim.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct NewSsoDomain {
    /// A host name (`example.com`); not a public mail provider's.
    #[oai(validator(max_length = 253))]
    pub domain: String,
}

/// An address typed on the sign-in page.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoDiscovery {
    #[oai(validator(max_length = 320))]
    pub email: String,
}

/// Whether an address's domain signs in through an identity provider.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoDiscovered {
    /// Its enterprise has single sign-on for this domain: offer it.
    pub sso: bool,
    /// And requires it: do not ask for a password.
    pub required: bool,
}

/// Starts a sign-in through the provider of the address's domain.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoStart {
    #[oai(validator(max_length = 320))]
    pub email: String,
    /// Keep the session for 30 days instead of 12 hours.
    #[oai(default)]
    pub remember_me: bool,
}

/// Where to send the browser.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoRedirect {
    /// The provider's authorization URL (with PKCE, `state` and `nonce`); the provider sends the
    /// browser back to `/sign-in/sso?code=…&state=…` within 10 minutes.
    pub authorization_url: String,
    /// The `state` it carries: keep it in the tab (sessionStorage) and check that the return
    /// brings the same one before finishing.
    pub state: String,
}

/// What the provider sent back to `/sign-in/sso`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SsoFinish {
    #[oai(validator(max_length = 4096))]
    pub code: String,
    #[oai(validator(max_length = 512))]
    pub state: String,
}

api_errors!(SsoSettingsError {
    /// A field is invalid (`validation_failed`, with `fields`): an issuer whose discovery
    /// document does not answer, a malformed domain, a missing secret, a break-glass user who is
    /// not this enterprise's CEO, a department that is not the enterprise's.
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Not the admin or the enterprise's CEO.
    403 Forbidden,
    /// No such enterprise (another tenant's is not found either); with DELETE, no single sign-on.
    404 NotFound,
    /// A domain another enterprise's single sign-on owns (`conflict`, reason `sso_domain_taken`),
    /// or at which people outside the enterprise have addresses (`sso_domain_in_use`).
    409 Conflict,
});

api_errors!(SsoDomainError {
    /// A malformed domain (`validation_failed`), a public mail provider's (`public_mail_domain`),
    /// or, when its proof is asked for, a TXT record that is not there (`domain_not_verified`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Not the admin or the enterprise's CEO; or `approve` asked by anyone but the admin.
    403 Forbidden,
    /// No such enterprise, no single sign-on set up, or no such claimed domain.
    404 NotFound,
    /// Another enterprise has proven this domain (`conflict`, reason `sso_domain_taken`).
    409 Conflict,
});

api_errors!(SsoStartError {
    /// Not an e-mail address, or none whose domain has single sign-on (`validation_failed`).
    400 BadRequest,
    /// The provider cannot be reached (`sso_failed`, reason `provider_unavailable`).
    502 BadGateway,
});

/// A back-channel logout: what the provider posts (`application/x-www-form-urlencoded`).
#[derive(Debug, poem_openapi::Object, serde::Deserialize)]
pub struct BackchannelLogout {
    /// The logout token: a JWT the provider signed.
    #[oai(validator(max_length = 16384))]
    pub logout_token: String,
}

#[derive(Debug, poem_openapi::ApiResponse)]
pub enum LoggedOut {
    /// The person's single sign-on sessions ended (or there were none): 200, as the
    /// specification asks of the relying party.
    #[oai(status = 200)]
    LoggedOut(#[oai(header = "Cache-Control")] String),
}

api_errors!(BackchannelLogoutError {
    /// The logout token is missing, unverifiable (signature, issuer, audience), too old, not a
    /// logout token, names no subject, or was used already (`validation_failed`, field
    /// `logout_token`, the reason in `message`).
    400 BadRequest,
    /// No such enterprise, or it has no single sign-on.
    404 NotFound,
});

api_errors!(SsoFinishError {
    /// `code` or `state` missing (`validation_failed`).
    400 BadRequest,
    /// `sso_failed` with a `reason`: `state_invalid` (unknown, expired or used), `code_rejected`
    /// (the provider refused the code: expired or used), `nonce_mismatch`, `token_invalid`,
    /// `email_not_allowed` (no address of the enterprise's domains, or one whose account is
    /// another enterprise's), `email_unverified` (the provider did not say the address is
    /// verified).
    401 Unauthorized,
    /// The account or its enterprise is inactive (`account_inactive`), invitation-only and no
    /// account has this address (`sso_failed`, reason `not_invited`), or the account is bound to
    /// another person at the provider (`identity_mismatch`).
    403 Forbidden,
    /// A first sign-in that would make an account past the enterprise's limit of people
    /// (`limit_reached`, `limit` `people`).
    409 Conflict,
    /// The provider cannot be reached (`sso_failed`, reason `provider_unavailable`).
    502 BadGateway,
});

#[OpenApi(tag = "ApiTags::Enterprises")]
impl SsoApi {
    /// An enterprise's single sign-on
    ///
    /// The admin, or the enterprise's CEO. Never the client secret.
    #[oai(path = "/enterprises/:id/sso", method = "get", operation_id = "getEnterpriseSso")]
    async fn get(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<SsoSettings>, SsoSettingsError> {
        auth.0.require("getEnterpriseSso")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        Ok(Json(settings(&state, store::sso::find(&state.db, enterprise.id).await?).await?))
    }

    /// Set up or change an enterprise's single sign-on
    ///
    /// Checks the issuer's discovery document first. The domains' people see "Continue with
    /// single sign-on" on the sign-in page; with `required`, their password no longer signs them
    /// in (except the break-glass CEO's, with a second factor).
    #[oai(path = "/enterprises/:id/sso", method = "put", operation_id = "updateEnterpriseSso")]
    async fn put(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<SsoSettingsChange>,
    ) -> Result<Json<SsoSettings>, SsoSettingsError> {
        auth.0.require("updateEnterpriseSso")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let body = body.0;
        let before = store::sso::find(&state.db, enterprise.id).await?;

        let mut errors = FieldErrors::new();
        let client_id = body.client_id.trim();
        errors.check("clientId", if client_id.is_empty() { Err(FieldIssue::Required) } else { Ok(()) });
        let secret = body.client_secret.as_deref().map(str::trim).filter(|s| !s.is_empty());
        errors.check("clientSecret", if secret.is_none() && before.is_none() { Err(FieldIssue::Required) } else { Ok(()) });
        let domains = errors.check("domains", domains(&body.domains));
        let role = body.default_role.unwrap_or(Role::DepartmentUser);
        errors.check("defaultRole", if matches!(role, Role::DepartmentUser | Role::DepartmentHead) { Ok(()) } else { Err(FieldIssue::Invalid) });
        let Some(domains) = domains.filter(|_| errors.is_empty()) else { return Err(AppError::from(errors).into()) };
        if domains.iter().any(|d| domain_proof::is_public_mail_domain(d)) {
            return Err(AppError::PublicMailDomain.into());
        }
        if let Some(department) = body.default_department_id {
            let mut tx = tenancy::begin(&state.db, &SchemaName::for_enterprise(enterprise.id)).await?;
            if !store::departments::exists(&mut tx, department).await? {
                return Err(wrong("defaultDepartmentId", "This department is not one of the enterprise's").into());
            }
        }
        if let Some(user) = body.break_glass_user_id {
            let ceo = store::users::find_by_id(&state.db, user).await?;
            if !ceo.is_some_and(|u| u.enterprise_id == Some(enterprise.id) && u.role() == Role::EnterpriseCeo) {
                return Err(wrong("breakGlassUserId", "The break-glass account must be this enterprise's CEO").into());
            }
        }
        let sso = state.sso.as_ref().ok_or(AppError::IssuerRefused(IssuerRefused::SsoUnavailable))?;
        let issuer = sso.check_issuer(&body.issuer).await.map_err(AppError::IssuerRefused)?;

        let change = SsoChange {
            issuer: &issuer,
            client_id,
            client_secret: secret,
            domains: &domains,
            required: body.required,
            provisioning: body.provisioning.as_str(),
            default_role: role,
            default_department_id: body.default_department_id,
            break_glass_user_id: body.break_glass_user_id,
            accept_unverified_email: body.accept_unverified_email,
            require_mfa: body.require_mfa,
        };
        let mut tx = state.db.begin().await?;
        if store::sso::save(&mut tx, &state.config.data_keys, enterprise.id, &change).await?.is_err() {
            return Err(AppError::Conflict(Conflict::SsoDomainTaken).into());
        }
        // A domain whose addresses belong to others is not this enterprise's: claiming it would
        // send their people to this enterprise's provider from the sign-in page.
        if store::sso::domain_used_elsewhere(&mut *tx, enterprise.id, &domains).await?.is_some() {
            return Err(AppError::Conflict(Conflict::SsoDomainInUse).into());
        }
        let mut facts = Changes::new()
            .changed("issuer", &before.as_ref().map(|b| b.issuer.as_str()), &Some(issuer.as_str()))
            .changed("clientId", &before.as_ref().map(|b| b.client_id.as_str()), &Some(client_id))
            .changed("domains", &before.as_ref().map(|b| b.domains.clone()), &Some(domains.clone()))
            .changed("required", &before.as_ref().map(|b| b.required), &Some(body.required))
            .changed("provisioning", &before.as_ref().map(|b| b.provisioning.as_str()), &Some(body.provisioning.as_str()))
            .changed("defaultRole", &before.as_ref().map(|b| b.default_role.0.as_str()), &Some(role.as_str()))
            .changed("defaultDepartmentId", &before.as_ref().and_then(|b| b.default_department_id), &body.default_department_id)
            .changed("breakGlassUserId", &before.as_ref().and_then(|b| b.break_glass_user_id), &body.break_glass_user_id)
            .changed("acceptUnverifiedEmail", &before.as_ref().map(|b| b.accept_unverified_email), &Some(body.accept_unverified_email))
            .changed("requireMfa", &before.as_ref().map(|b| b.require_mfa), &Some(body.require_mfa));
        if secret.is_some() {
            facts = facts.with("clientSecret", "changed");
        }
        let target = Some(Target::new("enterprise", enterprise.id, &enterprise.name));
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, Some(enterprise.id), "enterprise.sso_updated", target, facts).await?;
        tx.commit().await?;
        Ok(Json(settings(&state, store::sso::find(&state.db, enterprise.id).await?).await?))
    }

    /// An enterprise's single sign-on domains
    ///
    /// Every domain it claims, with its proof: the TXT record to publish, and whether it was
    /// found. Only verified domains route anyone to the enterprise's provider.
    #[oai(path = "/enterprises/:id/sso/domains", method = "get", operation_id = "listSsoDomains")]
    async fn list_domains(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Vec<SsoDomain>>, SsoDomainError> {
        auth.0.require("listSsoDomains")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let domains = store::sso::domains(&state.db, enterprise.id).await?;
        Ok(Json(domains.into_iter().map(SsoDomain::from).collect()))
    }

    /// Claim a domain for single sign-on
    ///
    /// The domain is pending until its TXT record is found (`…/verify`); it routes nobody until
    /// then. A public mail provider's domain is never claimable; a domain another enterprise has
    /// proven is taken. Single sign-on must be set up first.
    #[oai(path = "/enterprises/:id/sso/domains", method = "post", operation_id = "addSsoDomain")]
    async fn add_domain(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<NewSsoDomain>,
    ) -> Result<CreatedSsoDomain, SsoDomainError> {
        auth.0.require("addSsoDomain")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let mut errors = FieldErrors::new();
        let domain = errors.check("domain", domains(std::slice::from_ref(&body.domain)).map(|mut d| d.remove(0)));
        let Some(domain) = domain else { return Err(AppError::from(errors).into()) };
        if domain_proof::is_public_mail_domain(&domain) {
            return Err(AppError::PublicMailDomain.into());
        }
        let before = store::sso::find(&state.db, enterprise.id).await?.ok_or(AppError::NotFound)?;
        if before.domains.len() >= MAX_DOMAINS && !before.domains.contains(&domain) {
            let mut errors = FieldErrors::new();
            errors.check::<()>("domain", Err(FieldIssue::TooLong));
            return Err(AppError::Explained(errors, format!("An enterprise claims at most {MAX_DOMAINS} domains")).into());
        }
        let mut tx = state.db.begin().await?;
        let claimed = store::sso::add_domain(&mut tx, enterprise.id, &domain).await?.map_err(|_| AppError::Conflict(Conflict::SsoDomainTaken))?;
        let target = Some(Target::new("enterprise", enterprise.id, &enterprise.name));
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, Some(enterprise.id), "enterprise.sso_domain_claimed", target, Changes::new().with("domain", &domain))
            .await?;
        tx.commit().await?;
        Ok(CreatedSsoDomain::Created(Json(claimed.into())))
    }

    /// Prove a claimed domain
    ///
    /// Looks for the domain's TXT record (`txtName` holding `txtValue`) through the server's
    /// resolver: found, the domain is verified and routes its people to the enterprise's
    /// provider; not found, 400 `domain_not_verified`. The platform admin may approve a domain
    /// without the record (`approve=true`), for an enterprise that cannot publish one.
    #[oai(path = "/enterprises/:id/sso/domains/:domain/verify", method = "post", operation_id = "verifySsoDomain")]
    async fn verify_domain(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(max_length = 253))] domain: Path<String>,
        #[oai(default)] approve: Query<bool>,
    ) -> Result<Json<SsoDomain>, SsoDomainError> {
        auth.0.require("verifySsoDomain")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        if approve.0 && auth.0.role != Role::PlatformAdmin {
            return Err(AppError::Forbidden.into());
        }
        let name = domain.0.trim().to_lowercase();
        let claimed = store::sso::domain(&state.db, enterprise.id, &name).await?.ok_or(AppError::NotFound)?;
        if claimed.verified_at.is_some() {
            return Ok(Json(claimed.into()));
        }
        let by = if approve.0 {
            "admin"
        } else if (domain_proof::Prover { resolver: state.config.dns_resolver }).proven(&claimed.domain, &claimed.token).await {
            "dns"
        } else {
            return Err(AppError::DomainNotVerified.into());
        };
        let mut tx = state.db.begin().await?;
        let proven = store::sso::prove_domain(&mut *tx, enterprise.id, &claimed.domain, by)
            .await?
            .ok_or(AppError::NotFound)?
            .map_err(|_| AppError::Conflict(Conflict::SsoDomainTaken))?;
        let target = Some(Target::new("enterprise", enterprise.id, &enterprise.name));
        let facts = Changes::new().with("domain", &claimed.domain).with("by", by);
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, Some(enterprise.id), "enterprise.sso_domain_verified", target, facts).await?;
        tx.commit().await?;
        Ok(Json(proven.into()))
    }

    /// Give up a claimed domain
    ///
    /// Its people no longer see single sign-on on the sign-in page.
    #[oai(path = "/enterprises/:id/sso/domains/:domain", method = "delete", operation_id = "deleteSsoDomain")]
    async fn delete_domain(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(validator(max_length = 253))] domain: Path<String>,
    ) -> Result<Done, SsoDomainError> {
        auth.0.require("deleteSsoDomain")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let name = domain.0.trim().to_lowercase();
        let mut tx = state.db.begin().await?;
        if !store::sso::remove_domain(&mut *tx, enterprise.id, &name).await? {
            return Err(AppError::NotFound.into());
        }
        let target = Some(Target::new("enterprise", enterprise.id, &enterprise.name));
        Audit::of(state.geoip.as_ref(), &auth.0)
            .record(&mut tx, Some(enterprise.id), "enterprise.sso_domain_removed", target, Changes::new().with("domain", &name))
            .await?;
        tx.commit().await?;
        Ok(Done::Done)
    }

    /// Remove an enterprise's single sign-on
    ///
    /// Its people sign in with their passwords again (those made by single sign-on have none:
    /// they use "Forgot password").
    #[oai(path = "/enterprises/:id/sso", method = "delete", operation_id = "deleteEnterpriseSso")]
    async fn delete(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, SsoSettingsError> {
        auth.0.require("deleteEnterpriseSso")?;
        let enterprise = find_managed(&state, &auth, id.0).await?;
        let mut tx = state.db.begin().await?;
        if !store::sso::delete(&mut *tx, enterprise.id).await? {
            return Err(AppError::NotFound.into());
        }
        let target = Some(Target::new("enterprise", enterprise.id, &enterprise.name));
        Audit::of(state.geoip.as_ref(), &auth.0).record(&mut tx, Some(enterprise.id), "enterprise.sso_removed", target, Changes::new()).await?;
        tx.commit().await?;
        Ok(Done::Done)
    }
}

#[OpenApi(tag = "ApiTags::Auth")]
impl SsoSignInApi {
    /// Whether an address signs in with single sign-on
    ///
    /// The sign-in page asks as the e-mail is typed. It answers from the address's domain alone:
    /// it says nothing of whether an account exists.
    #[oai(path = "/auth/sso/discover", method = "post", operation_id = "discoverSso")]
    async fn discover(&self, state: Data<&AppState>, body: Json<SsoDiscovery>) -> Result<Json<SsoDiscovered>, SsoStartError> {
        let found = match (&state.sso, Email::parse(&body.email)) {
            (Some(_), Ok(email)) => store::sso::for_email(&state.db, &email.normalized()).await?,
            _ => None,
        };
        Ok(Json(SsoDiscovered { sso: found.is_some(), required: found.is_some_and(|f| f.required) }))
    }

    /// Start a sign-in with single sign-on
    ///
    /// Answers the provider's authorization URL for the address's domain; send the browser there.
    #[oai(path = "/auth/sso/start", method = "post", operation_id = "startSsoSignIn")]
    async fn start(&self, state: Data<&AppState>, body: Json<SsoStart>) -> Result<Json<SsoRedirect>, SsoStartError> {
        let email = Email::parse(&body.email).map_err(|issue| {
            let mut errors = FieldErrors::new();
            errors.check::<()>("email", Err(issue));
            AppError::from(errors)
        })?;
        let config = store::sso::for_email(&state.db, &email.normalized()).await?;
        let (Some(sso), Some(config)) = (state.sso.as_ref(), config) else {
            return Err(wrong("email", "This address does not sign in with single sign-on").into());
        };
        let (authorization_url, state) = sso.start(&config, &email.normalized(), body.remember_me).await?;
        Ok(Json(SsoRedirect { authorization_url, state }))
    }

    /// The provider signed a person out (OpenID Connect Back-Channel Logout 1.0)
    ///
    /// The enterprise's provider posts a logout token here (register
    /// `{PUBLIC_URL}/api/v1/auth/sso/{enterpriseId}/backchannel-logout` as the client's
    /// back-channel logout URI). Once it is verified (`SingleSignOn::logout_subject`), every
    /// session the person opened through single sign-on ends, on every instance at once (end
    /// reason `provider_logout`); a token naming nobody known here ends nothing and still answers
    /// 200, as the specification asks.
    #[oai(path = "/auth/sso/:enterprise_id/backchannel-logout", method = "post", operation_id = "backchannelLogout")]
    async fn backchannel_logout(
        &self,
        state: Data<&AppState>,
        enterprise_id: Path<Uuid>,
        body: poem_openapi::payload::Form<BackchannelLogout>,
    ) -> Result<LoggedOut, BackchannelLogoutError> {
        let sso = state.sso.as_ref().ok_or(AppError::NotFound)?;
        let config = store::sso::find(&state.db, enterprise_id.0).await?.ok_or(AppError::NotFound)?;
        let subject = sso.logout_subject(&config, &body.0.logout_token).await.map_err(|reason| {
            let mut errors = FieldErrors::new();
            errors.check::<()>("logout_token", Err(FieldIssue::Invalid));
            AppError::Explained(errors, reason.to_owned())
        })?;
        let Some(user) =
            store::users::find_by_sso(&state.db, &config.issuer, &subject).await?.filter(|u| u.enterprise_id == Some(config.enterprise_id))
        else {
            return Ok(LoggedOut::LoggedOut("no-store".into()));
        };
        let mut tx = state.db.begin().await?;
        let ended = store::sessions::end_sso_for_user(&mut tx, user.id, "provider_logout").await?;
        if !ended.is_empty() {
            let target = Target::new("user", user.id, &user.full_name);
            let facts = Changes::new().with("reason", "provider_logout").with("sessions", ended.len()).with("issuer", &config.issuer);
            Audit::system().record(&mut tx, user.enterprise_id, "session.ended", Some(target), facts).await?;
        }
        tx.commit().await?;
        state.sessions.ended(&ended).await;
        Ok(LoggedOut::LoggedOut("no-store".into()))
    }

    /// Finish a sign-in with single sign-on
    ///
    /// The `code` and `state` the provider sent back: the code is exchanged at the provider and
    /// its ID token checked (signature, issuer, audience, expiry, nonce). Answers like a
    /// password sign-in: the session (method `sso`), or the second step (`mfaRequired`, then
    /// `POST /auth/login/verify`) when the provider asserted no second factor (`amr`/`acr`) and
    /// the person has one of ours, or the enterprise requires one (`requireMfa`; a person
    /// without one sets up an authenticator then).
    #[oai(path = "/auth/sso/finish", method = "post", operation_id = "finishSsoSignIn")]
    async fn finish(&self, state: Data<&AppState>, client: Data<&ClientInfo>, body: Json<SsoFinish>) -> Result<Json<LoginResult>, SsoFinishError> {
        let sso = state.sso.as_ref().ok_or(SsoFailure::StateInvalid).map_err(AppError::from)?;
        let Some(pending) = sso.take(&body.state).await? else {
            return Err(refused(&state, &client, None, None, SsoFailure::StateInvalid).await.into());
        };
        let Some(config) = store::sso::find(&state.db, pending.enterprise_id).await? else {
            return Err(refused(&state, &client, None, None, SsoFailure::StateInvalid).await.into());
        };
        let at = Some(config.enterprise_id);
        let identity = match sso.exchange(&config, &pending, &body.code).await {
            Ok(identity) => identity,
            Err(AppError::SsoFailed(failure)) => return Err(refused(&state, &client, at, None, failure).await.into()),
            Err(err) => return Err(err.into()),
        };
        let Ok(email) = Email::parse(&identity.email) else {
            return Err(refused(&state, &client, at, None, SsoFailure::EmailNotAllowed).await.into());
        };
        // The person bound to this identity at the provider, else the account of the address
        // unless it is bound to someone else there.
        let found = match store::users::find_by_sso(&state.db, &config.issuer, &identity.subject).await? {
            Some(user) => Some(user),
            None => store::users::find_by_email(&state.db, &email).await?,
        };
        if let Some(user) = &found
            && user.enterprise_id == Some(config.enterprise_id)
            && bound_elsewhere(user, &config.issuer, &identity.subject)
        {
            return Err(refused(&state, &client, at, Some(&identity.email), SsoFailure::IdentityMismatch).await.into());
        }
        let mut user = match found {
            Some(user) if user.enterprise_id == Some(config.enterprise_id) => accept_invitation(&state, user).await?,
            // A provider signs in its own enterprise's people only.
            Some(_) => return Err(refused(&state, &client, at, Some(&identity.email), SsoFailure::EmailNotAllowed).await.into()),
            None if config.just_in_time() => provision(&state, &config, &identity).await?,
            None => return Err(refused(&state, &client, at, Some(&identity.email), SsoFailure::NotInvited).await.into()),
        };
        if !user.may_sign_in() {
            let facts = Changes::new().with("email", &user.email).with("reason", "account_inactive").with("via", "sso");
            let target = Some(Target::new("user", user.id, &user.full_name));
            Audit::person(state.geoip.as_ref(), Some(user.id)).record_alone(&state.db, at, "auth.sign_in_refused", target, facts).await?;
            return Err(AppError::AccountInactive.into());
        }
        if !store::users::link_sso(&state.db, user.id, &config.issuer, &identity.subject).await? {
            return Err(refused(&state, &client, at, Some(&identity.email), SsoFailure::IdentityMismatch).await.into());
        }
        user.sso_subject = Some(identity.subject);
        user.sso_issuer = Some(config.issuer.clone());
        let outcome = sign_in::after_sso(&state.sign_ins(), user, pending.remember_me, identity.mfa, config.require_mfa, &client).await?;
        Ok(Json(outcome.into()))
    }
}

/// Whether the account is bound to another subject at this issuer (a binding without an issuer was
/// made at the enterprise's issuer of the time, taken as this one). A binding at another issuer
/// (the enterprise changed providers) is replaced at the first sign-in through the new one.
fn bound_elsewhere(user: &UserRecord, issuer: &str, subject: &str) -> bool {
    user.sso_subject.as_deref().is_some_and(|bound| bound != subject) && user.sso_issuer.as_deref().is_none_or(|at| at == issuer)
}

/// A single sign-on that signs no one in: logged and counted; audited in the enterprise's log
/// when the sign-in is known to be for one (`auth.sign_in_failed`, or `auth.sign_in_refused` when
/// the provider named someone this enterprise does not let in). The error to answer with.
async fn refused(state: &AppState, client: &ClientInfo, enterprise: Option<Uuid>, email: Option<&str>, failure: SsoFailure) -> AppError {
    tracing::warn!(target: "audit", event = "sign_in_failed", ip = ?client.ip, reason = failure.reason(), "single sign-on refused");
    crate::metrics::sign_in_failure("sso");
    if enterprise.is_some() {
        let action = if email.is_some() { "auth.sign_in_refused" } else { "auth.sign_in_failed" };
        let facts = Changes::new().with("email", email).with("reason", failure.reason()).with("via", "sso");
        if let Err(err) = Audit::person(state.geoip.as_ref(), None).record_alone(&state.db, enterprise, action, None, facts).await {
            return err.into();
        }
    }
    failure.into()
}

/// The settings as the API shows them (the defaults of a new one when there are none).
async fn settings(state: &AppState, record: Option<SsoRecord>) -> Result<SsoSettings, AppError> {
    let redirect_uri = state.sso.as_ref().map(|s| s.redirect_uri().to_owned()).unwrap_or_default();
    let Some(r) = record else {
        return Ok(SsoSettings {
            configured: false,
            issuer: None,
            client_id: None,
            client_secret_set: false,
            domains: Vec::new(),
            required: false,
            provisioning: SsoProvisioning::InvitationOnly,
            default_role: Role::DepartmentUser,
            default_department_id: None,
            break_glass_user_id: None,
            break_glass_ready: false,
            accept_unverified_email: false,
            require_mfa: false,
            redirect_uri,
            updated_at: None,
        });
    };
    let break_glass_ready = match r.break_glass_user_id {
        Some(id) => store::users::find_by_id(&state.db, id).await?.is_some_and(|u| u.mfa_enabled),
        None => false,
    };
    Ok(SsoSettings {
        configured: true,
        provisioning: if r.just_in_time() { SsoProvisioning::JustInTime } else { SsoProvisioning::InvitationOnly },
        issuer: Some(r.issuer),
        client_id: Some(r.client_id),
        client_secret_set: !r.client_secret.is_empty(),
        domains: r.domains,
        required: r.required,
        default_role: r.default_role.0,
        default_department_id: r.default_department_id,
        break_glass_user_id: r.break_glass_user_id,
        break_glass_ready,
        accept_unverified_email: r.accept_unverified_email,
        require_mfa: r.require_mfa,
        redirect_uri,
        updated_at: Some(r.updated_at),
    })
}

/// Checks and normalises the domains: 1 to 20 distinct host names (`example.com`), lower case.
fn domains(raw: &[String]) -> Result<Vec<String>, FieldIssue> {
    let mut domains: Vec<String> = raw.iter().map(|d| d.trim().trim_start_matches('@').to_lowercase()).collect();
    domains.sort();
    domains.dedup();
    if domains.is_empty() {
        return Err(FieldIssue::Required);
    }
    let valid = |d: &str| {
        d.len() <= 253
            && d.contains('.')
            && d.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && !label.ends_with('-')
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
    };
    if domains.len() > MAX_DOMAINS || !domains.iter().all(|d| valid(d)) {
        return Err(FieldIssue::Invalid);
    }
    Ok(domains)
}

/// A person the provider signed in who was invited and never chose a password: their invitation
/// is accepted now (its link stops working).
async fn accept_invitation(state: &AppState, user: UserRecord) -> Result<UserRecord, AppError> {
    if user.password_hash.is_some() || user.invitation_sent_at.is_none() {
        return Ok(user);
    }
    let mut tx = state.db.begin().await?;
    store::account_tokens::revoke_all(&mut tx, user.id).await?;
    Audit::person(state.geoip.as_ref(), Some(user.id))
        .record(
            &mut tx,
            user.enterprise_id,
            "user.invitation_accepted",
            Some(Target::new("user", user.id, &user.full_name)),
            Changes::new().with("via", "sso"),
        )
        .await?;
    tx.commit().await?;
    Ok(store::users::find_by_id(&state.db, user.id).await?.unwrap_or(user))
}

/// Just-in-time provisioning: the account of a person the provider signed in, with the
/// enterprise's default role and department. Audited (the person, through the provider) and
/// sent to webhooks as `user.created`.
async fn provision(state: &AppState, config: &SsoRecord, identity: &Identity) -> Result<UserRecord, AppError> {
    let email = Email::parse(&identity.email).map_err(|_| SsoFailure::EmailNotAllowed)?;
    // A name claim that is not one clean line (a line break, say) is not taken: the address's
    // local part names the person instead.
    let local = identity.email.split('@').next().unwrap_or_default();
    let full_name = identity.name.as_deref().and_then(crate::domain::text::clean_name).unwrap_or(local).to_owned();
    let mut tx = state.db.begin().await?;
    crate::usage::check_people(&mut tx, state.config.tenant_limits, config.enterprise_id).await?;
    // A department deleted since the settings were saved: the person has none.
    let department = match config.default_department_id {
        Some(id) => {
            tenancy::set_search_path(&mut tx, &SchemaName::for_enterprise(config.enterprise_id)).await?;
            store::departments::exists(&mut tx, id).await?.then_some(id)
        }
        None => None,
    };
    let new = store::users::NewUser {
        enterprise_id: Some(config.enterprise_id),
        department_id: department,
        role: config.default_role.0,
        full_name: &full_name,
        email: &email,
        password_hash: None,
        locale: Default::default(),
    };
    let id = match store::users::insert(&mut *tx, new).await {
        Ok(id) => id,
        // The same person's two first sign-ins at once: the other made the account.
        Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
            drop(tx);
            return store::users::find_by_email(&state.db, &email)
                .await?
                .filter(|u| u.enterprise_id == Some(config.enterprise_id))
                .ok_or(SsoFailure::EmailNotAllowed.into());
        }
        Err(err) => return Err(err.into()),
    };
    let made = store::users::find_for_update(&mut tx, id).await?.ok_or(AppError::NotFound)?;
    let facts = Changes::new()
        .with("role", made.role().as_str())
        .with("email", &made.email)
        .with("departmentId", made.department_id)
        .with("provisionedBy", "sso")
        .with("subject", &identity.subject);
    super::users::record_as(&mut tx, Audit::person(state.geoip.as_ref(), Some(id)), id, &made, "user.created", facts).await?;
    tx.commit().await?;
    tracing::info!(user_id = %id, enterprise_id = %config.enterprise_id, "user created by single sign-on");
    store::users::find_by_id(&state.db, id).await?.ok_or(AppError::NotFound)
}
