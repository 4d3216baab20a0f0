//! [`TaskUpdater`]: how an executor changes its task during a turn.

use std::sync::Arc;

use a2a_types::{Artifact, ArtifactChunk, Message, Metadata, Part, Role, TaskId, TaskState};
use async_trait::async_trait;

/// A status message and metadata to attach to a status change; the metadata is merged into
/// the task's.
///
/// Built from text (`"Thinking…"`), a [`Message`], or `()` for nothing; the message's
/// `messageId`, role, `taskId` and `contextId` are filled in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    /// The agent message explaining the status; also appended to the task's history.
    pub message: Option<Message>,
    /// Merged into the task's metadata (keys replaced one by one).
    pub metadata: Option<Metadata>,
}

impl Update {
    /// Attaches metadata to merge into the task.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = Some(metadata);
        self
    }
}

impl From<()> for Update {
    fn from((): ()) -> Self {
        Self::default()
    }
}

impl From<&str> for Update {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

impl From<String> for Update {
    fn from(text: String) -> Self {
        let mut message = Message::new(Role::Agent, vec![Part::text(text)]);
        // Left empty: the server numbers it from its id source when it applies the update.
        message.message_id = a2a_types::MessageId::new(String::new());
        Self {
            message: Some(message),
            metadata: None,
        }
    }
}

impl From<Message> for Update {
    fn from(message: Message) -> Self {
        Self {
            message: Some(message),
            metadata: None,
        }
    }
}

/// Why an update was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// The turn already ended (a reply, a terminal or INPUT_REQUIRED status, or the executor
    /// returned); nothing more may change in it.
    #[error("the turn has ended; no further updates are accepted")]
    TurnEnded,
    /// The task was canceled, or finished elsewhere (by another instance); updates after that
    /// are rejected.
    #[error("the task was canceled or finished elsewhere")]
    TaskFinished,
    /// A status change that the lifecycle does not allow (e.g. back to SUBMITTED).
    #[error("cannot move the task from {from} to {to}")]
    InvalidTransition {
        /// The current state.
        from: TaskState,
        /// The requested state.
        to: TaskState,
    },
    /// A reply on a new interaction after the task was created, or an empty artifact.
    #[error("{0}")]
    Invalid(&'static str),
    /// The task store failed; the update may not have been saved.
    #[error("the task could not be saved")]
    Store,
}

/// A change an executor asks for.
#[derive(Debug)]
pub(crate) enum Change {
    /// A status change (with an optional message and metadata).
    Status { state: TaskState, update: Update },
    /// An artifact or a chunk of one.
    Artifact {
        artifact: a2a_types::Artifact,
        chunk: ArtifactChunk,
    },
    /// An intermediate agent message; the state stays (SUBMITTED becomes WORKING).
    Message { update: Update },
}

/// The running turn a [`TaskUpdater`] drives; the engine implements it. Executors see the
/// updater only, so the turn's machinery stays below this module.
#[async_trait]
pub(crate) trait TurnHandle: Send + Sync + std::fmt::Debug {
    /// Applies `changes` in order as one update: one save, or none of them.
    async fn apply(&self, changes: Vec<Change>) -> Result<(), UpdateError>;
    /// Answers the request with a message and ends the turn.
    async fn reply(&self, message: Message) -> Result<(), UpdateError>;
    /// Sends an artifact chunk to the task's current listeners without storing it.
    fn draft(&self, artifact: Artifact, chunk: ArtifactChunk) -> Result<(), UpdateError>;
    /// The task of the turn.
    fn task_id(&self) -> &TaskId;
}

/// Drives the task of one turn. Not `Clone`: the helpers that end the turn take it by value,
/// so a finished turn is not updated by mistake (a late update through another handle, such
/// as [`progress::current`](super::progress::current), fails with
/// [`UpdateError::TurnEnded`]).
#[derive(Debug)]
pub struct TaskUpdater {
    turn: Arc<dyn TurnHandle>,
}

impl TaskUpdater {
    pub(crate) fn new(turn: Arc<dyn TurnHandle>) -> Self {
        Self { turn }
    }

    /// The turn this updater drives, to install as the current task context.
    pub(crate) fn handle(&self) -> Arc<dyn TurnHandle> {
        Arc::clone(&self.turn)
    }

    /// Sends an artifact chunk to whoever streams the task now, without storing it: a
    /// *draft*, such as a model's answer as it is written, which the stored artifact
    /// replaces once it is known. A client that reads the task later, or subscribes later,
    /// never sees drafts; nor do the listeners of other server instances.
    ///
    /// # Errors
    /// [`UpdateError::TurnEnded`] after the turn ended; [`UpdateError::Invalid`] before the
    /// task exists (send a status update first) or for an artifact without parts.
    pub fn draft(&self, artifact: Artifact, chunk: ArtifactChunk) -> Result<(), UpdateError> {
        if artifact.parts.is_empty() {
            return Err(UpdateError::Invalid("an artifact needs at least one part"));
        }
        self.turn.draft(artifact, chunk)
    }

