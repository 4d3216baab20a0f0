//! `a2a agents list|get|register|heartbeat|deregister` against a real `a2a gateway` (its
//! registry key on), with a real `a2a serve` agent registered by hand and called through the
//! gateway.

use std::time::Duration;

use serde_json::{Value, json};

use crate::client_mock::{Run, cli};
use crate::support::{Server, TempFile, a2a};

const KEY: &str = "fleet-key";

/// `a2a ARGS…` off the runtime's threads.
async fn a2a_run(args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args)
    })
    .await
    .unwrap()
}

fn gateway(args: &[&str]) -> Server {
    let mut command = a2a();
    command.args([
        "gateway",
        "--shutdown-grace",
        "1s",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite::memory:",
    ]);
    command.args(args);
    Server::spawn(command, &format!("a2a gateway {args:?}"))
}

#[track_caller]
fn fails(run: &Run, code: i32, message: &str) {
    assert_eq!(
        run.code,
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stderr.contains(message), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_registered_listed_heartbeated_and_deregistered() {
    let gateway = gateway(&["--registry-key", KEY]);
    let gw = gateway.url.clone();
    let agent = Server::start(&[]);

    let run = a2a_run(&["agents", "list", &gw]).await;
    assert_eq!(run.ok(), "no agents registered\n");

    // The agent's own card, registered by hand under an id of our choosing.
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", agent.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let card_file = TempFile::new("card.json", &card.to_string());
    let register = [
        "agents",
        "register",
        &gw,
        "--card",
        card_file.path(),
        "--agent-id",
        "echo-01",
    ];
    // Writes need the key.
    let run = a2a_run(&register).await;
    fails(&run, 1, "HTTP 401: registry key required");
    let mut with_key = register.to_vec();
    with_key.extend(["--key", KEY]);
    let run = a2a_run(&with_key).await;
    let stdout = run.ok();
    assert!(
        stdout.starts_with("registered echo-01 at http://"),
        "{stdout}"
    );
    assert!(stdout.contains("registered at 20"), "{stdout}");

    // A second agent from flags only, a KubeMQ record with a tagged skill, as JSON.
    let record = TempFile::new(
        "record.json",
        &json!({"skills": [{"id": "s", "name": "search", "tags": ["search"]}]}).to_string(),
    );
    let run = a2a_run(&[
        "agents",
        "register",
        &gw,
        "--key",
        KEY,
        "--json",
        "--card",
        record.path(),
        "--agent-id",
        "search-01",
        "--name",
        "Search",
        "--url",
        "http://127.0.0.1:9/rpc",
    ])
    .await;
    let answer: Value = serde_json::from_str(run.ok()).unwrap();
    assert_eq!(answer["agent_id"], "search-01");
    assert_eq!(answer["url"], "http://127.0.0.1:9/rpc");
    assert!(answer["last_seen"].is_string(), "{answer}");

    // Without an id there is nothing to register: a usage error, nothing sent.
    let run = a2a_run(&["agents", "register", &gw, "--key", KEY, "--name", "X"]).await;
    fails(&run, 2, "give --agent-id");

    // Reads need no key.
    let run = a2a_run(&["agents", "list", &gw]).await;
    let lines: Vec<&str> = run.ok().lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("AGENT ID"), "{lines:?}");
    assert!(lines[1].starts_with("echo-01 "), "{lines:?}");
    assert!(lines[2].starts_with("search-01  Search"), "{lines:?}");
    let run = a2a_run(&["agents", "list", &gw, "--skill-tag", "search", "--json"]).await;
    let listed: Value = serde_json::from_str(run.ok()).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent["agent_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["search-01"]);
    let run = a2a_run(&["agents", "list", &gw, "--limit", "1", "--json"]).await;
    let listed: Value = serde_json::from_str(run.ok()).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);

    let run = a2a_run(&["agents", "get", &gw, "echo-01"]).await;
    let stdout = run.ok();
    assert!(stdout.contains("agent id:      echo-01\n"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "name:          {}\n",
            card["name"].as_str().unwrap()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("interface:     JSONRPC http://"),
        "{stdout}"
    );
    assert!(stdout.contains("last seen:     20"), "{stdout}");
    let run = a2a_run(&["agents", "get", &gw, "nobody-01"]).await;
    fails(&run, 1, "agent not found: nobody-01");

    // The registered agent is reached through the gateway.
    let run = a2a_run(&["send", &format!("{gw}/a2a/echo-01"), "hello there"]).await;
    let stdout = run.ok();
    assert!(stdout.contains("hello there"), "{stdout}");

    let run = a2a_run(&["agents", "heartbeat", &gw, "echo-01", "--key", KEY]).await;
    assert!(
        run.ok()
            .starts_with("heartbeat sent for echo-01; last seen 20"),
        "{}",
        run.stdout
    );
    let run = a2a_run(&["agents", "heartbeat", &gw, "nobody-01", "--key", KEY]).await;
    fails(&run, 1, "agent not found: nobody-01");
    let run = a2a_run(&[
        "agents",
        "heartbeat",
        &gw,
        "echo-01",
        "--json",
        "--key",
        KEY,
    ])
    .await;
    let answer: Value = serde_json::from_str(run.ok()).unwrap();
    assert_eq!(answer["agent_id"], "echo-01");

    let run = a2a_run(&["agents", "deregister", &gw, "echo-01"]).await;
    fails(&run, 1, "HTTP 401");
    let run = a2a_run(&["agents", "deregister", &gw, "echo-01", "--key", KEY]).await;
    assert_eq!(run.ok(), "deregistered echo-01\n");
    let run = a2a_run(&["agents", "deregister", &gw, "echo-01", "--key", KEY]).await;
    fails(&run, 1, "agent not found: echo-01");
    let run = a2a_run(&["agents", "list", &gw, "--json"]).await;
    let listed: Value = serde_json::from_str(run.ok()).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_may_come_from_the_environment_and_an_agent_registers_itself() {
    let gateway = gateway(&["--registry-key", KEY]);
    let gw = gateway.url.clone();
    let _agent = Server::start(&[
        "--register",
        &gw,
        "--agent-id",
        "self-01",
        "--register-key",
        KEY,
        "--heartbeat-interval",
        "250ms",
    ]);
    let mut listed = String::new();
    for _ in 0..100 {
        listed = a2a_run(&["agents", "list", &gw]).await.ok().to_owned();
        if listed.contains("self-01") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(listed.contains("self-01 "), "{listed}");

    let output = tokio::task::spawn_blocking(move || {
        a2a()
            .args(["agents", "deregister", &gw, "self-01"])
            .env("A2A_REGISTER_KEY", KEY)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "deregistered self-01\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_gateway_and_a_bad_url_have_their_exit_codes() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let run = a2a_run(&["agents", "list", &format!("http://127.0.0.1:{port}")]).await;
    fails(&run, 3, "cannot reach the gateway at http://127.0.0.1:");
    let run = a2a_run(&["agents", "get", "ftp://gateway", "a1"]).await;
    fails(&run, 2, "is not an http:// or https:// URL");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubemq_variables_configure_the_gateway_and_ours_win() {
    let mut command = a2a();
    command
        .args(["gateway", "--shutdown-grace", "1s", "--bind", "127.0.0.1:0"])
        .args(["--store", "sqlite::memory:"])
        .env("KUBEMQ_A2A_REGISTRY_KEY", "theirs")
        .env("A2A_GATEWAY_REGISTRY_KEY", "ours")
        .env("KUBEMQ_A2A_LEGACY_CODES", "true");
    let gateway = Server::spawn(command, "a2a gateway with KUBEMQ_A2A_*");
    let gw = gateway.url.clone();
    let register = |key: &'static str| {
        let gw = gw.clone();
        async move {
            a2a_run(&[
                "agents",
                "register",
                &gw,
                "--key",
                key,
                "--agent-id",
                "dead-01",
                "--name",
                "Dead",
                "--url",
                "http://127.0.0.1:9/",
            ])
            .await
        }
    };
    fails(&register("theirs").await, 1, "HTTP 401");
    register("ours").await.ok();
    // Legacy codes: an unreachable agent is -32603.
    let answer: Value = reqwest::Client::new()
        .post(format!("{gw}/a2a/dead-01"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": {"message": {"parts": [{"text": "hi"}]}}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(answer["error"]["message"], "agent unreachable: dead-01");
}
