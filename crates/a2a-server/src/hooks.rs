//! Hooks for framework users: policy and observation plugged into the one request path, so
//! every binding (JSON-RPC, HTTP+JSON, gRPC, v0.3) gets them. Each is set once on the
//! [`A2aServerBuilder`](crate::A2aServerBuilder):
//!
//! - [`OwnerHook`] ([`owner`](crate::A2aServerBuilder::owner)) decides who owns the tasks a
//!   call creates and sees;
//! - [`Authorizer`] ([`authorizer`](crate::A2aServerBuilder::authorizer)) allows or refuses
//!   reading, writing and creating each task;
//! - [`ReturnImmediatelyHook`] ([`return_immediately`](crate::A2aServerBuilder::return_immediately))
//!   decides per request whether a SendMessage that does not say answers at once or waits;
//! - [`EventSubscriber`] ([`event_subscriber`](crate::A2aServerBuilder::event_subscriber))
//!   sees every stored event of every task, for audit and metrics, without slowing a turn;
//! - [`StreamHooks`] ([`stream_hooks`](crate::A2aServerBuilder::stream_hooks)) is told when
//!   a stream opens, sends an event and ends; a task's streams can be counted and closed
//!   ([`RequestHandler::close_streams`](crate::RequestHandler::close_streams));
//! - [`FailureMessage`] ([`failure_message`](crate::A2aServerBuilder::failure_message))
//!   rewords what a failed task says;
//! - [`ExtensionHandler`] ([`extension_handler`](crate::A2aServerBuilder::extension_handler))
//!   runs before and after the executor for the card's extension it is matched with by URI;
//! - [`Clock`] and [`IdSource`] ([`clock`](crate::A2aServerBuilder::clock),
//!   [`id_source`](crate::A2aServerBuilder::id_source)) give the timestamps and generated ids
//!   the server writes, so a user's tests can be deterministic.
//!
//! ```
//! use a2a_server::hooks::{Authorizer, EventSubscriber, ObservedEvent};
//! use a2a_server::CallContext;
//! use a2a_types::{Message, Task};
//!
//! /// Only callers of the `staff` tenant may start tasks.
//! struct StaffOnly;
//!
//! #[async_trait::async_trait]
//! impl Authorizer for StaffOnly {
//!     async fn check_create(&self, call: &CallContext, _message: &Message) -> bool {
//!         call.tenant == "staff"
//!     }
//! }
//!
//! /// Counts events, for a dashboard.
//! struct Audit(std::sync::atomic::AtomicU64);
//!
//! #[async_trait::async_trait]
//! impl EventSubscriber for Audit {
//!     async fn on_event(&self, _event: ObservedEvent) {
//!         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
//!     }
//! }
//! # let _ = (StaffOnly, Audit(Default::default()));
//! ```

use std::sync::{Arc, Mutex, PoisonError};

use a2a_types::{A2aError, Message, SendMessageRequest, Task, TaskId};
use tokio::sync::mpsc;

use crate::events::TaskEvent;
use crate::handler::CallContext;
use crate::store::TaskScope;

/// Decides the owner of a call: the identity whose tasks it creates and may see.
///
/// It gets the call with [`CallContext::owner`] already set to the default (the
/// authenticated caller's identity, or `None` with authentication off) and returns the owner
/// to use. Return an identity you verified; `None` shares the tasks of the tenant with every
/// other `None` caller, the random task ids then being the only protection.
///
/// Any `Fn(&CallContext) -> Option<String>` is one.
pub trait OwnerHook: Send + Sync + 'static {
    /// The owner of `call`'s tasks.
    fn owner(&self, call: &CallContext) -> Option<String>;
}

impl<F> OwnerHook for F
where
    F: Fn(&CallContext) -> Option<String> + Send + Sync + 'static,
{
    fn owner(&self, call: &CallContext) -> Option<String> {
        self(call)
    }
}

