//! Progress reporting from anywhere inside a turn, without passing the updater around
//! (modelled on Apache Camel's A2A progress API).
//!
//! While an executor runs, its [`TaskUpdater`] is installed as the current task context of
//! the tokio task. The functions here find it there:
//!
//! ```no_run
//! use a2a_server::executor::progress::{self, Scope};
//!
//! async fn fetch_report() -> Result<String, std::io::Error> {
//!     progress::emit("Downloading the report…").await?;
//!     let report = Scope::named("parse")
//!         .before("Parsing…")
//!         .after("Parsed")
//!         .on_error(|err: &std::io::Error| format!("Parsing failed: {err}"))
//!         .run(async { Ok::<_, std::io::Error>("report".to_owned()) })
//!         .await?;
//!     Ok(report)
//! }
//! ```
//!
//! Outside a turn every function does nothing and succeeds; [`Progress::strict`]
//! reports [`NoTaskContext`] instead. A progress event that cannot be
//! stored or published is logged at debug level and never changes the caller's outcome:
//! progress is best effort, the work is what matters.

use std::future::Future;
use std::sync::Arc;

use a2a_types::{Artifact, ArtifactChunk, Message, TaskState};

use super::updater::TurnHandle;
use super::{TaskUpdater, Update};

tokio::task_local! {
    static CURRENT: Arc<dyn TurnHandle>;
}

/// A progress call was made outside a turn while that is configured to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("progress was reported outside of an A2A task context")]
pub struct NoTaskContext;

impl From<NoTaskContext> for std::io::Error {
    fn from(error: NoTaskContext) -> Self {
        std::io::Error::other(error)
    }
}

/// Runs `future` with `updater`'s turn as the current task context.
pub(crate) async fn with_updater<F: Future>(updater: &TaskUpdater, future: F) -> F::Output {
    CURRENT.scope(updater.handle(), future).await
}

/// The updater of the current turn, if any.
#[must_use]
pub fn current() -> Option<TaskUpdater> {
    CURRENT
        .try_with(|turn| TaskUpdater::new(Arc::clone(turn)))
        .ok()
}

/// Progress reporting with a chosen behaviour outside a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    fail_if_no_task_context: bool,
}

impl Progress {
    /// Outside a turn, calls do nothing and succeed (the default).
    #[must_use]
    pub const fn lenient() -> Self {
        Self {
            fail_if_no_task_context: false,
        }
    }

    /// Outside a turn, calls fail with [`NoTaskContext`] (Apache Camel's `failIfNoTaskContext`).
    #[must_use]
    pub const fn strict() -> Self {
        Self {
            fail_if_no_task_context: true,
        }
    }

    async fn with_current<F, Fut>(self, action: F) -> Result<(), NoTaskContext>
    where
        F: FnOnce(TaskUpdater) -> Fut,
        Fut: Future<Output = Result<(), super::UpdateError>>,
    {
        let Some(updater) = current() else {
            return if self.fail_if_no_task_context {
                Err(NoTaskContext)
            } else {
                Ok(())
            };
        };
        if let Err(error) = action(updater).await {
            tracing::debug!(error = %error, "progress event not recorded");
        }
        Ok(())
    }

    /// Reports `text` as a WORKING status.
    ///
    /// # Errors
    /// [`NoTaskContext`] outside a turn, when strict.
    pub async fn emit(self, text: impl Into<String>) -> Result<(), NoTaskContext> {
        let text = text.into();
        self.with_current(|updater| async move { updater.working(text).await })
            .await
    }

    /// Reports `text` with an explicit state (e.g. INPUT_REQUIRED; short names such as
    /// `WORKING` parse with `TaskState::from_name`).
    ///
    /// # Errors
    /// [`NoTaskContext`] outside a turn, when strict.
    pub async fn emit_state(
        self,
        state: TaskState,
        text: impl Into<String>,
    ) -> Result<(), NoTaskContext> {
        let text = text.into();
        self.with_current(|updater| async move { updater.status(state, text).await })
            .await
    }

    /// Reports an artifact or a chunk of one.
    ///
    /// # Errors
    /// [`NoTaskContext`] outside a turn, when strict.
    pub async fn emit_artifact(
        self,
        artifact: Artifact,
        chunk: ArtifactChunk,
    ) -> Result<(), NoTaskContext> {
        self.with_current(|updater| async move { updater.artifact(artifact, chunk).await })
            .await
    }

