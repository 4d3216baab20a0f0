//! Tool results from A2A answers: the answer's text and data parts as MCP content, artifacts
//! as text or embedded resources by media type, and the task id and state in structured
//! content, so the host can continue the task.

use a2a_types::{Message, Part, PartContent, Task, TaskState};
use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value, json};

use crate::catalogue::GET_TASK;

/// What an agent answered.
#[derive(Debug, Clone)]
pub(crate) enum Answer {
    /// A task, as it stood when the call returned.
    Task(Task),
    /// A direct reply, no task.
    Message(Message),
}

/// Who answered, for the hints a result gives.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Origin<'a> {
    /// The agent's handle (the `agent` of `get_task`).
    pub(crate) agent: &'a str,
    /// The tool to call again to continue a task.
    pub(crate) tool: &'a str,
}

/// The short name of a state: `completed`, `input_required`, …
pub(crate) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "input_required",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth_required",
    }
}

/// The tool result for `answer`.
pub(crate) fn tool_result(origin: Origin<'_>, answer: &Answer) -> CallToolResult {
    match answer {
        Answer::Message(message) => {
            let mut content = parts_content(&message.parts, "message");
            if content.is_empty() {
                content.push(ContentBlock::text(
                    "(the agent answered with an empty message)",
                ));
            }
            let mut structured = Map::new();
            structured.insert("agent".into(), json!(origin.agent));
            structured.insert("kind".into(), json!("message"));
            if let Some(context) = &message.context_id {
                structured.insert("context_id".into(), json!(context.as_str()));
            }
            if let Some(task) = &message.task_id {
                structured.insert("task_id".into(), json!(task.as_str()));
            }
            with_structured(CallToolResult::success(content), structured)
        }
        Answer::Task(task) => task_result(origin, task),
    }
}

fn task_result(origin: Origin<'_>, task: &Task) -> CallToolResult {
    let state = task.status.state;
    let said = task
        .status
        .message
        .as_ref()
        .map(|message| texts(&message.parts))
        .unwrap_or_default();
    let id = task.id.as_str();
    let mut content = Vec::new();
    let headline = match state {
        TaskState::InputRequired => Some(format!(
            "The agent needs more input: {}\nTo answer, call {} again with task_id \"{id}\" \
             and the answer as message.",
            or_default(&said, "(no question given)"),
            origin.tool
        )),
        TaskState::AuthRequired => Some(format!(
            "The agent needs authorization before it can go on: {}\nOnce it is given, call {} \
             again with task_id \"{id}\" to continue.",
            or_default(&said, "(no details given)"),
            origin.tool
        )),
        TaskState::Submitted | TaskState::Working | TaskState::Unspecified => Some(format!(
            "The agent is still working on task \"{id}\" (state {}).{}\nCall {GET_TASK} with \
             agent \"{}\" and task_id \"{id}\" to see how it ends.",
            state_name(state),
            if said.is_empty() {
                String::new()
            } else {
                format!(" It says: {said}")
            },
            origin.agent
        )),
        TaskState::Failed | TaskState::Rejected | TaskState::Canceled => Some(format!(
            "The task ended {}{}",
            state_name(state),
            if said.is_empty() {
                ".".to_owned()
            } else {
                format!(": {said}")
            }
        )),
        TaskState::Completed => (!said.is_empty()).then(|| said.clone()),
    };
    if let Some(headline) = headline {
        content.push(ContentBlock::text(headline));
    }
    if state == TaskState::Completed
        && let Some(message) = &task.status.message
    {
        // The text is the headline; the other parts follow it.
        let others: Vec<Part> = message
            .parts
            .iter()
            .filter(|part| !matches!(part.content, PartContent::Text(_)))
            .cloned()
            .collect();
        content.extend(parts_content(&others, &format!("{id}/status")));
    }
    for artifact in &task.artifacts {
        let name = if artifact.name.is_empty() {
            artifact.artifact_id.as_str()
        } else {
            artifact.name.as_str()
        };
        content.extend(parts_content(
            &artifact.parts,
            &format!(
                "{id}/artifacts/{}/{}",
                artifact.artifact_id.as_str(),
                sanitise_path(name)
            ),
        ));
    }
    if content.is_empty() {
        content.push(ContentBlock::text(format!(
            "The task ended {} with no output.",
            state_name(state)
        )));
    }
    let mut structured = Map::new();
    structured.insert("agent".into(), json!(origin.agent));
    structured.insert("kind".into(), json!("task"));
    structured.insert("task_id".into(), json!(id));
    if !task.context_id.as_str().is_empty() {
        structured.insert("context_id".into(), json!(task.context_id.as_str()));
    }
    structured.insert("state".into(), json!(state_name(state)));
    structured.insert("final".into(), json!(state.is_terminal()));
    structured.insert("artifacts".into(), json!(task.artifacts.len()));
    let result = match state {
        TaskState::Failed | TaskState::Rejected => CallToolResult::error(content),
        _ => CallToolResult::success(content),
    };
    with_structured(result, structured)
}

fn with_structured(mut result: CallToolResult, structured: Map<String, Value>) -> CallToolResult {
    result.structured_content = Some(Value::Object(structured));
    result
}

