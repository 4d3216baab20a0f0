//! What a message to a run carries: its text, and the answers to the run's pending actions
//! (`{approvalResponses?, clientToolResults?}` data parts) or an operator's settlement of a
//! run stopped for tool reconciliation (`{reconciledToolResults}`), read and checked before
//! anything is written. Also the `{actions:[…]}` data part that lists what a run waits for.

use a2a_types::{A2aError, Message, Part, PartContent};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::approval::ApprovalKey;
use crate::run::{CallState, OpenCall, Run};

/// The data part key listing a suspended run's pending actions.
pub const ACTIONS_KEY: &str = "actions";
/// The data part key of approval answers.
pub const APPROVALS_KEY: &str = "approvalResponses";
/// The data part key of client-tool results.
pub const RESULTS_KEY: &str = "clientToolResults";
/// The data part key saying why a run stopped.
pub(crate) const STOPPED_KEY: &str = "stopped";
/// The data part key of an operator's results for the calls a stopped run did not know the
/// outcome of (a run stopped for tool reconciliation).
pub const RECONCILED_KEY: &str = "reconciledToolResults";

/// One answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ApprovalAnswer {
    pub(crate) approval_id: String,
    pub(crate) approved: bool,
    #[serde(default)]
    pub(crate) token: Option<String>,
    #[serde(default)]
    pub(crate) reason: Option<String>,
}

/// The result of a tool the client ran.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ClientResult {
    pub(crate) tool_call_id: String,
    pub(crate) output: Value,
    #[serde(default)]
    pub(crate) is_error: bool,
}

/// What a message brought: its text, its answers (when it has any answer part), and how
/// many parts of other kinds it has.
#[derive(Debug, Default)]
pub(crate) struct Incoming {
    pub(crate) text: String,
    pub(crate) approvals: Vec<ApprovalAnswer>,
    pub(crate) results: Vec<ClientResult>,
    /// An operator's results for calls whose outcome the run does not know.
    pub(crate) reconciled: Vec<ClientResult>,
    /// True when some data part is an answer part.
    pub(crate) has_answers: bool,
    /// Data parts that are not answers.
    pub(crate) other_data: Vec<Value>,
    /// File parts (bytes or URL).
    pub(crate) files: usize,
}

/// Reads a message. A data part holding either answer key is an answer part: it must hold
/// nothing else and well-formed entries.
///
/// # Errors
/// InvalidParams for a malformed answer part.
pub(crate) fn read(message: &Message) -> Result<Incoming, A2aError> {
    let mut incoming = Incoming {
        text: message.text(),
        ..Incoming::default()
    };
    for part in &message.parts {
        match &part.content {
            PartContent::Text(_) => {}
            PartContent::Data(value) => {
                let answer_part = value.as_object().is_some_and(|map| {
                    map.contains_key(APPROVALS_KEY)
                        || map.contains_key(RESULTS_KEY)
                        || map.contains_key(RECONCILED_KEY)
                });
                if answer_part {
                    incoming.has_answers = true;
                    read_answer_part(value, &mut incoming)?;
                } else {
                    incoming.other_data.push(value.clone());
                }
            }
            // Bytes, a URL, or a kind of content this version does not know: not an answer.
            _ => incoming.files += 1,
        }
    }
    Ok(incoming)
}

fn read_answer_part(value: &Value, incoming: &mut Incoming) -> Result<(), A2aError> {
    let Some(map) = value.as_object() else {
        return Err(refuse("an answer part must be an object"));
    };
    for (key, entries) in map {
        match key.as_str() {
            APPROVALS_KEY => {
                let entries: Vec<ApprovalAnswer> = entries_of(key, entries)?;
                incoming.approvals.extend(entries);
            }
            RESULTS_KEY => {
                let entries: Vec<ClientResult> = entries_of(key, entries)?;
                incoming.results.extend(entries);
            }
            RECONCILED_KEY => {
                let entries: Vec<ClientResult> = entries_of(key, entries)?;
                incoming.reconciled.extend(entries);
            }
            other => {
                return Err(refuse(format!(
                    "an answer part holds only {APPROVALS_KEY}, {RESULTS_KEY} and {RECONCILED_KEY}, not {other:?}"
                )));
            }
        }
    }
    Ok(())
}

