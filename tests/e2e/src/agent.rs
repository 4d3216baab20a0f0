//! The gated test agent every instance of a test serves.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::Artifact;
use tokio::sync::Semaphore;

/// An agent shared by every instance of a test:
/// - `slow`: WORKING, an artifact `part 1`, then waits for the gate (or its cancellation),
///   then `part 2` and COMPLETED;
/// - `ask`: asks for input; its follow-up completes with an artifact echoing the answer;
/// - anything else: an artifact echoing the text, COMPLETED.
#[derive(Debug, Clone)]
pub struct GatedAgent {
    /// Opened by the test, one permit per `slow` turn to let through.
    pub gate: Arc<Semaphore>,
    /// How many turns saw their cancellation fire.
    pub canceled: Arc<AtomicUsize>,
    /// How many `slow` turns started.
    pub started: Arc<AtomicUsize>,
}

impl Default for GatedAgent {
    fn default() -> Self {
        Self {
            gate: Arc::new(Semaphore::new(0)),
            canceled: Arc::default(),
            started: Arc::default(),
        }
    }
}

impl GatedAgent {
    /// Lets one waiting `slow` turn go on.
    pub fn open(&self) {
        self.gate.add_permits(1);
    }

    /// How many turns saw their cancellation.
    pub fn canceled(&self) -> usize {
        self.canceled.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl AgentExecutor for GatedAgent {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        if context.is_follow_up() {
            updater
                .add_artifact(Artifact::from_text(format!("answer: {text}")))
                .await?;
            updater.complete(()).await?;
            return Ok(());
        }
        match text.as_str() {
            "slow" => {
                self.started.fetch_add(1, Ordering::SeqCst);
                updater.working("on it").await?;
                updater.add_artifact(Artifact::from_text("part 1")).await?;
                tokio::select! {
                    permit = self.gate.acquire() => permit.map_err(ExecutorError::internal)?.forget(),
                    () = context.cancellation.cancelled() => {
                        self.canceled.fetch_add(1, Ordering::SeqCst);
                        return Ok(());
                    }
                }
                updater.add_artifact(Artifact::from_text("part 2")).await?;
                updater.complete(()).await?;
            }
            "ask" => updater.require_input("which colour?").await?,
            _ => {
                updater.add_artifact(Artifact::from_text(text)).await?;
                updater.complete(()).await?;
            }
        }
        Ok(())
    }
}
