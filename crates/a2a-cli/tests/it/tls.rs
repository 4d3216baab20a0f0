//! `a2a serve --tls-cert … --tls-key …` (HTTPS) and `--client-ca` (mutual TLS), and the client
//! commands' `--cacert`, `--cert` and `--key`; certificates from the test CA.

use a2a_test_support::tls::{PemFiles, Pki};

use crate::client_mock::cli;
use crate::support::{Server, TempFile, run};

/// The test CA's certificates as PEM files: the server's, and a client certificate for
/// `alice`.
fn pki() -> PemFiles {
    Pki::new("alice").files()
}

/// Starting the `a2a` servers with the server certificate.
trait ServeHttps {
    /// `a2a gateway` over HTTPS (registry in memory) with the server certificate and `key`.
    fn gateway_args<'a>(&'a self, key: &'a str) -> [&'a str; 9];
    /// `a2a serve` over HTTPS with `extra` flags.
    fn serve(&self, extra: &[&str]) -> Server;
}

impl ServeHttps for PemFiles {
    fn gateway_args<'a>(&'a self, key: &'a str) -> [&'a str; 9] {
        [
            "gateway",
            "--bind",
            "127.0.0.1:0",
            "--store",
            "sqlite::memory:",
            "--tls-cert",
            &self.server_cert,
            "--tls-key",
            key,
        ]
    }

    fn serve(&self, extra: &[&str]) -> Server {
        let mut args = vec![
            "--tls-cert",
            &self.server_cert,
            "--tls-key",
            &self.server_key,
        ];
        args.extend_from_slice(extra);
        Server::start(&args)
    }
}

#[test]
fn https_serves_the_card_and_messages_to_clients_that_trust_the_ca() {
    let pki = pki();
    let server = pki.serve(&[]);
    assert!(
        server.url.starts_with("https://127.0.0.1:"),
        "{}",
        server.url
    );

    let text = cli(&["card", &server.url, "--cacert", &pki.ca])
        .ok()
        .to_owned();
    // The card advertises the https URL the server is reached at.
    assert!(
        text.contains(&format!("  JSONRPC    {}", server.url)),
        "{text}"
    );
    let text = cli(&["send", &server.url, "hello", "--cacert", &pki.ca])
        .ok()
        .to_owned();
    assert!(text.ends_with("hello\n"), "{text}");

    // Without the CA the server's certificate is not trusted: the agent cannot be reached.
    let line = cli(&["card", &server.url]).failed(3).to_owned();
    assert!(line.contains("cannot reach"), "{line}");
}

#[test]
fn with_client_ca_a_client_certificate_is_accepted_as_the_credential() {
    let pki = pki();
    let server = pki.serve(&["--client-ca", &pki.ca]);
    let with_key_file = cli(&[
        "send",
        &server.url,
        "hello",
        "--cacert",
        &pki.ca,
        "--cert",
        &pki.client_cert,
        "--key",
        &pki.client_key,
    ]);
    assert!(with_key_file.ok().ends_with("hello\n"), "{with_key_file:?}");
    let key_inside = cli(&[
        "send",
        &server.url,
        "again",
        "--cacert",
        &pki.ca,
        "--cert",
        &pki.client_identity,
    ]);
    assert!(key_inside.ok().ends_with("again\n"), "{key_inside:?}");

    // No certificate and no other credential: the handshake lets the client in (the card
    // could offer other schemes), authentication refuses it.
    let line = cli(&["send", &server.url, "hello", "--cacert", &pki.ca])
        .failed(1)
        .to_owned();
    assert!(line.contains("authentication"), "{line}");
}

#[test]
fn unreadable_or_unusable_tls_files_are_usage_errors_that_never_show_a_key() {
    let pki = pki();
    let key_text = std::fs::read_to_string(&pki.server_key).unwrap();
    let key_line = key_text.lines().nth(1).unwrap();
    let missing = "/nonexistent/a2a-tls-test/cert.pem";
    let serve = |cert: &str, key: &str| {
        run(&[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--no-auth",
            "--tls-cert",
            cert,
            "--tls-key",
            key,
        ])
    };
    let cases = [
        (
            serve(missing, &pki.server_key),
            "--tls-cert: cannot read /nonexistent/a2a-tls-test/cert.pem",
        ),
        (
            serve(&pki.server_key, &pki.server_key),
            "--tls-cert: the certificate file",
        ),
        (
            serve(&pki.server_cert, &pki.server_cert),
            "holds no private key",
        ),
        (
            serve(&pki.server_cert, &pki.client_key),
            "--tls-key: the private key cannot be used with the certificate",
        ),
    ];
    for (output, expected) in cases {
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
        assert!(!stderr.contains(key_line), "{stderr}");
        assert!(output.stdout.is_empty(), "the server never listened");
    }

    let url = "https://127.0.0.1:1";
    let line = cli(&["card", url, "--cacert", missing])
        .failed(2)
        .to_owned();
    assert!(
        line.contains("--cacert: cannot read /nonexistent/a2a-tls-test/cert.pem"),
        "{line}"
    );
    let line = cli(&["card", url, "--cacert", &pki.client_key])
        .failed(2)
        .to_owned();
    assert!(line.contains("holds no PEM certificate"), "{line}");
    // A certificate without its key.
    let line = cli(&["send", url, "hello", "--cert", &pki.client_cert])
        .failed(2)
        .to_owned();
    assert!(line.contains("--cert:"), "{line}");
    let client_key = std::fs::read_to_string(&pki.client_key).unwrap();
    assert!(!line.contains(client_key.lines().nth(1).unwrap()), "{line}");
    let line = cli(&["get", url, "t-1", "--key", &pki.client_key])
        .failed(2)
        .to_owned();
    assert!(line.contains("--cert"), "--key needs --cert: {line}");
}

