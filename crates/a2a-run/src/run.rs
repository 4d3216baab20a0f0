//! [`Run`]: the saved state of one agent run: the conversation with the model, the steps
//! taken, what the run waits for, and how it ended.

use a2a_types::TaskId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One agent run: a task's model-and-tools loop, saved after every step so that it can
/// resume from the last save on any instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Run {
    /// The task this run belongs to (one run per task).
    pub task_id: TaskId,
    /// A fingerprint of the run's definition (model, system prompt, tools, limits): every
    /// turn must drive the run with the same definition.
    pub definition: String,
    /// Where the run stands.
    pub status: RunStatus,
    /// The conversation with the model so far.
    pub transcript: Vec<ChatMessage>,
    /// Tools the caller declared and runs itself (client tools).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_tools: Vec<ToolSpec>,
    /// Model calls made so far.
    pub steps: u32,
    /// Tokens used so far.
    pub usage: Usage,
    /// Wall time spent in legs so far, in milliseconds.
    pub elapsed_ms: u64,
    /// Tool calls of the last model step that have no result in the transcript yet, in the
    /// order the model made them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_calls: Vec<OpenCall>,
    /// The run's output, once it completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl Run {
    /// A new run for `task_id`, starting with `transcript`.
    #[must_use]
    pub fn new(task_id: TaskId, definition: String, transcript: Vec<ChatMessage>) -> Self {
        Self {
            task_id,
            definition,
            status: RunStatus::Running,
            transcript,
            client_tools: Vec::new(),
            steps: 0,
            usage: Usage::default(),
            elapsed_ms: 0,
            open_calls: Vec::new(),
            output: None,
        }
    }

    /// The actions the run waits for (empty unless it is suspended).
    #[must_use]
    pub fn pending(&self) -> Vec<&OpenCall> {
        self.open_calls
            .iter()
            .filter(|call| {
                matches!(
                    call.state,
                    CallState::AwaitingApproval { .. } | CallState::AwaitingClient
                )
            })
            .collect()
    }
}

/// Where a run stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[non_exhaustive]
pub enum RunStatus {
    /// A leg is running (or was, when its instance stopped mid-way).
    Running,
    /// Waiting for answers to its open calls (approvals, client-tool results).
    Suspended,
    /// Stopped before it finished.
    Stopped {
        /// Why.
        reason: StopReason,
    },
    /// Finished with an output.
    Completed,
    /// Failed; `code` names the error, safe to show.
    Failed {
        /// The error's code or name (`rate_limit`, `model_unreachable`…).
        code: String,
    },
    /// Canceled with its task.
    Canceled,
}

/// Why a run stopped before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StopReason {
    /// The instance drained (shut down) mid-run; the next message resumes the run from its
    /// last save, on any instance.
    Drained,
    /// A tool call with side effects was under way when the instance stopped: whether it
    /// ran is unknown, so the run waits until an operator settles it.
    ToolReconciliationRequired,
    /// The run made as many model calls as it may.
    MaxSteps,
    /// The run used up its token budget.
    Budget,
    /// The run used up its wall time.
    WallTime,
    /// The model refused to answer (a content filter).
    Refusal,
    /// The model ran out of output tokens mid-answer.
    Length,
}

impl StopReason {
    /// The reason as shown to clients (`max-steps`, `drained`…).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Drained => "drained",
            Self::ToolReconciliationRequired => "tool-reconciliation-required",
            Self::MaxSteps => "max-steps",
            Self::Budget => "budget",
            Self::WallTime => "wall-time",
            Self::Refusal => "refusal",
            Self::Length => "length",
        }
    }

    /// True when a later message may resume the run (only a drained run).
    #[must_use]
    pub fn resumable(self) -> bool {
        matches!(self, Self::Drained)
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One message of the conversation with the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
#[non_exhaustive]
pub enum ChatMessage {
    /// Instructions for the model.
    System {
        /// The text.
        text: String,
    },
    /// What the user said.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// The text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The tool calls, if any.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// A tool call's result.
    Tool {
        /// The call answered.
        call_id: String,
        /// The result (or the error) as text.
        content: String,
    },
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The model's id of the call.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments (a JSON object).
    pub arguments: Value,
}

/// A tool call of the last model step that has no result yet, and what it waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenCall {
    /// The call.
    pub call: ToolCall,
    /// What happens to it next.
    pub state: CallState,
}

/// What an open tool call waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
#[non_exhaustive]
pub enum CallState {
    /// Allowed: the run calls the tool.
    Ready,
    /// The run called the tool and has no result yet (the instance stopped mid-call when a
    /// loaded run shows this).
    Started {
        /// True when calling the tool again is harmless (it is read-only or idempotent).
        repeatable: bool,
    },
    /// A person must approve the call.
    AwaitingApproval {
        /// The approval's id (not the tool call's).
        approval_id: String,
    },
    /// The caller runs this tool and sends its result.
    AwaitingClient,
}

/// Tokens used by model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Both counts together.
    #[must_use]
    pub fn total(self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Adds `other` to these counts.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// A JSON Schema of its arguments.
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    /// True when calling it twice does no harm (read-only or idempotent): a call cut short
    /// by a crash is simply made again.
    #[serde(default)]
    pub repeatable: bool,
}

impl ToolSpec {
    /// A tool named `name` described by `description`, taking `input_schema`.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            repeatable: false,
        }
    }

    /// Marks the tool as harmless to call twice.
    #[must_use]
    pub fn repeatable(mut self, repeatable: bool) -> Self {
        self.repeatable = repeatable;
        self
    }
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}
