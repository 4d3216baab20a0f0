//! Exit codes of the client commands — 1 the agent refused or the task failed, 2 usage,
//! 3 the agent cannot be reached — each with one line on stderr, and credentials that are
//! sent but never shown.

use std::net::TcpListener;

use crate::client_mock::{MockAgent, cli};
use crate::support::Server;

#[test]
fn usage_mistakes_exit_2() {
    let url = "http://127.0.0.1:9";
    for args in [
        &["send", url][..],
        &["send", url, "hi", "--data", "{not json"],
        &["send", url, "hi", "--file", "/nonexistent/file.txt"],
        &["send", url, "hi", "--timeout", "soon"],
        &["send", url, "hi", "--binding", "soap"],
        &["list", url, "--state", "napping"],
        &[
            "list",
            url,
            "--state",
            "working",
            "--state",
            "failed",
            "--page-token",
            "x",
        ],
        &["push", "create", url, "t-1"],
        &["get", url],
        &["send", url, "hi", "--api-key", "k", "--bearer", "b"],
    ] {
        let run = cli(args);
        run.failed(2);
        assert!(run.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_missing_argument_is_named() {
    let run = cli(&["push", "create", "http://127.0.0.1:9", "t-1"]);
    let line = run.failed(2);
    assert_eq!(
        line,
        "error: the following required arguments were not provided: --url <URL>"
    );
}

#[test]
fn a_bad_header_is_refused_without_showing_its_value() {
    for header in ["no-colon-sekrit", "X-Key: sekrit\u{7}"] {
        let run = cli(&["get", "http://127.0.0.1:9", "t", "--header", header]);
        let line = run.failed(2);
        assert!(!line.contains("sekrit"), "{line}");
    }
}

fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

#[test]
fn an_agent_that_cannot_be_reached_exits_3() {
    for url in [closed_port_url(), "http://no-such-host.invalid".to_owned()] {
        for command in [&["card"][..], &["send", "--json"], &["list"]] {
            let mut args = vec![command[0], url.as_str()];
            if command[0] == "send" {
                args.push("hi");
            }
            let run = cli(&args);
            let line = run.failed(3);
            assert!(line.contains("cannot"), "{line}");
        }
    }
}

#[test]
fn an_agent_that_does_not_answer_in_time_exits_3() {
    // Accepts connections (the kernel queues them) but never reads or answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let started = std::time::Instant::now();
    let run = cli(&["card", &url, "--timeout", "500ms"]);
    let line = run.failed(3);
    assert!(line.contains("timed out"), "{line}");
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

#[test]
fn the_agents_refusals_and_failed_tasks_exit_1() {
    let server = Server::start(&["--agent", "conformance"]);
    let run = cli(&["get", &server.url, "no-such-task"]);
    let line = run.failed(1);
    assert!(line.contains("TASK_NOT_FOUND"), "{line}");

    let run = cli(&[
        "send",
        &server.url,
        "hi",
        "--message-id",
        "tck-reject-task-e",
    ]);
    let line = run.failed(1);
    assert!(
        line.starts_with("error: task ")
            && line.ends_with(" ended REJECTED: Rejected by the conformance agent"),
        "{line}"
    );
    assert!(
        run.stdout.contains("REJECTED"),
        "the task is still shown: {}",
        run.stdout
    );

    let run = cli(&[
        "send",
        &server.url,
        "hi",
        "--json",
        "--message-id",
        "tck-reject-task-j",
    ]);
    run.failed(1);
    let response: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(response["task"]["status"]["state"], "TASK_STATE_REJECTED");
}

#[test]
fn credentials_and_headers_are_sent_but_never_shown() {
    let agent = MockAgent::denying();
    let cases: [(&[&str], &str, &str); 4] = [
        (
            &["--bearer", "bearer-sekrit"],
            "authorization",
            "Bearer bearer-sekrit",
        ),
        (
            &["--api-key", "key-sekrit", "--api-key-header", "X-API-Key"],
            "x-api-key",
            "key-sekrit",
        ),
        (
            &["--header", "X-Custom: header-sekrit"],
            "x-custom",
            "header-sekrit",
        ),
        (
            &[
                "--oauth-client-id",
                "me",
                "--oauth-client-secret",
                "client-sekrit",
                "--oauth-token-url",
                "TOKEN",
            ],
            "authorization",
            "Bearer oauth-access-sekrit",
        ),
    ];
    for (flags, header, value) in cases {
        let token_url = format!("{}/token", agent.url);
        let mut args = vec!["send", agent.url.as_str(), "hi"];
        args.extend(flags.iter().map(|flag| {
            if *flag == "TOKEN" {
                token_url.as_str()
            } else {
                flag
            }
        }));
        let run = cli(&args);
        let line = run.failed(1);
        assert!(line.contains("401"), "{line}");
        assert!(
            !run.stderr.contains("sekrit") && !run.stdout.contains("sekrit"),
            "{flags:?}: {line}"
        );
        let sent = agent.headers();
        let last = sent.last().unwrap();
        assert_eq!(
            last.get(header).map(|v| v.to_str().unwrap()),
            Some(value),
            "{flags:?}"
        );
        assert_eq!(
            last.get("a2a-version").map(|v| v.to_str().unwrap()),
            Some("1.0")
        );
    }
}