/// Decides, request by request, whether a `SendMessage` that does not say so itself answers
/// at once (`true`: with the task as soon as it exists, the work going on) or waits until the
/// task is terminal or interrupted (`false`); `None` leaves it to the server's default
/// ([`ServerConfig::default_return_immediately`](crate::ServerConfig::default_return_immediately)).
///
/// The order is: the request's `returnImmediately: true`, then its v0.3 `blocking` flag,
/// then this hook, then the server's default. So a caller that asks for either answer gets
/// it; the hook settles the calls that leave it open (for example by tenant, caller or
/// message metadata). It is asked for SendMessage only: streams and push are unaffected.
///
/// Any `Fn(&CallContext, &SendMessageRequest) -> Option<bool>` is one.
pub trait ReturnImmediatelyHook: Send + Sync + 'static {
    /// Whether `request` answers at once; `None` for the server's default.
    fn return_immediately(&self, call: &CallContext, request: &SendMessageRequest) -> Option<bool>;
}

impl<F> ReturnImmediatelyHook for F
where
    F: Fn(&CallContext, &SendMessageRequest) -> Option<bool> + Send + Sync + 'static,
{
    fn return_immediately(&self, call: &CallContext, request: &SendMessageRequest) -> Option<bool> {
        self(call, request)
    }
}

/// Allows or refuses each access to a task; every method allows by default.
///
/// - `check_read`: GetTask, SubscribeToTask, Get/List push configs, and each task of a
///   ListTasks page (a refused one is left out of the page);
/// - `check_write`: CancelTask, Create/Delete push config, a message to an existing task;
/// - `check_create`: a message that starts a new task.
///
/// The task passed is the stored one, already in the caller's scope (tenant and owner): a
/// task of another scope is not found before the authorizer is asked. A refused read or
/// write is answered as a task the caller cannot see (TaskNotFound, or Authorization under
/// the `forbidden` cross-owner answer); a refused create is answered Authorization. To fail
/// closed, return `false` when your own check fails (a policy store that does not answer).
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync + 'static {
    /// May `call` read `task`?
    async fn check_read(&self, call: &CallContext, task: &Task) -> bool {
        let _ = (call, task);
        true
    }

    /// May `call` change `task` (cancel it, send it a message, manage its push configs)?
    async fn check_write(&self, call: &CallContext, task: &Task) -> bool {
        let _ = (call, task);
        true
    }

    /// May `call` start a new task with `message`?
    async fn check_create(&self, call: &CallContext, message: &Message) -> bool {
        let _ = (call, message);
        true
    }
}

/// Told about each stream of SendStreamingMessage and SubscribeToTask; every method does
/// nothing by default.
///
/// The methods run on the stream's own path (between two events), so they must be quick:
/// hand slow work to a task of your own. A SendStreamingMessage stream is subscribed to its
/// task once its first event names it. With these, [`RequestHandler::close_streams`]
/// ends a task's streams without stopping it, and [`RequestHandler::stream_count`] says how
/// many are open.
///
/// [`RequestHandler::close_streams`]: crate::RequestHandler::close_streams
/// [`RequestHandler::stream_count`]: crate::RequestHandler::stream_count
pub trait StreamHooks: Send + Sync + 'static {
    /// A stream of `task_id` opened for `call`.
    fn on_subscribe(&self, task_id: &TaskId, call: &CallContext) {
        let _ = (task_id, call);
    }

    /// A stream of `task_id` ended: its last event was sent, it was closed, or its client
    /// went away.
    fn on_unsubscribe(&self, task_id: &TaskId) {
        let _ = task_id;
    }

    /// `event` is about to be sent on a stream of `task_id`.
    fn on_event(&self, task_id: &TaskId, event: &crate::handler::StreamEvent) {
        let _ = (task_id, event);
    }
}

