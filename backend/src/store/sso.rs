//! An enterprise's single sign-on: its OpenID provider, the domains it signs in, and what happens
//! to people it names (migration `20261207000001_single_sign_on.sql`).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::users::RoleColumn;
use crate::sealed::{KeyRing, SSO_CLIENT_SECRET, Sealed};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SsoRecord {
    pub enterprise_id: Uuid,
    pub issuer: String,
    pub client_id: String,
    /// Sealed (`sealed::SSO_CLIENT_SECRET`); empty when none was set.
    pub client_secret: Sealed,
    pub required: bool,
    /// `just_in_time` or `invitation_only`.
    pub provisioning: String,
    #[sqlx(try_from = "String")]
    pub default_role: RoleColumn,
    pub default_department_id: Option<Uuid>,
    pub break_glass_user_id: Option<Uuid>,
    /// The provider leaves `email_verified` out: an address it does not call verified is taken.
    pub accept_unverified_email: bool,
    /// A sign-in needs the provider's word that it checked a second factor, or ours.
    pub require_mfa: bool,
    /// Every domain the enterprise claims, proven or not: lower case, sorted.
    pub domains: Vec<String>,
    /// The proven ones: the only domains that route anyone.
    pub verified_domains: Vec<String>,
    pub updated_at: DateTime<Utc>,
}

impl SsoRecord {
    pub fn just_in_time(&self) -> bool {
        self.provisioning == "just_in_time"
    }

    /// Whether the address is at one of the enterprise's proven domains.
    pub fn covers(&self, email: &str) -> bool {
        domain_of(email).is_some_and(|d| self.verified_domains.contains(&d))
    }
}

/// One claimed domain and its proof.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DomainRecord {
    pub domain: String,
    /// What the TXT record must hold (after `enterprise-platform-verification=`).
    pub token: String,
    pub verified_at: Option<DateTime<Utc>>,
    /// `dns` or `admin`.
    pub verified_by: Option<String>,
}

/// The domain of an address, lower case.
pub fn domain_of(email: &str) -> Option<String> {
    email.rsplit_once('@').map(|(_, d)| d.trim().to_lowercase()).filter(|d| !d.is_empty())
}

const SELECT: &str = "select s.enterprise_id, s.issuer, s.client_id, s.client_secret, s.required, s.provisioning, s.default_role, \
     s.default_department_id, s.break_glass_user_id, s.accept_unverified_email, s.require_mfa, s.updated_at, \
     coalesce((select array_agg(d.domain order by d.domain) from public.sso_domains d where d.enterprise_id = s.enterprise_id), '{}') as domains, \
     coalesce((select array_agg(d.domain order by d.domain) from public.sso_domains d \
               where d.enterprise_id = s.enterprise_id and d.verified_at is not null), '{}') as verified_domains \
     from public.enterprise_sso s";

pub async fn find(db: impl PgExecutor<'_>, enterprise_id: Uuid) -> sqlx::Result<Option<SsoRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where s.enterprise_id = $1"))).bind(enterprise_id).fetch_optional(db).await
}

/// The single sign-on that owns an address's domain, if any: the domain proven, the enterprise
/// active. A claim not yet proven routes nobody.
pub async fn for_email(db: impl PgExecutor<'_>, email: &str) -> sqlx::Result<Option<SsoRecord>> {
    let Some(domain) = domain_of(email) else { return Ok(None) };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} join public.sso_domains d0 on d0.enterprise_id = s.enterprise_id \
         join public.enterprises e on e.id = s.enterprise_id where d0.domain = $1 and d0.verified_at is not null and e.is_active"
    )))
    .bind(domain)
    .fetch_optional(db)
    .await
}

pub struct SsoChange<'a> {
    pub issuer: &'a str,
    pub client_id: &'a str,
    /// None keeps the stored secret.
    pub client_secret: Option<&'a str>,
    pub domains: &'a [String],
    pub required: bool,
    pub provisioning: &'a str,
    pub default_role: crate::domain::Role,
    pub default_department_id: Option<Uuid>,
    pub break_glass_user_id: Option<Uuid>,
    pub accept_unverified_email: bool,
    pub require_mfa: bool,
}

/// Writes an enterprise's settings and domains: domains no longer listed are dropped, new ones
/// are claimed unproven, and the ones kept keep their proof. `Ok(Err(domain))`: another
/// enterprise has proven that domain (nothing is written once the transaction rolls back).
pub async fn save(tx: &mut PgConnection, keys: &KeyRing, enterprise_id: Uuid, change: &SsoChange<'_>) -> sqlx::Result<Result<(), String>> {
    sqlx::query(
        "insert into public.enterprise_sso (enterprise_id, issuer, client_id, client_secret, required, provisioning, default_role, \
         default_department_id, break_glass_user_id, accept_unverified_email, require_mfa) values ($1, $2, $3, coalesce($4, ''), $5, $6, $7, $8, $9, $10, $11) \
         on conflict (enterprise_id) do update set issuer = excluded.issuer, client_id = excluded.client_id, \
         client_secret = coalesce($4, enterprise_sso.client_secret), required = excluded.required, provisioning = excluded.provisioning, \
         default_role = excluded.default_role, default_department_id = excluded.default_department_id, \
         break_glass_user_id = excluded.break_glass_user_id, accept_unverified_email = excluded.accept_unverified_email, \
         require_mfa = excluded.require_mfa, updated_at = excluded.updated_at",
    )
    .bind(enterprise_id)
    .bind(change.issuer)
    .bind(change.client_id)
    .bind(change.client_secret.map(|secret| keys.seal_for(SSO_CLIENT_SECRET, enterprise_id, secret)))
    .bind(change.required)
    .bind(change.provisioning)
    .bind(change.default_role.as_str())
    .bind(change.default_department_id)
    .bind(change.break_glass_user_id)
    .bind(change.accept_unverified_email)
    .bind(change.require_mfa)
    .execute(&mut *tx)
    .await?;
    sqlx::query("delete from public.sso_domains where enterprise_id = $1 and not (domain = any($2))")
        .bind(enterprise_id)
        .bind(change.domains)
        .execute(&mut *tx)
        .await?;
    for domain in change.domains {
        if let Err(taken) = add_domain(&mut *tx, enterprise_id, domain).await? {
            return Ok(Err(taken));
        }
    }
    Ok(Ok(()))
}

