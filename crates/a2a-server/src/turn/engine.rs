//! [`Engine`]: what every turn of one server shares — the store, the cluster, the per-task
//! locks, the event bus, admission and push delivery — and how a turn is started, recorded
//! and published. Operations reach all of it only through the engine's methods.

use std::sync::{Arc, Mutex, PoisonError};

use a2a_types::{
    A2aError, ContextId, Message, Metadata, SendMessageConfiguration, StreamResponse, Task, TaskId,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, Ticket};
use super::locks::TaskLocks;
use super::running::{RunningTurn, RunningTurns};
use super::view::TurnView;
use crate::auth::CallerProfile;
use crate::cluster::{Cluster, ClusterSignal};
use crate::config::ServerConfig;
use crate::events::{EventBus, TaskEvent};
use crate::executor::AgentExecutor;
pub(crate) use crate::store::store_failure;
use crate::store::{Expected, Saved, StoreError, StoredTask, TaskScope, TaskStore};

/// What every turn of one server shares.
pub(crate) struct Engine {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) cluster: Arc<dyn Cluster>,
    /// Signals for the other instances, sent by a background task (see `cluster.rs`).
    pub(super) outbox: Mutex<Option<tokio::sync::mpsc::Sender<ClusterSignal>>>,
    /// Stops the background tasks when the engine goes.
    pub(super) background: CancellationToken,
    /// Set once the background tasks started.
    pub(super) background_started: std::sync::atomic::AtomicBool,
    pub(super) locks: TaskLocks,
    pub(super) events: EventBus,
    pub(super) config: ServerConfig,
    pub(super) admission: Admission,
    pub(super) running: RunningTurns,
    /// Push delivery, when the card declares push notifications.
    pub(super) push: Option<Arc<crate::push::delivery::Dispatcher>>,
    /// The agent every turn runs.
    pub(super) executor: Arc<dyn AgentExecutor>,
    /// The global event subscribers (see [`crate::hooks::EventSubscriber`]).
    pub(crate) subscribers: Vec<crate::hooks::Subscriber>,
    /// Rewords what a failed task says (see [`crate::hooks::FailureMessage`]).
    pub(crate) failure_message: Option<Arc<dyn crate::hooks::FailureMessage>>,
    /// Where timestamps and generated ids come from (see [`crate::hooks::Clock`]).
    pub(crate) deps: crate::hooks::Deps,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The run of a turn, boxed: polled in place first or spawned.
pub(super) type TurnRun = std::pin::Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A turn just started: its view, and (when asked for) its events from the first one on.
#[derive(Debug)]
pub(crate) struct StartedTurn {
    pub(crate) view: watch::Receiver<TurnView>,
    pub(crate) events: Option<crate::events::EventReceiver>,
    /// The stored task the turn started from (a follow-up's, or a queued task's), as it was
    /// before the turn ran; `None` for a new interaction.
    pub(crate) stored: Option<Arc<Task>>,
    /// True when this send repeated an earlier one (same key, same message): no turn ran,
    /// and the view holds the task the first made or continued.
    pub(crate) repeated: bool,
}

/// How a turn starts: a new interaction or a follow-up of a stored task.
#[derive(Debug)]
pub(crate) struct TurnStart {
    pub(crate) task_id: TaskId,
    pub(crate) context_id: ContextId,
    pub(crate) scope: TaskScope,
    pub(crate) message: Message,
    /// The stored task, with `message` already in its history: a follow-up's, or the
    /// SUBMITTED task of a queued new interaction.
    pub(crate) task: Option<Task>,
    pub(crate) events: Events,
    /// What the request adds to the executor's context.
    pub(crate) extras: RequestExtras,
    /// The key the send claimed, released if the turn ends without a task.
    pub(crate) send_key: Option<String>,
}

/// Whether a turn's starter follows its events or only its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Events {
    /// Subscribe to the turn's events before it runs (streams).
    Follow,
    /// The view alone (a plain SendMessage: a broadcast channel per request was a fifth of
    /// its CPU time in the load benchmark).
    ViewOnly,
}

/// What the request adds to a turn's [`RequestContext`] beyond its task and message.
#[derive(Debug, Default)]
pub(crate) struct RequestExtras {
    pub(crate) caller: Option<Arc<CallerProfile>>,
    pub(crate) headers: crate::handler::RequestHeaders,
    pub(crate) extensions: Vec<String>,
    pub(crate) referenced_tasks: Vec<Task>,
    pub(crate) configuration: Option<SendMessageConfiguration>,
    pub(crate) metadata: Option<Metadata>,
}

