//! Admission of turns and stopping them: at most
//! `max_concurrent_tasks` turns run at once, only new `returnImmediately` interactions may wait
//! for a slot as SUBMITTED tasks, and shutdown fails what has not started and what outlives
//! its grace. A turn that finds no room is refused with ServerBusy.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use a2a_types::{A2aError, TaskId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::task::task_tracker::TaskTrackerToken;

use super::running::RunningTurn;

/// The status message of tasks failed because the server stops.
pub(super) const SHUTTING_DOWN: &str = "the server is shutting down";

/// Slots, queue and shutdown state shared by every turn of one engine.
#[derive(Debug)]
pub(crate) struct Admission {
    /// `None` when unlimited (`max_concurrent_tasks` 0, the default).
    slots: Option<Arc<Semaphore>>,
    queue_capacity: usize,
    state: Arc<Mutex<State>>,
    /// Every spawned turn, and every admitted one not yet spawned (through its ticket).
    tracker: TaskTracker,
    /// Parent of every turn's cancellation; fired when shutdown's grace ran out.
    stop: CancellationToken,
    /// Fired when shutdown begins: executors that can stop at a save point (and resume
    /// later, on any instance) do so instead of waiting for the grace to run out.
    draining: CancellationToken,
}

#[derive(Debug, Default)]
struct State {
    shutting_down: bool,
    /// Queue places handed out and not given back: the queue's length.
    reserved: usize,
    /// Queued turns, so shutdown can fail them at once.
    queued: HashMap<TaskId, Arc<dyn RunningTurn>>,
}

/// The right to start one turn. Taken before the task is touched (a refused follow-up must
/// leave no trace), it keeps shutdown waiting until the turn settled or the ticket is dropped.
#[derive(Debug)]
pub(crate) struct Ticket {
    place: Place,
    tracked: TaskTrackerToken,
}

#[derive(Debug)]
enum Place {
    /// A slot is held (`None`: no limit).
    Slot(Option<OwnedSemaphorePermit>),
    /// A place in the queue, waiting for a slot.
    Queue(QueuePlace),
}

/// Gives its place in the queue back when dropped, whatever became of the turn.
#[derive(Debug)]
struct QueuePlace {
    state: Arc<Mutex<State>>,
    slots: Arc<Semaphore>,
    /// Set once the turn is registered where shutdown finds it.
    task_id: Option<TaskId>,
}

/// A running turn's slot, given back when dropped.
#[derive(Debug)]
pub(super) struct Slot {
    _permit: Option<OwnedSemaphorePermit>,
    _tracked: TaskTrackerToken,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Admission {
    /// True while the turn of `task_id` waits in the queue (admitted, not started).
    pub(crate) fn is_waiting(&self, task_id: &TaskId) -> bool {
        lock(&self.state).queued.contains_key(task_id)
    }

    /// `max_concurrent` slots (0: unlimited) and a queue of `queue_capacity` places.
    pub(crate) fn new(max_concurrent: usize, queue_capacity: usize) -> Self {
        let slots = (max_concurrent > 0)
            .then(|| Arc::new(Semaphore::new(max_concurrent.min(Semaphore::MAX_PERMITS))));
        Self {
            slots,
            queue_capacity,
            state: Arc::new(Mutex::new(State::default())),
            tracker: TaskTracker::new(),
            stop: CancellationToken::new(),
            draining: CancellationToken::new(),
        }
    }

    /// Admits a turn: a free slot, else a queue place when `may_queue` and one is left.
    ///
    /// # Errors
    /// ServerBusy when every slot (and the queue, for those that may wait) is taken;
    /// Unavailable once shutdown began.
    pub(crate) fn admit(&self, may_queue: bool) -> Result<Ticket, A2aError> {
        let mut state = lock(&self.state);
        if state.shutting_down {
            crate::metrics::admission_refused("shutting_down");
            return Err(A2aError::unavailable());
        }
        let tracked = self.tracker.token();
        let Some(slots) = &self.slots else {
            return Ok(Ticket {
                place: Place::Slot(None),
                tracked,
            });
        };
        // While anyone is queued a freed slot is theirs: nobody jumps the queue.
        let free = if state.reserved == 0 {
            Arc::clone(slots).try_acquire_owned()
        } else {
            Err(TryAcquireError::NoPermits)
        };
        match free {
            Ok(permit) => Ok(Ticket {
                place: Place::Slot(Some(permit)),
                tracked,
            }),
            Err(TryAcquireError::NoPermits)
                if may_queue && state.reserved < self.queue_capacity =>
            {
                state.reserved += 1;
                crate::metrics::turns_queued(state.reserved);
                let place = QueuePlace {
                    state: Arc::clone(&self.state),
                    slots: Arc::clone(slots),
                    task_id: None,
                };
                Ok(Ticket {
                    place: Place::Queue(place),
                    tracked,
                })
            }
            Err(TryAcquireError::NoPermits) => {
                crate::metrics::admission_refused("busy");
                Err(A2aError::server_busy())
            }
            // The semaphore is never closed; were it, no turn could start any more.
            Err(TryAcquireError::Closed) => Err(A2aError::unavailable()),
        }
    }

    /// A cancellation token for a new turn: fired by the turn's end or cancel, or by shutdown.
    pub(super) fn turn_cancellation(&self) -> CancellationToken {
        self.stop.child_token()
    }

    /// Fires when shutdown begins (a clone for each turn's context).
    pub(super) fn draining(&self) -> CancellationToken {
        self.draining.clone()
    }

    /// Runs a turn's future where shutdown can wait for it (style rule 9).
    pub(super) fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        self.tracker.spawn(future);
    }

