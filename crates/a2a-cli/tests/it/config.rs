//! One configuration model for `a2a serve` and `a2a gateway`: settings from a `--config`
//! file and from `A2A_*` variables take effect on the wire, in the documented order.

use serde_json::{Value, json};

use crate::support::{Server, TempFile, a2a, run};

/// The status of a registration signed with `key`: 401 when the gateway wants another key.
async fn register_status(gateway: &Server, key: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{}/agents/register", gateway.url))
        .bearer_auth(key)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_takes_its_settings_from_the_config_file() {
    let file = TempFile::new(
        "gateway.toml",
        "bind = \"127.0.0.1:0\"\nstore = \"sqlite::memory:\"\nshutdown_grace = \"1s\"\n\
         registry_key = \"from-the-file\"\n",
    );
    let mut command = a2a();
    command.args(["gateway", "--config", file.path()]);
    let gateway = Server::spawn(command, "a2a gateway --config");
    assert_eq!(register_status(&gateway, "another").await, 401);
    assert_ne!(register_status(&gateway, "from-the-file").await, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_variable_beats_its_older_name_and_the_file() {
    let file = TempFile::new(
        "gateway.toml",
        "bind = \"127.0.0.1:0\"\nstore = \"sqlite::memory:\"\nregistry_key = \"from-the-file\"\n",
    );
    let mut command = a2a();
    command
        .args(["gateway", "--shutdown-grace", "1s"])
        .env("A2A_CONFIG", file.path())
        .env("A2A_GATEWAY_REGISTRY_KEY", "older-name")
        .env("A2A_REGISTRY_KEY", "preferred-name");
    let gateway = Server::spawn(command, "a2a gateway with A2A_CONFIG");
    assert_eq!(register_status(&gateway, "from-the-file").await, 401);
    assert_eq!(register_status(&gateway, "older-name").await, 401);
    assert_ne!(register_status(&gateway, "preferred-name").await, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_takes_settings_from_variables_over_its_file() {
    let file = TempFile::new(
        "serve.toml",
        "name = \"Named in the file\"\ndescription = \"Described in the file\"\n",
    );
    let mut command = a2a();
    command
        .env("A2A_NAME", "Named by a variable")
        .env("A2A_MAX_PAYLOAD_SIZE", "2000");
    let server = Server::start_command(command, &["--config", file.path()]);
    let card: Value = server.get("/.well-known/agent-card.json").await;
    assert_eq!(card["name"], "Named by a variable", "{card}");
    assert_eq!(card["description"], "Described in the file", "{card}");

    let big = "x".repeat(4000);
    let (status, body) = server
        .post(
            "/",
            &json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                "params": {"message": {"role": "ROLE_USER", "messageId": "m1",
                    "parts": [{"text": big}]}}}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("the request body is larger than 2000 bytes"),
        "{body}"
    );
}

#[test]
fn an_unknown_key_in_a_gateway_file_is_refused_naming_the_key_and_the_file() {
    let file = TempFile::new(
        "gateway.toml",
        "bind = \"127.0.0.1:0\"\nagent_tll = \"5m\"\n",
    );
    let output = run(&["gateway", "--config", file.path()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown key `agent_tll`"), "{stderr}");
    assert!(stderr.contains(file.path()), "{stderr}");
    assert!(stderr.lines().count() <= 2, "{stderr}");
}

#[test]
fn help_names_each_option_s_variable_and_default() {
    for (command, option, variable, default) in [
        ("gateway", "--agent-ttl", "A2A_AGENT_TTL", "[default: 300s]"),
        (
            "serve",
            "--async-timeout",
            "A2A_ASYNC_TIMEOUT",
            "[default: 300000]",
        ),
    ] {
        let output = run(&[command, "--help"]);
        let help = String::from_utf8_lossy(&output.stdout);
        let at = help.find(option).unwrap_or_else(|| panic!("{help}"));
        let entry: String = help[at..].lines().take(4).collect();
        assert!(entry.contains(&format!("[env: {variable}]")), "{entry}");
        assert!(entry.contains(default), "{entry}");
    }
}
