//! REJECTED as v0.3 answers carry it: `failed`, with the original state in metadata.
//!
//! v0.3 peers built on a v0.3 model without REJECTED (a2a-java's 0.3 compatibility layer
//! among them) cannot read `rejected` / `TASK_STATE_REJECTED`; `failed` is terminal too, so
//! they end where they should, and `metadata.original_state: "rejected"` keeps what
//! happened. JSON-RPC and HTTP+JSON v0.3 answers (results, stream events and webhook
//! bodies) all pass through here, so both bindings agree.

use a2a_types::Metadata;
use a2a_types::v03;
use serde_json::Value;

/// The metadata member that keeps the state a v0.3 answer could not carry.
const ORIGINAL_STATE: &str = "original_state";

/// `status` as `failed` when it is `rejected`, noting `rejected` in `metadata`.
fn as_failed(status: &mut v03::TaskStatus, metadata: &mut Option<Metadata>) {
    if status.state == v03::TaskState::Rejected {
        status.state = v03::TaskState::Failed;
        metadata
            .get_or_insert_with(Metadata::new)
            .insert(ORIGINAL_STATE.to_owned(), Value::String("rejected".into()));
    }
}

/// A rejected task as a failed one.
pub(super) fn task(task: &mut v03::Task) {
    as_failed(&mut task.status, &mut task.metadata);
}

/// A status update to rejected as one to failed.
pub(super) fn status_update(event: &mut v03::TaskStatusUpdateEvent) {
    as_failed(&mut event.status, &mut event.metadata);
}

/// A stream element, whichever it is.
pub(super) fn stream_event(event: &mut v03::StreamEvent) {
    match event {
        v03::StreamEvent::Task(found) => task(found),
        v03::StreamEvent::StatusUpdate(update) => status_update(update),
        v03::StreamEvent::Message(_) | v03::StreamEvent::ArtifactUpdate(_) => {}
    }
}

/// A v0.3 JSON-RPC `result`: a task (`kind: "task"`) is rewritten, anything else is left
/// as it is.
pub(super) fn result(result: &mut Value) {
    let is_rejected_task = result.get("kind").and_then(Value::as_str) == Some("task")
        && result.pointer("/status/state").and_then(Value::as_str) == Some("rejected");
    if !is_rejected_task {
        return;
    }
    if let Ok(mut found) = serde_json::from_value::<v03::Task>(result.clone()) {
        task(&mut found);
        if let Ok(rewritten) = serde_json::to_value(found) {
            *result = rewritten;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rejected_task_is_failed_with_its_original_state_in_metadata() {
        let mut value = json!({"kind": "task", "id": "t", "contextId": "c",
            "status": {"state": "rejected"}, "metadata": {"keep": 1}});
        result(&mut value);
        assert_eq!(value["status"]["state"], "failed", "{value}");
        assert_eq!(
            value["metadata"],
            json!({"keep": 1, "original_state": "rejected"})
        );

        let mut other = json!({"kind": "task", "id": "t", "contextId": "c",
            "status": {"state": "failed"}});
        result(&mut other);
        assert!(other.get("metadata").is_none(), "{other}");
    }
}