/// Why a task failed, as a [`FailureMessage`] hook sees it.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskFailure<'a> {
    /// The executor returned this error: a failure, an internal error (its cause is never
    /// shown by default), a refused update, or a refusal that came after the task changed.
    Executor(&'a crate::ExecutorError),
    /// The executor returned without doing anything with a task that waited in the queue.
    NothingDone,
    /// The executor panicked.
    Panicked,
    /// The executor ran past the server's time limit for a turn.
    TimedOut,
    /// The executor did not stop after its task was canceled, and was dropped.
    IgnoredCancellation,
}

/// Rewords the status message of a task the executor's outcome failed.
///
/// It gets the task, why it failed and the text the server would show (which never carries
/// an internal error's message), and returns the text to show instead. What it returns
/// reaches the client: keep secrets and internal details out. Failures the server makes
/// itself (shutdown) keep their own text.
///
/// Any `Fn(&TaskId, TaskFailure<'_>, &str) -> String` is one.
pub trait FailureMessage: Send + Sync + 'static {
    /// The status message of the failed task `task_id`.
    fn failure_message(&self, task_id: &TaskId, failure: TaskFailure<'_>, default: &str) -> String;
}

impl<F> FailureMessage for F
where
    F: Fn(&TaskId, TaskFailure<'_>, &str) -> String + Send + Sync + 'static,
{
    fn failure_message(&self, task_id: &TaskId, failure: TaskFailure<'_>, default: &str) -> String {
        self(task_id, failure, default)
    }
}

/// The failure text of `outcome`: `default`, unless the hook rewords it.
pub(crate) fn reword_failure(
    engine: &crate::turn::Engine,
    task_id: &TaskId,
    outcome: &crate::turn::Outcome,
    default: String,
) -> String {
    use crate::turn::Outcome;
    let Some(hook) = &engine.failure_message else {
        return default;
    };
    let failure = match outcome {
        Outcome::Returned(Ok(())) => TaskFailure::NothingDone,
        Outcome::Returned(Err(error)) => TaskFailure::Executor(error),
        Outcome::Panicked => TaskFailure::Panicked,
        Outcome::TimedOut => TaskFailure::TimedOut,
        Outcome::Abandoned => TaskFailure::IgnoredCancellation,
    };
    hook.failure_message(task_id, failure, &default)
}

/// Runs before and after the executor in each turn whose call activated its extension: the
/// card's extension with the handler's [`uri`](ExtensionHandler::uri). Each hook gets the
/// card's full declaration of the extension, `params` included.
///
/// The card must declare the extension (else the server does not build:
/// [`ConfigError::UndeclaredExtension`](crate::ConfigError::UndeclaredExtension)). Handlers
/// run in the order they were added before the executor, and in the reverse order after
/// it. An error from `before` ends the turn as if the executor had returned it (a refusal
/// refuses the request); the executor then does not run.
#[async_trait::async_trait]
pub trait ExtensionHandler: Send + Sync + 'static {
    /// The URI of the extension this handles.
    fn uri(&self) -> &str;

    /// Before the executor: may read or change its context, or update the task.
    async fn before(
        &self,
        extension: &a2a_types::card::AgentExtension,
        context: &mut crate::RequestContext,
        updater: &crate::TaskUpdater,
    ) -> Result<(), crate::ExecutorError> {
        let _ = (extension, context, updater);
        Ok(())
    }

    /// After the executor returned `outcome`: returns the outcome of the turn (by default
    /// `outcome` itself).
    async fn after(
        &self,
        extension: &a2a_types::card::AgentExtension,
        context: &crate::RequestContext,
        outcome: Result<(), crate::ExecutorError>,
    ) -> Result<(), crate::ExecutorError> {
        let _ = (extension, context);
        outcome
    }
}

/// The executor with its extension handlers around it.
struct WithExtensions {
    executor: Arc<dyn crate::AgentExecutor>,
    handlers: Vec<(a2a_types::card::AgentExtension, Arc<dyn ExtensionHandler>)>,
}