    /// Reports an intermediate agent message.
    ///
    /// # Errors
    /// [`NoTaskContext`] outside a turn, when strict.
    pub async fn emit_message(self, message: Message) -> Result<(), NoTaskContext> {
        self.with_current(|updater| async move { updater.message(Update::from(message)).await })
            .await
    }
}

/// [`Progress::emit`] with the default (lenient) behaviour.
///
/// # Errors
/// Never; the signature matches the strict variant so call sites can switch.
pub async fn emit(text: impl Into<String>) -> Result<(), NoTaskContext> {
    Progress::lenient().emit(text).await
}

/// [`Progress::emit_state`] with the default (lenient) behaviour.
///
/// # Errors
/// Never.
pub async fn emit_state(state: TaskState, text: impl Into<String>) -> Result<(), NoTaskContext> {
    Progress::lenient().emit_state(state, text).await
}

/// [`Progress::emit_artifact`] with the default (lenient) behaviour.
///
/// # Errors
/// Never.
pub async fn emit_artifact(artifact: Artifact, chunk: ArtifactChunk) -> Result<(), NoTaskContext> {
    Progress::lenient().emit_artifact(artifact, chunk).await
}

/// [`Progress::emit_message`] with the default (lenient) behaviour.
///
/// # Errors
/// Never.
pub async fn emit_message(message: Message) -> Result<(), NoTaskContext> {
    Progress::lenient().emit_message(message).await
}

/// Turns a scope's error into the text reported for it.
type ErrorText<E> = Box<dyn Fn(&E) -> String + Send + Sync>;

/// A named group of steps with progress reported around it: before, after, and on error
/// (the error still propagates).
pub struct Scope<E> {
    progress: Progress,
    name: String,
    before: Option<String>,
    after: Option<String>,
    on_error: Option<ErrorText<E>>,
}

impl<E> std::fmt::Debug for Scope<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("name", &self.name)
            .field("before", &self.before)
            .field("after", &self.after)
            .field("on_error", &self.on_error.is_some())
            .finish()
    }
}

impl<E> Scope<E> {
    /// A scope with a stable name (it keys the trace span, so keep it constant).
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            progress: Progress::lenient(),
            name: name.into(),
            before: None,
            after: None,
            on_error: None,
        }
    }

    /// Reports through `progress` (e.g. [`Progress::strict`]).
    #[must_use]
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Text reported as WORKING before the steps run.
    #[must_use]
    pub fn before(mut self, text: impl Into<String>) -> Self {
        self.before = Some(text.into());
        self
    }

    /// Text reported as WORKING after the steps succeed.
    #[must_use]
    pub fn after(mut self, text: impl Into<String>) -> Self {
        self.after = Some(text.into());
        self
    }

    /// Text reported as WORKING when the steps fail; it sees the error, which then propagates.
    #[must_use]
    pub fn on_error(mut self, text: impl Fn(&E) -> String + Send + Sync + 'static) -> Self {
        self.on_error = Some(Box::new(text));
        self
    }

    /// Runs `steps` with the progress around them. The steps' own result is returned
    /// unchanged; progress failures are only logged.
    ///
    /// # Errors
    /// The steps' error, or [`NoTaskContext`] (converted into `E`) outside a turn when so
    /// configured.
    pub async fn run<T, F>(self, steps: F) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
        E: From<NoTaskContext>,
    {
        use tracing::Instrument as _;
        let span = tracing::debug_span!("a2a_progress_scope", scope = %self.name);
        async move { self.run_in_span(steps).await }
            .instrument(span)
            .await
    }

    async fn run_in_span<T, F>(self, steps: F) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
        E: From<NoTaskContext>,
    {
        if let Some(text) = &self.before {
            self.progress.emit(text.clone()).await?;
        }
        let result = steps.await;
        match &result {
            Ok(_) => {
                if let Some(text) = &self.after {
                    self.progress.emit(text.clone()).await?;
                }
            }
            Err(error) => {
                if let Some(text) = &self.on_error {
                    self.progress.emit(text(error)).await?;
                }
            }
        }
        result
    }
}