    /// Moves the task to WORKING (creating it on a new interaction).
    ///
    /// # Errors
    /// [`UpdateError`] when the turn ended or the task could not be saved.
    pub async fn working(&self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::Working, update).await
    }

    /// Moves the task to any state; a terminal state or INPUT_REQUIRED ends the turn (the
    /// progress API's "emit with an explicit state").
    ///
    /// # Errors
    /// [`UpdateError`] when the turn ended, the transition is not allowed, or the save failed.
    pub async fn status(
        &self,
        state: TaskState,
        update: impl Into<Update>,
    ) -> Result<(), UpdateError> {
        self.turn
            .apply(vec![Change::Status {
                state,
                update: update.into(),
            }])
            .await
    }

    /// Adds an artifact, or replaces the one with the same id.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn add_artifact(&self, artifact: Artifact) -> Result<(), UpdateError> {
        self.artifact(artifact, ArtifactChunk::Whole).await
    }

    /// Appends `artifact`'s parts to the artifact with the same id (a chunk of a streamed
    /// artifact); `last_chunk` marks the end.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn append_artifact(
        &self,
        artifact: Artifact,
        last_chunk: bool,
    ) -> Result<(), UpdateError> {
        let chunk = if last_chunk {
            ArtifactChunk::Last
        } else {
            ArtifactChunk::Next
        };
        self.artifact(artifact, chunk).await
    }

    /// Sends an artifact update; `chunk` says where it stands in its artifact.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn artifact(
        &self,
        artifact: Artifact,
        chunk: ArtifactChunk,
    ) -> Result<(), UpdateError> {
        if artifact.parts.is_empty() {
            return Err(UpdateError::Invalid("an artifact needs at least one part"));
        }
        self.turn
            .apply(vec![Change::Artifact { artifact, chunk }])
            .await
    }

    /// Sends an intermediate agent message: it becomes the status message (the state stays,
    /// SUBMITTED moves to WORKING) and joins the history.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn message(&self, message: impl Into<Update>) -> Result<(), UpdateError> {
        self.turn
            .apply(vec![Change::Message {
                update: message.into(),
            }])
            .await
    }

    /// Moves the task to AUTH_REQUIRED; the turn goes on (credentials arrive out of band).
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn require_auth(&self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::AuthRequired, update).await
    }

    /// Completes the task; ends the turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn complete(self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::Completed, update).await
    }

    /// Adds `artifacts` and completes the task in one update: one save, so the task is
    /// never seen with the artifacts but not completed, and a durable store writes once
    /// instead of once per artifact. Ends the turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`]; nothing is applied when any artifact has no part.
    pub async fn complete_with_artifacts(
        self,
        artifacts: impl IntoIterator<Item = Artifact>,
        update: impl Into<Update>,
    ) -> Result<(), UpdateError> {
        let mut changes = Vec::new();
        for artifact in artifacts {
            if artifact.parts.is_empty() {
                return Err(UpdateError::Invalid("an artifact needs at least one part"));
            }
            changes.push(Change::Artifact {
                artifact,
                chunk: ArtifactChunk::Whole,
            });
        }
        changes.push(Change::Status {
            state: TaskState::Completed,
            update: update.into(),
        });
        self.turn.apply(changes).await
    }

    /// Asks the client for input; ends the turn. The client's next message for the task
    /// starts the next turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn require_input(self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::InputRequired, update).await
    }

    /// Fails the task; ends the turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn fail(self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::Failed, update).await
    }

    /// Rejects the task; ends the turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn reject(self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::Rejected, update).await
    }

    /// Cancels the task from inside; ends the turn.
    ///
    /// # Errors
    /// As [`TaskUpdater::working`].
    pub async fn cancel(self, update: impl Into<Update>) -> Result<(), UpdateError> {
        self.status(TaskState::Canceled, update).await
    }

    /// Answers with a message and ends the turn. On a new interaction no task is created
    /// (a message-only response); on a follow-up the reply joins the task's history and the
    /// task's state stays.
    ///
    /// # Errors
    /// [`UpdateError::Invalid`] when a new interaction already created its task.
    pub async fn reply(self, message: impl Into<Update>) -> Result<(), UpdateError> {
        let update = message.into();
        let message = update
            .message
            .unwrap_or_else(|| Message::new(Role::Agent, Vec::new()));
        self.turn.reply(message).await
    }

    /// The task id of this turn.
    #[must_use]
    pub fn task_id(&self) -> &a2a_types::TaskId {
        self.turn.task_id()
    }
}
