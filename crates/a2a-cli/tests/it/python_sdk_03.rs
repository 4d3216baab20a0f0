//! `a2a send`, `get`, `cancel`, `subscribe` and `chat` against an A2A v0.3 agent served by
//! the official Python SDK 0.3.26 (`tests/interop/python03/serve_agent.py`), over JSON-RPC
//! and REST, with no flag (the v0.3 card decides) and with `--protocol-version`.
//!
//! The interpreter is `target/python-sdk-03/bin/python` (with `a2a-sdk[http-server]==0.3.26`),
//! or `A2A_PYTHON_03`. Without it the tests are skipped with a notice, except under
//! `CI=true`, where they fail.

use std::path::Path;
use std::time::Duration;

use a2a_test_support::python::{self as sdk, Listening, describe};
use serde_json::Value;

use crate::client_mock::cli_with_input;
use crate::support::a2a;

const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);

fn agent(python: &Path) -> Listening {
    sdk::serve_agent_03(python, None, STARTUP_TIMEOUT)
}

/// `a2a ARGS…`: its exit status and output, or a panic showing them and the agent's log.
fn a2a_ok(agent: &Listening, args: &[&str]) -> String {
    let output = a2a().args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "a2a {args:?}: {}\n{stdout}{}\n--- agent log ---\n{}",
        describe(output.status),
        String::from_utf8_lossy(&output.stderr),
        agent.log()
    );
    stdout
}

fn task_id(json: &str) -> String {
    let value: Value = serde_json::from_str(json.lines().next().unwrap_or_default()).unwrap();
    value["task"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn a2a_send_reaches_a_python_sdk_03_agent_on_both_bindings_plain_and_streaming() {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let agent = agent(&python);
    // No flag: the card's preferred transport (JSONRPC), spoken in 0.3.
    let plain = a2a_ok(&agent, &["send", &agent.url, "hello"]);
    assert!(plain.contains("echo: hello"), "{plain}");
    for binding in ["jsonrpc", "rest"] {
        let plain = a2a_ok(
            &agent,
            &["send", "--binding", binding, &agent.url, "hello 0.3"],
        );
        assert!(
            plain.contains("echo: hello 0.3") && plain.contains("COMPLETED"),
            "{binding}: {plain}"
        );
        let streamed = a2a_ok(
            &agent,
            &[
                "send",
                "--binding",
                binding,
                "--stream",
                &agent.url,
                "slow 3",
            ],
        );
        let chunks: Vec<&str> = streamed
            .lines()
            .filter(|line| line.starts_with("chunk "))
            .collect();
        assert_eq!(
            chunks,
            ["chunk 0", "chunk 1", "chunk 2"],
            "{binding}: {streamed}"
        );
        assert!(streamed.contains("COMPLETED"), "{binding}: {streamed}");
    }
}

#[test]
fn a2a_get_cancel_subscribe_and_chat_work_against_a_python_sdk_03_agent() {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let agent = agent(&python);
    for binding in ["jsonrpc", "rest"] {
        let waiting = a2a_ok(
            &agent,
            &[
                "send",
                "--binding",
                binding,
                "--json",
                "--return-immediately",
                &agent.url,
                "wait",
            ],
        );
        let id = task_id(&waiting);
        let got = a2a_ok(&agent, &["get", "--binding", binding, &agent.url, &id]);
        assert!(
            got.contains(&id) && got.contains("WORKING"),
            "{binding}: {got}"
        );
        let canceled = a2a_ok(&agent, &["cancel", "--binding", binding, &agent.url, &id]);
        assert!(canceled.contains("CANCELED"), "{binding}: {canceled}");
        let again = a2a()
            .args(["cancel", "--binding", binding, &agent.url, &id])
            .output()
            .unwrap();
        assert!(
            !again.status.success()
                && String::from_utf8_lossy(&again.stderr).contains("TASK_NOT_CANCELABLE"),
            "{binding}: {}",
            String::from_utf8_lossy(&again.stderr)
        );

        let slow = a2a_ok(
            &agent,
            &[
                "send",
                "--binding",
                binding,
                "--json",
                "--return-immediately",
                &agent.url,
                "slow 3",
            ],
        );
        let id = task_id(&slow);
        let followed = a2a_ok(
            &agent,
            &["subscribe", "--binding", binding, &agent.url, &id],
        );
        assert!(followed.contains("COMPLETED"), "{binding}: {followed}");
    }
    let chat = cli_with_input(&["chat", &agent.url], "hello chat\n/quit\n");
    assert!(
        chat.code == Some(0) && chat.stdout.contains("echo: hello chat"),
        "{chat:?}\n--- agent log ---\n{}",
        agent.log()
    );
}

#[test]
fn protocol_version_forces_a_version_the_card_must_offer() {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let agent = agent(&python);
    let forced = a2a_ok(
        &agent,
        &["send", "--protocol-version", "0.3", &agent.url, "forced"],
    );
    assert!(forced.contains("echo: forced"), "{forced}");
    let refused = a2a()
        .args(["send", "--protocol-version", "1.0", &agent.url, "no"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("protocol 1.x"),
        "{}: {stderr}",
        describe(refused.status)
    );
}
