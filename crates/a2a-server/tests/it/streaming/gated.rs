//! A scripted agent that waits where the test says, so a test can look at a turn midway.

use std::sync::Arc;

use a2a_server::{ExecutorError, RequestContext, TaskUpdater};
use a2a_types::Artifact;
use futures::future::BoxFuture;

use super::Gate;

/// One step of a [`gated`] agent's turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Waits until the test opens the gate one step.
    Pass,
    /// Adds this artifact.
    Artifact(Artifact),
}

/// An artifact step with the text `text`.
pub fn artifact(text: &str) -> Step {
    Step::Artifact(Artifact::from_text(text))
}

/// An executor whose every turn goes working, then through `steps`, then completes.
pub fn gated(
    gate: &Gate,
    steps: impl IntoIterator<Item = Step>,
) -> impl Fn(RequestContext, TaskUpdater) -> BoxFuture<'static, Result<(), ExecutorError>>
+ Send
+ Sync
+ 'static {
    let gate = gate.clone();
    let steps: Arc<[Step]> = steps.into_iter().collect();
    move |_context, updater| {
        let (gate, steps) = (gate.clone(), Arc::clone(&steps));
        Box::pin(async move {
            updater.working(()).await?;
            for step in steps.iter() {
                match step {
                    Step::Pass => gate.pass().await,
                    Step::Artifact(artifact) => updater.add_artifact(artifact.clone()).await?,
                }
            }
            updater.complete(()).await?;
            Ok(())
        })
    }
}
