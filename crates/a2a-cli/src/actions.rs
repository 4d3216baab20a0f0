//! What an agent run (`a2a-run`) asks of its client, and how the client answers.
//!
//! A run that needs something from outside stops its turn in INPUT_REQUIRED; its status
//! message carries `{"actions":[…]}`: tool calls waiting for a person's approval
//! (`kind: approval`, with the `token` an approval must echo) and tools the client runs
//! itself (`kind: clientTool`). The client answers every one of them in ONE message on the
//! same task, whose data part is
//! `{"approvalResponses":[{approvalId, approved, token?, reason?}], "clientToolResults":[{toolCallId, output, isError}]}`.
//!
//! A run that stopped early says so with `{"stopped": REASON}`; only a `drained` run goes on
//! with the next message. While streaming, the model's text comes first as draft artifacts
//! (metadata `{"draft": true}`), never stored; the whole answer follows as the `output`
//! artifact.

use a2a_types::{
    Artifact, ContextId, Message, Part, PartContent, Role, StreamResponse, TaskId, TaskStatus,
};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The data part key listing a run's pending actions.
pub(crate) const ACTIONS_KEY: &str = "actions";
/// The data part key of approval answers.
pub(crate) const APPROVALS_KEY: &str = "approvalResponses";
/// The data part key of client-tool results.
pub(crate) const RESULTS_KEY: &str = "clientToolResults";
/// The data part key saying why a run stopped.
pub(crate) const STOPPED_KEY: &str = "stopped";
/// The message metadata key declaring the tools a client runs itself.
pub(crate) const CLIENT_TOOLS_KEY: &str = "clientTools";
/// The artifact metadata key marking a draft.
pub(crate) const DRAFT_KEY: &str = "draft";
/// The one stop reason after which the next message resumes the run.
pub(crate) const RESUMABLE_STOP: &str = "drained";
/// The stop reason of a run that waits for an operator to settle its calls.
pub(crate) const RECONCILE_STOP: &str = "tool-reconciliation-required";
/// The data part key of an operator's results for a stopped run's calls.
pub(crate) const RECONCILED_KEY: &str = "reconciledToolResults";

/// One thing a run waits for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Action {
    /// What kind of answer it needs.
    pub(crate) kind: ActionKind,
    /// The model's id for the tool call.
    pub(crate) tool_call_id: String,
    /// The tool's name.
    pub(crate) tool_name: String,
    /// The tool call's arguments.
    pub(crate) input: Value,
}

/// The kinds of action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ActionKind {
    /// A tool call that runs once a person approves it.
    Approval {
        /// The id the answer names.
        approval_id: String,
        /// The signature an approval echoes, when the agent signs its requests.
        token: Option<String>,
    },
    /// A tool the client runs, sending back its output.
    ClientTool,
    /// A kind this client does not know (it cannot answer it).
    Other(String),
}

/// An action as the wire has it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireAction {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    approval_id: Option<String>,
    #[serde(default)]
    tool_call_id: String,
    #[serde(default)]
    tool_name: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    token: Option<String>,
}

impl Action {
    fn from_wire(value: &Value) -> Self {
        let wire = WireAction::deserialize(value).unwrap_or(WireAction {
            kind: String::new(),
            approval_id: None,
            tool_call_id: String::new(),
            tool_name: String::new(),
            input: Value::Null,
            token: None,
        });
        let kind = match (wire.kind.as_str(), wire.approval_id) {
            ("approval", Some(approval_id)) => ActionKind::Approval {
                approval_id,
                token: wire.token,
            },
            ("clientTool", _) if !wire.tool_call_id.is_empty() => ActionKind::ClientTool,
            (other, _) => ActionKind::Other(if other.is_empty() {
                value.to_string()
            } else {
                other.to_owned()
            }),
        };
        Self {
            kind,
            tool_call_id: wire.tool_call_id,
            tool_name: wire.tool_name,
            input: wire.input,
        }
    }

