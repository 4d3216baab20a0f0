//! The open streams of each task: counted, and closed together.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use a2a_types::TaskId;
use tokio_util::sync::CancellationToken;

/// The open streams of each task: how many, and the token that closes them.
#[derive(Debug, Default)]
pub(super) struct StreamRegistry {
    tasks: Mutex<HashMap<TaskId, Streams>>,
}

#[derive(Debug)]
struct Streams {
    count: usize,
    close: CancellationToken,
    /// Tells a closed generation of streams from the streams that opened after the close.
    generation: u64,
}

impl StreamRegistry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TaskId, Streams>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one more stream of `task_id`; its close token and generation.
    pub(super) fn open(&self, task_id: &TaskId) -> (CancellationToken, u64) {
        static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut tasks = self.lock();
        let streams = tasks.entry(task_id.clone()).or_insert_with(|| Streams {
            count: 0,
            close: CancellationToken::new(),
            generation: GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        });
        streams.count += 1;
        (streams.close.clone(), streams.generation)
    }

    /// Counts one stream of `task_id` less (unless its generation was closed already).
    pub(super) fn closed(&self, task_id: &TaskId, generation: u64) {
        let mut tasks = self.lock();
        if let Some(streams) = tasks.get_mut(task_id)
            && streams.generation == generation
        {
            streams.count = streams.count.saturating_sub(1);
            if streams.count == 0 {
                tasks.remove(task_id);
            }
        }
    }

    pub(super) fn close_all(&self, task_id: &TaskId) -> usize {
        match self.lock().remove(task_id) {
            Some(streams) => {
                streams.close.cancel();
                streams.count
            }
            None => 0,
        }
    }

    pub(super) fn count(&self, task_id: &TaskId) -> usize {
        self.lock().get(task_id).map_or(0, |streams| streams.count)
    }
}
