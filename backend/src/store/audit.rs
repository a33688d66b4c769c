//! The audit log's rows (`public.audit_events`): written in the transactions of the changes they
//! describe, read newest first a page at a time, deleted only by the retention job.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

/// Who acts, and from where: one per request, used for every entry it writes.
#[derive(Debug, Clone)]
pub struct Actor {
    /// `user`, `token` or `system`.
    pub kind: &'static str,
    pub id: Option<Uuid>,
    pub ip: Option<std::net::IpAddr>,
    pub place: Option<String>,
    pub user_agent: Option<String>,
}

/// What an action was done to: its kind (`user`, `report`…), id and name as it is now.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub kind: &'static str,
    pub id: Option<Uuid>,
    pub name: Option<&'a str>,
}

impl<'a> Target<'a> {
    pub fn new(kind: &'static str, id: Uuid, name: &'a str) -> Self {
        Self { kind, id: Some(id), name: Some(name) }
    }

    pub fn id(kind: &'static str, id: Uuid) -> Self {
        Self { kind, id: Some(id), name: None }
    }
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryRecord {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    pub enterprise_id: Option<Uuid>,
    pub actor_type: String,
    pub actor_id: Option<Uuid>,
    pub actor_name: Option<String>,
    pub action: String,
    pub target_type: Option<String>,
    pub target_id: Option<Uuid>,
    pub target_name: Option<String>,
    pub ip: Option<String>,
    pub place: Option<String>,
    pub user_agent: Option<String>,
    pub changes: Value,
}

/// Writes an entry in `tx`, the transaction of the change it describes. The actor's name is taken
/// as it is now (a person's full name, or a service credential's name), so the entry reads the
/// same after they are renamed or deleted.
pub async fn insert(
    tx: &mut PgConnection,
    actor: &Actor,
    enterprise: Option<Uuid>,
    action: &str,
    target: Option<Target<'_>>,
    changes: Value,
) -> sqlx::Result<()> {
    insert_at(tx, None, actor, enterprise, action, target, changes).await
}

/// [`insert`] at a given time (`None`: now). Only the demo data (`backend seed-demo`) writes a
/// history that happened before it ran; nothing a request does may.
pub async fn insert_at(
    tx: &mut PgConnection,
    at: Option<DateTime<Utc>>,
    actor: &Actor,
    enterprise: Option<Uuid>,
    action: &str,
    target: Option<Target<'_>>,
    changes: Value,
) -> sqlx::Result<()> {
    let id = at.map_or_else(Uuid::now_v7, |at| {
        let ts = uuid::Timestamp::from_unix(uuid::NoContext, at.timestamp().max(0) as u64, at.timestamp_subsec_nanos());
        Uuid::new_v7(ts)
    });
    sqlx::query(
        "insert into public.audit_events
             (id, enterprise_id, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, ip, place, user_agent, changes, at)
         select $1, $2, $3, $4,
                coalesce((select full_name from public.users where id = $4),
                         (select name from public.api_tokens where id = $4 and user_id is null)),
                $5, $6, $7, $8, $9::inet, $10, $11, $12, $13",
    )
    .bind(id)
    .bind(enterprise)
    .bind(actor.kind)
    .bind(actor.id)
    .bind(action)
    .bind(target.map(|t| t.kind))
    .bind(target.and_then(|t| t.id))
    .bind(target.and_then(|t| t.name))
    .bind(actor.ip.map(|ip| ip.to_string()))
    .bind(actor.place.as_deref())
    .bind(actor.user_agent.as_deref())
    .bind(changes)
    // The time from here, not `now()` in the statement: Citus refuses a non-immutable function
    // inside COALESCE, and a subquery in an INSERT's VALUES (hence the SELECT above).
    .bind(at.unwrap_or_else(Utc::now))
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Which entries a reader asks for. `enterprise` is already the caller's realm: a CEO's own
/// enterprise always; the admin's choice, or every enterprise (`None`).
#[derive(Debug, Default, Clone)]
pub struct EntryFilter {
    pub enterprise: Option<Uuid>,
    pub actor: Option<Uuid>,
    pub action: Option<String>,
    pub target: Option<Uuid>,
    /// `user`, `enterprise`, `report`...
    pub target_type: Option<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub text: Option<String>,
    /// Entries strictly older than this one (the previous page's last id).
    pub before: Option<Uuid>,
}

/// Up to `limit` entries, newest first.
pub async fn list(pool: &PgPool, f: &EntryFilter, limit: i64) -> sqlx::Result<Vec<EntryRecord>> {
    let mut q: QueryBuilder<Postgres> = QueryBuilder::new(
        "select id, at, enterprise_id, actor_type, actor_id, actor_name, action, target_type, target_id, target_name,
                host(ip) as ip, place, user_agent, changes
         from public.audit_events where true",
    );
    if let Some(e) = f.enterprise {
        q.push(" and enterprise_id = ").push_bind(e);
    }
    if let Some(a) = f.actor {
        q.push(" and actor_id = ").push_bind(a);
    }
    if let Some(a) = &f.action {
        // `user` matches every `user.*` action; `user.updated` only itself.
        if a.contains('.') {
            q.push(" and action = ").push_bind(a.clone());
        } else {
            q.push(" and action like ").push_bind(format!("{}.%", super::escape_like(a)));
        }
    }
    if let Some(t) = f.target {
        q.push(" and target_id = ").push_bind(t);
    }
    if let Some(t) = &f.target_type {
        q.push(" and target_type = ").push_bind(t.clone());
    }
    if let Some(from) = f.from {
        q.push(" and at >= ").push_bind(from);
    }
    if let Some(to) = f.to {
        q.push(" and at < ").push_bind(to);
    }
    if let Some(text) = &f.text {
        // The generated, lower-case `search` column and its trigram index (the migration).
        q.push(" and search like ").push_bind(format!("%{}%", super::escape_like(&text.to_lowercase())));
    }
    if let Some(before) = f.before {
        q.push(" and id < ").push_bind(before);
    }
    q.push(" order by id desc limit ").push_bind(limit);
    let mut entries: Vec<EntryRecord> = q.build_query_as().fetch_all(pool).await?;
    pseudonymise(pool, &mut entries).await?;
    Ok(entries)
}

/// The log is insert-only, so a person whose data was erased is hidden as it is read: they are
/// named by their pseudonym wherever they acted or were acted on, where they acted from (address,
/// place, browser) is not shown, and what an entry about them noted of their name and address is
/// left out.
async fn pseudonymise(pool: &PgPool, entries: &mut [EntryRecord]) -> sqlx::Result<()> {
    let mut ids: Vec<Uuid> = entries.iter().flat_map(|e| [e.actor_id, e.target_id]).flatten().collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(());
    }
    let erased: std::collections::HashMap<Uuid, String> =
        sqlx::query_as::<_, (Uuid, String)>("select id, full_name from public.users where id = any($1) and erased_at is not null")
            .bind(&ids)
            .fetch_all(pool)
            .await?
            .into_iter()
            .collect();
    if erased.is_empty() {
        return Ok(());
    }
    for e in entries {
        if let Some(name) = e.actor_id.and_then(|id| erased.get(&id)) {
            e.actor_name = Some(name.clone());
            (e.ip, e.place, e.user_agent) = (None, None, None);
        }
        if let Some(name) = e.target_id.filter(|_| e.target_type.as_deref() == Some("user")).and_then(|id| erased.get(&id)) {
            e.target_name = Some(name.clone());
            if let Value::Object(changes) = &mut e.changes {
                for field in ["email", "fullName", "ceoEmail", "directory"] {
                    changes.remove(field);
                }
            }
        }
    }
    Ok(())
}

/// Deletes the entries older than `days` (at least 30), through the one path that may: the
/// database function `audit_retention`, which runs as the audit log's owner (migration
/// 20261209000005). One instance at a time.
pub async fn delete_older_than(pool: &PgPool, days: u32) -> sqlx::Result<u64> {
    let deleted: i64 = sqlx::query_scalar("select public.audit_retention($1)").bind(i32::try_from(days).unwrap_or(i32::MAX)).fetch_one(pool).await?;
    Ok(u64::try_from(deleted).unwrap_or(0))
}