    /// `approval`, `clientTool`, or the unknown kind's name.
    pub(crate) fn kind_name(&self) -> &str {
        match &self.kind {
            ActionKind::Approval { .. } => "approval",
            ActionKind::ClientTool => "clientTool",
            ActionKind::Other(kind) => kind,
        }
    }

    /// Approves the call (echoing its token); `None` for an action that is not an approval.
    pub(crate) fn approve(&self) -> Option<Answer> {
        match &self.kind {
            ActionKind::Approval { approval_id, token } => Some(Answer::Approval {
                approval_id: approval_id.clone(),
                approved: true,
                token: token.clone(),
                reason: None,
            }),
            ActionKind::ClientTool | ActionKind::Other(_) => None,
        }
    }

    /// Denies the call, with the person's reason if any; `None` for an action that is not
    /// an approval.
    pub(crate) fn deny(&self, reason: Option<String>) -> Option<Answer> {
        match &self.kind {
            ActionKind::Approval { approval_id, .. } => Some(Answer::Approval {
                approval_id: approval_id.clone(),
                approved: false,
                token: None,
                reason,
            }),
            ActionKind::ClientTool | ActionKind::Other(_) => None,
        }
    }

    /// The client tool's result; `None` for an action that is not a client tool.
    pub(crate) fn result(&self, output: Value, is_error: bool) -> Option<Answer> {
        match &self.kind {
            ActionKind::ClientTool => Some(Answer::ClientResult {
                tool_call_id: self.tool_call_id.clone(),
                output,
                is_error,
            }),
            ActionKind::Approval { .. } | ActionKind::Other(_) => None,
        }
    }
}

/// One answer to one action.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// Approves or denies a call.
    Approval {
        approval_id: String,
        approved: bool,
        token: Option<String>,
        reason: Option<String>,
    },
    /// What a client tool returned.
    ClientResult {
        tool_call_id: String,
        output: Value,
        is_error: bool,
    },
}

/// The data part value answering `answers`: only the lists that have entries.
pub(crate) fn answer_data(answers: &[Answer]) -> Value {
    let mut approvals = Vec::new();
    let mut results = Vec::new();
    for answer in answers {
        match answer {
            Answer::Approval {
                approval_id,
                approved,
                token,
                reason,
            } => {
                let mut entry = Map::new();
                entry.insert("approvalId".into(), Value::String(approval_id.clone()));
                entry.insert("approved".into(), Value::Bool(*approved));
                if let Some(token) = token.as_ref().filter(|_| *approved) {
                    entry.insert("token".into(), Value::String(token.clone()));
                }
                if let Some(reason) = reason {
                    entry.insert("reason".into(), Value::String(reason.clone()));
                }
                approvals.push(Value::Object(entry));
            }
            Answer::ClientResult {
                tool_call_id,
                output,
                is_error,
            } => {
                let mut entry = Map::new();
                entry.insert("toolCallId".into(), Value::String(tool_call_id.clone()));
                entry.insert("output".into(), output.clone());
                entry.insert("isError".into(), Value::Bool(*is_error));
                results.push(Value::Object(entry));
            }
        }
    }
    let mut data = Map::new();
    if !approvals.is_empty() {
        data.insert(APPROVALS_KEY.into(), Value::Array(approvals));
    }
    if !results.is_empty() {
        data.insert(RESULTS_KEY.into(), Value::Array(results));
    }
    Value::Object(data)
}

/// The one message answering `answers` on task `task_id`.
pub(crate) fn answer_message(
    task_id: Option<TaskId>,
    context_id: Option<ContextId>,
    answers: &[Answer],
) -> Message {
    let mut message = Message::new(Role::User, vec![Part::data(answer_data(answers))]);
    message.task_id = task_id;
    message.context_id = context_id;
    message
}

/// An answer a script can start from: every approval approved (with its token), every
/// client tool given a placeholder output.
pub(crate) fn answer_template(actions: &[Action]) -> Value {
    let answers: Vec<Answer> = actions
        .iter()
        .filter_map(|action| {
            action
                .approve()
                .or_else(|| action.result(Value::String("…".into()), false))
        })
        .collect();
    answer_data(&answers)
}

