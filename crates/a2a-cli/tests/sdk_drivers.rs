//! Interop through the official SDKs' own clients, each run as a driver script against the
//! real `a2a serve --agent conformance` binary over JSON-RPC and REST.
//!
//! The JS SDK `@a2a-js/sdk` 1.3.0 client speaks A2A v1.0: card, send, stream, get, list,
//! push config (create, get, list, delete; its webhook checks the v1.0 `StreamResponse`
//! deliveries and the token header), subscribe, cancel, and the errors as the SDK's error
//! classes. Its driver is `tests/interop/js/drive_agent.mjs`.
//!
//! The v0.3 SDKs (issue 18): the Python SDK 0.3.26 client and the
//! JS SDK `@a2a-js/sdk` 0.3.14 client drive the same binary, which serves v0.3 beside 1.0
//! on the same URLs, over JSON-RPC and REST: send,
//! stream, get, push config (set, get; list and delete too from JS, whose webhook and the
//! Python one check the v0.3 Task delivery and its token header), resubscribe, cancel, and
//! the v0.3 errors.
//!
//! The drivers are `tests/interop/python03/drive_agent.py` (run with the interpreter of
//! `target/python-sdk-03`, made by `bash .ci/run`; `A2A_PYTHON_03` overrides it) and
//! `tests/interop/js03/drive_agent.mjs` (run with `node`, its SDK installed by `npm ci` in
//! that directory, also by `bash .ci/run`). Each prints one line per check and
//! `all checks passed [BINDING]` at the end.
//!
//! Without an SDK the tests are skipped with a notice, except under `CI=true`, where they
//! fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Duration;

use a2a_test_support::python::{self as sdk, Listening, workspace_root};

/// The key the agent requires and the drivers present.
const API_KEY: &str = "interop-key-v03-0123456789";

/// How long the server may take to print its `listening on` line.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one driver run may take before it is killed.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(180);

#[test]
fn js_sdk_client_over_jsonrpc() {
    js_v1("jsonrpc");
}

#[test]
fn js_sdk_client_over_rest() {
    js_v1("rest");
}

#[test]
fn python_sdk_03_client_over_jsonrpc() {
    python("jsonrpc");
}

#[test]
fn python_sdk_03_client_over_rest() {
    python("rest");
}

#[test]
fn js_sdk_03_client_over_jsonrpc() {
    js("jsonrpc");
}

#[test]
fn js_sdk_03_client_over_rest() {
    js("rest");
}

/// The same over a SQLite store: the v0.3 registration is remembered by what the SQL push
/// store persists, so the delivery is still the v0.3 Task.
#[test]
fn python_sdk_03_client_over_jsonrpc_with_a_sql_store() {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let script = workspace_root().join("tests/interop/python03/drive_agent.py");
    let agent = conformance_agent("sqlite::memory:");
    run_driver(
        sdk::command(&python, &script),
        &agent,
        "jsonrpc",
        "Python 0.3",
    );
}

fn python(binding: &str) {
    let Some(python) = sdk::interpreter_03() else {
        return;
    };
    let script = workspace_root().join("tests/interop/python03/drive_agent.py");
    let agent = conformance_agent("memory");
    let driver = sdk::command(&python, &script);
    run_driver(driver, &agent, binding, "Python 0.3");
}

fn js_v1(binding: &str) {
    let Some((node, dir)) = a2a_test_support::js::sdk() else {
        return;
    };
    let agent = conformance_agent("memory");
    let mut driver = Command::new(node);
    driver.arg(dir.join("drive_agent.mjs")).current_dir(&dir);
    run_driver(driver, &agent, binding, "JS 1.3");
}

fn js(binding: &str) {
    let Some((node, dir)) = a2a_test_support::js::sdk_03() else {
        return;
    };
    let agent = conformance_agent("memory");
    let mut driver = Command::new(node);
    driver.arg(dir.join("drive_agent.mjs")).current_dir(&dir);
    run_driver(driver, &agent, binding, "JS 0.3");
}

/// `a2a serve --agent conformance` with push (local webhooks: the drivers' are on
/// 127.0.0.1), tasks in `store`, the API key required, both protocol versions (the default).
fn conformance_agent(store: &str) -> Listening {
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a"));
    command.args([
        "serve",
        "--agent",
        "conformance",
        "--bind",
        "127.0.0.1:0",
        "--store",
        store,
        "--api-key",
        API_KEY,
        "--push-notifications",
        "--allow-local-webhooks",
    ]);
    Listening::start(
        command,
        "listening on ",
        "a2a serve --agent conformance",
        STARTUP_TIMEOUT,
    )
}

/// Runs `driver URL BINDING` against `agent` and checks it passed every check.
fn run_driver(mut driver: Command, agent: &Listening, binding: &str, what: &str) {
    driver
        .arg(&agent.url)
        .arg(binding)
        .env("A2A_API_KEY", API_KEY);
    a2a_test_support::driver::run(driver, what, binding, DRIVER_TIMEOUT, &|| {
        format!("--- server log ---\n{}", agent.log())
    });
}
