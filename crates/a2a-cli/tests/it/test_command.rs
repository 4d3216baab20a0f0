//! `a2a test URL`, the conformance tester, over the real binary: against `a2a serve --agent
//! conformance` on its three bindings with v0.3 on (no MUST rule fails), against a broken
//! fake of our own (each fault fails the rule that names it, saying what went wrong), its
//! exit codes, its JUnit file, and `docs/conformance.md` as `--list --format markdown`
//! writes it.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::support::{Server, run};

/// `a2a test ARGS…` on a blocking thread; exit code and stdout.
async fn a2a_test(args: Vec<String>) -> (Option<i32>, String, String) {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = std::iter::once("test")
            .chain(args.iter().map(String::as_str))
            .collect();
        let output = run(&args);
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

/// The results of one rule in a JSON report.
fn results<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["rule"] == rule)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_conformance_agent_on_three_bindings_with_v03_fails_no_must_rule() {
    let server = Server::start(&[
        "--agent",
        "conformance",
        "--push-notifications",
        "--allow-local-webhooks",
        "--grpc-bind",
        "127.0.0.1:0",
    ]);
    let started = Instant::now();
    let (code, stdout, stderr) = a2a_test(vec![server.url.clone(), "--json".into()]).await;
    let took = started.elapsed();
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}\n{stderr}"));
    let checked: Vec<String> = report["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|interface| interface["checked"] == true)
        .map(|interface| {
            format!(
                "{} {}",
                interface["binding"].as_str().unwrap(),
                interface["version"].as_str().unwrap()
            )
        })
        .collect();
    for wanted in [
        "JSONRPC 1.0",
        "HTTP+JSON 1.0",
        "GRPC 1.0",
        "JSONRPC 0.3",
        "HTTP+JSON 0.3",
    ] {
        assert!(
            checked.iter().any(|got| got == wanted),
            "{wanted} not checked: {checked:?}"
        );
    }
    let failed_musts: Vec<&Value> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["level"] == "MUST" && result["verdict"] == "FAIL")
        .collect();
    assert!(
        failed_musts.is_empty(),
        "MUST rules fail: {failed_musts:#?}"
    );
    // The checks that need the conformance behaviours ran: the card declares them.
    for rule in [
        "streaming.subscribe",
        "operations.cancel",
        "push.no-delivery-after-delete",
    ] {
        for result in results(&report, rule) {
            assert_eq!(result["verdict"], "PASS", "{result:#}");
        }
    }
    let summary = &report["summary"]["by_level"];
    eprintln!(
        "a2a test against a2a serve --agent conformance: {:.1} s; MUST {}; SHOULD {}; MAY {}",
        took.as_secs_f64(),
        summary["MUST"],
        summary["SHOULD"],
        summary["MAY"]
    );
    // The goal is under 30 s here; the bound is generous for a loaded machine.
    assert!(took < Duration::from_secs(60), "the run took {took:?}");
    let expected_code = if results(&report, "push.delete-idempotent")
        .iter()
        .any(|result| result["verdict"] == "FAIL")
    {
        1
    } else {
        0
    };
    assert_eq!(code, Some(expected_code), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_runs_create_nothing_and_the_junit_file_lists_every_result() {
    let server = Server::start(&["--agent", "conformance"]);
    let junit = std::env::temp_dir().join(format!("a2a-test-{}.xml", std::process::id()));
    let (_, stdout, stderr) = a2a_test(vec![
        server.url.clone(),
        "--read-only".into(),
        "--json".into(),
        "--junit".into(),
        junit.display().to_string(),
    ])
    .await;
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}\n{stderr}"));
    let listed = server.rpc("ListTasks", json!({})).await;
    assert_eq!(
        listed["result"]["tasks"],
        json!([]),
        "a read-only run made tasks: {listed}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let _ = std::fs::remove_file(&junit);
    let cases = xml.matches("<testcase ").count();
    assert_eq!(cases, report["results"].as_array().unwrap().len(), "{xml}");
    assert!(
        xml.contains("name=\"errors.task-not-found [JSONRPC 1.0]\""),
        "{xml}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn exit_codes_say_usage_and_unreachable() {
    let (code, _, stderr) = a2a_test(vec![]).await;
    assert_eq!(code, Some(2), "{stderr}");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let (code, _, stderr) = a2a_test(vec![closed]).await;
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("cannot reach the agent"), "{stderr}");
    let (code, stdout, _) = a2a_test(vec!["--list".into()]).await;
    assert_eq!(code, Some(0));
    assert!(stdout.contains("errors.task-not-found"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn docs_conformance_md_is_the_generated_rule_list() {
    let (code, generated, stderr) =
        a2a_test(vec!["--list".into(), "--format".into(), "markdown".into()]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/conformance.md");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    let generated_part = on_disk.get(..generated.len()).unwrap_or(&on_disk);
    let first_difference = generated
        .lines()
        .zip(generated_part.lines())
        .find(|(want, got)| want != got);
    assert!(
        generated_part == generated,
        "docs/conformance.md differs from `a2a test --list --format markdown` (first: {first_difference:?}); \
         regenerate its generated part (everything up to the end-of-generated-rules line)"
    );
}

/// A deliberately broken agent: its card lacks `description` and declares push; GetTask of
/// any id answers an internal error instead of TaskNotFound; its streams never end; it
/// accepts webhooks and never calls them.
fn broken_agent(base: &str) -> axum::Router {
    let card = json!({
        "name": "Broken agent",
        "supportedInterfaces": [{"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "version": "1.0.0",
        "capabilities": {"streaming": true, "pushNotifications": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    });
    let task =
        json!({"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}});
    axum::Router::new()
        .route("/.well-known/agent-card.json", get(move || async move { axum::Json(card) }))
        .route(
            "/",
            post(move |body: String| async move {
                let request: Value = serde_json::from_str(&body).unwrap_or_default();
                let id = request["id"].clone();
                let answer = |result: Value| axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response();
                match request["method"].as_str().unwrap_or_default() {
                    "SendMessage" => answer(json!({"task": task})),
                    "GetTask" => axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": "internal"}})).into_response(),
                    "SendStreamingMessage" => {
                        let frames = [json!({"task": {"id": "t-2", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}}}),
                                      json!({"statusUpdate": {"taskId": "t-2", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}})]
                            .map(|event| Ok::<_, std::convert::Infallible>(format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": request["id"], "result": event}))));
                        // Both events, then the stream stays open for good.
                        let body = futures::StreamExt::chain(futures::stream::iter(frames), futures::stream::pending());
                        Response::builder()
                            .header("content-type", "text/event-stream")
                            .body(Body::from_stream(body))
                            .unwrap()
                    }
                    _ => answer(json!({})),
                }
            }),
        )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_agent_fails_the_rules_its_faults_break_and_says_what_went_wrong() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = broken_agent(&base);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let (code, stdout, stderr) = a2a_test(vec![
        base,
        "--json".into(),
        "--timeout".into(),
        "4s".into(),
        "--filter".into(),
        "card.required-fields".into(),
        "--filter".into(),
        "errors.task-not-found".into(),
        "--filter".into(),
        "streaming.ends-at-terminal".into(),
        "--filter".into(),
        "push.delivery".into(),
    ])
    .await;
    assert_eq!(code, Some(1), "{stderr}");
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}\n{stderr}"));
    let failure = |rule: &str| {
        let found = results(&report, rule);
        assert_eq!(found.len(), 1, "{rule}: {report:#}");
        assert_eq!(found[0]["verdict"], "FAIL", "{rule}: {:#}", found[0]);
        found[0]["reason"].as_str().unwrap().to_owned()
    };
    let missing = failure("card.required-fields");
    assert!(missing.contains("lacks description"), "{missing}");
    let wrong_code = failure("errors.task-not-found");
    assert!(
        wrong_code.contains("JSON-RPC error -32603, not -32001"),
        "{wrong_code}"
    );
    let open = failure("streaming.ends-at-terminal");
    assert!(
        open.contains("stayed open") && open.contains("after its final event"),
        "{open}"
    );
    let ignored = failure("push.delivery");
    assert!(
        ignored.contains("no delivery reached the receiver"),
        "{ignored}"
    );
    let result = &results(&report, "errors.task-not-found")[0];
    assert!(
        result["sent"].as_str().unwrap().contains("GetTask"),
        "{result:#}"
    );
    assert!(
        result["expected"].as_str().unwrap().contains("-32001"),
        "{result:#}"
    );
}

/// Runs `a2a test` against an official SDK agent at `url`: the run completes with a report,
/// every interface of the card is checked, and each FAIL is one of `known`, the divergences
/// of that SDK version from the spec (listed with the spec text that decides each in
/// docs/conformance.md).
async fn against_sdk_agent(url: String, interfaces: usize, known: &[&str]) {
    let (code, stdout, stderr) = a2a_test(vec![url, "--json".into()]).await;
    assert!(matches!(code, Some(0 | 1)), "exit {code:?}: {stderr}");
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}\n{stderr}"));
    let checked = report["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|interface| interface["checked"] == true)
        .count();
    assert_eq!(checked, interfaces, "{:#}", report["interfaces"]);
    let failures: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["verdict"] == "FAIL")
        .map(|result| {
            format!(
                "{} [{}]: {}",
                result["rule"].as_str().unwrap(),
                result["interface"].as_str().unwrap_or("-"),
                result["reason"].as_str().unwrap_or_default()
            )
        })
        .collect();
    eprintln!(
        "{} by level: {}\nfailures:\n  {}",
        report["agent_name"],
        report["summary"]["by_level"],
        failures.join("\n  ")
    );
    let unexpected: Vec<&String> = failures
        .iter()
        .filter(|failure| {
            !known
                .iter()
                .any(|rule| failure.starts_with(&format!("{rule} [")))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "failures not known as divergences of this SDK: {unexpected:#?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_echo_agent_is_checked_on_its_three_bindings() {
    let Some(python) = a2a_test_support::python::interpreter() else {
        return;
    };
    let agent = a2a_test_support::python::echo_agent_grpc(&python, Duration::from_secs(30));
    against_sdk_agent(
        agent.url.clone(),
        3,
        &[
            "card.caching",
            "errors.content-type-not-supported",
            "versions.unsupported",
            "versions.missing-means-0.3",
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_js_sdk_echo_agent_is_checked() {
    let Some((node, dir)) = a2a_test_support::js::sdk() else {
        return;
    };
    let mut command = std::process::Command::new(node);
    command
        .arg(dir.join("echo_agent.mjs"))
        .arg("0")
        .current_dir(&dir);
    let agent = a2a_test_support::python::Listening::start(
        command,
        "ready ",
        "echo_agent.mjs",
        Duration::from_secs(30),
    );
    against_sdk_agent(
        agent.url.clone(),
        1,
        &[
            "card.caching",
            "errors.invalid-params",
            "errors.content-type-not-supported",
        ],
    )
    .await;
}

/// A card signed with the test P-256 key (its header's `jku` set when given), altered after
/// signing when `tamper`, served beside the key's JWK Set at the well-known URIs.
async fn signed_card_agent(jku: Option<&str>, tamper: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let pem = std::fs::read(format!(
        "{}/../a2a-signature/tests/keys/p256.pem",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let key = a2a_signature::SigningKey::from_pem(pem).unwrap();
    let mut card = json!({
        "name": "Signed agent",
        "description": "A card signed by the test key",
        "supportedInterfaces": [{"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "version": "1.0.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    });
    let signature = a2a_signature::sign_card(card.as_object().unwrap(), &key, jku).unwrap();
    card["signatures"] = json!([serde_json::to_value(signature).unwrap()]);
    if tamper {
        card["name"] = json!("Someone else's agent");
    }
    let jwks = serde_json::to_value(a2a_signature::jwk_set([key.public_jwk()])).unwrap();
    let app = axum::Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || async move { axum::Json(card) }),
        )
        .route(
            "/.well-known/jwks.json",
            get(move || async move { axum::Json(jwks) }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// The verdict and reason of `rule` when `a2a test` checks only it at `url`.
async fn one_rule(url: String, rule: &str) -> (String, String) {
    let (code, stdout, stderr) =
        a2a_test(vec![url, "--json".into(), "--filter".into(), rule.into()]).await;
    assert!(matches!(code, Some(0 | 1)), "exit {code:?}: {stderr}");
    let report: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}\n{stderr}"));
    let found = results(&report, rule);
    assert_eq!(found.len(), 1, "{report:#}");
    (
        found[0]["verdict"].as_str().unwrap().to_owned(),
        found[0]["reason"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn card_signatures_are_verified_with_the_published_key_and_a_tampered_card_fails() {
    // Our server, signing its card: the signature verifies with its /.well-known/jwks.json.
    let key = format!(
        "{}/../a2a-signature/tests/keys/p256.pem",
        env!("CARGO_MANIFEST_DIR")
    );
    let server = Server::start(&["--agent", "conformance", "--card-signing-key", &key]);
    assert_eq!(
        one_rule(server.url.clone(), "card.signature-verifies")
            .await
            .0,
        "PASS"
    );
    assert_eq!(
        one_rule(server.url.clone(), "card.signatures").await.0,
        "PASS"
    );

    // A card changed after it was signed.
    let tampered = signed_card_agent(None, true).await;
    let (verdict, reason) = one_rule(tampered.clone(), "card.signature-verifies").await;
    assert_eq!(verdict, "FAIL", "{reason}");
    assert!(reason.contains("does not match the card"), "{reason}");
    // Its structure is still right: only the verification rule fails.
    assert_eq!(one_rule(tampered, "card.signatures").await.0, "PASS");

    // The same card untouched verifies, with the key at its jku as at the default.
    let intact = signed_card_agent(Some("/.well-known/jwks.json"), false).await;
    assert_eq!(one_rule(intact, "card.signature-verifies").await.0, "PASS");

    // A jku naming a key set that is not there.
    let lost = signed_card_agent(Some("/keys/gone.json"), false).await;
    let (verdict, reason) = one_rule(lost, "card.signature-verifies").await;
    assert_eq!(verdict, "FAIL", "{reason}");
    assert!(reason.contains("HTTP 404"), "{reason}");

    // An unsigned card: nothing to verify.
    let plain = Server::start(&["--agent", "conformance"]);
    let (verdict, reason) = one_rule(plain.url.clone(), "card.signature-verifies").await;
    assert_eq!(verdict, "SKIP", "{reason}");
    assert!(reason.contains("not signed"), "{reason}");
}
