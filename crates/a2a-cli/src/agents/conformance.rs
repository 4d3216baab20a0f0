//! `--agent conformance`: the system under test of the A2A conformance kit (TCK). The kit
//! picks a behaviour through the *prefix* of the messageId it sends, so every path of the
//! protocol can be driven black-box; the texts and parts match the kit's reference agent.

use std::time::Duration;

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::{Artifact, ArtifactChunk, ArtifactId, Message, Part};
use async_trait::async_trait;

/// The conformance agent.
#[derive(Debug)]
pub(crate) struct Conformance;

/// What the agent does with one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    /// COMPLETED with the status message "Hello from TCK".
    Complete,
    /// INPUT_REQUIRED; a follow-up with the taskId continues the task.
    InputRequired,
    /// A message reply, no task.
    MessageResponse,
    /// COMPLETED with one artifact.
    Artifact(Content),
    /// WORKING, then one artifact, then COMPLETED.
    Streamed(Content),
    /// WORKING, one artifact in two chunks, COMPLETED.
    Chunked,
    /// COMPLETED and nothing else.
    CompleteOnly,
    /// REJECTED.
    Reject,
    /// WORKING for a few seconds, then COMPLETED: time to subscribe or cancel.
    Slow,
    /// COMPLETED with the message text as the status message.
    Echo,
}

/// The content of an artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
    Text(&'static str),
    File,
    FileUrl,
    Data,
}

/// Prefix → behaviour. Longer prefixes come before the shorter ones they start with
/// (`tck-artifact-file-url` before `tck-artifact-file`); the first match wins.
const ROUTES: &[(&str, Behaviour)] = &[
    ("tck-stream-artifact-chunked", Behaviour::Chunked),
    (
        "tck-stream-artifact-text",
        Behaviour::Streamed(Content::Text("Streamed text content")),
    ),
    (
        "tck-stream-artifact-file",
        Behaviour::Streamed(Content::File),
    ),
    (
        "tck-stream-ordering-001",
        Behaviour::Streamed(Content::Text("Ordered output")),
    ),
    (
        "tck-stream-001",
        Behaviour::Streamed(Content::Text("Stream hello from TCK")),
    ),
    ("tck-stream-002", Behaviour::CompleteOnly),
    (
        "tck-stream-003",
        Behaviour::Streamed(Content::Text("Stream task lifecycle")),
    ),
    (
        "tck-artifact-file-url",
        Behaviour::Artifact(Content::FileUrl),
    ),
    ("tck-artifact-file", Behaviour::Artifact(Content::File)),
    (
        "tck-artifact-text",
        Behaviour::Artifact(Content::Text("Generated text content")),
    ),
    ("tck-artifact-data", Behaviour::Artifact(Content::Data)),
    ("tck-message-response", Behaviour::MessageResponse),
    ("tck-input-required", Behaviour::InputRequired),
    ("tck-complete-task", Behaviour::Complete),
    ("tck-reject-task", Behaviour::Reject),
    ("test-resubscribe-message-id", Behaviour::Slow),
];

/// How long [`Behaviour::Slow`] works: long enough for a test to act on a running task.
const SLOW_WORK: Duration = Duration::from_secs(4);

fn behaviour_of(message_id: &str) -> Behaviour {
    ROUTES
        .iter()
        .find(|(prefix, _)| message_id.starts_with(prefix))
        .map_or(Behaviour::Echo, |(_, behaviour)| *behaviour)
}

impl Content {
    fn part(self) -> Part {
        match self {
            Self::Text(text) => Part::text(text),
            Self::File => Part::raw(b"tck".to_vec())
                .with_media_type("text/plain")
                .with_filename("output.txt"),
            Self::FileUrl => Part::url("https://example.com/output.txt")
                .with_media_type("text/plain")
                .with_filename("output.txt"),
            Self::Data => Part::data(serde_json::json!({"key": "value", "count": 42})),
        }
    }

    fn artifact(self) -> Artifact {
        Artifact::new(vec![self.part()])
    }
}

#[async_trait]
impl AgentExecutor for Conformance {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        match behaviour_of(context.message.message_id.as_str()) {
            Behaviour::Complete => updater.complete("Hello from TCK").await?,
            Behaviour::InputRequired => {
                updater
                    .require_input("Input required: send a follow-up message for this task")
                    .await?;
            }
            Behaviour::MessageResponse => {
                updater
                    .reply(Message::agent_text("Direct message response"))
                    .await?;
            }
            Behaviour::Artifact(content) => {
                updater.add_artifact(content.artifact()).await?;
                updater.complete(()).await?;
            }
            Behaviour::Streamed(content) => {
                updater.working(()).await?;
                updater.add_artifact(content.artifact()).await?;
                updater.complete(()).await?;
            }
            Behaviour::Chunked => {
                let id = ArtifactId::generate();
                let chunk = |text: &str| Artifact::from_text(text).with_id(id.clone());
                updater.working(()).await?;
                updater
                    .artifact(chunk("chunk-1 "), ArtifactChunk::First)
                    .await?;
                updater.append_artifact(chunk("chunk-2"), true).await?;
                updater.complete(()).await?;
            }
            Behaviour::CompleteOnly => updater.complete(()).await?,
            Behaviour::Reject => {
                updater.reject("Rejected by the conformance agent").await?;
            }
            Behaviour::Slow => {
                updater.working(()).await?;
                tokio::select! {
                    () = tokio::time::sleep(SLOW_WORK) => updater.complete(()).await?,
                    // The turn normally ended already (canceled) and this is ignored; if
                    // not, returning `Ok` would complete the task.
                    () = context.cancellation.cancelled() => {
                        return Err(ExecutorError::failed("stopped before it finished"));
                    }
                }
            }
            Behaviour::Echo => updater.complete(context.text()).await?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_matching_prefix_decides() {
        let cases = [
            (
                "tck-artifact-file-url-1",
                Behaviour::Artifact(Content::FileUrl),
            ),
            ("tck-artifact-file-1", Behaviour::Artifact(Content::File)),
            (
                "tck-stream-artifact-file-1",
                Behaviour::Streamed(Content::File),
            ),
            ("tck-stream-002-x", Behaviour::CompleteOnly),
            ("tck-complete-task-42", Behaviour::Complete),
            ("tck-unknown", Behaviour::Echo),
            ("", Behaviour::Echo),
        ];
        for (message_id, expected) in cases {
            assert_eq!(behaviour_of(message_id), expected, "{message_id}");
        }
    }

    #[test]
    fn no_route_is_shadowed_by_an_earlier_one() {
        for (index, (prefix, _)) in ROUTES.iter().enumerate() {
            let shadowed_by = ROUTES[..index]
                .iter()
                .find(|(earlier, _)| prefix.starts_with(earlier));
            assert!(
                shadowed_by.is_none(),
                "{prefix} is shadowed by {shadowed_by:?}"
            );
        }
    }
}
