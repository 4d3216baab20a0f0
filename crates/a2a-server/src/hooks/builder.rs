//! The builder methods that set each hook.

use std::sync::Arc;

use super::authorizer::Authorizer;
use super::clock::Clock;
use super::extension::ExtensionHandler;
use super::failure::FailureMessage;
use super::ids::IdSource;
use super::owner::OwnerHook;
use super::return_immediately::ReturnImmediatelyHook;
use super::stream::StreamHooks;
use super::subscriber::{EventSubscriber, Subscriber};

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
