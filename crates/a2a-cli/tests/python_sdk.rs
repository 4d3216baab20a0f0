//! Interop with the official Python SDK: its client (`a2a-sdk` 1.3.0) drives the real
//! `a2a serve --agent conformance` binary over JSON-RPC, HTTP+JSON and gRPC, directly, and
//! over the HTTP bindings through `a2a gateway`.
//!
//! Each test starts the server on an ephemeral port, reads the `listening on http://…` line it
//! prints first, and runs `tests/interop/python/drive_agent.py` with the virtualenv's
//! interpreter (`target/python-sdk/bin/python`, made by `bash .ci/run`; `A2A_PYTHON`
//! overrides it). The driver checks send, stream, get, list, subscribe, cancel and a
//! follow-up to an input-required task, one line per check.
//!
//! Without the virtualenv the tests are skipped with a notice, except under `CI=true`, where
//! they fail: CI must always run against the real peer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use a2a_test_support::python::{self as sdk, Listening, describe, workspace_root};

/// `a2a serve` with the conformance agent, tasks in memory, the API key required.
const CONFORMANCE_AGENT: [&str; 9] = [
    "serve",
    "--agent",
    "conformance",
    "--bind",
    "127.0.0.1:0",
    "--store",
    "memory",
    "--api-key",
    API_KEY,
];

/// How long the server may take to print its `listening on` line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one driver run may take before it is killed.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(180);

/// The key `a2a serve` accepts and the Python client presents: authentication stays on,
/// so the official SDK's client is proven to work against a secured agent.
const API_KEY: &str = "interop-key-0123456789";

#[test]
fn python_sdk_client_over_jsonrpc() {
    drive("jsonrpc");
}

#[test]
fn python_sdk_client_over_http_json() {
    drive("rest");
}

#[test]
fn python_sdk_client_over_grpc() {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let server = spawn(
        &[
            CONFORMANCE_AGENT.as_slice(),
            &["--grpc-bind", "127.0.0.1:0"],
        ]
        .concat(),
        "a2a serve --agent conformance --grpc-bind",
    );
    run_driver(&python, &server.url, "grpc", &|| {
        format!("--- server log ---\n{}", server.log())
    });
}

#[test]
fn python_sdk_client_through_the_gateway_over_jsonrpc() {
    through_the_gateway("jsonrpc");
}

#[test]
fn python_sdk_client_through_the_gateway_over_http_json() {
    through_the_gateway("rest");
}

/// The driver's checks with `a2a gateway` between the SDK's client and the agent: the
/// client resolves the agent's card at `/a2a/{id}/.well-known/agent-card.json`,
/// whose interfaces point at the gateway, and every call, stream and key goes through it
/// (`X-API-Key` is an `X-*` header, which the gateway forwards).
#[allow(clippy::disallowed_methods)] // a synchronous test: no runtime to block
fn through_the_gateway(binding: &str) {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let gateway = gateway();
    let registered = ["--register", &gateway.url, "--agent-id", "conformance-01"];
    let agent = spawn(
        &[CONFORMANCE_AGENT.as_slice(), &registered].concat(),
        "a2a serve --register",
    );
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    while !agent.log().contains("registered with the gateway") {
        assert!(
            Instant::now() < deadline,
            "the agent did not register\n--- agent log ---\n{}\n--- gateway log ---\n{}",
            agent.log(),
            gateway.log()
        );
        thread::sleep(Duration::from_millis(50));
    }
    let url = format!("{}/a2a/conformance-01", gateway.url);
    run_driver(&python, &url, binding, &|| {
        format!(
            "--- agent log ---\n{}\n--- gateway log ---\n{}",
            agent.log(),
            gateway.log()
        )
    });
}

