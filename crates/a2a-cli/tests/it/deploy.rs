//! The files of `docs/deploy/` against the real binary: the systemd units pass
//! `systemd-analyze verify` (where it is installed) and their command lines are accepted by
//! `a2a`; each container of the Kubernetes manifest, started with its own args and
//! environment, answers its liveness, readiness and metrics paths on the port its probes and
//! scrape annotations name.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use crate::support::{Server, TempFile, a2a};

fn deploy_file(name: &str) -> (PathBuf, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/deploy")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{name}: {error}"));
    (path, text)
}

fn sample(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(name)
        .display()
        .to_string()
}

/// The `[Service]` settings of a unit, `name → values` in order.
fn service_settings(unit: &str) -> BTreeMap<String, Vec<String>> {
    let mut settings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section = String::new();
    for line in unit.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = line.to_owned();
            continue;
        }
        let (name, value) = line.split_once('=').unwrap_or_else(|| panic!("{line:?}"));
        if section == "[Service]" {
            settings
                .entry(name.to_owned())
                .or_default()
                .push(value.to_owned());
        }
    }
    settings
}

#[test]
fn the_systemd_units_verify_and_their_command_lines_work() {
    for (unit_name, command, sample_file) in [
        ("a2a-serve.service", "serve", "serve.toml"),
        ("a2a-gateway.service", "gateway", "gateway.toml"),
    ] {
        let (_, unit) = deploy_file(unit_name);
        let settings = service_settings(&unit);
        let exec_start = &settings["ExecStart"][0];
        let words: Vec<&str> = exec_start.split_whitespace().collect();
        assert_eq!(words[..2], ["/usr/local/bin/a2a", command], "{unit_name}");
        assert_eq!(settings["KillSignal"], ["SIGTERM"]);
        assert_eq!(
            settings["RestartPreventExitStatus"],
            ["2"],
            "usage errors stay down"
        );
        // Longer than the default shutdown grace (10 s): draining finishes before a kill.
        let stop = settings["TimeoutStopSec"][0].trim_end_matches('s');
        assert!(stop.parse::<u64>().unwrap() > 10, "{unit_name}");

        // The command line, with the file it starts from, is accepted.
        let mut args: Vec<String> = words[1..].iter().map(|word| (*word).to_owned()).collect();
        let config = args.iter().position(|arg| arg == "--config").unwrap();
        args[config + 1] = sample(sample_file);
        let mut run = a2a();
        for environment in settings.get("Environment").into_iter().flatten() {
            let (name, value) = environment.split_once('=').unwrap();
            run.env(name, value);
        }
        let output = run.args(&args).arg("--print-config").output().unwrap();
        assert!(output.status.success(), "{unit_name}: {output:?}");

        // systemd's own check, with the binary where the unit looks for it.
        let installed = unit.replace("/usr/local/bin/a2a", env!("CARGO_BIN_EXE_a2a"));
        let copy = TempFile::new(unit_name, &installed);
        match Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(&copy.path)
            .output()
        {
            Ok(output) => assert!(
                output.status.success() && output.stderr.is_empty(),
                "{unit_name}: {}",
                String::from_utf8_lossy(&output.stderr)
            ),
            Err(_) => eprintln!("no systemd-analyze here: {unit_name} checked by parsing only"),
        }
    }
}

/// One container of the manifest, as far as the test needs it.
#[derive(Debug, Default)]
struct Container {
    args: Vec<String>,
    /// Literal `value:` variables.
    variables: Vec<(String, String)>,
    /// Variables from `valueFrom` (secrets).
    secrets: Vec<String>,
    container_port: Option<u16>,
    /// `(probe, path, port name)`.
    probes: Vec<(String, String, String)>,
    port_names: Vec<String>,
    scrape_port: Option<u16>,
    scrape_path: Option<String>,
}

fn unquote(text: &str) -> String {
    text.trim().trim_matches('"').to_owned()
}