/// The object of a data part holding `key`, among `message`'s parts.
fn data_with<'a>(message: Option<&'a Message>, key: &str) -> Option<&'a Map<String, Value>> {
    message?.parts.iter().find_map(|part| match &part.content {
        PartContent::Data(Value::Object(map)) if map.contains_key(key) => Some(map),
        _ => None,
    })
}

/// The pending actions a status message lists; empty when it lists none.
pub(crate) fn pending(message: Option<&Message>) -> Vec<Action> {
    data_with(message, ACTIONS_KEY)
        .and_then(|map| map.get(ACTIONS_KEY))
        .and_then(Value::as_array)
        .map(|actions| actions.iter().map(Action::from_wire).collect())
        .unwrap_or_default()
}

/// The pending actions of a status: only while it waits for input.
pub(crate) fn pending_in(status: &TaskStatus) -> Vec<Action> {
    if status.state == a2a_types::TaskState::InputRequired {
        pending(status.message.as_ref())
    } else {
        Vec::new()
    }
}

/// Why the run stopped (`max-steps`, `drained`…), when a status message says so.
pub(crate) fn stopped(message: Option<&Message>) -> Option<&str> {
    data_with(message, STOPPED_KEY)
        .and_then(|map| map.get(STOPPED_KEY))
        .and_then(Value::as_str)
}