/// `a2a gateway --tls-cert … --tls-key …`: the registry and the proxy over HTTPS; an agent
/// registers with `--register-cacert`; a client that trusts the CA reaches it through the
/// gateway, one that does not cannot.
#[test]
#[allow(clippy::disallowed_methods)] // a plain test thread waits, no runtime
fn the_gateway_serves_https_to_clients_that_trust_the_ca() {
    let pki = pki();
    let mut command = crate::support::a2a();
    command.args(pki.gateway_args(&pki.server_key));
    let gateway = Server::spawn(command, "a2a gateway over TLS");
    assert!(
        gateway.url.starts_with("https://127.0.0.1:"),
        "{}",
        gateway.url
    );
    // The agent registers over HTTPS, trusting the gateway's CA.
    let agent = Server::start(&[
        "--register",
        &gateway.url,
        "--register-cacert",
        &pki.ca,
        "--agent-id",
        "echo-tls",
    ]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !agent.log().contains("registered with the gateway") {
        assert!(
            std::time::Instant::now() < deadline,
            "not registered; log:\n{}",
            agent.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let url = format!("{}/a2a/echo-tls", gateway.url);
    let text = cli(&["send", &url, "hello", "--cacert", &pki.ca])
        .ok()
        .to_owned();
    assert!(text.ends_with("hello\n"), "{text}");
    let line = cli(&["send", &url, "hello"]).failed(3).to_owned();
    assert!(line.contains("cannot reach"), "{line}");
}

#[test]
fn unusable_certificates_for_the_gateway_are_usage_errors() {
    let not_pem = TempFile::new("not-a-ca.pem", "hello");
    let run_serve = run(&[
        "serve",
        "--no-auth",
        "--store",
        "memory",
        "--register",
        "https://127.0.0.1:9",
        "--register-cacert",
        not_pem.path(),
    ]);
    let stderr = String::from_utf8_lossy(&run_serve.stderr);
    assert_eq!(run_serve.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--register-cacert"), "{stderr}");

    let pki = pki();
    // The client's key does not belong to the server's certificate.
    let run = run(&pki.gateway_args(&pki.client_key));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--tls-cert/--tls-key"), "{stderr}");
    assert!(!stderr.contains("PRIVATE KEY"), "never the key: {stderr}");
}

#[test]
fn the_operating_system_certificate_store_is_trusted_without_cacert() {
    let pki = pki();
    let server = pki.serve(&[]);
    // rustls-native-certs reads the store from SSL_CERT_FILE when it is set, so the test CA
    // stands in for the system's bundle.
    for args in [
        vec!["card", server.url.as_str()],
        vec!["send", server.url.as_str(), "hello"],
    ] {
        let output = crate::support::a2a()
            .args(&args)
            .env("SSL_CERT_FILE", &pki.ca)
            .env_remove("SSL_CERT_DIR")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stderr}");
    }
}

#[test]
fn a2a_test_checks_an_agent_behind_mutual_tls_on_every_binding() {
    let pki = pki();
    let server = pki.serve(&[
        "--agent",
        "conformance",
        "--client-ca",
        &pki.ca,
        "--grpc-bind",
        "127.0.0.1:0",
    ]);
    let output = run(&[
        "test",
        &server.url,
        "--json",
        "--read-only",
        "--filter",
        "card.served",
        "--filter",
        "errors.task-not-found",
        "--cacert",
        &pki.ca,
        "--cert",
        &pki.client_cert,
        "--key",
        &pki.client_key,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let passed: Vec<String> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["verdict"] == "PASS")
        .map(|result| {
            format!(
                "{} {}",
                result["rule"].as_str().unwrap(),
                result["interface"]
            )
        })
        .collect();
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        assert!(
            passed
                .iter()
                .any(|line| line.starts_with("errors.task-not-found") && line.contains(binding)),
            "{binding} not checked over TLS: {passed:?}\n{stdout}"
        );
    }

    // Without the CA the agent's certificate is not trusted: unreachable, exit 3.
    let untrusted = run(&["test", &server.url, "--read-only"]);
    assert_eq!(untrusted.status.code(), Some(3));
}