fn entries_of<T: serde::de::DeserializeOwned>(
    key: &str,
    entries: &Value,
) -> Result<Vec<T>, A2aError> {
    let Some(list) = entries.as_array() else {
        return Err(refuse(format!("{key} must be a list")));
    };
    list.iter()
        .enumerate()
        .map(|(index, entry)| {
            T::deserialize(entry)
                .map_err(|error| refuse(format!("{key}[{index}] is malformed: {error}")))
        })
        .collect()
}

/// What an accepted answer does to one open call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolution {
    /// The call may run.
    Approved { call_id: String },
    /// The call is refused; the model is told, with the person's reason if any.
    Denied {
        call_id: String,
        reason: Option<String>,
    },
    /// The client ran the tool.
    Ran {
        call_id: String,
        content: String,
        is_error: bool,
    },
}

/// Checks `incoming`'s answers against what `run` waits for: every pending action answered
/// once, by its own id and kind, approvals of signed actions with their token.
///
/// # Errors
/// InvalidParams naming the first problem found.
pub(crate) fn check(
    incoming: &Incoming,
    run: &Run,
    key: Option<&ApprovalKey>,
) -> Result<Vec<Resolution>, A2aError> {
    if incoming.files > 0 {
        return Err(refuse("an answer message cannot carry files"));
    }
    if !incoming.other_data.is_empty() {
        return Err(refuse(format!(
            "a data part of an answer message must hold {APPROVALS_KEY} or {RESULTS_KEY}"
        )));
    }
    if !incoming.reconciled.is_empty() {
        return Err(refuse(format!(
            "{RECONCILED_KEY} settle a run stopped for tool reconciliation; this run waits for {APPROVALS_KEY} or {RESULTS_KEY}"
        )));
    }
    if incoming.approvals.is_empty() && incoming.results.is_empty() {
        return Err(refuse("the message answers none of the pending actions"));
    }
    let pending = run.pending();
    let mut answered: Vec<&str> = Vec::new();
    let mut resolutions = Vec::new();
    for answer in &incoming.approvals {
        let Some(open) = pending.iter().find(|open| {
            matches!(&open.state, CallState::AwaitingApproval { approval_id } if *approval_id == answer.approval_id)
        }) else {
            let by_call_id = pending.iter().find(|open| open.call.id == answer.approval_id);
            return Err(match by_call_id {
                Some(open) if matches!(open.state, CallState::AwaitingApproval { .. }) => refuse(format!(
                    "{:?} is a tool-call id: answer an approval by its approvalId",
                    answer.approval_id
                )),
                Some(_) => refuse(format!(
                    "{:?} is a client tool call: send its result in {RESULTS_KEY}",
                    answer.approval_id
                )),
                None => refuse(format!("no pending approval has the id {:?}", answer.approval_id)),
            });
        };
        if answered.contains(&answer.approval_id.as_str()) {
            return Err(refuse(format!(
                "the approval {:?} is answered twice",
                answer.approval_id
            )));
        }
        answered.push(&answer.approval_id);
        if answer.approved {
            if let Some(key) = key {
                let valid = answer.token.as_deref().is_some_and(|token| {
                    key.verify(token, run.task_id.as_str(), &answer.approval_id, &open.call)
                });
                if !valid {
                    return Err(refuse(format!(
                        "approving {:?} needs the token sent with the approval request",
                        answer.approval_id
                    )));
                }
            }
            resolutions.push(Resolution::Approved {
                call_id: open.call.id.clone(),
            });
        } else {
            resolutions.push(Resolution::Denied {
                call_id: open.call.id.clone(),
                reason: answer.reason.clone(),
            });
        }
    }
    for result in &incoming.results {
        let Some(open) = pending
            .iter()
            .find(|open| open.call.id == result.tool_call_id)
        else {
            return Err(refuse(format!(
                "no pending client tool call has the id {:?}",
                result.tool_call_id
            )));
        };
        if !matches!(open.state, CallState::AwaitingClient) {
            return Err(refuse(format!(
                "{:?} waits for an approval, not a client tool result",
                result.tool_call_id
            )));
        }
        if answered.contains(&result.tool_call_id.as_str()) {
            return Err(refuse(format!(
                "the call {:?} is answered twice",
                result.tool_call_id
            )));
        }
        answered.push(&result.tool_call_id);
        let content = output_text(&result.output);
        resolutions.push(Resolution::Ran {
            call_id: open.call.id.clone(),
            content,
            is_error: result.is_error,
        });
    }
    if let Some(open) = pending
        .iter()
        .find(|open| !answered.contains(&action_id(open)))
    {
        return Err(refuse(format!(
            "the action {:?} ({}) is left unanswered: answer every pending action in one message",
            action_id(open),
            open.call.name
        )));
    }
    Ok(resolutions)
}

