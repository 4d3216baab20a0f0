//! `a2a get`, `list`, `cancel` and `subscribe` against tasks made by `a2a send`.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::Stdio;

use serde_json::Value;

use crate::client_mock::{Run, cli};
use crate::support::{Server, a2a};

/// Sends `text` with `--json` (and `extra` flags) and returns the task.
fn send(server: &Server, text: &str, extra: &[&str]) -> Value {
    let mut args = vec!["send", server.url.as_str(), text, "--json"];
    args.extend_from_slice(extra);
    cli(&args).json_lines()[0]["task"].clone()
}

fn id(task: &Value) -> &str {
    task["id"].as_str().unwrap()
}

/// A conformance task that works for a few seconds.
fn slow_task(server: &Server) -> Value {
    // Each call is a new send: a repeated message id would answer the first task again.
    static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    send(
        server,
        "slow",
        &[
            "--return-immediately",
            "--message-id",
            &format!("test-resubscribe-message-id-{n}"),
        ],
    )
}

#[test]
fn get_prints_a_task_with_its_artifacts_and_json_prints_the_task() {
    let server = Server::start(&["--agent", "echo"]);
    let task = send(&server, "remember me", &[]);
    let run = cli(&["get", &server.url, id(&task)]);
    let text = run.ok();
    assert!(
        text.starts_with(&format!("task {}  COMPLETED\n", id(&task))),
        "{text}"
    );
    assert!(text.contains("── echo ──\nremember me\n"), "{text}");

    let run = cli(&[
        "get",
        &server.url,
        id(&task),
        "--json",
        "--history-length",
        "1",
    ]);
    let fetched = &run.json_lines()[0];
    assert_eq!(fetched["id"], task["id"]);
    assert_eq!(fetched["history"].as_array().map(Vec::len), Some(1));
}

#[test]
fn list_shows_a_table_filters_and_follows_pages() {
    let server = Server::start(&["--agent", "echo"]);
    let first = send(&server, "one", &[]);
    let context = first["contextId"].as_str().unwrap().to_owned();
    send(&server, "two", &["--context-id", &context]);
    send(&server, "three", &[]);

    let text = cli(&["list", &server.url]).ok().to_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("TASK ") && lines[0].contains("STATE"),
        "{text}"
    );
    assert_eq!(lines.len(), 5, "header, three tasks, footer: {text}");
    assert_eq!(lines[4], "3 of 3 tasks");
    assert!(
        lines[1..4].iter().all(|line| line.contains("COMPLETED")),
        "{text}"
    );

    let run = cli(&["list", &server.url, "--context-id", &context, "--json"]);
    let page = &run.json_lines()[0];
    assert_eq!(page["tasks"].as_array().unwrap().len(), 2);

    let run = cli(&["list", &server.url, "--state", "working"]);
    assert_eq!(run.ok(), "0 of 0 tasks\n");

    let run = cli(&["list", &server.url, "--page-size", "1"]);
    let text = run.ok();
    assert!(
        text.contains("1 of 3 tasks; next page: --page-token "),
        "{text}"
    );

    let pages = cli(&["list", &server.url, "--page-size", "1", "--all", "--json"]).json_lines();
    assert_eq!(pages.len(), 3, "one line per page");
    let ids: Vec<&str> = pages
        .iter()
        .map(|page| page["tasks"][0]["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&id(&first)));
    assert_eq!(pages[2]["nextPageToken"], "");
}

#[test]
fn cancel_stops_a_running_task_and_a_second_cancel_is_refused() {
    let server = Server::start(&["--agent", "conformance"]);
    let task = slow_task(&server);
    let run = cli(&["cancel", &server.url, id(&task)]);
    assert_eq!(run.ok(), format!("task {}  CANCELED\n", id(&task)));

    let again = cli(&["cancel", &server.url, id(&task)]);
    let line = again.failed(1);
    assert!(line.contains("TASK_NOT_CANCELABLE"), "{line}");
}

#[test]
fn subscribe_follows_a_task_to_its_end() {
    let server = Server::start(&["--agent", "conformance"]);
    let task = slow_task(&server);
    let run = cli(&["subscribe", &server.url, id(&task)]);
    let text = run.ok();
    assert!(text.ends_with("● COMPLETED\n"), "{text}");

    let task = slow_task(&server);
    let events = cli(&["subscribe", &server.url, id(&task), "--json"]).json_lines();
    assert!(
        events[0].get("task").is_some(),
        "a snapshot first: {events:?}"
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[test]
fn subscribe_exits_1_when_the_task_is_canceled() {
    let server = Server::start(&["--agent", "conformance"]);
    let task = slow_task(&server);
    let mut subscriber = a2a()
        .args(["subscribe", &server.url, id(&task)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first line is the task's snapshot: the subscription is open.
    let mut stdout = BufReader::new(subscriber.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("task "), "{first}");
    cli(&["cancel", &server.url, id(&task)]).ok();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let output = subscriber.wait_with_output().unwrap();
    let run = Run {
        code: output.status.code(),
        stdout: first + &rest,
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    let line = run.failed(1);
    assert!(
        line.starts_with(&format!("error: task {} ended CANCELED", id(&task))),
        "{line}"
    );
    assert!(run.stdout.contains("CANCELED"), "{}", run.stdout);
}