impl Engine {
    /// Whether the engine takes new work and its store answers within
    /// [`READINESS_STORE_LIMIT`](crate::health::READINESS_STORE_LIMIT).
    pub(crate) async fn readiness(&self) -> crate::health::Readiness {
        let draining = self.admission.is_shutting_down();
        crate::health::check(draining, "task store", self.store.ping()).await
    }

    /// The server's switches and limits.
    pub(crate) fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Push delivery, when the card declares push notifications.
    pub(crate) fn push(&self) -> Option<&crate::push::delivery::Dispatcher> {
        self.push.as_deref()
    }

    /// True when other instances share the store (a cluster of more than one).
    pub(crate) fn is_shared(&self) -> bool {
        self.cluster.is_shared()
    }

    /// One page of the tasks in `scope` that match `query`.
    pub(crate) async fn list(
        &self,
        scope: &TaskScope,
        query: &crate::store::TaskQuery,
    ) -> Result<crate::store::TaskPage, A2aError> {
        self.store.list(scope, query).await.map_err(store_failure)
    }

    /// Up to `limit` logged events of the task after `after`; `None` when it does not exist
    /// in `scope`.
    pub(crate) async fn events_after(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<TaskEvent>>, A2aError> {
        self.store
            .events(scope, task_id, after, limit)
            .await
            .map_err(store_failure)
    }

    /// The store's shared secret `name` (see `TaskStore::shared_secret`).
    pub(crate) async fn shared_secret(&self, name: &str) -> Result<Option<Vec<u8>>, A2aError> {
        self.store.shared_secret(name).await.map_err(store_failure)
    }

    /// The error for a task `scope` cannot see: TaskNotFound (revealing nothing, spec §7.2),
    /// or, when the cross-owner answer is `forbidden`, Authorization when the task exists in
    /// the same tenant under another owner. A store failure while looking is logged and
    /// answered TaskNotFound: the lookup only refines a refusal.
    pub(crate) async fn missing_task(&self, scope: &TaskScope, id: &TaskId) -> A2aError {
        if self.config.cross_owner == crate::config::CrossOwner::Forbidden && scope.owner.is_some()
        {
            match self.store.locate(id).await {
                Ok(Some(found)) if found.tenant == scope.tenant && found.owner != scope.owner => {
                    return A2aError::new(
                        a2a_types::ErrorKind::Authorization,
                        format!("task {id} belongs to another caller"),
                    );
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!(%error, "cannot locate a task for the cross-owner policy")
                }
            }
        }
        A2aError::task_not_found(id.as_str())
    }

    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        cluster: Arc<dyn Cluster>,
        config: ServerConfig,
        push: Option<Arc<crate::push::delivery::Dispatcher>>,
        executor: Arc<dyn AgentExecutor>,
    ) -> Self {
        Self {
            push,
            executor,
            store,
            cluster,
            outbox: Mutex::new(None),
            background: CancellationToken::new(),
            background_started: std::sync::atomic::AtomicBool::new(false),
            locks: TaskLocks::default(),
            events: EventBus::new(config.sse_queue_capacity),
            admission: Admission::new(config.max_concurrent_tasks, config.task_queue_size),
            config,
            running: RunningTurns::default(),
            subscribers: Vec::new(),
            failure_message: None,
            deps: crate::hooks::Deps::default(),
        }
    }

    /// The running turn of `task_id`, if one runs in this process.
    pub(super) fn running_turn(&self, task_id: &TaskId) -> Option<Arc<dyn RunningTurn>> {
        self.running.get(task_id)
    }

    /// Starts a turn admitted by `ticket`: registers it, subscribes to its events when asked,
    /// then runs the executor on its own tracked tokio task once the ticket gives it a slot.
    /// Subscribing first means a stream misses none of the turn's events.
    pub(super) fn start(self: &Arc<Self>, start: TurnStart, ticket: Ticket) -> StartedTurn {
        let (started, run) = self.prepare(start, ticket);
        self.admission.spawn(run);
        started
    }

    /// [`Engine::start`], except that the turn first runs right here, in the caller's task,
    /// until it waits for something; only then does it move to a tokio task of its own (see
    /// [`Engine::launch`]).
    ///
    /// The caller must hold no lock the executor's updates take (the task's lock).
    pub(super) async fn start_now(
        self: &Arc<Self>,
        start: TurnStart,
        ticket: Ticket,
    ) -> StartedTurn {
        let (started, run) = self.prepare(start, ticket);
        self.launch(run).await;
        started
    }

