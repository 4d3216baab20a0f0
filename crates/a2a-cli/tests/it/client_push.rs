//! `a2a push create|get|list|delete`, against a scripted agent that supports push (the
//! built-in agents do not, which is the refusal test).

use crate::client_mock::{MockAgent, Run, cli};
use crate::support::Server;

/// `a2a push create URL t-1 --url https://hooks.example/a2a ARGS…`.
fn create_hook(url: &str, args: &[&str]) -> Run {
    let mut argv = vec![
        "push",
        "create",
        url,
        "t-1",
        "--url",
        "https://hooks.example/a2a",
    ];
    argv.extend_from_slice(args);
    cli(&argv)
}

#[test]
fn create_sends_the_config_and_prints_it_without_secrets() {
    let agent = MockAgent::start();
    let run = create_hook(
        &agent.url,
        &[
            "--id",
            "cfg-9",
            "--token",
            "tok-sekrit",
            "--auth-scheme",
            "Bearer",
            "--auth-credentials",
            "cred-sekrit",
        ],
    );
    let text = run.ok();
    assert_eq!(
        text,
        "config cfg-9  https://hooks.example/a2a  task t-1  token set  auth Bearer (credentials set)\n"
    );
    assert!(!run.stderr.contains("sekrit"));

    let run = create_hook(&agent.url, &["--json", "--token", "tok-sekrit"]);
    let created = &run.json_lines()[0];
    assert_eq!(created["id"], "cfg-new", "the agent's id");
    assert_eq!(created["taskId"], "t-1");
    assert_eq!(
        created["token"], "tok-sekrit",
        "--json prints what the agent answered"
    );
}

#[test]
fn get_list_and_delete_print_configs() {
    let agent = MockAgent::start();
    let text = cli(&["push", "get", &agent.url, "t-1", "cfg-1"])
        .ok()
        .to_owned();
    assert!(
        text.starts_with("config cfg-1  https://hooks.example/a2a  task t-1"),
        "{text}"
    );
    assert!(!text.contains("secret"), "{text}");

    let text = cli(&["push", "list", &agent.url, "t-1"]).ok().to_owned();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().nth(1).unwrap().starts_with("config cfg-2"),
        "{text}"
    );

    let pages = cli(&["push", "list", &agent.url, "t-1", "--json"]).json_lines();
    assert_eq!(pages[0]["configs"].as_array().unwrap().len(), 2);

    assert_eq!(
        cli(&["push", "delete", &agent.url, "t-1", "cfg-1"]).ok(),
        "deleted config cfg-1\n"
    );
    assert_eq!(
        cli(&["push", "delete", &agent.url, "t-1", "cfg-1", "--json"]).ok(),
        "{}\n"
    );
}

#[test]
fn an_agent_without_push_support_refuses_with_exit_code_1() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli(&["push", "list", &server.url, "t-1"]);
    let line = run.failed(1);
    assert!(line.contains("PUSH_NOTIFICATION_NOT_SUPPORTED"), "{line}");
}
