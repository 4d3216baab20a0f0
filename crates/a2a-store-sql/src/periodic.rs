//! Running a store's background chore at a fixed interval until the store shuts down.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Runs `chore` every `every`, the first time one interval after the call (a fresh store
/// has nothing to do yet), until `shutdown`; a chore that overruns delays the next one
/// rather than bunching them up. Returns when `shutdown` fires.
pub(crate) async fn every<F, Fut>(every: Duration, shutdown: CancellationToken, mut chore: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is immediate.
    ticks.tick().await;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = ticks.tick() => {}
        }
        chore().await;
    }
}
