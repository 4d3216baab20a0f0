//! Canned A2A payloads with the shape and size of what `a2a serve` sends: the echo agent's
//! SendMessage answer, its streamed answer (one artifact chunk per word), and the exec
//! agent's line events of the fan-out. The bare server answers with them, so both servers
//! put the same bytes on the wire.

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

/// The word the stream figure's messages are made of.
pub const STREAM_WORD: &str = "chunk";

/// The text of a stream figure's message of `words` words: [`STREAM_WORD`] that many times,
/// separated by single spaces, so the echo agent streams it in exactly `words` chunks. The
/// only spaces of the request are these, which is how `bare` tells the length of the stream
/// to send without parsing the request.
#[must_use]
pub fn stream_text(words: usize) -> String {
    vec![STREAM_WORD; words.max(1)].join(" ")
}

/// The id of the stream figure's message number `number`: every one is as long as the
/// canned stream's (for numbers below 10^8).
#[must_use]
pub fn stream_message_id(number: usize) -> String {
    format!("stream-{number:08}")
}

/// A task as the server stores it after the message `hi` (id `m1`): its status, an optional
/// artifact `(name, text)`, and the message in its history.
#[must_use]
pub fn task(task_id: &str, state: &str, artifact: Option<(&str, &str)>) -> String {
    task_after(task_id, state, artifact, "m1", "hi")
}

/// A task as the server stores it after the message `text` with the id `message_id`: its
/// status, an optional artifact `(name, text)`, and the message in its history.
#[must_use]
pub fn task_after(
    task_id: &str,
    state: &str,
    artifact: Option<(&str, &str)>,
    message_id: &str,
    text: &str,
) -> String {
    let artifacts = artifact.map_or_else(String::new, |(name, text)| {
        format!(
            r#","artifacts":[{{"artifactId":"{ARTIFACT_ID}","name":"{name}","parts":[{{"text":"{text}"}}]}}]"#
        )
    });
    format!(
        r#"{{"id":"{task_id}","contextId":"{CONTEXT_ID}","status":{{"state":"{state}","timestamp":"{TIMESTAMP}"}}{artifacts},"history":[{{"messageId":"{message_id}","contextId":"{CONTEXT_ID}","taskId":"{task_id}","role":"ROLE_USER","parts":[{{"text":"{text}"}}]}}]}}"#
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
    chunk_update(
        task_id,
        ARTIFACT_ID,
        "output",
        &line.to_string(),
        line,
        lines,
    )
}

/// The id and name of the artifact the echo agent streams.
pub const ECHO_ARTIFACT: &str = "echo";

/// An artifact-update event carrying chunk `chunk` (1-based) of `chunks` of the artifact
/// `artifact_id` named `name`: the first chunk replaces (no `append`), the next ones append,
/// the last one says `lastChunk` (a single chunk is first and last).
#[must_use]
pub fn chunk_update(
    task_id: &str,
    artifact_id: &str,
    name: &str,
    text: &str,
    chunk: usize,
    chunks: usize,
) -> String {
    let append = if chunk > 1 { r#","append":true"# } else { "" };
    let last_chunk = if chunk == chunks {
        r#","lastChunk":true"#
    } else {
        ""
    };
    format!(
        r#"{{"artifactUpdate":{{"taskId":"{task_id}","contextId":"{CONTEXT_ID}","artifact":{{"artifactId":"{artifact_id}","name":"{name}","parts":[{{"text":"{text}"}}]}}{append}{last_chunk}}}}}"#
    )
}

/// The events of a SendStreamingMessage of [`stream_text`]`(words)` to
/// `a2a serve --agent echo`, `words` + 2 of them: the submitted task, one artifact update per
/// word (the word with the space after it; the last without), COMPLETED.
#[must_use]
pub fn echo_stream_payloads(task_id: &str, words: usize) -> Vec<String> {
    let words = words.max(1);
    let text = stream_text(words);
    let mut events = Vec::with_capacity(words + 2);
    events.push(task_result(&task_after(
        task_id,
        state::SUBMITTED,
        None,
        &stream_message_id(0),
        &text,
    )));
    let spaced = format!("{STREAM_WORD} ");
    events.extend((1..=words).map(|chunk| {
        let word = if chunk < words { &spaced } else { STREAM_WORD };
        chunk_update(task_id, ECHO_ARTIFACT, ECHO_ARTIFACT, word, chunk, words)
    }));
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
    fn a_line_update_has_the_exec_agents_size() {
        // Measured on `a2a serve --agent exec` (REST shape).
        assert_eq!(line_update(TASK_ID, 1, 4).len(), 229 - "data: ".len());
        assert_eq!(line_update(TASK_ID, 2, 4).len(), 243 - "data: ".len());
        assert_eq!(line_update(TASK_ID, 4, 4).len(), 260 - "data: ".len());
        assert_eq!(
            status_update(TASK_ID, state::COMPLETED).len(),
            204 - "data: ".len()
        );
    }

    #[test]
    fn an_echo_stream_has_the_echo_agents_events() {
        // Sizes of the data lines `a2a serve --agent echo` sends for the messages of one and
        // three words (message id `stream-00000001`), HTTP+JSON shape; JSON-RPC adds
        // `{"jsonrpc":"2.0","id":1,"result":` and `}` to each.
        let measured: [(usize, &[usize]); 2] =
            [(1, &[375, 210, 198]), (3, &[387, 194, 208, 224, 198])];
        for (words, sizes) in measured {
            let events = echo_stream_payloads(TASK_ID, words);
            assert_eq!(events.len(), words + 2);
            let lengths: Vec<usize> = events.iter().map(String::len).collect();
            assert_eq!(lengths, sizes, "{words} words");
            let jsonrpc: Vec<usize> = events.iter().map(|e| jsonrpc_result(e).len()).collect();
            let expected: Vec<usize> = sizes.iter().map(|size| size + 34).collect();
            assert_eq!(jsonrpc, expected);
            for event in &events {
                let _: serde_json::Value = serde_json::from_str(event).expect("valid JSON");
            }
        }
        // The whole JSON-RPC stream of three words, SSE framing included, as a2a sent it.
        let body: String = echo_stream_payloads(TASK_ID, 3)
            .iter()
            .enumerate()
            .map(|(id, event)| sse_event(Some(id as u64 + 1), &jsonrpc_result(event)))
            .collect();
        assert_eq!(body.len(), 1451);
    }

    #[test]
    fn an_echo_stream_chunks_join_to_the_message_text() {
        let events = echo_stream_payloads(TASK_ID, 4);
        let text: String = events[1..5]
            .iter()
            .map(|event| {
                let value: serde_json::Value = serde_json::from_str(event).expect("valid JSON");
                value["artifactUpdate"]["artifact"]["parts"][0]["text"]
                    .as_str()
                    .expect("a text part")
                    .to_owned()
            })
            .collect();
        assert_eq!(text, stream_text(4));
        assert_eq!(stream_text(4).matches(' ').count(), 3);
        assert!(events[0].contains(state::SUBMITTED));
        assert!(events[5].contains(state::COMPLETED));
        assert_eq!(stream_message_id(1).len(), stream_message_id(0).len());
    }
}