    /// Begins shutdown: refuses new turns, fires `draining`, and takes the queued turns out of
    /// the queue, for the caller to fail.
    pub(super) fn begin_shutdown(&self) -> Vec<Arc<dyn RunningTurn>> {
        let queued = {
            let mut state = lock(&self.state);
            state.shutting_down = true;
            std::mem::take(&mut state.queued)
        };
        self.draining.cancel();
        self.tracker.close();
        queued.into_values().collect()
    }

    /// Waits until every admitted turn settled; false when `grace` ran out first.
    pub(super) async fn settled_within(&self, grace: Duration) -> bool {
        tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_ok()
    }

    /// Cancels every turn, then waits until all have settled.
    pub(super) async fn stop_all(&self) {
        self.stop.cancel();
        self.tracker.wait().await;
    }

    /// True once shutdown began: no new turn is admitted.
    pub(super) fn is_shutting_down(&self) -> bool {
        lock(&self.state).shutting_down
    }
}

impl Ticket {
    /// True when the turn waits in the queue rather than holding a slot.
    pub(crate) fn is_queued(&self) -> bool {
        match self.place {
            Place::Slot(_) => false,
            Place::Queue(_) => true,
        }
    }

    /// Puts a queued turn where shutdown finds it; a turn registered after shutdown began is
    /// failed by [`Ticket::wait_for_slot`] instead.
    pub(super) fn register(mut self, task_id: &TaskId, turn: Arc<dyn RunningTurn>) -> Self {
        if let Place::Queue(place) = &mut self.place {
            let mut state = lock(&place.state);
            if !state.shutting_down {
                state.queued.insert(task_id.clone(), turn);
                place.task_id = Some(task_id.clone());
            }
        }
        self
    }

    /// Waits for the turn's slot. `None` when the turn must not run: canceled before it started,
    /// or failed because the server stops (then this fails its task, if shutdown did not).
    pub(super) async fn wait_for_slot(
        self,
        admission: &Admission,
        cancellation: &CancellationToken,
        turn: &dyn RunningTurn,
    ) -> Option<Slot> {
        let permit = match self.place {
            Place::Slot(permit) => permit,
            Place::Queue(place) => {
                let acquired = if admission.is_shutting_down() {
                    None
                } else {
                    tokio::select! {
                        biased;
                        () = cancellation.cancelled() => None,
                        permit = Arc::clone(&place.slots).acquire_owned() => permit.ok(),
                    }
                };
                if acquired.is_none() || !place.leave() {
                    // Canceled (the turn ended: failing is a no-op) or taken by shutdown.
                    drop(acquired);
                    turn.fail(SHUTTING_DOWN).await;
                    return None;
                }
                acquired
            }
        };
        if turn.is_ended() {
            return None;
        }
        if admission.stop.is_cancelled() {
            // Admitted just before shutdown, started after its grace ran out.
            drop(permit);
            turn.fail(SHUTTING_DOWN).await;
            return None;
        }
        Some(Slot {
            _permit: permit,
            _tracked: self.tracked,
        })
    }
}

impl QueuePlace {
    /// Leaves the queue for a slot; false when shutdown took the turn out of it first.
    fn leave(&self) -> bool {
        self.task_id
            .as_ref()
            .is_some_and(|task_id| lock(&self.state).queued.remove(task_id).is_some())
    }
}

impl Drop for QueuePlace {
    fn drop(&mut self) {
        let mut state = lock(&self.state);
        state.reserved = state.reserved.saturating_sub(1);
        crate::metrics::turns_queued(state.reserved);
        if let Some(task_id) = &self.task_id {
            state.queued.remove(task_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_waiting_requests_queue_and_nobody_jumps_the_queue() {
        let admission = Admission::new(1, 1);
        let running = admission.admit(false).unwrap();
        assert!(!running.is_queued());
        assert_eq!(
            admission.admit(false).unwrap_err().kind(),
            a2a_types::ErrorKind::ServerBusy
        );
        let queued = admission.admit(true).unwrap();
        assert!(queued.is_queued());
        assert_eq!(
            admission.admit(true).unwrap_err().kind(),
            a2a_types::ErrorKind::ServerBusy
        );
        drop(running);
        // The freed slot belongs to the queued request.
        assert!(admission.admit(false).is_err());
        drop(queued);
        assert!(!admission.admit(false).unwrap().is_queued());
    }

    #[test]
    fn no_limit_admits_everyone_without_queueing() {
        let admission = Admission::new(0, 0);
        let tickets: Vec<Ticket> = (0..100).map(|_| admission.admit(false).unwrap()).collect();
        assert!(tickets.iter().all(|ticket| !ticket.is_queued()));
    }
}
