//! What each instance runs in the background: the Redis subscription that feeds its sockets, the
//! batched write of heartbeats, the monitors' events once a second, and the sweep that ends expired and idle sessions and announces
//! them. Several instances sweeping at once end each session once (one UPDATE ... RETURNING).

use sqlx::PgPool;

use super::Hub;
use crate::{auth::sessions::SessionGuard, config::Intervals};

/// Starts the instance's background tasks; they run until the process ends.
pub fn spawn(hub: &Hub, sessions: &SessionGuard, db: &PgPool, intervals: &Intervals) {
    tokio::spawn(hub.clone().subscribe_forever());
    let (flush, heartbeat_flush) = (sessions.clone(), intervals.heartbeat_flush);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(heartbeat_flush);
        loop {
            every.tick().await;
            if let Err(err) = flush.flush_seen().await {
                tracing::warn!(error = %err, "could not write session activity");
            }
        }
    });
    let monitors = hub.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        loop {
            every.tick().await;
            monitors.flush_monitors().await;
        }
    });
    let (sweep, db, every_sweep) = (sessions.clone(), db.clone(), intervals.sweep);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(every_sweep);
        loop {
            every.tick().await;
            if let Err(err) = sweep_once(&db, &sweep).await {
                tracing::warn!(error = %err, "session sweep failed");
            }
        }
    });
}

/// Ends the sessions past their expiry or idle timeout and announces them.
pub async fn sweep_once(db: &PgPool, sessions: &SessionGuard) -> anyhow::Result<usize> {
    let idle = sessions.idle();
    let ended = crate::store::sessions::end_stale(db, idle.session.as_secs_f64(), idle.remembered.as_secs_f64()).await?;
    sessions.ended(&ended).await;
    Ok(ended.len())
}
