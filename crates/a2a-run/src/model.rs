//! [`Model`]: what the run engine needs from a language model: one chat completion, with
//! its text streamed as it comes when the caller wants drafts.

use async_trait::async_trait;
use tokio::sync::mpsc;

use crate::run::{ChatMessage, ToolCall, ToolSpec, Usage};

/// One model call: the conversation so far and the tools on offer.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The conversation, oldest first.
    pub transcript: &'a [ChatMessage],
    /// The tools the model may call.
    pub tools: &'a [ToolSpec],
}

impl<'a> ModelRequest<'a> {
    /// A request for `transcript` offering `tools`.
    #[must_use]
    pub fn new(transcript: &'a [ChatMessage], tools: &'a [ToolSpec]) -> Self {
        Self { transcript, tools }
    }
}

/// What the model answered.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelReply {
    /// Its text, if any.
    pub text: Option<String>,
    /// The tools it wants called, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used by this call.
    pub usage: Usage,
    /// Why it stopped.
    pub finish: Finish,
}

impl ModelReply {
    /// A reply of text only.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A reply asking for `tool_calls`.
    #[must_use]
    pub fn tool_calls(tool_calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls,
            finish: Finish::ToolCalls,
            ..Self::default()
        }
    }

    /// Sets the tokens used.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// Why the model stopped answering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Finish {
    /// It finished its answer.
    #[default]
    Stop,
    /// It wants tools called.
    ToolCalls,
    /// It ran out of output tokens.
    Length,
    /// A content filter stopped it.
    ContentFilter,
}

/// Where a streamed reply's text goes as it comes: one piece per send.
pub type Drafts = mpsc::UnboundedSender<String>;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model call failed ({code}): {detail}")]
#[non_exhaustive]
pub struct ModelError {
    /// A short, stable name safe to show a client: `unreachable`, `unauthorized`,
    /// `rate_limit`, `timeout`, `bad_request`, `server_error`, `bad_response`.
    pub code: String,
    /// What went wrong, for the logs only (never shown to a client).
    pub detail: String,
}

impl ModelError {
    /// An error named `code` with `detail` for the logs.
    #[must_use]
    pub fn new(code: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

/// A language model the engine can call.
#[async_trait]
pub trait Model: Send + Sync + 'static {
    /// Calls the model once. When `drafts` is given, the reply's text is sent there piece by
    /// piece as it is produced (the reply still carries the whole text). Dropping the
    /// returned future must abort the call.
    ///
    /// # Errors
    /// [`ModelError`] when the call fails.
    async fn complete(
        &self,
        request: ModelRequest<'_>,
        drafts: Option<Drafts>,
    ) -> Result<ModelReply, ModelError>;
}
