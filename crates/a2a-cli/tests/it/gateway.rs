//! `a2a gateway` (a KubeMQ-compatible A2A gateway) with a fleet of `a2a serve --register`
//! agents, all real binaries: agents register and are called through the gateway with
//! `a2a send`, streams included; one stops and deregisters, one dies without; the gateway
//! restarts on its SQLite file and still knows them; bad settings are refused.

use std::process::ExitStatus;
use std::time::Duration;

use serde_json::{Value, json};

use crate::client_mock::{Run, cli};
use crate::support::{Server, TempFile, eventually};

/// A running `a2a gateway`; stopped (SIGTERM, then SIGKILL) on drop.
struct Gateway {
    server: Server,
    /// `http://127.0.0.1:PORT`.
    url: String,
    http: reqwest::Client,
}

impl Gateway {
    /// `a2a gateway --bind 127.0.0.1:0 ARGS…`, once it prints `listening on`.
    fn start(args: &[&str]) -> Self {
        let server = Server::gateway(args);
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap();
        Self {
            url: server.url.clone(),
            server,
            http,
        }
    }

    fn log(&self) -> String {
        self.server.log()
    }

    /// `host:port`.
    fn address(&self) -> &str {
        self.url.strip_prefix("http://").unwrap()
    }

    /// The ids `GET /agents` lists, sorted.
    async fn agent_ids(&self) -> Vec<String> {
        let agents: Value = self
            .http
            .get(format!("{}/agents", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut ids: Vec<String> = agents
            .as_array()
            .unwrap_or_else(|| panic!("not an array: {agents}"))
            .iter()
            .map(|agent| agent["agent_id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    }

    /// Waits until `GET /agents` lists exactly `ids` (sorted).
    async fn lists(&self, ids: &[&str], within: Duration) {
        let listed = eventually(within, || async {
            (self.agent_ids().await == ids).then_some(())
        })
        .await;
        assert!(
            listed.is_some(),
            "GET /agents lists {:?}, not {ids:?}; gateway log:\n{}",
            self.agent_ids().await,
            self.log()
        );
    }

    /// The registry's record of `agent_id`.
    async fn record(&self, agent_id: &str) -> (u16, Value) {
        let response = self
            .http
            .get(format!("{}/agents/{agent_id}", self.url))
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// A v1.0 SendMessage to `/a2a/{agent_id}` with reqwest; the JSON-RPC response.
    async fn send(&self, agent_id: &str, text: &str) -> Value {
        let request = json!({
            "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
        });
        let response = self
            .http
            .post(format!("{}/a2a/{agent_id}", self.url))
            .header("a2a-version", "1.0")
            .json(&request)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            200,
            "gateway errors are JSON-RPC errors at HTTP 200"
        );
        response.json().await.unwrap()
    }

    /// SIGTERM, then up to 5 s for the exit.
    fn terminate(&mut self) -> Option<ExitStatus> {
        self.server.terminate()
    }
}

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

/// An agent of the fleet: `a2a serve` registered with `gateway` as `agent_id`, heartbeating
/// every 250 ms; `extra` is more arguments (`--agent exec -- …`).
fn agent(gateway: &str, agent_id: &str, extra: &[&str]) -> Server {
    let mut args = vec![
        "--register",
        gateway,
        "--agent-id",
        agent_id,
        "--heartbeat-interval",
        "250ms",
    ];
    args.extend_from_slice(extra);
    Server::start(&args)
}

/// Asserts the gateway error `code` with `message` (a JSON-RPC error at HTTP 200).
fn assert_gateway_error(body: &Value, code: i64, message: &str) {
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["message"], message, "{body}");
    assert_eq!(body["error"]["data"][0]["domain"], "a2a-gateway", "{body}");
    assert_eq!(
        body["error"]["data"][0]["metadata"]["executed"], "false",
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_is_served_through_the_gateway_and_survives_its_restart() {
    let db = TempFile::new("gw.db", "");
    let store = format!("sqlite://{}", db.path());
    let mut gateway = Gateway::start(&["--store", &store]);
    let gw = gateway.url.clone();
    let mut echo = agent(&gw, "echo-01", &[]);
    let upper = agent(
        &gw,
        "upper-01",
        &["--agent", "exec", "--", "tr", "a-z", "A-Z"],
    );
    let mut leaving = agent(&gw, "leaving-01", &[]);
    // Each agent registers once it serves.
    gateway
        .lists(
            &["echo-01", "leaving-01", "upper-01"],
            Duration::from_secs(10),
        )
        .await;

    // `a2a send` reaches each agent through the gateway (the card comes from
    // /a2a/{id}/.well-known/agent-card.json).
    for (agent_id, text, answer) in [
        ("echo-01", "hello echo", "── echo ──\nhello echo\n"),
        ("leaving-01", "hello leaving", "── echo ──\nhello leaving\n"),
        ("upper-01", "hello upper", "── output ──\nHELLO UPPER\n"),
    ] {
        let run = a2a_run(&["send", &format!("{gw}/a2a/{agent_id}"), text]).await;
        let stdout = run.ok();
        assert!(stdout.contains("  COMPLETED"), "{agent_id}: {stdout}");
        assert!(stdout.ends_with(answer), "{agent_id}: {stdout}");
    }
    // A stream relayed through the gateway, to its end.
    let run = a2a_run(&[
        "send",
        "--stream",
        &format!("{gw}/a2a/upper-01"),
        "a stream",
    ])
    .await;
    let stdout = run.ok();
    assert!(stdout.contains("● WORKING\n"), "{stdout}");
    assert!(stdout.contains("\nA STREAM\n"), "{stdout}");
    assert!(stdout.ends_with("● COMPLETED\n"), "{stdout}");

    // On shutdown an agent deregisters: after SIGTERM, calls to it are agent-not-found.
    let status = leaving.terminate().expect("the agent stops on SIGTERM");
    assert!(status.success(), "{status:?}; log:\n{}", leaving.log());
    assert!(leaving.log().contains("deregistered from the gateway"));
    assert_eq!(gateway.record("leaving-01").await.0, 404);
    assert_gateway_error(
        &gateway.send("leaving-01", "anyone?").await,
        -32002,
        "agent not found: leaving-01",
    );
    let run = a2a_run(&["send", &format!("{gw}/a2a/leaving-01"), "anyone?"]).await;
    assert_ne!(run.code, Some(0), "{}", run.stdout);

    // An agent that dies without deregistering stays registered, and is unreachable
    // (-32003, "agent unreachable").
    echo.kill();
    assert_eq!(gateway.record("echo-01").await.0, 200);
    assert_gateway_error(
        &gateway.send("echo-01", "anyone?").await,
        -32003,
        "agent unreachable: echo-01",
    );
    let run = a2a_run(&["send", &format!("{gw}/a2a/echo-01"), "anyone?"]).await;
    assert_ne!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stderr.contains("agent unreachable: echo-01"),
        "{}",
        run.stderr
    );

    // The registry is durable: a gateway restarted on the same file and port knows the
    // agents that did not deregister, routes to them, and takes their heartbeats.
    let address = gateway.address().to_owned();
    let status = gateway.terminate().expect("the gateway stops on SIGTERM");
    assert!(status.success(), "{status:?}; log:\n{}", gateway.log());
    let gateway = Gateway::start(&["--store", &store, "--bind", &address]);
    assert_eq!(gateway.url, gw);
    assert_eq!(gateway.agent_ids().await, ["echo-01", "upper-01"]);
    let (_, before) = gateway.record("upper-01").await;
    let run = a2a_run(&["send", &format!("{gw}/a2a/upper-01"), "after restart"]).await;
    assert!(run.ok().ends_with("AFTER RESTART\n"), "{}", run.stdout);
    let beaten = eventually(Duration::from_secs(5), || async {
        let (_, now) = gateway.record("upper-01").await;
        (now["last_seen"] != before["last_seen"]).then_some(now)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "no heartbeat after the restart; agent log:\n{}",
            upper.log()
        )
    });
    assert_eq!(
        beaten["registered_at"], before["registered_at"],
        "heartbeats and re-registering keep registered_at"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_outlive_the_ttl_and_a_killed_agent_expires() {
    // A registration expires after the agent TTL without a heartbeat; with a 1 s TTL the
    // agents heartbeat every 250 ms.
    let gateway = Gateway::start(&["--store", "sqlite::memory:", "--agent-ttl", "1s"]);
    let live = agent(&gateway.url, "live-01", &[]);
    let mut doomed = agent(&gateway.url, "doomed-01", &[]);
    gateway
        .lists(&["doomed-01", "live-01"], Duration::from_secs(10))
        .await;
    doomed.kill();
    // Gone within a TTL or so of its last heartbeat; the live one stays throughout.
    gateway.lists(&["live-01"], Duration::from_secs(3)).await;
    assert_gateway_error(
        &gateway.send("doomed-01", "anyone?").await,
        -32002,
        "agent not found: doomed-01",
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let answer = gateway.send("live-01", "still here").await;
    assert_eq!(
        answer["result"]["task"]["artifacts"][0]["parts"][0]["text"],
        "still here",
        "{answer}; agent log:\n{}",
        live.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_registry_key_only_agents_that_present_it_register() {
    let gateway = Gateway::start(&["--store", "sqlite::memory:", "--registry-key", "fleet-key"]);
    let keyed = Server::start(&[
        "--register",
        &gateway.url,
        "--agent-id",
        "keyed-01",
        "--register-key",
        "fleet-key",
    ]);
    let stranger = Server::start(&["--register", &gateway.url, "--agent-id", "stranger-01"]);
    gateway.lists(&["keyed-01"], Duration::from_secs(10)).await;
    let refused = eventually(Duration::from_secs(5), || async {
        stranger
            .log()
            .contains("cannot register with the gateway: the gateway answered HTTP 401: registry key required")
            .then_some(())
    })
    .await;
    assert!(refused.is_some(), "log:\n{}", stranger.log());
    assert_eq!(gateway.agent_ids().await, ["keyed-01"]);
    // Callers need no key: it guards the registry's writes only.
    let answer = gateway.send("keyed-01", "open").await;
    assert_eq!(
        answer["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{answer}; agent log:\n{}",
        keyed.log()
    );
}

#[test]
fn bad_settings_exit_2_and_unusable_resources_exit_3() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy = busy.local_addr().unwrap().to_string();
    let cases: [(&[&str], i32, &str); 7] = [
        (&["--timeout", "0"], 2, "--timeout must be more than 0"),
        (
            &["--timeout", "2h"],
            2,
            "--timeout must not exceed --max-timeout",
        ),
        (&["--jwks-url", "x"], 2, "--jwks-url needs --issuer"),
        (
            &["--jwks-url", "https://idp.example/jwks", "--issuer", "idp"],
            2,
            "--audience is required with --jwks-url",
        ),
        (
            &["--audience", "gw"],
            2,
            "--audience applies only with --jwks-url or --oidc-issuer",
        ),
        (&["--bind", &busy], 3, &format!("cannot listen on {busy}")),
        (
            &["--store", "sqlite:///nonexistent-a2a-dir/gw.db"],
            3,
            "cannot open the gateway's registry",
        ),
    ];
    for (args, code, message) in cases {
        let mut argv = vec!["gateway"];
        if !args.contains(&"--bind") {
            argv.extend(["--bind", "127.0.0.1:0"]);
        }
        if !args.contains(&"--store") {
            argv.extend(["--store", "sqlite::memory:"]);
        }
        argv.extend_from_slice(args);
        let run = cli(&argv);
        assert_eq!(run.code, Some(code), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
}

/// A gateway with `dead-01`, a v1.0 card, registered at a port nothing listens on.
async fn gateway_with_a_dead_agent() -> Gateway {
    let gateway = Gateway::start(&["--store", "sqlite::memory:"]);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let response = gateway
        .http
        .post(format!("{}/agents/register", gateway.url))
        .json(&json!({
            "agent_id": "dead-01", "name": "Dead", "description": "Gone", "version": "1",
            "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
            "skills": []
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    gateway
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_through_the_gateway_names_the_gateways_error_not_an_a2a_one() {
    let gateway = gateway_with_a_dead_agent().await;
    let run = a2a_run(&["send", &format!("{}/a2a/dead-01", gateway.url), "hi"]).await;
    assert_eq!(
        run.code,
        Some(3),
        "the agent is out of reach: {}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("a2a-gateway answered -32003 AGENT_UNREACHABLE: agent unreachable: dead-01"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("PUSH_NOTIFICATION_NOT_SUPPORTED"),
        "a gateway error is not the A2A error of the same code: {}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_to_an_unregistered_id_says_the_agent_is_not_found() {
    let gateway = gateway_with_a_dead_agent().await;
    let run = a2a_run(&["send", &format!("{}/a2a/never-01", gateway.url), "hi"]).await;
    assert_eq!(
        run.code,
        Some(3),
        "no such agent is out of reach: {}",
        run.stderr
    );
    // The card's 404 carries the gateway's reason: shown with the gateway's code (as a
    // JSON-RPC call gets it), not as the A2A error TaskNotFound that shares HTTP 404.
    assert!(
        run.stderr
            .contains("a2a-gateway answered -32002 AGENT_NOT_FOUND: agent not found: never-01"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("-32001"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_to_an_unregistered_id_names_the_gateways_code_on_both_bindings() {
    let gateway = gateway_with_a_dead_agent().await;
    for binding in ["JSONRPC", "HTTP+JSON"] {
        let run = a2a_run(&[
            "send",
            "--binding",
            binding,
            &format!("{}/a2a/never-01", gateway.url),
            "hi",
        ])
        .await;
        assert_eq!(run.code, Some(3), "{binding}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("a2a-gateway answered -32002 AGENT_NOT_FOUND"),
            "{binding}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_store_that_cannot_be_opened_is_named_once() {
    let run = cli(&[
        "gateway",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite:///nonexistent-a2a-dir/gw.db",
    ]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let repeated = run
        .stderr
        .matches("cannot connect to the registry database")
        .count();
    assert_eq!(repeated, 1, "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_answers_probes_and_logs_a_failed_agent_call_at_warn_without_secrets() {
    let gateway = gateway_with_a_dead_agent().await;
    for (path, body) in [("/healthz", "ok"), ("/readyz", "ready")] {
        let response = gateway
            .http
            .get(format!("{}{path}", gateway.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer, json!({"status": body}), "{path}");
    }
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
        "params": {"id": "t1"}});
    gateway
        .http
        .post(format!(
            "{}/a2a/dead-01?token=q-not-to-be-logged",
            gateway.url
        ))
        .header("Authorization", "Bearer t-not-to-be-logged")
        .json(&call)
        .send()
        .await
        .unwrap();
    let line = eventually(Duration::from_secs(5), || async {
        gateway
            .log()
            .lines()
            .find(|line| line.contains("WARN") && line.contains("agent unreachable"))
            .map(str::to_owned)
    })
    .await
    .unwrap_or_else(|| panic!("a warning:\n{}", gateway.log()));
    assert!(line.contains("dead-01"), "{line}");
    let log = gateway.log();
    assert!(!log.contains("not-to-be-logged"), "{log}");
}

#[tokio::test]
async fn metrics_bind_serves_metrics_on_a_listener_of_its_own() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let metrics_address = free.local_addr().unwrap();
    drop(free);
    let bind = metrics_address.to_string();
    let gateway = Gateway::start(&["--store", "sqlite::memory:", "--metrics-bind", &bind]);
    let page = eventually(Duration::from_secs(10), || async {
        let response = gateway
            .http
            .get(format!("http://{bind}/metrics"))
            .send()
            .await
            .ok()?;
        (response.status() == 200).then_some(response.text().await.ok()?)
    })
    .await
    .expect("the metrics listener answers");
    assert!(page.contains("kubemq_a2a_registered_agents"), "{page}");
    let beside = gateway
        .http
        .get(format!("{}/metrics", gateway.url))
        .send()
        .await
        .unwrap();
    assert_eq!(beside.status(), 404, "not beside the proxy any more");
    // The main listener still serves the proxy and the health checks.
    let health = gateway
        .http
        .get(format!("{}/healthz", gateway.url))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}