    /// Runs a prepared turn, polled once here first. An agent that answers at once (most
    /// turns of a simple agent) then costs no spawned task, no cross-task wake-up and no
    /// second scheduling, and one that waits is spawned with everything it did so far.
    /// Nothing can stop it half-way: the first poll and the spawn happen in one poll of the
    /// caller, which cannot be dropped in between.
    ///
    /// A turn whose starter follows its events yields after its first update (see
    /// `Turn::apply`), so that first poll ends there: the stream finds its first event
    /// ready instead of waiting for the turn's task to be scheduled first, and the reader
    /// drains the rest while the turn's own task makes it.
    pub(super) async fn launch(&self, run: TurnRun) {
        let mut run = Some(run);
        std::future::poll_fn(|context| {
            if let Some(mut pending) = run.take()
                && pending.as_mut().poll(context).is_pending()
            {
                // Polled again at once on its own task, which registers its own wakers.
                self.admission.spawn(pending);
            }
            std::task::Poll::Ready(())
        })
        .await;
    }

    /// Loads a task under the caller's scope, mapping store failures to an internal error.
    pub(crate) async fn load(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
    ) -> Result<Option<StoredTask>, A2aError> {
        self.store.load(scope, task_id).await.map_err(store_failure)
    }

    /// Saves a task with no events, mapping store failures to an internal error.
    pub(super) async fn save(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
    ) -> Result<(), A2aError> {
        self.store
            .save(scope, task, expected, &[])
            .await
            .map(drop)
            .map_err(store_failure)
    }

    /// Saves a task with the events its change made, then publishes them to this process's
    /// listeners and tells the other instances. The log comes first: an event is never sent
    /// to anyone before it is stored.
    pub(super) async fn record(
        &self,
        scope: &TaskScope,
        task: &Task,
        expected: Expected,
        responses: Vec<StreamResponse>,
    ) -> Result<Saved, StoreError> {
        // A change that only added artifact chunks may be stored as its events alone, so
        // that a long stream costs the same per chunk (see `TaskStore::append`).
        let only_chunks = !responses.is_empty()
            && responses
                .iter()
                .all(|response| matches!(response, StreamResponse::ArtifactUpdate(_)));
        let started = std::time::Instant::now();
        let store_span = |operation: &'static str| {
            tracing::info_span!(
                target: crate::trace::SPAN_TARGET,
                "a2a.store",
                operation,
                task_id = %task.id,
            )
        };
        let saved = match expected {
            Expected::Version(version) if only_chunks => {
                let append = self.store.append(scope, task, version, &responses);
                let saved = tracing::Instrument::instrument(append, store_span("append")).await?;
                crate::metrics::store_operation("append", started.elapsed());
                saved
            }
            Expected::Version(_) | Expected::Absent => {
                let save = self.store.save(scope, task, expected, &responses);
                let saved = tracing::Instrument::instrument(save, store_span("save")).await?;
                crate::metrics::store_operation("save", started.elapsed());
                saved
            }
        };
        let count = responses.len() as u64;
        crate::metrics::events_published(count);
        if count > 0 {
            let first = saved.last_sequence.saturating_sub(count) + 1;
            let events = responses
                .into_iter()
                .zip(first..)
                .map(|(response, sequence)| TaskEvent { sequence, response })
                .collect::<Vec<_>>();
            crate::hooks::observe(&self.subscribers, scope, &task.id, &events);
            self.events
                .publish(&task.id, events, task.status.state.is_terminal());
            self.signal(ClusterSignal::Events {
                task_id: task.id.clone(),
                last_sequence: saved.last_sequence,
            });
            if let Some(push) = &self.push {
                push.events_logged(scope, &task.id, saved.last_sequence)
                    .await;
            }
        }
        Ok(saved)
    }

    /// Queues `signal` for the other instances; nothing happens for a cluster of one.
    pub(super) fn signal(&self, signal: ClusterSignal) {
        if let Some(outbox) = self
            .outbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            // Signals are hints (the store stays the truth, and subscriptions read the log on
            // their own beat): a full queue drops one rather than slowing the turn.
            if let Err(error) = outbox.try_send(signal) {
                tracing::warn!(%error, "cluster signal dropped: the publisher is behind");
            }
        }
    }

    /// Sets where [`Engine::signal`] sends (the background publisher).
    pub(super) fn set_outbox(&self, outbox: tokio::sync::mpsc::Sender<ClusterSignal>) {
        *self.outbox.lock().unwrap_or_else(PoisonError::into_inner) = Some(outbox);
    }

    /// The task ids of the turns running (or queued) in this process.
    pub(super) fn running_task_ids(&self) -> Vec<TaskId> {
        self.running.task_ids()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.background.cancel();
    }
}
