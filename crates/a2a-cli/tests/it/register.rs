//! `a2a serve --register`: the agent registers with a gateway registry served in
//! this process, heartbeats, registers again when the registry forgot it, and deregisters
//! on SIGTERM; a gateway that is down delays the registration, never the serving.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::agent::AgentDirectory as _;
use a2a_gateway::registry::{Registry, router};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::support::{SERVE_IN_MEMORY, Server, a2a, eventually, run};

/// A registry on `sqlite::memory:`, served on `listener` until the test ends.
async fn serve_registry(listener: TcpListener) -> (Arc<Registry>, String) {
    let registry = Arc::new(Registry::in_memory().await.unwrap());
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = router(Arc::clone(&registry));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (registry, url)
}

async fn registry() -> (Arc<Registry>, String) {
    serve_registry(TcpListener::bind("127.0.0.1:0").await.unwrap()).await
}

/// The registry's record of `agent_id`, once it has one.
async fn registered(url: &str, agent_id: &str, within: Duration) -> Option<Value> {
    let http = reqwest::Client::new();
    eventually(within, || async {
        let response = http
            .get(format!("{url}/agents/{agent_id}"))
            .send()
            .await
            .ok()?;
        if response.status() != 200 {
            return None;
        }
        response.json().await.ok()
    })
    .await
}