/// The other way round: the official SDK serves the agent (its echo agent of the client
/// interop tests), registered with `a2a gateway` by its own card; `a2a send` reaches it
/// through the gateway over both bindings, plain and streaming.
#[test]
fn a_python_sdk_agent_behind_the_gateway_answers_a2a_send() {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let agent = sdk::echo_agent(&python, STARTUP_TIMEOUT);
    let gateway = gateway();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let http = reqwest::Client::new();
        let card: serde_json::Value = http
            .get(format!("{}/.well-known/agent-card.json", agent.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // The registry's envelope, `agent_id` beside the card: the card exactly as the SDK
        // serves it.
        let registered = http
            .post(format!("{}/agents/register", gateway.url))
            .json(&serde_json::json!({"agent_id": "py-echo", "card": card}))
            .send()
            .await
            .unwrap();
        assert_eq!(
            registered.status(),
            200,
            "{}",
            registered.text().await.unwrap()
        );
    });

    let url = format!("{}/a2a/py-echo", gateway.url);
    for binding in ["jsonrpc", "rest"] {
        for stream in [false, true] {
            let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
            command.args(["send", "--binding", binding]);
            if stream {
                command.arg("--stream");
            }
            let output = command
                .args([url.as_str(), "hello through the gateway"])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success() && stdout.contains("echo: hello through the gateway"),
                "{binding} stream={stream}: {}\n{stdout}{}\n--- agent log ---\n{}\n--- gateway log ---\n{}",
                describe(output.status),
                String::from_utf8_lossy(&output.stderr),
                agent.log(),
                gateway.log()
            );
        }
    }
}

/// The official SDK serves gRPC too: `a2a send --binding grpc` reaches its `GrpcHandler`
/// through the GRPC interface its card names (`127.0.0.1:PORT`, in the clear), plain and
/// streaming.
#[test]
fn a2a_send_over_grpc_reaches_a_python_sdk_agent() {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let agent = sdk::echo_agent_grpc(&python, STARTUP_TIMEOUT);
    for stream in [false, true] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
        command.args(["send", "--binding", "grpc"]);
        if stream {
            command.arg("--stream");
        }
        let output = command
            .args([agent.url.as_str(), "hello over grpc"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("echo: hello over grpc"),
            "stream={stream}: {}\n{stdout}{}\n--- agent log ---\n{}",
            describe(output.status),
            String::from_utf8_lossy(&output.stderr),
            agent.log()
        );
    }
}

/// Runs the Python driver against a fresh server over `binding` (`jsonrpc` or `rest`).
fn drive(binding: &str) {
    let Some(python) = sdk::interpreter() else {
        return;
    };
    let server = conformance_agent();
    run_driver(&python, &server.url, binding, &|| {
        format!("--- server log ---\n{}", server.log())
    });
}

/// Runs the driver against the agent at `url`; `logs` shows the servers' logs on failure.
fn run_driver(python: &Path, url: &str, binding: &str, logs: &dyn Fn() -> String) {
    let root = workspace_root();
    let script = root.join("tests/interop/python/drive_agent.py");
    assert!(
        script.is_file(),
        "driver script missing: {}",
        script.display()
    );
    let mut driver = sdk::command(python, &script);
    driver
        .arg(url)
        .arg(binding)
        .current_dir(&root)
        .env("A2A_API_KEY", API_KEY);
    a2a_test_support::driver::run(driver, "Python SDK", binding, DRIVER_TIMEOUT, logs);
}

/// `a2a serve --agent conformance` with the API key.
fn conformance_agent() -> Listening {
    spawn(&CONFORMANCE_AGENT, "a2a serve --agent conformance")
}

/// `a2a gateway` with its registry in memory.
fn gateway() -> Listening {
    spawn(
        &[
            "gateway",
            "--bind",
            "127.0.0.1:0",
            "--store",
            "sqlite::memory:",
        ],
        "a2a gateway",
    )
}

/// `a2a ARGS…`, once it printed its `listening on` line; `what` names it in failures.
fn spawn(args: &[&str], what: &str) -> Listening {
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
    command.args(args);
    Listening::start(command, "listening on ", what, STARTUP_TIMEOUT)
}