/// The Deployments' containers of the manifest, read line by line (the file keeps to the
/// plain block style this reader knows, flow lists for `args`).
fn containers(manifest: &str) -> Vec<Container> {
    let mut found = Vec::new();
    for document in manifest.split("\n---\n") {
        if !document
            .lines()
            .any(|line| line.trim() == "kind: Deployment")
        {
            continue;
        }
        let mut container = Container::default();
        let lines: Vec<&str> = document.lines().map(str::trim).collect();
        let mut probe = None;
        for (index, line) in lines.iter().enumerate() {
            let next = lines.get(index + 1).copied().unwrap_or_default();
            if let Some(args) = line.strip_prefix("args: ") {
                container.args = serde_json::from_str(args).unwrap();
            } else if let Some(name) = line.strip_prefix("- name: ") {
                if let Some(value) = next.strip_prefix("value: ") {
                    container.variables.push((name.to_owned(), unquote(value)));
                } else if next == "valueFrom:" {
                    container.secrets.push(name.to_owned());
                } else if next.starts_with("containerPort: ") {
                    container.port_names.push(name.to_owned());
                }
            } else if let Some(port) = line.strip_prefix("containerPort: ") {
                container.container_port = Some(port.parse().unwrap());
            } else if *line == "livenessProbe:" || *line == "readinessProbe:" {
                probe = Some(line.trim_end_matches(':').to_owned());
            } else if let Some(path) = line.strip_prefix("path: ") {
                let port = next.strip_prefix("port: ").unwrap_or_default().to_owned();
                let which = probe.take().expect("a path outside a probe");
                container.probes.push((which, path.to_owned(), port));
            } else if let Some(port) = line.strip_prefix("prometheus.io/port: ") {
                container.scrape_port = Some(unquote(port).parse().unwrap());
            } else if let Some(path) = line.strip_prefix("prometheus.io/path: ") {
                container.scrape_path = Some(unquote(path));
            }
        }
        found.push(container);
    }
    found
}

#[tokio::test]
async fn the_kubernetes_probes_and_scrape_paths_answer_on_the_real_binary() {
    let (_, manifest) = deploy_file("kubernetes.yaml");
    let containers = containers(&manifest);
    assert_eq!(containers.len(), 2, "{containers:?}");
    let http = reqwest::Client::new();
    for container in containers {
        let port = container.container_port.unwrap();
        assert_eq!(container.scrape_port, Some(port), "{container:?}");
        assert_eq!(container.port_names, ["http"], "{container:?}");
        let probes: Vec<(&str, &str)> = container
            .probes
            .iter()
            .map(|(probe, path, port_name)| {
                assert_eq!(port_name, "http", "{container:?}");
                (probe.as_str(), path.as_str())
            })
            .collect();
        assert_eq!(
            probes,
            [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")]
        );

        // The container's command, on a local port instead of the pod's.
        let mut command = a2a();
        command.args(&container.args);
        let mut bind = None;
        for (name, value) in &container.variables {
            if name == "A2A_BIND" {
                bind = Some(value.clone());
                command.env(name, "127.0.0.1:0");
            } else {
                command.env(name, value);
            }
        }
        assert_eq!(bind, Some(format!("0.0.0.0:{port}")), "{container:?}");
        for secret in &container.secrets {
            let value = match (secret.as_str(), container.args[0].as_str()) {
                ("A2A_STORE", "serve") => "memory",
                ("A2A_STORE", _) => "sqlite::memory:",
                _ => "a-long-test-secret",
            };
            command.env(secret, value);
        }
        let server = Server::spawn(command, &format!("{:?}", container.args));
        for (_, path) in &probes {
            let answer = http
                .get(format!("{}{path}", server.url))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200, "{path} of {:?}", container.args);
        }
        let metrics = container.scrape_path.clone().unwrap();
        let answer = http
            .get(format!("{}{metrics}", server.url))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{metrics} of {:?}", container.args);
        let content_type = answer.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(content_type.starts_with("text/plain"), "{content_type}");
    }
}
