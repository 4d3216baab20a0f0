//! `a2a webhook`: the development receiver prints each push delivery with its signature and
//! token checks (issue 8 items 5 and 6), and refuses failed checks with 401.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use a2a_server::push::signing::{PushSigner, SIGNATURE_HEADER};
use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::support::a2a;

const BODY: &str = r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00.000Z"}}}"#;
const LINE_LIMIT: Duration = Duration::from_secs(20);

/// A running `a2a webhook`, whose stdout lines arrive on a channel; killed on drop.
struct Webhook {
    child: Option<Child>,
    url: String,
    lines: tokio::sync::mpsc::UnboundedReceiver<String>,
    stderr: Arc<Mutex<String>>,
    http: reqwest::Client,
}

impl Webhook {
    async fn start(args: &[&str]) -> Self {
        let mut child = a2a()
            .args(["webhook", "--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            sink.lock().unwrap().push_str(&text);
        });
        let stdout = child.stdout.take().unwrap();
        let (send, mut lines) = tokio::sync::mpsc::unbounded_channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let first = tokio::time::timeout(LINE_LIMIT, lines.recv()).await;
        let first = first.ok().flatten().unwrap_or_else(|| {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "no `listening on` line; stderr:\n{}",
                stderr.lock().unwrap()
            )
        });
        let url = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
            .to_owned();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()
            .unwrap();
        Self {
            child: Some(child),
            url,
            lines,
            stderr,
            http,
        }
    }

    /// POSTs `body` to `path` with `headers`; returns the status and the line printed.
    async fn post(&mut self, path: &str, headers: &[(&str, String)], body: &str) -> (u16, String) {
        let mut request = self
            .http
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/a2a+json")
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let status = request.send().await.unwrap().status().as_u16();
        let line = tokio::time::timeout(LINE_LIMIT, self.lines.recv()).await;
        let line = line.ok().flatten().unwrap_or_else(|| {
            panic!(
                "no line for the delivery; stderr:\n{}",
                self.stderr.lock().unwrap()
            )
        });
        (status, line)
    }
}