/// `executor`, wrapped in `handlers` when there are any.
///
/// # Errors
/// [`ConfigError::UndeclaredExtension`](crate::ConfigError::UndeclaredExtension) for a
/// handler of an extension the card does not declare.
pub(crate) fn with_extensions(
    executor: Arc<dyn crate::AgentExecutor>,
    card: &a2a_types::AgentCard,
    handlers: Vec<Arc<dyn ExtensionHandler>>,
) -> Result<Arc<dyn crate::AgentExecutor>, crate::ConfigError> {
    if handlers.is_empty() {
        return Ok(executor);
    }
    let mut matched = Vec::with_capacity(handlers.len());
    for handler in handlers {
        let declared = card
            .capabilities
            .extensions
            .iter()
            .find(|extension| extension.uri == handler.uri())
            .ok_or_else(|| crate::ConfigError::UndeclaredExtension {
                uri: handler.uri().to_owned(),
            })?;
        matched.push((declared.clone(), handler));
    }
    Ok(Arc::new(WithExtensions {
        executor,
        handlers: matched,
    }))
}

#[async_trait::async_trait]
impl crate::AgentExecutor for WithExtensions {
    async fn execute(
        &self,
        mut context: crate::RequestContext,
        updater: crate::TaskUpdater,
    ) -> Result<(), crate::ExecutorError> {
        let active: Vec<_> = self
            .handlers
            .iter()
            .filter(|(extension, _)| context.extensions.contains(&extension.uri))
            .collect();
        if active.is_empty() {
            return self.executor.execute(context, updater).await;
        }
        let mut outcome = Ok(());
        let mut ran = 0;
        for (extension, handler) in &active {
            outcome = handler.before(extension, &mut context, &updater).await;
            if outcome.is_err() {
                break;
            }
            ran += 1;
        }
        let seen = context.clone();
        if outcome.is_ok() {
            outcome = self.executor.execute(context, updater).await;
        }
        for (extension, handler) in active[..ran].iter().rev() {
            outcome = handler.after(extension, &seen, outcome).await;
        }
        outcome
    }

    async fn cancel(
        &self,
        request: crate::executor::CancelRequest<'_>,
    ) -> Result<(), crate::ExecutorError> {
        self.executor.cancel(request).await
    }

    async fn recover(&self, task: &Task) -> crate::executor::Recovery {
        self.executor.recover(task).await
    }
}

/// Where the server's timestamps come from: the status timestamps of tasks it writes.
///
/// Any `Fn() -> Timestamp` is one; the default is the system clock.
pub trait Clock: Send + Sync + 'static {
    /// Now.
    fn now(&self) -> a2a_types::Timestamp;
}

impl<F> Clock for F
where
    F: Fn() -> a2a_types::Timestamp + Send + Sync + 'static,
{
    fn now(&self) -> a2a_types::Timestamp {
        self()
    }
}

/// Where the ids the server generates come from: a new task's id, a new conversation's
/// context id, and the message id of an agent message that has none. Ids the executor sets
/// itself (an artifact's, a message's) are its own. Each method makes a fresh random UUID by
/// default; ids must stay unique.
pub trait IdSource: Send + Sync + 'static {
    /// The id of a new task.
    fn task_id(&self) -> TaskId {
        TaskId::generate()
    }

    /// The id of a new conversation (a message that names no context).
    fn context_id(&self) -> a2a_types::ContextId {
        a2a_types::ContextId::generate()
    }

    /// The id of an agent message that has none.
    fn message_id(&self) -> a2a_types::MessageId {
        a2a_types::MessageId::generate()
    }
}

/// The system clock and random UUIDs.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemDeps;

impl Clock for SystemDeps {
    fn now(&self) -> a2a_types::Timestamp {
        a2a_types::Timestamp::now()
    }
}

impl IdSource for SystemDeps {}

/// The clock and id source of a server.
#[derive(Clone)]
pub(crate) struct Deps {
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdSource>,
}

impl Default for Deps {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemDeps),
            ids: Arc::new(SystemDeps),
        }
    }
}

impl std::fmt::Debug for Deps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deps").finish_non_exhaustive()
    }
}

