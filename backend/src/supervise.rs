//! Background loops that must outlive any one bad input: a loop that panics is logged, counted
//! (`background_task_restarts_total{task}`) and started again a second later, so one message the
//! code did not foresee never stops the service for everyone.

use std::{future::Future, time::Duration};

/// How long a loop that panicked waits before it starts again (so a loop that panics at once
/// does not spin).
const RESTART_AFTER: Duration = Duration::from_secs(1);

/// Runs `start()`'s future until the process ends, starting it again after each panic. A future
/// that returns ends the supervision.
pub fn spawn<F, Fut>(task: &'static str, start: F) -> tokio::task::JoinHandle<()>
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            match tokio::spawn(start()).await {
                Ok(()) => return,
                Err(err) if err.is_panic() => {
                    metrics::counter!("background_task_restarts_total", "task" => task).increment(1);
                    tracing::error!(task, "a background task panicked; it starts again in a second");
                    tokio::time::sleep(RESTART_AFTER).await;
                }
                Err(_) => return,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    #[tokio::test]
    async fn a_task_that_panics_is_started_again_until_it_finishes() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        let handle = super::spawn("test", move || {
            let runs = counted.clone();
            async move {
                if runs.fetch_add(1, Ordering::SeqCst) < 2 {
                    panic!("a message nobody foresaw");
                }
            }
        });
        tokio::time::timeout(std::time::Duration::from_secs(60), handle).await.expect("supervision ended").expect("supervisor itself never panics");
        assert_eq!(runs.load(Ordering::SeqCst), 3, "two panics, then a run that finished");
    }
}
