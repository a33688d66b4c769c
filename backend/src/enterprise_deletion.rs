//! Deletion with a recovery window: `DELETE /enterprises/{id}` suspends an enterprise and
//! schedules its purge `TENANT_DELETION_GRACE_DAYS` later (`store::enterprises::schedule_deletion`);
//! the platform admin restores it within the window or purges it at once. This task, on every
//! instance, purges the enterprises whose window has ended; two instances never purge one twice
//! (the purge locks the row and finds it gone).

use std::time::Duration;

use chrono::Utc;

use sqlx::PgPool;

use crate::{audit::Audit, auth::sessions::SessionGuard, store};

/// How often each instance looks for enterprises whose window has ended.
const LOOK_EVERY: Duration = Duration::from_secs(600);

/// Purges every enterprise whose recovery window has ended (found in `db`, dropped through
/// `tenant_ddl`, `AppState::tenant_ddl`), ending its people's sessions; returns how many.
pub async fn purge_due(db: &PgPool, tenant_ddl: &PgPool, sessions: &SessionGuard) -> anyhow::Result<usize> {
    let mut purged = 0;
    for id in store::enterprises::due_for_purge(db, Utc::now(), 50).await? {
        // Not purged here when restored or purged by someone else meanwhile.
        if let Ok(ended) = store::enterprises::purge(tenant_ddl, id, None, &Audit::system().0).await? {
            sessions.ended(&ended).await;
            tracing::info!(enterprise_id = %id, "enterprise purged at the end of its recovery window");
            purged += 1;
        }
    }
    Ok(purged)
}

/// Runs `purge_due` every ten minutes while the server runs.
pub fn spawn(db: &PgPool, tenant_ddl: &PgPool, sessions: &SessionGuard) {
    let pieces = (db.clone(), tenant_ddl.clone(), sessions.clone());
    crate::supervise::spawn("enterprise_purge", move || {
        let (db, tenant_ddl, sessions) = pieces.clone();
        async move {
            let mut every = tokio::time::interval(LOOK_EVERY);
            loop {
                every.tick().await;
                if let Err(err) = purge_due(&db, &tenant_ddl, &sessions).await {
                    tracing::warn!(error = %err, "purging enterprises at the end of their window failed");
                }
            }
        }
    });
}