/// What an access to a task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

impl Access {
    pub(crate) async fn allowed(
        self,
        authorizer: &dyn Authorizer,
        call: &CallContext,
        task: &Task,
    ) -> bool {
        match self {
            Self::Read => authorizer.check_read(call, task).await,
            Self::Write => authorizer.check_write(call, task).await,
        }
    }
}

/// The error for a create the authorizer refused.
pub(crate) fn create_refused() -> A2aError {
    A2aError::authorization_failed()
}

/// One stored event of a task, as an [`EventSubscriber`] sees it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ObservedEvent {
    /// The tenant of the task (empty when none).
    pub tenant: String,
    /// The owner of the task, when it has one.
    pub owner: Option<String>,
    /// The task.
    pub task_id: TaskId,
    /// The event, with its sequence number in the task's log.
    pub event: TaskEvent,
}

/// Sees every event of every task after it is stored: for audit logs and metrics.
///
/// The subscriber runs on a task of its own, fed by a bounded queue of
/// [`SUBSCRIBER_QUEUE_CAPACITY`] events: a turn never waits for it. When the subscriber
/// falls that far behind, newer events are dropped for it (a warning is logged and the
/// `a2a_subscriber_events_dropped_total` counter grows) until it catches up. It sees the
/// events stored by this process; drafts (never stored) are not shown.
#[async_trait::async_trait]
pub trait EventSubscriber: Send + Sync + 'static {
    /// Called once per stored event, in the order they were stored.
    async fn on_event(&self, event: ObservedEvent);
}

/// How many events an [`EventSubscriber`] may fall behind before new ones are dropped.
pub const SUBSCRIBER_QUEUE_CAPACITY: usize = 1024;

/// A subscriber and its queue's receiving end, before its task is spawned.
type NotStarted = (Arc<dyn EventSubscriber>, mpsc::Receiver<ObservedEvent>);

/// One registered subscriber: its queue, and until the first event the subscriber itself,
/// started on the runtime the first event is stored on.
pub(crate) struct Subscriber {
    sender: mpsc::Sender<ObservedEvent>,
    pending: Mutex<Option<NotStarted>>,
}

impl std::fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriber").finish_non_exhaustive()
    }
}

impl Subscriber {
    pub(crate) fn new(subscriber: Arc<dyn EventSubscriber>) -> Self {
        let (sender, receiver) = mpsc::channel(SUBSCRIBER_QUEUE_CAPACITY);
        Self {
            sender,
            pending: Mutex::new(Some((subscriber, receiver))),
        }
    }

    /// Queues `event` without waiting; drops it when the subscriber is too far behind.
    fn offer(&self, event: ObservedEvent) {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((subscriber, mut receiver)) = pending {
            tokio::spawn(async move {
                while let Some(event) = receiver.recv().await {
                    subscriber.on_event(event).await;
                }
            });
        }
        if self.sender.try_send(event).is_err() {
            metrics::counter!("a2a_subscriber_events_dropped_total").increment(1);
            tracing::warn!("an event subscriber is behind: an event was dropped for it");
        }
    }
}

/// Hands stored events to every subscriber.
pub(crate) fn observe(
    subscribers: &[Subscriber],
    scope: &TaskScope,
    task_id: &TaskId,
    events: &[TaskEvent],
) {
    for subscriber in subscribers {
        for event in events {
            subscriber.offer(ObservedEvent {
                tenant: scope.tenant.clone(),
                owner: scope.owner.clone(),
                task_id: task_id.clone(),
                event: event.clone(),
            });
        }
    }
}

/// The hooks a builder was given.
#[derive(Default)]
pub(crate) struct Hooks {
    pub(crate) owner: Option<Arc<dyn OwnerHook>>,
    pub(crate) authorizer: Option<Arc<dyn Authorizer>>,
    pub(crate) return_immediately: Option<Arc<dyn ReturnImmediatelyHook>>,
    pub(crate) subscribers: Vec<Subscriber>,
    pub(crate) streams: Option<Arc<dyn StreamHooks>>,
    pub(crate) failure_message: Option<Arc<dyn FailureMessage>>,
    pub(crate) extensions: Vec<Arc<dyn ExtensionHandler>>,
    pub(crate) deps: Deps,
}

