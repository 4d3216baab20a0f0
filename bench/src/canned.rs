//! Canned A2A payloads with the shape and size of what `a2a serve` sends: the echo agent's
//! SendMessage answer and the exec agent's stream events. The bare server answers with
//! them, so both servers put the same bytes on the wire.

/// The id of the canned task (a UUID, like the real ones).
pub const TASK_ID: &str = "0a21b3ce-82c0-4d00-bd81-484b7d139340";
/// The context id of every canned task.
pub const CONTEXT_ID: &str = "58ae847d-55e7-4508-abd8-7bd1d728b245";
/// The id of the canned artifact.
pub const ARTIFACT_ID: &str = "f6595cde-cfd6-4891-b4d5-1e3eb05cd641";
/// The timestamp of every canned status, in the server's format.
pub const TIMESTAMP: &str = "2026-01-01T00:00:00.000Z";

/// Task state names on the wire.
pub mod state {
    /// `TASK_STATE_SUBMITTED`.
    pub const SUBMITTED: &str = "TASK_STATE_SUBMITTED";
    /// `TASK_STATE_WORKING`.
    pub const WORKING: &str = "TASK_STATE_WORKING";
    /// `TASK_STATE_COMPLETED`.
    pub const COMPLETED: &str = "TASK_STATE_COMPLETED";
}

/// A task as the server stores it after the message `hi` (id `m1`): its status, an optional
/// artifact `(name, text)`, and the message in its history.
#[must_use]
pub fn task(task_id: &str, state: &str, artifact: Option<(&str, &str)>) -> String {
    let artifacts = artifact.map_or_else(String::new, |(name, text)| {
        format!(
            r#","artifacts":[{{"artifactId":"{ARTIFACT_ID}","name":"{name}","parts":[{{"text":"{text}"}}]}}]"#
        )
    });
    format!(
        r#"{{"id":"{task_id}","contextId":"{CONTEXT_ID}","status":{{"state":"{state}","timestamp":"{TIMESTAMP}"}}{artifacts},"history":[{{"messageId":"m1","contextId":"{CONTEXT_ID}","taskId":"{task_id}","role":"ROLE_USER","parts":[{{"text":"hi"}}]}}]}}"#
    )
}

/// The HTTP+JSON SendMessage answer of `a2a serve --agent echo` to `hi`: a completed task
/// with one artifact `echo`.
#[must_use]
pub fn send_message_rest() -> String {
    task_result(&task(TASK_ID, state::COMPLETED, Some(("echo", "hi"))))
}

/// The JSON-RPC SendMessage answer of `a2a serve --agent echo` to `hi` (request id 1).
#[must_use]
pub fn send_message_jsonrpc() -> String {
    jsonrpc_result(&send_message_rest())
}

/// `{"task": TASK}`, a SendMessage result or the first event of a stream.
#[must_use]
pub fn task_result(task: &str) -> String {
    format!(r#"{{"task":{task}}}"#)
}

/// `payload` as the JSON-RPC result of request id 1.
#[must_use]
pub fn jsonrpc_result(payload: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"result":{payload}}}"#)
}

/// A status-update event.
#[must_use]
pub fn status_update(task_id: &str, state: &str) -> String {
    format!(
        r#"{{"statusUpdate":{{"taskId":"{task_id}","contextId":"{CONTEXT_ID}","status":{{"state":"{state}","timestamp":"{TIMESTAMP}"}}}}}}"#
    )
}

/// The artifact-update event for line `line` (1-based) of `lines`, as the exec agent streams
/// its command's output: one chunk of its `output` artifact per line.
#[must_use]
pub fn line_update(task_id: &str, line: usize, lines: usize) -> String {
    let append = if line > 1 { r#","append":true"# } else { "" };
    let last_chunk = if line == lines {
        r#","lastChunk":true"#
    } else {
        ""
    };
    format!(
        r#"{{"artifactUpdate":{{"taskId":"{task_id}","contextId":"{CONTEXT_ID}","artifact":{{"artifactId":"{ARTIFACT_ID}","name":"output","parts":[{{"text":"{line}"}}]}}{append}{last_chunk}}}}}"#
    )
}

/// The events of a SendStreamingMessage to `a2a serve --agent exec` whose command prints
/// `lines` lines: the submitted task, WORKING, one artifact update per line, COMPLETED.
#[must_use]
pub fn stream_payloads(task_id: &str, lines: usize) -> Vec<String> {
    let mut events = Vec::with_capacity(lines + 3);
    events.push(task_result(&task(task_id, state::SUBMITTED, None)));
    events.push(status_update(task_id, state::WORKING));
    events.extend((1..=lines).map(|line| line_update(task_id, line, lines)));
    events.push(status_update(task_id, state::COMPLETED));
    events
}

/// One SSE event: an optional `id:` line, the `data:` line, the blank line.
#[must_use]
pub fn sse_event(id: Option<u64>, data: &str) -> String {
    match id {
        Some(id) => format!("id: {id}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_send_message_answers_are_as_long_as_the_echo_agents() {
        // Measured on `a2a serve --agent echo` for the message `hi`.
        assert_eq!(send_message_rest().len(), 465);
        assert_eq!(send_message_jsonrpc().len(), 499);
        let value: serde_json::Value =
            serde_json::from_str(&send_message_jsonrpc()).expect("valid JSON");
        assert_eq!(value["result"]["task"]["id"], TASK_ID);
    }

    #[test]
    fn a_stream_has_the_exec_agents_events() {
        let events = stream_payloads(TASK_ID, 100);
        assert_eq!(events.len(), 103);
        for event in &events {
            let _: serde_json::Value = serde_json::from_str(event).expect("valid JSON");
        }
        // Sizes as measured on `a2a serve --agent exec` (REST shape).
        assert_eq!(events[2].len(), 229 - "data: ".len());
        assert_eq!(line_update(TASK_ID, 2, 4).len(), 243 - "data: ".len());
        assert_eq!(line_update(TASK_ID, 4, 4).len(), 260 - "data: ".len());
        assert_eq!(
            status_update(TASK_ID, state::COMPLETED).len(),
            204 - "data: ".len()
        );
        assert!(events[102].contains(state::COMPLETED));
    }
}
