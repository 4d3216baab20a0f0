//! The client commands speaking A2A v0.3 to our own server (`a2a serve` serves both
//! versions): `--protocol-version 0.3` on both HTTP bindings, plain and streaming, and the
//! commands on a task.

use crate::client_mock::cli;
use crate::support::Server;

#[test]
fn send_get_and_cancel_speak_v03_to_our_server_on_both_bindings() {
    let server = Server::start(&["--agent", "echo"]);
    for binding in ["jsonrpc", "rest"] {
        let flags = ["--protocol-version", "0.3", "--binding", binding];
        let plain_run = cli(&[&["send"], &flags[..], &[&server.url, "hello 0.3"]].concat());
        let plain = plain_run.ok();
        assert!(
            plain.contains("COMPLETED") && plain.ends_with("── echo ──\nhello 0.3\n"),
            "{binding}: {plain}"
        );
        let streamed_run =
            cli(&[&["send", "--stream"], &flags[..], &[&server.url, "one two"]].concat());
        let streamed = streamed_run.ok();
        assert!(
            streamed.contains("one") && streamed.contains("two") && streamed.contains("COMPLETED"),
            "{binding}: {streamed}"
        );
        let json_run = cli(&[&["send", "--json"], &flags[..], &[&server.url, "kept"]].concat());
        let json = json_run.ok();
        let value: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
        let id = value["task"]["id"].as_str().unwrap().to_owned();
        let got_run = cli(&[&["get"], &flags[..], &[&server.url, &id]].concat());
        let got = got_run.ok();
        assert!(
            got.contains(&id) && got.contains("COMPLETED"),
            "{binding}: {got}"
        );
        let refused = cli(&[&["cancel"], &flags[..], &[&server.url, &id]].concat());
        assert!(
            refused.stderr.contains("TASK_NOT_CANCELABLE"),
            "{binding}: {}",
            refused.stderr
        );
    }
}
