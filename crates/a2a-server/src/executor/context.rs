//! [`RequestContext`]: everything a turn knows about the message it serves.

use a2a_types::{ContextId, Message, Metadata, SendMessageConfiguration, Task, TaskId};
use tokio_util::sync::CancellationToken;

/// The input of one turn: the executor is called once per incoming message.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestContext {
    /// The client's message, with `taskId` and `contextId` filled in.
    pub message: Message,
    /// The task as stored at the start of the turn (its history ends with `message`), or
    /// `None` for a new interaction, whose task does not exist until the first update.
    pub task: Option<Task>,
    /// The task this turn drives; generated up front for a new interaction.
    pub task_id: TaskId,
    /// The conversation.
    pub context_id: ContextId,
    /// The tenant of the request; empty when none.
    pub tenant: String,
    /// The identity owning the task, when authentication is on.
    pub owner: Option<String>,
    /// The authenticated caller's profile: scheme, subject, issuer, audience,
    /// scopes and claims. `None` when authentication is off, and for turns the server runs
    /// itself (a recovered turn).
    pub caller: Option<std::sync::Arc<crate::auth::CallerProfile>>,
    /// The request's headers without its credentials (see
    /// [`RequestHeaders`](crate::handler::RequestHeaders)): a session cookie, a trace tag,
    /// the caller id a gateway forwards. Empty for turns the server runs itself.
    pub headers: crate::handler::RequestHeaders,
    /// Fires when the task is canceled or the turn times out.
    pub cancellation: CancellationToken,
    /// Fires when the server begins to shut down. The turn still has the shutdown grace to
    /// finish (then `cancellation` fires and the task fails); an executor that can stop at a
    /// save point and resume on a later message (on any instance) should do so now.
    pub draining: CancellationToken,
    /// Extensions requested by the client and declared by the card (also echoed in the
    /// `A2A-Extensions` response header).
    pub extensions: Vec<String>,
    /// Tasks named in `message.referenceTaskIds` that the caller may read, loaded for
    /// the executor.
    pub referenced_tasks: Vec<Task>,
    /// The request's configuration.
    pub configuration: Option<SendMessageConfiguration>,
    /// The request's metadata.
    pub metadata: Option<Metadata>,
    /// True when the request is a streaming one (SendStreamingMessage): the client reads the
    /// task's events as they come, so an answer sent in chunks reaches it chunk by chunk.
    pub streaming: bool,
}

impl RequestContext {
    /// A context for `message` as a new interaction, for executor unit tests.
    #[must_use]
    pub fn for_test(message: Message) -> Self {
        Self {
            message,
            task: None,
            task_id: TaskId::generate(),
            context_id: ContextId::generate(),
            tenant: String::new(),
            owner: None,
            caller: None,
            headers: crate::handler::RequestHeaders::default(),
            cancellation: CancellationToken::new(),
            draining: CancellationToken::new(),
            extensions: Vec::new(),
            referenced_tasks: Vec::new(),
            configuration: None,
            metadata: None,
            streaming: false,
        }
    }

    /// True when this turn continues an existing task.
    #[must_use]
    pub fn is_follow_up(&self) -> bool {
        self.task.is_some()
    }

    /// The text of the client's message: its text parts, joined.
    #[must_use]
    pub fn text(&self) -> String {
        self.message.text()
    }
}
