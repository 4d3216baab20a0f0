//! `a2a serve` with the defaults: start-up, the README's request, the card, shutdown, logs.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Server, TempFile, a2a, artifact_text, eventually, user_message};

/// The JSON body of the `curl` request in the README's "Run the main job" line.
fn readme_request() -> Value {
    let readme = include_str!("../../../../README.md");
    let line = readme
        .lines()
        .find(|line| line.contains("curl ") && line.contains("SendMessage"))
        .expect("the README shows a SendMessage request");
    let body = line
        .split_once("-d '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(body, _)| body)
        .expect("the request has a -d '…' body");
    serde_json::from_str(body).unwrap()
}

#[tokio::test]
async fn with_no_flags_it_starts_within_a_second_and_answers_the_readme_request() {
    let server = Server::start(&[]);
    assert!(
        server.startup < Duration::from_secs(1),
        "start-up took {:?}",
        server.startup
    );
    let (status, text) = server.post("/", &readme_request()).await;
    assert_eq!(status, 200, "{text}");
    let response: Value = serde_json::from_str(&text).unwrap();
    let task = &response["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_COMPLETED",
        "{response}"
    );
    assert_eq!(artifact_text(&task["artifacts"][0]), "hello");
}

#[tokio::test]
async fn the_card_names_both_bindings_at_the_root_and_both_answer() {
    let server = Server::start(&[]);
    let card = server.get("/.well-known/agent-card.json").await;
    let interfaces: Vec<(&str, &str, &str)> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|interface| {
            (
                interface["url"].as_str().unwrap(),
                interface["protocolBinding"].as_str().unwrap(),
                interface["protocolVersion"].as_str().unwrap(),
            )
        })
        .collect();
    let url = server.url.as_str();
    // The 1.0 interfaces first, then their v0.3 twins (v0.3 is served beside 1.0).
    assert_eq!(
        interfaces,
        [
            (url, "JSONRPC", "1.0"),
            (url, "HTTP+JSON", "1.0"),
            (url, "JSONRPC", "0.3"),
            (url, "HTTP+JSON", "0.3")
        ]
    );
    assert_eq!(card["url"], url);
    assert_eq!(card["capabilities"]["streaming"], true);

    let rest = json!({"message": user_message("m-rest", "over rest")});
    let (status, text) = server.post("/message:send", &rest).await;
    assert_eq!(status, 200, "{text}");
    let response: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        artifact_text(&response["task"]["artifacts"][0]),
        "over rest"
    );
}

#[tokio::test]
async fn the_echo_streams_over_both_bindings() {
    let server = Server::start(&[]);
    let rest = server
        .stream(
            "/message:stream",
            &json!({"message": user_message("s1", "hi")}),
        )
        .await;
    let last = rest.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "SendStreamingMessage",
                      "params": {"message": user_message("s2", "hi")}});
    let jsonrpc = server.stream("/", &body).await;
    assert!(jsonrpc.iter().all(|event| event["id"] == 7), "{jsonrpc:?}");
    let artifact = jsonrpc
        .iter()
        .find_map(|event| event["result"].get("artifactUpdate"))
        .unwrap();
    assert_eq!(artifact_text(&artifact["artifact"]), "hi");
}

#[tokio::test]
async fn sigterm_stops_the_server_gracefully() {
    let mut server = Server::start(&[]);
    let status = server.terminate().expect("the server stops within 5 s");
    assert_eq!(status.code(), Some(0), "log:\n{}", server.log());
    assert!(server.log().contains("shutting down"), "{}", server.log());
}

#[tokio::test]
async fn logs_are_json_lines_with_log_format_json() {
    let server = Server::start(&["--log-format", "json"]);
    let log = eventually(Duration::from_secs(5), || async {
        Some(server.log()).filter(|log| log.contains("serving"))
    })
    .await
    .expect("a start-up log line");
    for line in log.lines() {
        let event: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}"));
        assert!(event["level"].is_string(), "{line}");
    }
}

#[tokio::test]
async fn options_come_from_the_environment_and_the_config_file() {
    let file = TempFile::new(
        "a2a.toml",
        "name = \"From the file\"\nversion = \"1.2.3\"\n",
    );
    let mut command = a2a();
    command
        .env("A2A_CONFIG", file.path())
        .env("A2A_NAME", "From the environment");
    let server = Server::start_command(command, &[]);
    let card = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["name"], "From the environment");
    assert_eq!(card["version"], "1.2.3");
}

#[tokio::test]
async fn a_listener_beyond_loopback_logs_a_warning() {
    let server = Server::start(&["--bind", "0.0.0.0:0"]);
    let log = eventually(Duration::from_secs(5), || async {
        Some(server.log()).filter(|log| log.contains("serving"))
    })
    .await
    .expect("a start-up log line");
    assert!(log.contains("WARN"), "{log}");
    assert!(log.contains("without authentication"), "{log}");
}

#[tokio::test]
async fn cors_answers_preflights_only_when_enabled() {
    let preflight = |server: &Server| {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap();
        let request = http
            .request(
                reqwest::Method::OPTIONS,
                format!("{}/message:send", server.url),
            )
            .header("Origin", "https://app.example.com")
            .header("Access-Control-Request-Method", "POST");
        async move {
            let response = request.send().await.unwrap();
            response
                .headers()
                .get("access-control-allow-origin")
                .map(|value| value.to_str().unwrap().to_owned())
        }
    };
    assert_eq!(preflight(&Server::start(&[])).await, None);
    assert!(preflight(&Server::start(&["--cors"])).await.is_some());
}
