//! An enterprise's single sign-on: its OpenID provider, the domains it signs in, and what happens
//! to people it names (migration `20261207000001_single_sign_on.sql`).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

use super::users::RoleColumn;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SsoRecord {
    pub enterprise_id: Uuid,
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    pub required: bool,
    /// `just_in_time` or `invitation_only`.
    pub provisioning: String,
    #[sqlx(try_from = "String")]
    pub default_role: RoleColumn,
    pub default_department_id: Option<Uuid>,
    pub break_glass_user_id: Option<Uuid>,
    /// Lower case, sorted.
    pub domains: Vec<String>,
    pub updated_at: DateTime<Utc>,
}

impl SsoRecord {
    pub fn just_in_time(&self) -> bool {
        self.provisioning == "just_in_time"
    }

    pub fn covers(&self, email: &str) -> bool {
        domain_of(email).is_some_and(|d| self.domains.contains(&d))
    }
}

/// The domain of an address, lower case.
pub fn domain_of(email: &str) -> Option<String> {
    email.rsplit_once('@').map(|(_, d)| d.trim().to_lowercase()).filter(|d| !d.is_empty())
}

const SELECT: &str = "select s.enterprise_id, s.issuer, s.client_id, s.client_secret, s.required, s.provisioning, s.default_role, \
     s.default_department_id, s.break_glass_user_id, s.updated_at, \
     coalesce((select array_agg(d.domain order by d.domain) from public.sso_domains d where d.enterprise_id = s.enterprise_id), '{}') as domains \
     from public.enterprise_sso s";

pub async fn find(db: impl PgExecutor<'_>, enterprise_id: Uuid) -> sqlx::Result<Option<SsoRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} where s.enterprise_id = $1"))).bind(enterprise_id).fetch_optional(db).await
}

/// The single sign-on that owns an address's domain, if any (the enterprise must be active).
pub async fn for_email(db: impl PgExecutor<'_>, email: &str) -> sqlx::Result<Option<SsoRecord>> {
    let Some(domain) = domain_of(email) else { return Ok(None) };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} join public.sso_domains d0 on d0.enterprise_id = s.enterprise_id \
         join public.enterprises e on e.id = s.enterprise_id where d0.domain = $1 and e.is_active"
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
}

/// Writes an enterprise's settings and domains. `Ok(Err(domain))`: another enterprise owns that
/// domain already (nothing is written once the transaction rolls back).
pub async fn save(tx: &mut PgConnection, enterprise_id: Uuid, change: &SsoChange<'_>) -> sqlx::Result<Result<(), String>> {
    sqlx::query(
        "insert into public.enterprise_sso (enterprise_id, issuer, client_id, client_secret, required, provisioning, default_role, \
         default_department_id, break_glass_user_id) values ($1, $2, $3, coalesce($4, ''), $5, $6, $7, $8, $9) \
         on conflict (enterprise_id) do update set issuer = excluded.issuer, client_id = excluded.client_id, \
         client_secret = coalesce($4, enterprise_sso.client_secret), required = excluded.required, provisioning = excluded.provisioning, \
         default_role = excluded.default_role, default_department_id = excluded.default_department_id, \
         break_glass_user_id = excluded.break_glass_user_id, updated_at = now()",
    )
    .bind(enterprise_id)
    .bind(change.issuer)
    .bind(change.client_id)
    .bind(change.client_secret)
    .bind(change.required)
    .bind(change.provisioning)
    .bind(change.default_role.as_str())
    .bind(change.default_department_id)
    .bind(change.break_glass_user_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("delete from public.sso_domains where enterprise_id = $1").bind(enterprise_id).execute(&mut *tx).await?;
    for domain in change.domains {
        let taken: Option<Uuid> = sqlx::query_scalar(
            "insert into public.sso_domains (domain, enterprise_id) values ($1, $2) on conflict (domain) do nothing returning enterprise_id",
        )
        .bind(domain)
        .bind(enterprise_id)
        .fetch_optional(&mut *tx)
        .await?;
        if taken.is_none() {
            return Ok(Err(domain.clone()));
        }
    }
    Ok(Ok(()))
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
