//! What each instance runs in the background: the Redis subscription that feeds its sockets, the
//! batched write of heartbeats, the monitors' events once a second, and the sweep that ends expired and idle sessions and announces
//! them. Several instances sweeping at once end each session once (one UPDATE ... RETURNING).

use crate::state::AppState;

/// Starts the instance's background tasks; they run until the process ends.
pub fn spawn(state: &AppState) {
    tokio::spawn(state.realtime.clone().subscribe_forever());
    let flush = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(flush.config.intervals.heartbeat_flush);
        loop {
            every.tick().await;
            if let Err(err) = flush.sessions.flush_seen().await {
                tracing::warn!(error = %err, "could not write session activity");
            }
        }
    });
    let monitors = state.realtime.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        loop {
            every.tick().await;
            monitors.flush_monitors().await;
        }
    });
    let sweep = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(sweep.config.intervals.sweep);
        loop {
            every.tick().await;
            if let Err(err) = sweep_once(&sweep).await {
                tracing::warn!(error = %err, "session sweep failed");
            }
        }
    });
}

/// Ends the sessions past their expiry or idle timeout and announces them.
pub async fn sweep_once(state: &AppState) -> anyhow::Result<usize> {
    let idle = state.sessions.idle();
    let ended = crate::store::sessions::end_stale(&state.db, idle.session.as_secs_f64(), idle.remembered.as_secs_f64()).await?;
    state.sessions.ended(&ended).await;
    Ok(ended.len())
}
