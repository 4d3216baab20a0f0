//! The chat-completions wire: our transcript and tools as request JSON, and what is read of
//! the answers (only the fields used, each optional, since servers differ in what they fill in).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::{Finish, ModelReply};
use crate::run::{ChatMessage, ToolCall, ToolSpec, Usage};

pub(super) fn wire_message(message: &ChatMessage) -> Value {
    match message {
        ChatMessage::System { text } => json!({ "role": "system", "content": text }),
        ChatMessage::User { text } => json!({ "role": "user", "content": text }),
        ChatMessage::Assistant { text, tool_calls } => {
            let mut wire = Map::new();
            wire.insert("role".into(), json!("assistant"));
            wire.insert("content".into(), json!(text));
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|call| {
                        json!({
                            "id": call.id,
                            "type": "function",
                            "function": { "name": call.name, "arguments": wire_arguments(&call.arguments) },
                        })
                    })
                    .collect();
                wire.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(wire)
        }
        ChatMessage::Tool { call_id, content } => {
            json!({ "role": "tool", "tool_call_id": call_id, "content": content })
        }
    }
}

/// Arguments as the wire wants them, a JSON text; arguments that were not valid JSON were
/// kept as a string, and go back exactly as the model wrote them.
fn wire_arguments(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

pub(super) fn wire_tool(tool: &ToolSpec) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    function.insert("parameters".into(), tool.input_schema.clone());
    json!({ "type": "function", "function": function })
}

pub(super) fn tool_call(
    id: Option<String>,
    name: Option<String>,
    arguments: Option<Value>,
) -> ToolCall {
    let arguments = match arguments {
        // Invalid JSON stays a string: the engine tells the model its arguments were bad.
        Some(Value::String(raw)) if raw.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(raw)) => serde_json::from_str(&raw).unwrap_or(Value::String(raw)),
        // Some servers send the arguments as an object rather than as JSON text.
        Some(other) => other,
        None => Value::Object(Map::new()),
    };
    ToolCall {
        id: id
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| format!("call_{}", uuid::Uuid::new_v4().simple())),
        name: name.unwrap_or_default(),
        arguments,
    }
}

pub(super) fn reply(
    text: String,
    tool_calls: Vec<ToolCall>,
    usage: Option<Usage>,
    finish_reason: Option<&str>,
) -> ModelReply {
    let finish = match finish_reason {
        Some("length") => Finish::Length,
        Some("content_filter") => Finish::ContentFilter,
        Some("tool_calls" | "function_call") => Finish::ToolCalls,
        // Some servers say "stop" even when the reply asks for tools.
        _ if !tool_calls.is_empty() => Finish::ToolCalls,
        _ => Finish::Stop,
    };
    ModelReply {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        usage: usage.unwrap_or_default(),
        finish,
    }
}

/// A streamed tool call as its pieces come in.
#[derive(Default)]
pub(super) struct PartialCall {
    pub(super) id: Option<String>,
    pub(super) name: String,
    pub(super) arguments: String,
}

#[derive(Deserialize)]
pub(super) struct Completion {
    #[serde(default)]
    pub(super) choices: Option<Vec<Choice>>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) usage: Option<WireUsage>,
}

#[derive(Deserialize)]
pub(super) struct Choice {
    #[serde(default)]
    pub(super) message: Option<WireMessage>,
    #[serde(default)]
    pub(super) finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
pub(super) struct WireMessage {
    #[serde(default)]
    pub(super) content: Option<String>,
    #[serde(default)]
    pub(super) tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
pub(super) struct WireToolCall {
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) function: Option<WireFunction>,
}

#[derive(Deserialize, Default)]
pub(super) struct WireFunction {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    pub(super) prompt_tokens: Option<u64>,
    #[serde(default)]
    pub(super) completion_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Self {
        Usage {
            input_tokens: usage.prompt_tokens.unwrap_or_default(),
            output_tokens: usage.completion_tokens.unwrap_or_default(),
        }
    }
}

#[derive(Deserialize)]
pub(super) struct Chunk {
    #[serde(default)]
    pub(super) choices: Option<Vec<ChunkChoice>>,
    #[serde(default)]
    pub(super) error: Option<Value>,
    #[serde(default)]
    pub(super) usage: Option<WireUsage>,
}

#[derive(Deserialize)]
pub(super) struct ChunkChoice {
    #[serde(default)]
    pub(super) index: u32,
    #[serde(default)]
    pub(super) delta: Option<Delta>,
    #[serde(default)]
    pub(super) finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
pub(super) struct Delta {
    #[serde(default)]
    pub(super) content: Option<String>,
    #[serde(default)]
    pub(super) tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Deserialize)]
pub(super) struct ToolCallDelta {
    #[serde(default)]
    pub(super) index: Option<u32>,
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
pub(super) struct FunctionDelta {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) arguments: Option<String>,
}