/// The calls a run stopped for tool reconciliation waits to have settled: (tool-call id,
/// tool name, input) each.
pub(crate) fn to_reconcile(message: Option<&Message>) -> Vec<(String, String, Value)> {
    data_with(message, STOPPED_KEY)
        .and_then(|map| map.get("reconcile"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|call| {
            let text = |key: &str| call[key].as_str().unwrap_or_default().to_owned();
            (text("toolCallId"), text("toolName"), call["input"].clone())
        })
        .collect()
}

/// True for a data part of a run's own (`actions`, `stopped`), which a person reads as
/// rendered lines rather than JSON.
pub(crate) fn is_run_part(part: &Part) -> bool {
    matches!(&part.content, PartContent::Data(Value::Object(map))
        if map.contains_key(ACTIONS_KEY) || map.contains_key(STOPPED_KEY))
}

/// True for a draft artifact: the model's text as it writes it, never stored.
pub(crate) fn is_draft(artifact: &Artifact) -> bool {
    artifact
        .metadata
        .as_ref()
        .and_then(|metadata| metadata.get(DRAFT_KEY))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// The status an event carries, if any.
pub(crate) fn status_of(event: &StreamResponse) -> Option<&TaskStatus> {
    match event {
        StreamResponse::Task(task) => Some(&task.status),
        StreamResponse::StatusUpdate(update) => Some(&update.status),
        StreamResponse::Message(_) | StreamResponse::ArtifactUpdate(_) => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use a2a_types::{TaskState, TaskStatus};
    use serde_json::json;

    use super::*;

    /// A status message waiting for an approval of `write_file` and a client run of
    /// `get_location`, and, when `with_unknown`, for an action of a kind this client does not
    /// know (`teleport`).
    pub(crate) fn asking_for(with_unknown: bool) -> Message {
        let mut actions = vec![
            json!({"kind": "approval", "approvalId": "approval-1", "toolCallId": "call-1",
                   "toolName": "write_file", "input": {"path": "a.txt", "text": "A"},
                   "token": "tok"}),
            json!({"kind": "clientTool", "toolCallId": "call-2", "toolName": "get_location",
                   "input": {}}),
        ];
        if with_unknown {
            actions.push(json!({"kind": "teleport", "toolCallId": "call-3"}));
        }
        Message::new(
            Role::Agent,
            vec![
                Part::text("Waiting for you to approve write_file, run get_location."),
                Part::data(json!({ "actions": actions })),
            ],
        )
    }

    fn asking() -> Message {
        asking_for(true)
    }

    #[test]
    fn actions_are_read_from_the_status_message() {
        let actions = pending(Some(&asking()));
        assert_eq!(actions.len(), 3);
        assert_eq!(
            actions[0],
            Action {
                kind: ActionKind::Approval {
                    approval_id: "approval-1".into(),
                    token: Some("tok".into())
                },
                tool_call_id: "call-1".into(),
                tool_name: "write_file".into(),
                input: json!({"path": "a.txt", "text": "A"}),
            }
        );
        assert_eq!(actions[1].kind, ActionKind::ClientTool);
        assert_eq!(actions[1].tool_name, "get_location");
        assert_eq!(actions[2].kind, ActionKind::Other("teleport".into()));
        assert_eq!(actions[2].kind_name(), "teleport");
        assert!(pending(Some(&Message::agent_text("hi"))).is_empty());
        assert!(pending(None).is_empty());
    }

    #[test]
    fn only_a_status_waiting_for_input_has_pending_actions() {
        let waiting = TaskStatus::new(TaskState::InputRequired).with_message(asking());
        assert_eq!(pending_in(&waiting).len(), 3);
        let done = TaskStatus::new(TaskState::Completed).with_message(asking());
        assert!(pending_in(&done).is_empty());
    }

    #[test]
    fn one_answer_part_answers_every_action() {
        let actions = pending(Some(&asking()));
        let answers = [
            actions[0].approve().unwrap(),
            actions[1].result(json!("Paris"), false).unwrap(),
        ];
        assert_eq!(
            answer_data(&answers),
            json!({
                "approvalResponses": [{"approvalId": "approval-1", "approved": true, "token": "tok"}],
                "clientToolResults": [{"toolCallId": "call-2", "output": "Paris", "isError": false}]
            })
        );
        let denied = [actions[0].deny(Some("not now".into())).unwrap()];
        assert_eq!(
            answer_data(&denied),
            json!({"approvalResponses": [{"approvalId": "approval-1", "approved": false, "reason": "not now"}]})
        );
        assert!(actions[0].result(json!(1), false).is_none());
        assert!(actions[1].approve().is_none());
        assert!(actions[2].deny(None).is_none());
    }

    #[test]
    fn the_answer_message_continues_the_task() {
        let actions = pending(Some(&asking()));
        let message = answer_message(
            Some(TaskId::new("t")),
            Some(ContextId::new("c")),
            &[actions[0].deny(None).unwrap()],
        );
        assert_eq!(message.role, Role::User);
        assert_eq!(message.task_id, Some(TaskId::new("t")));
        assert_eq!(message.context_id, Some(ContextId::new("c")));
        assert_eq!(
            message.parts,
            vec![Part::data(
                json!({"approvalResponses": [{"approvalId": "approval-1", "approved": false}]})
            )]
        );
    }

    #[test]
    fn the_template_approves_everything_it_can() {
        let actions = pending(Some(&asking()));
        assert_eq!(
            answer_template(&actions),
            json!({
                "approvalResponses": [{"approvalId": "approval-1", "approved": true, "token": "tok"}],
                "clientToolResults": [{"toolCallId": "call-2", "output": "…", "isError": false}]
            })
        );
    }

    #[test]
    fn stops_and_drafts_are_recognised() {
        let message = Message::new(
            Role::Agent,
            vec![
                Part::text("The run stopped (max-steps)."),
                Part::data(json!({"stopped": "max-steps"})),
            ],
        );
        assert_eq!(stopped(Some(&message)), Some("max-steps"));
        assert!(is_run_part(&message.parts[1]));
        assert!(!is_run_part(&message.parts[0]));
        assert!(!is_run_part(&Part::data(json!({"other": 1}))));
        assert_eq!(stopped(Some(&asking())), None);

        let mut draft = Artifact::from_text("Hel").with_id("draft-1");
        assert!(!is_draft(&draft));
        let mut metadata = a2a_types::Metadata::new();
        metadata.insert("draft".into(), json!(true));
        draft.metadata = Some(metadata);
        assert!(is_draft(&draft));
    }
}
