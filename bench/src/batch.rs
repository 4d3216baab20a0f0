//! Running numbered requests on a fixed number of workers until a count or a deadline,
//! as the closed-loop clients (`sendload`, `streams`) do.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// When a batch stops starting requests.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    /// After this many.
    Count(usize),
    /// At this time.
    Until(Instant),
}

impl Limit {
    /// Whether request `number` (numbered from 0) is past the limit.
    fn reached(self, number: usize) -> bool {
        match self {
            Self::Count(total) => number >= total,
            Self::Until(deadline) => Instant::now() >= deadline,
        }
    }
}

/// Runs `request(number)` on `concurrency` workers (at least one), each waiting for its
/// request's outcome before starting the next, with numbers taken from `next` until
/// `limit`. Returns every outcome; a worker that panicked adds `panicked(message)` instead
/// of its own.
pub async fn run_batch<T, F, Fut>(
    concurrency: usize,
    next: &Arc<AtomicUsize>,
    limit: Limit,
    request: F,
    panicked: impl Fn(String) -> T,
) -> Vec<T>
where
    T: Send + 'static,
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = T> + Send + 'static,
{
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let request = request.clone();
        let next = Arc::clone(next);
        workers.spawn(async move {
            let mut outcomes = Vec::new();
            loop {
                let number = next.fetch_add(1, Ordering::Relaxed);
                if limit.reached(number) {
                    return outcomes;
                }
                outcomes.push(request(number).await);
            }
        });
    }
    let mut outcomes = Vec::new();
    while let Some(joined) = workers.join_next().await {
        match joined {
            Ok(mut some) => outcomes.append(&mut some),
            Err(error) => outcomes.push(panicked(format!("a worker panicked: {error}"))),
        }
    }
    outcomes
}

/// How one timed request went.
#[derive(Debug)]
pub struct Outcome {
    /// From sending the request to its answer.
    pub elapsed: Duration,
    /// Why it failed, when it did.
    pub error: Option<String>,
}

/// [`run_timed`] of `send(target, number)`, every request sharing `target`.
pub async fn run_timed_on<T, F, Fut>(
    target: &Arc<T>,
    concurrency: usize,
    next: &Arc<AtomicUsize>,
    limit: Limit,
    send: F,
) -> Vec<Outcome>
where
    T: Send + Sync + 'static,
    F: Fn(Arc<T>, usize) -> Fut + Copy + Send + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let target = Arc::clone(target);
    run_timed(concurrency, next, limit, move |number| {
        send(Arc::clone(&target), number)
    })
    .await
}

/// [`run_batch`] of `send(number)`, each request timed into an [`Outcome`].
pub async fn run_timed<F, Fut>(
    concurrency: usize,
    next: &Arc<AtomicUsize>,
    limit: Limit,
    send: F,
) -> Vec<Outcome>
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    let request = move |number| {
        let send = send.clone();
        async move {
            let start = Instant::now();
            let error = send(number).await.err();
            Outcome {
                elapsed: start.elapsed(),
                error: error.map(|error| format!("{error:#}")),
            }
        }
    };
    let panicked = |error| Outcome {
        elapsed: Duration::ZERO,
        error: Some(error),
    };
    run_batch(concurrency, next, limit, request, panicked).await
}