/// A tool error saying `text` (the host's model reads it; the server carries on).
pub(crate) fn error_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The text parts of `parts`, one per line.
pub(crate) fn texts(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(Part::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn or_default<'a>(text: &'a str, default: &'a str) -> &'a str {
    if text.trim().is_empty() {
        default
    } else {
        text
    }
}

fn sanitise_path(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// MCP content for `parts`; `place` names them in the URIs of embedded resources
/// (`a2a://task/PLACE/INDEX`).
fn parts_content(parts: &[Part], place: &str) -> Vec<ContentBlock> {
    let mut content: Vec<ContentBlock> = Vec::new();
    let mut last_was_text = false;
    for (index, part) in parts.iter().enumerate() {
        // Text parts in a row are one text, streamed in pieces: they are read as one.
        if let (PartContent::Text(text), true, Some(ContentBlock::Text(joined))) =
            (&part.content, last_was_text, content.last_mut())
        {
            joined.text.push_str(text);
            continue;
        }
        last_was_text = matches!(part.content, PartContent::Text(_));
        content.push(part_content(part, &format!("a2a://task/{place}/{index}")));
    }
    content
}

fn part_content(part: &Part, uri: &str) -> ContentBlock {
    let media_type = part.media_type.as_str();
    let uri = if part.filename.is_empty() {
        uri.to_owned()
    } else {
        format!("{uri}/{}", sanitise_path(&part.filename))
    };
    match &part.content {
        PartContent::Text(text) => ContentBlock::text(text.clone()),
        PartContent::Data(data) => {
            ContentBlock::text(serde_json::to_string_pretty(data).unwrap_or_default())
        }
        PartContent::Url(url) => {
            let name = if part.filename.is_empty() {
                url.as_str()
            } else {
                part.filename.as_str()
            };
            let mut resource = rmcp::model::Resource::new(url.clone(), name);
            if !media_type.is_empty() {
                resource = resource.with_mime_type(media_type);
            }
            ContentBlock::resource_link(resource)
        }
        PartContent::Raw(bytes) => {
            let encoded = || base64::engine::general_purpose::STANDARD.encode(bytes);
            if media_type.starts_with("image/") {
                return ContentBlock::image(encoded(), media_type);
            }
            if media_type.starts_with("audio/") {
                return ContentBlock::audio(encoded(), media_type);
            }
            let mime = if media_type.is_empty() {
                "application/octet-stream"
            } else {
                media_type
            };
            match std::str::from_utf8(bytes) {
                Ok(text) if is_textual(media_type) => {
                    ContentBlock::resource(ResourceContents::text(text, uri).with_mime_type(mime))
                }
                _ => ContentBlock::resource(
                    ResourceContents::blob(encoded(), uri).with_mime_type(mime),
                ),
            }
        }
        // `PartContent` may grow in another crate; a kind this version does not know is named.
        other => ContentBlock::text(format!("(a part of kind {})", other.member_name())),
    }
}

/// Media types whose bytes are text: `text/*`, JSON, XML, YAML, and none given.
fn is_textual(media_type: &str) -> bool {
    media_type.is_empty()
        || media_type.starts_with("text/")
        || media_type.ends_with("json")
        || media_type.ends_with("xml")
        || media_type.ends_with("yaml")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_types::{Artifact, TaskStatus};

    use super::*;

    const ORIGIN: Origin<'static> = Origin {
        agent: "echo",
        tool: "send_to_echo",
    };

    fn task(state: TaskState, said: &str, artifacts: Vec<Artifact>) -> Task {
        let mut task = Task::new("t-1".into(), "c-1".into(), state);
        task.status = TaskStatus::new(state).with_message(Message::agent_text(said));
        task.artifacts = artifacts;
        task
    }

    #[test]
    fn a_completed_task_carries_its_text_artifacts_and_state() {
        let artifacts = vec![
            Artifact::new(vec![Part::text("report")]),
            Artifact::new(vec![Part::data(json!({"count": 42}))]),
            Artifact::new(vec![
                Part::raw(b"abc".to_vec())
                    .with_media_type("text/plain")
                    .with_filename("a.txt"),
            ]),
            Artifact::new(vec![Part::raw(vec![0, 1]).with_media_type("image/png")]),
        ];
        let result = tool_result(
            ORIGIN,
            &Answer::Task(task(TaskState::Completed, "done", artifacts)),
        );
        assert_eq!(result.is_error, Some(false));
        let value = serde_json::to_value(&result).unwrap();
        let content = value["content"].as_array().unwrap();
        assert_eq!(content[0]["text"], "done");
        assert_eq!(content[1]["text"], "report");
        assert!(content[2]["text"].as_str().unwrap().contains("42"));
        assert_eq!(content[3]["type"], "resource");
        assert_eq!(content[3]["resource"]["text"], "abc");
        assert_eq!(content[4]["type"], "image");
        let structured = &value["structuredContent"];
        assert_eq!(structured["task_id"], "t-1");
        assert_eq!(structured["context_id"], "c-1");
        assert_eq!(structured["state"], "completed");
        assert_eq!(structured["final"], true);
    }

    #[test]
    fn input_required_says_how_to_continue() {
        let result = tool_result(
            ORIGIN,
            &Answer::Task(task(TaskState::InputRequired, "Which city?", vec![])),
        );
        let text = &result.content[0].as_text().unwrap().text;
        assert!(
            text.contains("Which city?") && text.contains("task_id \"t-1\""),
            "{text}"
        );
        assert!(text.contains("send_to_echo"), "{text}");
        assert_eq!(
            result.structured_content.unwrap()["state"],
            "input_required"
        );
    }

    #[test]
    fn a_failed_task_is_a_tool_error() {
        let result = tool_result(
            ORIGIN,
            &Answer::Task(task(TaskState::Failed, "boom", vec![])),
        );
        assert_eq!(result.is_error, Some(true));
    }
}
