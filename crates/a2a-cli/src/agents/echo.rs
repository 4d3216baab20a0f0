//! `--agent echo`: completes every task with an artifact holding the message text; asked
//! over a streaming method, it sends that artifact one word per chunk.

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::{Artifact, ArtifactChunk, ArtifactId, Part};
use async_trait::async_trait;

/// The echo agent.
#[derive(Debug)]
pub(crate) struct Echo;

/// The id of the echo artifact when it is streamed in chunks.
const STREAMED_ARTIFACT_ID: &str = "echo";

#[async_trait]
impl AgentExecutor for Echo {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        if !context.streaming {
            // One update, so a durable store writes the task once.
            updater
                .complete_with_artifacts([Artifact::from_text(text).with_name("echo")], ())
                .await?;
            return Ok(());
        }
        let words = words(&text);
        let last = words.len().saturating_sub(1);
        for (index, word) in words.into_iter().enumerate() {
            let chunk = match (index, index == last) {
                (0, true) => ArtifactChunk::Whole,
                (0, false) => ArtifactChunk::First,
                (_, false) => ArtifactChunk::Next,
                (_, true) => ArtifactChunk::Last,
            };
            // Every chunk names the one artifact (no fresh id per chunk).
            let artifact = Artifact {
                artifact_id: ArtifactId::new(STREAMED_ARTIFACT_ID),
                name: "echo".to_owned(),
                description: String::new(),
                parts: vec![Part::text(word)],
                metadata: None,
                extensions: Vec::new(),
            };
            updater.artifact(artifact, chunk).await?;
        }
        updater.complete(()).await?;
        Ok(())
    }
}

/// The chunks of `text`: each word with the whitespace after it, so that the chunks joined
/// are the text again; one empty chunk for an empty text.
fn words(text: &str) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (at, character) in text.char_indices() {
        if character.is_whitespace() {
            in_space = true;
        } else if in_space {
            chunks.push(&text[start..at]);
            start = at;
            in_space = false;
        }
    }
    chunks.push(&text[start..]);
    chunks
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_keep_their_trailing_whitespace_and_join_back_to_the_text() {
        for text in ["", "hi", "hello world", "  lead", "a  b\tc\n", "é ü"] {
            let chunks = words(text);
            assert_eq!(chunks.concat(), text, "{text:?}");
            assert!(!chunks.is_empty());
        }
        assert_eq!(words("hello big world"), ["hello ", "big ", "world"]);
    }
}
