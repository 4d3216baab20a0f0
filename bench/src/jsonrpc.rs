//! The JSON-RPC `SendMessage` of the closed-loop clients (`sendload`, `grpcload`): the
//! request, one call over a kept-alive connection, and the check of its answer.

use std::time::Duration;

use anyhow::{Context as _, bail};
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

use crate::canned;

/// The JSON-RPC SendMessage request `id` with the message id `message_id` and the text
/// `text`, which is already a JSON string (quotes included).
#[must_use]
pub fn send_message_body(id: usize, message_id: &str, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"SendMessage","params":{{"message":{{"messageId":"{message_id}","role":"ROLE_USER","parts":[{{"text":{text}}}]}}}}}}"#
    )
}

/// POSTs `body`, a blocking SendMessage, to `url` and reads the whole answer.
///
/// # Errors
/// When the request fails or takes longer than `timeout`, the status is not a success, or
/// the answer is not a completed task with an artifact (see [`check_send_message_answer`]).
pub async fn send_message(
    client: &reqwest::Client,
    url: &str,
    body: String,
    timeout: Duration,
) -> anyhow::Result<()> {
    let response = client
        .post(url)
        .header(crate::VERSION_HEADER.0, crate::VERSION_HEADER.1)
        .header(CONTENT_TYPE, "application/json")
        .timeout(timeout)
        .body(body)
        .send()
        .await?;
    let status = response.status();
    let bytes = response.bytes().await?;
    if !status.is_success() {
        bail!("HTTP {status}: {}", String::from_utf8_lossy(&bytes));
    }
    check_send_message_answer(&bytes)
}

/// Whether a JSON-RPC SendMessage answer is a completed task with an artifact, which is
/// what the built-in `echo` agent answers.
///
/// # Errors
/// Saying what the answer is instead.
pub fn check_send_message_answer(bytes: &[u8]) -> anyhow::Result<()> {
    let answer: Value = serde_json::from_slice(bytes).context("the answer is not JSON")?;
    if let Some(error) = answer.get("error") {
        bail!("JSON-RPC error: {error}");
    }
    let Some(task) = answer.pointer("/result/task") else {
        bail!("the result is not a task: {answer}");
    };
    let state = task.pointer("/status/state").and_then(Value::as_str);
    if state != Some(canned::state::COMPLETED) {
        bail!("the task is {}", state.unwrap_or("without a state"));
    }
    let artifacts = task
        .get("artifacts")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if artifacts == 0 {
        bail!("the completed task has no artifact");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_a_send_message() -> anyhow::Result<()> {
        let text = serde_json::to_string("say \"hi\"")?;
        let body: Value = serde_json::from_str(&send_message_body(3, "bench-7-1-3", &text))?;
        assert_eq!(body["method"], "SendMessage");
        assert_eq!(body["id"], 3);
        assert_eq!(body["params"]["message"]["messageId"], "bench-7-1-3");
        assert_eq!(body["params"]["message"]["parts"][0]["text"], "say \"hi\"");
        Ok(())
    }

    #[test]
    fn the_echo_answer_passes() {
        let answer = canned::send_message_jsonrpc();
        assert!(check_send_message_answer(answer.as_bytes()).is_ok());
    }

    #[test]
    fn other_answers_fail() {
        let working = canned::jsonrpc_result(&canned::task_result(&canned::task(
            "t",
            canned::state::WORKING,
            None,
        )));
        let no_artifact = canned::jsonrpc_result(&canned::task_result(&canned::task(
            "t",
            canned::state::COMPLETED,
            None,
        )));
        let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}"#;
        for answer in [working.as_str(), no_artifact.as_str(), error, "not json"] {
            assert!(
                check_send_message_answer(answer.as_bytes()).is_err(),
                "{answer}"
            );
        }
    }
}
