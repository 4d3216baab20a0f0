//! Settling a run stopped for tool reconciliation: a call with side effects was under way
//! when its instance stopped, so nobody knows whether it ran. An operator finds out and
//! sends each such call's result in a `{reconciledToolResults: [{toolCallId, output,
//! isError?}]}` data part; the run then goes on as if the tool had answered that.

use a2a_types::Part;
use serde_json::{Value, json};

use crate::answers::{Incoming, RECONCILED_KEY, Resolution, STOPPED_KEY, output_text, refuse};
use crate::run::{CallState, OpenCall, Run};

/// The calls of `run` whose outcome is unknown: started, and not safe to repeat.
pub(crate) fn unknown_calls(run: &Run) -> impl Iterator<Item = &OpenCall> {
    run.open_calls
        .iter()
        .filter(|open| matches!(open.state, CallState::Started { repeatable: false }))
}

/// Checks an operator's settlement against `run`: every call of unknown outcome given one
/// result, nothing else in the message.
///
/// # Errors
/// InvalidParams naming the first problem found.
pub(crate) fn check(
    incoming: &Incoming,
    run: &Run,
) -> Result<Vec<Resolution>, a2a_types::A2aError> {
    if incoming.files > 0 || !incoming.other_data.is_empty() {
        return Err(refuse(format!(
            "a settlement message carries only {RECONCILED_KEY} (and text)"
        )));
    }
    if !incoming.approvals.is_empty() || !incoming.results.is_empty() {
        return Err(refuse(format!(
            "the run stopped for tool reconciliation waits for {RECONCILED_KEY}, not answers to actions"
        )));
    }
    let unknown: Vec<&OpenCall> = unknown_calls(run).collect();
    let mut settled: Vec<&str> = Vec::new();
    let mut resolutions = Vec::new();
    for result in &incoming.reconciled {
        let id = result.tool_call_id.as_str();
        if !unknown.iter().any(|open| open.call.id == id) {
            return Err(refuse(format!(
                "no call of unknown outcome has the id {id:?}"
            )));
        }
        if settled.contains(&id) {
            return Err(refuse(format!("the call {id:?} is settled twice")));
        }
        settled.push(id);
        resolutions.push(Resolution::Ran {
            call_id: id.to_owned(),
            content: output_text(&result.output),
            is_error: result.is_error,
        });
    }
    if let Some(open) = unknown
        .iter()
        .find(|open| !settled.contains(&open.call.id.as_str()))
    {
        return Err(refuse(format!(
            "the call {:?} ({}) is left unsettled: settle every call of unknown outcome in one message",
            open.call.id, open.call.name
        )));
    }
    Ok(resolutions)
}

/// The data part of a run stopped for `reason`: `{stopped}`, and for a run stopped for tool
/// reconciliation the calls to settle, `{toolCallId, toolName, input}` each.
pub(crate) fn stopped_part(run: &Run, reason: &str, reconcile: bool) -> Part {
    if !reconcile {
        return Part::data(json!({ STOPPED_KEY: reason }));
    }
    let calls: Vec<Value> = unknown_calls(run)
        .map(|open| {
            json!({
                "toolCallId": open.call.id,
                "toolName": open.call.name,
                "input": open.call.arguments,
            })
        })
        .collect();
    Part::data(json!({ STOPPED_KEY: reason, "reconcile": calls }))
}