const DOMAIN_COLUMNS: &str = "domain, token, verified_at, verified_by";

/// The enterprise's claimed domains, proven or not, by name.
pub async fn domains(db: impl PgExecutor<'_>, enterprise_id: Uuid) -> sqlx::Result<Vec<DomainRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {DOMAIN_COLUMNS} from public.sso_domains where enterprise_id = $1 order by domain")))
        .bind(enterprise_id)
        .fetch_all(db)
        .await
}

/// One of the enterprise's claimed domains.
pub async fn domain(db: impl PgExecutor<'_>, enterprise_id: Uuid, domain: &str) -> sqlx::Result<Option<DomainRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("select {DOMAIN_COLUMNS} from public.sso_domains where enterprise_id = $1 and domain = $2")))
        .bind(enterprise_id)
        .bind(domain)
        .fetch_optional(db)
        .await
}

/// The enterprise that has proven `domain`, if any.
pub async fn proven_by(db: impl PgExecutor<'_>, domain: &str) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("select enterprise_id from public.sso_domains where domain = $1 and verified_at is not null")
        .bind(domain)
        .fetch_optional(db)
        .await
}

/// Whether `email`'s domain is proven by an enterprise other than `enterprise` (none: any
/// enterprise): an account there belongs to that enterprise's single sign-on, not to another.
pub async fn claimed_elsewhere(db: impl PgExecutor<'_>, enterprise: Option<Uuid>, email: &str) -> sqlx::Result<bool> {
    let Some(domain) = domain_of(email) else { return Ok(false) };
    Ok(proven_by(db, &domain).await?.is_some_and(|owner| Some(owner) != enterprise))
}

/// Claims `domain` for the enterprise (unproven; a claim it has already is kept as it is).
/// `Ok(Err(domain))` when another enterprise has proven it.
pub async fn add_domain(tx: &mut PgConnection, enterprise_id: Uuid, domain: &str) -> sqlx::Result<Result<DomainRecord, String>> {
    if proven_by(&mut *tx, domain).await?.is_some_and(|owner| owner != enterprise_id) {
        return Ok(Err(domain.to_owned()));
    }
    sqlx::query("insert into public.sso_domains (domain, enterprise_id) values ($1, $2) on conflict (enterprise_id, domain) do nothing")
        .bind(domain)
        .bind(enterprise_id)
        .execute(&mut *tx)
        .await?;
    Ok(self::domain(&mut *tx, enterprise_id, domain).await?.ok_or_else(|| domain.to_owned()))
}

/// Records the proof of a claimed domain (`dns` or `admin`). `Ok(None)`: no such claim;
/// `Ok(Some(Err(_)))`: another enterprise proved it first.
pub async fn prove_domain(
    db: impl PgExecutor<'_>,
    enterprise_id: Uuid,
    domain: &str,
    by: &str,
) -> sqlx::Result<Option<Result<DomainRecord, String>>> {
    let proven = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "update public.sso_domains set verified_at = coalesce(verified_at, $4), verified_by = coalesce(verified_by, $3) \
         where enterprise_id = $1 and domain = $2 returning {DOMAIN_COLUMNS}"
    )))
    .bind(enterprise_id)
    .bind(domain)
    .bind(by)
    // The time bound, not `now()` inside the COALESCE: Citus refuses a non-immutable function there.
    .bind(chrono::Utc::now())
    .fetch_optional(db)
    .await;
    match proven {
        Ok(record) => Ok(record.map(Ok)),
        Err(e) if super::violated_constraint(&e).as_deref() == Some("sso_domains_proven") => Ok(Some(Err(domain.to_owned()))),
        Err(e) => Err(e),
    }
}

/// Drops a claimed domain; `false` when the enterprise had no such claim.
pub async fn remove_domain(db: impl PgExecutor<'_>, enterprise_id: Uuid, domain: &str) -> sqlx::Result<bool> {
    let removed =
        sqlx::query("delete from public.sso_domains where enterprise_id = $1 and domain = $2").bind(enterprise_id).bind(domain).execute(db).await?;
    Ok(removed.rows_affected() == 1)
}

/// The first of `domains` at which someone outside the enterprise (another enterprise's person, a
/// platform admin) has an address: such a domain is not the enterprise's to claim.
pub async fn domain_used_elsewhere(db: impl PgExecutor<'_>, enterprise_id: Uuid, domains: &[String]) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar(
        "select d from unnest($2::text[]) d where exists (select 1 from public.users u \
         where lower(u.email) like '%@' || d and u.enterprise_id is distinct from $1) limit 1",
    )
    .bind(enterprise_id)
    .bind(domains)
    .fetch_optional(db)
    .await
}

/// Removes an enterprise's single sign-on; `false` when it had none.
pub async fn delete(db: impl PgExecutor<'_>, enterprise_id: Uuid) -> sqlx::Result<bool> {
    Ok(sqlx::query("delete from public.enterprise_sso where enterprise_id = $1").bind(enterprise_id).execute(db).await?.rows_affected() == 1)
}