async fn status_of(url: &str, agent_id: &str) -> u16 {
    reqwest::get(format!("{url}/agents/{agent_id}"))
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_agent_registers_heartbeats_and_deregisters_on_sigterm() {
    let (registry, url) = registry().await;
    let mut server = Server::start(&[
        "--register",
        &url,
        "--agent-id",
        "echo-agent",
        "--heartbeat-interval",
        "200ms",
        "--no-auth",
    ]);
    let record = registered(&url, "echo-agent", Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("not registered; log:\n{}", server.log()));
    assert_eq!(record["agent_id"], "echo-agent");
    assert_eq!(record["name"], "Echo");
    assert_eq!(record["url"], server.url.as_str(), "{record}");
    assert_eq!(
        record["supportedInterfaces"][0]["url"],
        server.url.as_str(),
        "{record}"
    );
    let agent = registry.find("echo-agent").await.unwrap().unwrap();
    assert_eq!(agent.jsonrpc_url.as_deref(), Some(server.url.as_str()));
    assert_eq!(agent.rest_url.as_deref(), Some(server.url.as_str()));
    // The registered URL is the agent's: its card is there.
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["name"], record["name"]);

    // Heartbeats move last_seen; registered_at stays.
    let first_seen = agent.last_seen;
    let beaten = eventually(Duration::from_secs(5), || async {
        let agent = registry.find("echo-agent").await.unwrap()?;
        (agent.last_seen > first_seen).then_some(agent)
    })
    .await
    .unwrap_or_else(|| panic!("no heartbeat; log:\n{}", server.log()));
    assert_eq!(beaten.registered_at, agent.registered_at);

    // A registry that forgot the agent (expiry, restart) hears from it again.
    assert!(registry.deregister("echo-agent").await.unwrap());
    let again = registered(&url, "echo-agent", Duration::from_secs(5))
        .await
        .unwrap_or_else(|| panic!("not registered again; log:\n{}", server.log()));
    assert_eq!(again["url"], server.url.as_str());

    let status = server.terminate().expect("the server stops on SIGTERM");
    assert!(status.success(), "{status:?}; log:\n{}", server.log());
    assert_eq!(status_of(&url, "echo-agent").await, 404, "deregistered");
    let log = server.log();
    assert!(log.contains("registered with the gateway"), "{log}");
    assert!(log.contains("deregistered from the gateway"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_that_is_down_delays_registration_but_not_serving() {
    // Reserve a port, then leave it unanswered until the agent runs.
    let reserved = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = reserved.local_addr().unwrap();
    drop(reserved);
    let url = format!("http://{address}");
    // No --agent-id: the id comes from the card's name, "Echo".
    let server = Server::start(&["--register", &url, "--heartbeat-interval", "200ms"]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["name"], "Echo", "the agent serves without its gateway");
    let tried = eventually(Duration::from_secs(5), || async {
        server
            .log()
            .contains("cannot register with the gateway")
            .then_some(())
    })
    .await;
    assert!(tried.is_some(), "log:\n{}", server.log());

    let (_registry, url) = serve_registry(TcpListener::bind(address).await.unwrap()).await;
    let record = registered(&url, "echo", Duration::from_secs(10))
        .await
        .unwrap_or_else(|| {
            panic!(
                "not registered after the gateway came up; log:\n{}",
                server.log()
            )
        });
    assert_eq!(record["url"], server.url.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_with_a_registry_key_takes_only_agents_that_present_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let registry = Arc::new(Registry::in_memory().await.unwrap());
    let gateway = a2a_gateway::Gateway::new(
        Arc::clone(&registry),
        a2a_gateway::proxy::ProxyConfig::default(),
    )
    .registry_key("fleet-key");
    let app = gateway.router();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let keyless = Server::start(&[
        "--register",
        &url,
        "--agent-id",
        "keyless",
        "--heartbeat-interval",
        "200ms",
        "--no-auth",
    ]);
    let mut command = a2a();
    command.env("A2A_REGISTER_KEY", "fleet-key");
    let mut keyed = Server::start_command(
        command,
        &[
            "--register",
            &url,
            "--agent-id",
            "keyed",
            "--heartbeat-interval",
            "200ms",
            "--no-auth",
        ],
    );
    registered(&url, "keyed", Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("not registered; log:\n{}", keyed.log()));
    let refused = eventually(Duration::from_secs(5), || async {
        keyless
            .log()
            .contains("cannot register with the gateway: the gateway answered HTTP 401: registry key required")
            .then_some(())
    })
    .await;
    assert!(refused.is_some(), "log:\n{}", keyless.log());
    assert_eq!(status_of(&url, "keyless").await, 404);
    assert!(
        !keyed.log().contains("fleet-key"),
        "the key never reaches the log"
    );

    // The key also carries the deregistration.
    keyed.terminate().unwrap();
    assert_eq!(status_of(&url, "keyed").await, 404, "{}", keyed.log());
}

#[test]
fn registration_options_are_checked_before_serving() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "--register",
                "http://127.0.0.1:9",
                "--agent-id",
                "Echo_Agent",
            ],
            "--agent-id: agent_id \"Echo_Agent\" may hold only lowercase letters, digits and hyphens",
        ),
        (
            &["--register", "127.0.0.1:9"],
            "--register: `127.0.0.1:9` is not an http:// or https:// URL",
        ),
        (
            &["--agent-id", "echo"],
            "--agent-id: applies only with --register",
        ),
        (
            &[
                "--register",
                "http://127.0.0.1:9",
                "--heartbeat-interval",
                "0",
            ],
            "--heartbeat-interval: must be more than 0",
        ),
    ];
    for (args, message) in cases {
        let mut argv = SERVE_IN_MEMORY.to_vec();
        argv.extend_from_slice(args);
        let output = run(&argv);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// A gateway that answers each path's first call with 503 and `Retry-After: 2`, then 200,
/// and records when each call came.
async fn busy_gateway() -> (
    String,
    Arc<std::sync::Mutex<Vec<(String, std::time::Instant)>>>,
) {
    let calls: Arc<std::sync::Mutex<Vec<(String, std::time::Instant)>>> = Arc::default();
    let seen = Arc::clone(&calls);
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let seen = Arc::clone(&seen);
        async move {
            let path = uri.path().to_owned();
            let first = {
                let mut calls = seen.lock().unwrap();
                calls.push((path.clone(), std::time::Instant::now()));
                calls.iter().filter(|(called, _)| *called == path).count() == 1
            };
            if first {
                axum::response::Response::builder()
                    .status(503)
                    .header("retry-after", "2")
                    .body(axum::body::Body::from("busy"))
                    .unwrap()
            } else {
                axum::response::Response::new(axum::body::Body::from("{}"))
            }
        }
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_asking_to_retry_after_is_not_called_again_sooner() {
    let (url, calls) = busy_gateway().await;
    let server = Server::start(&["--register", &url, "--heartbeat-interval", "100ms"]);
    let times = |path: &str| -> Vec<std::time::Instant> {
        let calls = calls.lock().unwrap();
        let times = calls.iter().filter(|(called, _)| called == path);
        times.map(|(_, at)| *at).collect()
    };
    let beaten = eventually(Duration::from_secs(15), || async {
        (times("/agents/heartbeat").len() >= 2).then_some(())
    })
    .await;
    assert!(beaten.is_some(), "log:\n{}", server.log());
    // The backoff alone would register again within a second, and the heartbeat
    // interval is 100 ms.
    for path in ["/agents/register", "/agents/heartbeat"] {
        let times = times(path);
        let gap = times[1] - times[0];
        assert!(gap >= Duration::from_secs(2), "{path} again after {gap:?}");
    }
}