/// The id a client answers an open call by: its approval id, or its tool-call id.
fn action_id(open: &OpenCall) -> &str {
    match &open.state {
        CallState::AwaitingApproval { approval_id } => approval_id,
        CallState::Ready | CallState::Started { .. } | CallState::AwaitingClient => &open.call.id,
    }
}

/// The `{actions:[…]}` data part listing what `run` waits for.
pub(crate) fn actions_part(run: &Run, key: Option<&ApprovalKey>) -> Part {
    let actions: Vec<Value> = run
        .pending()
        .into_iter()
        .map(|open| match &open.state {
            CallState::AwaitingApproval { approval_id } => {
                let mut action = json!({
                    "kind": "approval",
                    "approvalId": approval_id,
                    "toolCallId": open.call.id,
                    "toolName": open.call.name,
                    "input": open.call.arguments,
                });
                if let (Some(key), Some(map)) = (key, action.as_object_mut()) {
                    map.insert(
                        "token".to_owned(),
                        Value::String(key.sign(run.task_id.as_str(), approval_id, &open.call)),
                    );
                }
                action
            }
            CallState::Ready | CallState::Started { .. } | CallState::AwaitingClient => json!({
                "kind": "clientTool",
                "toolCallId": open.call.id,
                "toolName": open.call.name,
                "input": open.call.arguments,
            }),
        })
        .collect();
    Part::data(json!({ ACTIONS_KEY: actions }))
}

/// True when `message` (a task's status message) lists pending actions.
pub(crate) fn lists_actions(message: Option<&Message>) -> bool {
    message.is_some_and(|message| {
        message.parts.iter().any(|part| {
            matches!(&part.content, PartContent::Data(Value::Object(map)) if map.contains_key(ACTIONS_KEY))
        })
    })
}

/// Refuses per-turn options the executor owns: metadata (of the request or of its message,
/// where a turn declares its client tools) that carries answers, a settlement or the run's
/// own parts. The executor reads answers only from data parts and writes the others itself,
/// so such metadata is a client mistake that would otherwise be silently ignored.
///
/// # Errors
/// InvalidParams naming the key and where it belongs.
pub(crate) fn refuse_owned_options(
    metadata: Option<&a2a_types::Metadata>,
    whose: &str,
) -> Result<(), A2aError> {
    let Some(metadata) = metadata else {
        return Ok(());
    };
    for key in [APPROVALS_KEY, RESULTS_KEY, RECONCILED_KEY] {
        if metadata.contains_key(key) {
            return Err(refuse(format!(
                "{key} in the {whose} metadata is the run's to read: send it in a data part of the message"
            )));
        }
    }
    for key in [ACTIONS_KEY, STOPPED_KEY] {
        if metadata.contains_key(key) {
            return Err(refuse(format!(
                "{key} in the {whose} metadata is the run's own to write, not a caller's option"
            )));
        }
    }
    Ok(())
}

/// The text a tool result gives the model: a string as it is, any other value as JSON.
pub(crate) fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

pub(crate) fn refuse(message: impl Into<String>) -> A2aError {
    A2aError::invalid_params(message)
}
