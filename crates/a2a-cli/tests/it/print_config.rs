//! `a2a serve --print-config` and `a2a gateway --print-config`: with nothing set they print
//! `docs/serve.toml` and `docs/gateway.toml` byte for byte (`A2A_UPDATE_SAMPLES=1` rewrites
//! the files instead); what a flag, a variable or the file sets is written out; secrets never.

use std::path::PathBuf;

use crate::support::{TempFile, a2a};

fn sample_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name)
}

/// `a2a COMMAND --print-config ARGS…` with `variables`, from a directory with no files, as
/// its standard output.
fn print_config(command: &str, args: &[&str], variables: &[(&str, &str)]) -> String {
    let dir = std::env::temp_dir();
    let output = a2a()
        .arg(command)
        .arg("--print-config")
        .args(args)
        .envs(variables.iter().copied())
        .env_remove("NO_COLOR")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(output.stderr.is_empty(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn matches_sample(command: &str, name: &str) {
    let printed = print_config(command, &[], &[]);
    let path = sample_path(name);
    if std::env::var_os("A2A_UPDATE_SAMPLES").is_some() {
        std::fs::write(&path, &printed).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap();
    assert!(
        printed == checked_in,
        "docs/{name} is not what `a2a {command} --print-config` prints; regenerate it with \
         A2A_UPDATE_SAMPLES=1 cargo test -p a2a-cli --test it print_config\n{printed}"
    );
}

#[test]
fn print_config_with_nothing_set_is_the_serve_sample_file() {
    matches_sample("serve", "serve.toml");
}

#[test]
fn print_config_with_nothing_set_is_the_gateway_sample_file() {
    matches_sample("gateway", "gateway.toml");
}

#[test]
fn serve_print_config_writes_out_every_source_and_hides_secrets() {
    let file = TempFile::new(
        "print-config-serve.toml",
        "cors = true\nlease_ttl = \"45s\"\n",
    );
    let printed = print_config(
        "serve",
        &[
            "--config",
            file.path(),
            "--max-connections",
            "7",
            "--mcp",
            "npx server one",
            "--mcp",
            "two",
        ],
        &[
            ("A2A_API_KEY", "sekrit-api-key"),
            ("A2A_BEARER_TOKEN", "sekrit-token"),
            ("A2A_LOG_LEVEL", "debug"),
            ("A2A_SHUTDOWN_GRACE", "10000"),
        ],
    );
    for line in [
        "max_connections = 7\n",
        "cors = true\n",
        "lease_ttl = \"45s\"\n",
        "log_level = \"debug\"\n",
        "mcp = [\"npx server one\", \"two\"]\n",
        "# api_key = \"********\"  # set; secrets are not printed\n",
        "# bearer_token = \"********\"  # set; secrets are not printed\n",
        // Set to its default: still the default's comment.
        "# shutdown_grace = \"10s\"\n",
    ] {
        assert!(printed.contains(line), "{line:?} not in\n{printed}");
    }
    assert!(!printed.contains("sekrit"), "{printed}");

    // What it prints is a file the command reads back into the same settings.
    let again = TempFile::new("print-config-again.toml", &printed);
    let reread = print_config("serve", &["--config", again.path()], &[]);
    let without_secrets = printed.replace(
        "# api_key = \"********\"  # set; secrets are not printed\n",
        "# api_key = \"change-me\"  # example\n",
    );
    let without_secrets = without_secrets.replace(
        "# bearer_token = \"********\"  # set; secrets are not printed\n",
        "# bearer_token = \"change-me\"  # example\n",
    );
    assert_eq!(reread, without_secrets);
}

#[test]
fn serve_print_config_refuses_settings_that_do_not_go_together() {
    let output = a2a()
        .args([
            "serve",
            "--print-config",
            "--jwks-url",
            "https://issuer.example/jwks",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
}

#[test]
fn gateway_print_config_writes_out_every_source_and_hides_secrets() {
    let file = TempFile::new("print-config-gateway.toml", "max_agents = 12\n");
    let printed = print_config(
        "gateway",
        &["--config", file.path(), "--agent-ttl", "7m"],
        &[
            ("A2A_REGISTRY_KEY", "sekrit-registry-key"),
            (
                "KUBEMQ_A2A_CORS_ORIGINS",
                "https://a.example,https://b.example",
            ),
            ("A2A_TIMEOUT", "300s"),
        ],
    );
    for line in [
        "agent_ttl = \"7m\"\n",
        "max_agents = 12\n",
        "cors_origins = [\"https://a.example\", \"https://b.example\"]\n",
        "# registry_key = \"********\"  # set; secrets are not printed\n",
        "# timeout = \"5m\"\n",
    ] {
        assert!(printed.contains(line), "{line:?} not in\n{printed}");
    }
    assert!(!printed.contains("sekrit"), "{printed}");
    let again = TempFile::new("print-config-gateway-again.toml", &printed);
    let reread = print_config("gateway", &["--config", again.path()], &[]);
    assert_eq!(
        reread,
        printed.replace(
            "# registry_key = \"********\"  # set; secrets are not printed\n",
            "# registry_key = \"change-me\"  # example\n",
        )
    );
}