impl Webhook {
    /// Sends SIGTERM and waits up to 10 s for the exit.
    async fn terminate(&mut self) -> Option<ExitStatus> {
        let mut child = self.child.take()?;
        let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
        signal::kill(pid, Signal::SIGTERM).unwrap();
        for _ in 0..200 {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The headers an agent sends (the token under both of its names), with the signature when
/// `signer` is given.
fn headers(
    signer: Option<&PushSigner>,
    body: &str,
    token: Option<&str>,
) -> Vec<(&'static str, String)> {
    let mut headers = Vec::new();
    if let Some(signer) = signer {
        headers.push((SIGNATURE_HEADER, signer.sign(body.as_bytes()).unwrap()));
    }
    if let Some(token) = token {
        headers.push(("A2A-Notification-Token", token.to_owned()));
        headers.push(("X-A2A-Notification-Token", token.to_owned()));
    }
    headers
}

struct Idle;

#[async_trait::async_trait]
impl AgentExecutor for Idle {
    async fn execute(&self, _: RequestContext, _: TaskUpdater) -> Result<(), ExecutorError> {
        Ok(())
    }
}

/// An agent on 127.0.0.1 that signs with `signer` and serves its keys; returns its base URL.
async fn signing_agent(signer: PushSigner) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = AgentCard::new("Signer", "Signs its push deliveries.", "1.0.0").with_interface(
        AgentInterface::new(format!("{base}/a2a"), ProtocolBinding::JsonRpc),
    );
    let server = A2aServer::builder(card, Idle)
        .authentication(a2a_server::auth::Authentication::disabled())
        .push_signer(signer)
        .build()
        .unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    base
}

/// A bare JWK Set endpoint whose keys the test can change (key rotation); returns its URL.
async fn jwks_server(keys: Arc<Mutex<Value>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/keys.json", listener.local_addr().unwrap());
    let router = axum::Router::new().route(
        "/keys.json",
        axum::routing::get(move || {
            let keys = keys.lock().unwrap().clone();
            async move { axum::Json(keys) }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    url
}

/// The line's time stamp is RFC 3339 UTC with milliseconds; returns the rest.
fn after_time(line: &str) -> &str {
    let (time, rest) = line.split_once(' ').unwrap();
    assert!(
        time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
        "{line}"
    );
    rest
}

#[tokio::test]
async fn a_signed_delivery_is_printed_with_its_checks() {
    let signer = PushSigner::generate().unwrap();
    let agent = signing_agent(signer.clone()).await;
    let mut webhook = Webhook::start(&["--jwks", &agent, "--token", "t1"]).await;

    let (status, line) = webhook
        .post("/hooks/a", &headers(Some(&signer), BODY, Some("t1")), BODY)
        .await;
    assert_eq!(status, 200, "{line}");
    assert_eq!(
        after_time(&line),
        "/hooks/a task t1 COMPLETED  signature: ok  token: ok  -> 200"
    );
}

#[tokio::test]
async fn unsigned_tampered_or_wrongly_tokened_deliveries_are_refused_when_checks_are_on() {
    let signer = PushSigner::generate().unwrap();
    let agent = signing_agent(signer.clone()).await;
    let mut webhook = Webhook::start(&["--jwks", &agent, "--token", "t1"]).await;

    let (status, line) = webhook
        .post("/", &headers(None, BODY, Some("t1")), BODY)
        .await;
    assert_eq!(status, 401, "{line}");
    assert!(
        line.ends_with(
            "signature: INVALID (no A2A-Notification-Signature header)  token: ok  -> 401"
        ),
        "{line}"
    );

    let signed = headers(Some(&signer), BODY, Some("t1"));
    let tampered = BODY.replace("COMPLETED", "FAILED");
    let (status, line) = webhook.post("/", &signed, &tampered).await;
    assert_eq!(status, 401, "{line}");
    assert!(line.contains("task t1 FAILED"), "{line}");
    assert!(
        line.contains("signature: INVALID (signature does not match"),
        "{line}"
    );

    // Signed by a key the agent never published.
    let stranger = PushSigner::generate().unwrap();
    let (status, line) = webhook
        .post("/", &headers(Some(&stranger), BODY, Some("t1")), BODY)
        .await;
    assert_eq!(status, 401, "{line}");
    assert!(line.contains("signature: INVALID (unknown key"), "{line}");

    let (status, line) = webhook
        .post("/", &headers(Some(&signer), BODY, Some("t2-sekrit")), BODY)
        .await;
    assert_eq!(status, 401, "{line}");
    assert!(
        line.ends_with("signature: ok  token: INVALID (wrong notification token)  -> 401"),
        "{line}"
    );
    assert!(!line.contains("sekrit"), "{line}");
}

#[tokio::test]
async fn without_keys_a_signature_is_reported_unchecked_and_the_token_still_counts() {
    let signer = PushSigner::generate().unwrap();
    let mut webhook = Webhook::start(&["--token", "t1"]).await;

    let (status, line) = webhook
        .post("/", &headers(Some(&signer), BODY, Some("t1")), BODY)
        .await;
    assert_eq!(status, 200, "{line}");
    assert!(
        line.ends_with("signature: unchecked  token: ok  -> 200"),
        "{line}"
    );

    let (status, line) = webhook.post("/", &headers(None, BODY, None), BODY).await;
    assert_eq!(status, 401, "{line}");
    assert!(
        line.ends_with("signature: absent  token: INVALID (no notification token)  -> 401"),
        "{line}"
    );

    let (status, line) = webhook
        .post("/", &headers(None, "{}", Some("t1")), "{}")
        .await;
    assert_eq!(status, 400, "{line}");
    assert!(line.contains("body: INVALID ("), "{line}");
}

#[tokio::test]
async fn json_output_has_the_body_and_the_checks() {
    let signer = PushSigner::generate().unwrap();
    let keys = Arc::new(Mutex::new(signer.jwks()));
    let jwks = jwks_server(keys).await;
    let mut webhook = Webhook::start(&["--jwks", &jwks, "--json"]).await;

    let (status, line) = webhook
        .post("/hook", &headers(Some(&signer), BODY, None), BODY)
        .await;
    assert_eq!(status, 200, "{line}");
    let printed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(printed["path"], "/hook");
    assert_eq!(printed["status"], 200);
    assert_eq!(
        printed["checks"],
        json!({
            "signature": {"result": "ok", "kid": signer.kid()},
            "token": {"result": "absent"},
            "body": {"result": "ok"},
        })
    );
    assert_eq!(
        printed["body"],
        serde_json::from_str::<Value>(BODY).unwrap()
    );
    assert!(printed["time"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn a_rotated_key_is_fetched_again_on_its_first_delivery() {
    let old = PushSigner::generate().unwrap();
    let keys = Arc::new(Mutex::new(old.jwks()));
    let jwks = jwks_server(Arc::clone(&keys)).await;
    let mut webhook = Webhook::start(&["--jwks", &jwks]).await;

    let new = PushSigner::generate().unwrap();
    *keys.lock().unwrap() = new.jwks();
    let (status, line) = webhook
        .post("/", &headers(Some(&new), BODY, None), BODY)
        .await;
    assert_eq!(status, 200, "{line}");
    assert!(line.contains("signature: ok"), "{line}");
}

#[test]
fn unreachable_keys_stop_the_receiver_with_exit_code_3() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let output = a2a()
        .args(["webhook", "--listen", "127.0.0.1:0", "--jwks"])
        .arg(format!("http://{closed}"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cannot fetch the push keys at"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[tokio::test]
async fn sigterm_stops_the_receiver() {
    let mut webhook = Webhook::start(&[]).await;
    let status = webhook.terminate().await.expect("stopped within 10 s");
    assert!(status.success(), "{status:?}");
}