impl crate::A2aServerBuilder {
    /// Decides the owner of each call's tasks with `hook` (default: the authenticated
    /// caller's identity; everyone shares a tenant's tasks with authentication off). See
    /// [`OwnerHook`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// // Tasks belong to the tenant as a whole, not to each caller.
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .owner(|call: &a2a_server::CallContext| Some(format!("team:{}", call.tenant)))
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn owner(mut self, hook: impl OwnerHook) -> Self {
        self.hooks.owner = Some(Arc::new(hook));
        self
    }

    /// Decides per request whether a SendMessage that leaves it open answers at once
    /// (default: [`ServerConfig::default_return_immediately`](crate::ServerConfig::default_return_immediately)
    /// for every request). See [`ReturnImmediatelyHook`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, SendMessageRequest};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// // Batch callers (their own tenant) get the task at once; everyone else waits for it.
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .return_immediately(|call: &a2a_server::CallContext, _: &SendMessageRequest| {
    ///         (call.tenant == "batch").then_some(true)
    ///     })
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn return_immediately(mut self, hook: impl ReturnImmediatelyHook) -> Self {
        self.hooks.return_immediately = Some(Arc::new(hook));
        self
    }

    /// Asks `authorizer` before each read, write and creation of a task (default: all
    /// allowed). See [`Authorizer`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, CallContext, executor::*, hooks::Authorizer};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, Task};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// /// Finished tasks are read-only.
    /// struct ReadOnlyWhenDone;
    ///
    /// #[async_trait::async_trait]
    /// impl Authorizer for ReadOnlyWhenDone {
    ///     async fn check_write(&self, _call: &CallContext, task: &Task) -> bool {
    ///         !task.status.state.is_terminal()
    ///     }
    /// }
    ///
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .authorizer(ReadOnlyWhenDone)
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn authorizer(mut self, authorizer: impl Authorizer) -> Self {
        self.hooks.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// Shows every stored event of every task to `subscriber`, on a task of its own that
    /// never holds up a turn. Call it again to add more. See [`EventSubscriber`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*};
    /// # use a2a_server::hooks::{EventSubscriber, ObservedEvent};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// struct AuditLog;
    ///
    /// #[async_trait::async_trait]
    /// impl EventSubscriber for AuditLog {
    ///     async fn on_event(&self, event: ObservedEvent) {
    ///         tracing::info!(task_id = %event.task_id, sequence = event.event.sequence, "task event");
    ///     }
    /// }
    ///
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .event_subscriber(AuditLog)
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn event_subscriber(mut self, subscriber: impl EventSubscriber) -> Self {
        self.hooks
            .subscribers
            .push(Subscriber::new(Arc::new(subscriber)));
        self
    }
}

impl crate::A2aServerBuilder {
    /// Tells `hooks` about each stream: opened, each event, ended. See [`StreamHooks`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, CallContext, executor::*, hooks::StreamHooks};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, TaskId};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// /// Logs who watches which task.
    /// struct Watchers;
    ///
    /// impl StreamHooks for Watchers {
    ///     fn on_subscribe(&self, task_id: &TaskId, call: &CallContext) {
    ///         tracing::info!(%task_id, owner = ?call.owner, "stream opened");
    ///     }
    ///     fn on_unsubscribe(&self, task_id: &TaskId) {
    ///         tracing::info!(%task_id, "stream ended");
    ///     }
    /// }
    ///
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .stream_hooks(Watchers)
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn stream_hooks(mut self, hooks: impl StreamHooks) -> Self {
        self.hooks.streams = Some(Arc::new(hooks));
        self
    }
}

impl crate::A2aServerBuilder {
    /// Rewords the status message of tasks the executor failed with `hook` (default: the
    /// server's own text, which names no internal error). See [`FailureMessage`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*};
    /// # use a2a_server::hooks::TaskFailure;
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, TaskId};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .failure_message(|_task: &TaskId, failure: TaskFailure<'_>, default: &str| match failure {
    ///         TaskFailure::TimedOut => "That took too long; please try again.".to_owned(),
    ///         _ => format!("Sorry: {default}"),
    ///     })
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn failure_message(mut self, hook: impl FailureMessage) -> Self {
        self.hooks.failure_message = Some(Arc::new(hook));
        self
    }
}

impl crate::A2aServerBuilder {
    /// Runs `handler` before and after the executor in each turn that activated its
    /// extension (the card must declare it). Call it again to add more. See
    /// [`ExtensionHandler`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*, hooks::ExtensionHandler};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
    /// # use a2a_types::card::AgentExtension;
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// /// Tells the executor which language the client asked for.
    /// struct Language;
    ///
    /// #[async_trait::async_trait]
    /// impl ExtensionHandler for Language {
    ///     fn uri(&self) -> &str {
    ///         "https://example.com/ext/language/v1"
    ///     }
    ///
    ///     async fn before(
    ///         &self,
    ///         _extension: &AgentExtension,
    ///         context: &mut RequestContext,
    ///         _updater: &TaskUpdater,
    ///     ) -> Result<(), ExecutorError> {
    ///         context.metadata.get_or_insert_default().insert("language".into(), "fr".into());
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let mut card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    ///     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// card.capabilities.extensions.push(AgentExtension {
    ///     uri: "https://example.com/ext/language/v1".into(),
    ///     ..AgentExtension::default()
    /// });
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .extension_handler(Language)
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn extension_handler(mut self, handler: impl ExtensionHandler) -> Self {
        self.hooks.extensions.push(Arc::new(handler));
        self
    }
}

impl crate::A2aServerBuilder {
    /// Takes the timestamps the server writes from `clock` (default: the system clock).
    /// See [`Clock`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, Timestamp};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// // Every status of every task says noon, 1 January 2030.
    /// let noon = Timestamp::parse("2030-01-01T12:00:00Z")?;
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .clock(move || noon)
    ///     .build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.hooks.deps.clock = Arc::new(clock);
        self
    }

    /// Takes the ids the server generates from `ids` (default: random UUIDs). See
    /// [`IdSource`].
    ///
    /// ```
    /// # use a2a_server::{A2aServer, executor::*, hooks::IdSource};
    /// # use a2a_types::{AgentCard, AgentInterface, ProtocolBinding, TaskId};
    /// # struct Echo;
    /// # #[async_trait::async_trait]
    /// # impl AgentExecutor for Echo {
    /// #     async fn execute(&self, _: RequestContext, u: TaskUpdater) -> Result<(), ExecutorError> { u.complete(()).await?; Ok(()) }
    /// # }
    /// # let card = AgentCard::new("Echo", "Echoes.", "1.0.0")
    /// #     .with_interface(AgentInterface::new("http://localhost:8080/a2a", ProtocolBinding::JsonRpc));
    /// /// task-1, task-2, … (other ids stay random).
    /// #[derive(Default)]
    /// struct Counting(std::sync::atomic::AtomicU64);
    ///
    /// impl IdSource for Counting {
    ///     fn task_id(&self) -> TaskId {
    ///         let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    ///         TaskId::new(format!("task-{n}"))
    ///     }
    /// }
    ///
    /// let server = A2aServer::builder(card, Echo)
    ///     .authentication(a2a_server::auth::Authentication::disabled())
    ///     .id_source(Counting::default())
    ///     .build()?;
    /// # Ok::<(), a2a_server::ConfigError>(())
    /// ```
    pub fn id_source(mut self, ids: impl IdSource) -> Self {
        self.hooks.deps.ids = Arc::new(ids);
        self
    }
}
