//! Signed cards end to end: `a2a serve --card-signing-key` signs the card and publishes the
//! key; our client and `a2a card --verify` check it, and refuse a tampered card or a card
//! signed by a key they do not trust.

use a2a_client::{CardFetchOptions, CardVerifier, ClientError, fetch_agent_card};
use a2a_signature::{CardSignatureError, SigningKey, VerifyingKey};
use serde_json::{Value, json};

use crate::client_mock::cli;
use crate::support::{Server, TempFile, a2a};

fn key_file(name: &str) -> String {
    format!(
        "{}/../a2a-signature/tests/keys/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn thumbprint_of(name: &str) -> String {
    let pem = std::fs::read(key_file(name)).unwrap();
    SigningKey::from_pem(pem).unwrap().kid().to_owned()
}

#[tokio::test]
async fn a_signed_card_verifies_with_the_served_key_set() {
    let server = Server::start(&[
        "--agent",
        "echo",
        "--card-signing-key",
        &key_file("p256.pem"),
    ]);
    let kid = thumbprint_of("p256.pem");
    let jwks = server.get("/.well-known/jwks.json").await;
    assert!(
        jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|key| key["kid"] == kid.as_str() && key["alg"] == "ES256"),
        "{jwks}"
    );
    assert!(
        !jwks.to_string().contains("\"d\""),
        "no private member is published"
    );

    // The library: the default key set URL of the agent.
    let verifier =
        CardVerifier::jwks_url(&format!("{}/.well-known/jwks.json", server.url)).unwrap();
    let options = CardFetchOptions::new().verify_signatures(verifier);
    let card = fetch_agent_card(&server.url, &options).await.unwrap();
    assert_eq!(card.name, "Echo");
    assert_eq!(card.signatures.len(), 1);

    // The command: one line per signature, exit 0.
    let run = cli(&["card", &server.url, "--verify"]);
    let text = run.ok();
    assert!(
        text.contains(&format!("signature 0: verified (key {kid}, ES256)")),
        "{text}"
    );
    let run = cli(&[
        "card",
        &server.url,
        "--verify",
        "--jwks",
        &format!("{}/.well-known/jwks.json", server.url),
    ]);
    run.ok();
    assert!(!server.log().contains("PRIVATE KEY"), "{}", server.log());
}

#[tokio::test]
async fn ed25519_and_rsa_keys_sign_too_and_the_key_id_can_be_named() {
    for (file, alg) in [("ed25519.pem", "EdDSA"), ("rsa-pkcs1.pem", "RS256")] {
        let server = Server::start(&[
            "--agent",
            "echo",
            "--card-signing-key",
            &key_file(file),
            "--card-signing-key-id",
            "card-2026",
        ]);
        let run = cli(&["card", &server.url, "--verify"]);
        assert!(
            run.ok()
                .contains(&format!("signature 0: verified (key card-2026, {alg})")),
            "{}",
            run.stdout
        );
    }
}

#[tokio::test]
async fn the_key_is_also_set_by_variable_and_by_file() {
    let mut command = a2a();
    command.env("A2A_CARD_SIGNING_KEY", key_file("p384.pem"));
    let by_variable = Server::start_command(command, &["--agent", "echo"]);
    let run = cli(&["card", &by_variable.url, "--verify"]);
    assert!(run.ok().contains("ES384"), "{}", run.stdout);

    let config = TempFile::new(
        "a2a.toml",
        &format!(
            "card_signing_key = {:?}\ncard_signing_key_id = \"from-file\"\n",
            key_file("ed25519.pem")
        ),
    );
    let by_file = Server::start(&["--agent", "echo", "--config", config.path()]);
    let run = cli(&["card", &by_file.url, "--verify"]);
    assert!(run.ok().contains("key from-file, EdDSA"), "{}", run.stdout);
}

#[tokio::test]
async fn a_tampered_card_and_an_unknown_key_are_refused() {
    let signed = Server::start(&[
        "--agent",
        "echo",
        "--card-signing-key",
        &key_file("p256.pem"),
    ]);
    let jwks = signed.get("/.well-known/jwks.json").await;
    let trusted = TempFile::new("trusted.json", &jwks.to_string());

    // The signed card, changed, served by another server with no key of its own.
    let mut card: Value = signed.get("/.well-known/agent-card.json").await;
    card["description"] = json!("Answers every message, and more.");
    let tampered_file = TempFile::new("card.json", &card.to_string());
    let tampered = Server::start(&["--agent", "echo", "--card", tampered_file.path()]);
    let run = cli(&[
        "card",
        &tampered.url,
        "--verify",
        "--verify-key",
        trusted.path(),
    ]);
    assert_eq!(run.code, Some(1), "{} {}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("signature 0: NOT verified"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("does not match the card"),
        "{}",
        run.stderr
    );

    let keys = VerifyingKey::from_jwk_set(&jwks).unwrap();
    let options = CardFetchOptions::new().verify_signatures(CardVerifier::with_keys(keys));
    let error = fetch_agent_card(&tampered.url, &options).await.unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::CardSignature(CardSignatureError::BadSignature { .. })
        ),
        "{error:?}"
    );

    // A key the client does not trust.
    let other = SigningKey::generate_es256().unwrap();
    let other_file = TempFile::new(
        "other.json",
        &serde_json::to_string(other.public_jwk()).unwrap(),
    );
    let run = cli(&[
        "card",
        &signed.url,
        "--verify",
        "--verify-key",
        other_file.path(),
    ]);
    assert_eq!(run.code, Some(1), "{} {}", run.stdout, run.stderr);
    assert!(run.stderr.contains("no trusted key"), "{}", run.stderr);
    let options = CardFetchOptions::new().verify_signatures(CardVerifier::with_keys([
        VerifyingKey::from_jwk(other.public_jwk()).unwrap(),
    ]));
    let error = fetch_agent_card(&signed.url, &options).await.unwrap_err();
    assert!(
        matches!(
            error,
            ClientError::CardSignature(CardSignatureError::UnknownKey { .. })
        ),
        "{error:?}"
    );

    // An unsigned card.
    let unsigned = Server::start(&["--agent", "echo"]);
    let run = cli(&[
        "card",
        &unsigned.url,
        "--verify",
        "--verify-key",
        trusted.path(),
    ]);
    assert_ne!(run.code, Some(0));
    assert!(run.stderr.contains("not signed"), "{}", run.stderr);
}

#[test]
fn an_unusable_signing_key_is_a_usage_error_that_shows_no_key_material() {
    let sec1 = key_file("p256-sec1.pem");
    let output = a2a()
        .args([
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--card-signing-key",
            &sec1,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("card-signing-key"), "{stderr}");
    assert!(stderr.contains("openssl pkcs8"), "{stderr}");
    let secret = std::fs::read_to_string(&sec1).unwrap();
    assert!(!stderr.contains(secret.lines().nth(1).unwrap()), "{stderr}");
}

/// A gateway keeps an agent's signatures on the card it serves for the agent, and serves the
/// card as the agent signed and registered it at `.well-known/signed-agent-card.json`, where
/// the signatures verify.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_keeps_the_signatures_and_serves_the_signed_card() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let gateway_url = format!("http://{}", listener.local_addr().unwrap());
    let registry = std::sync::Arc::new(a2a_gateway::registry::Registry::in_memory().await.unwrap());
    let gateway = a2a_gateway::Gateway::new(registry, a2a_gateway::proxy::ProxyConfig::default());
    let app = gateway.router();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let agent = Server::start(&[
        "--agent",
        "echo",
        "--no-auth",
        "--card-signing-key",
        &key_file("p256.pem"),
        "--register",
        &gateway_url,
        "--agent-id",
        "signed-echo",
        "--heartbeat-interval",
        "200ms",
    ]);
    let trusted = TempFile::new(
        "trusted.json",
        &agent.get("/.well-known/jwks.json").await.to_string(),
    );
    let through = format!("{gateway_url}/a2a/signed-echo");
    let http = reqwest::Client::new();
    let mut served = Value::Null;
    for _ in 0..100 {
        let response = http
            .get(format!("{through}/.well-known/agent-card.json"))
            .send()
            .await
            .unwrap();
        if response.status() == 200 {
            served = response.json().await.unwrap();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        served["name"],
        "Echo",
        "not registered; log:\n{}",
        agent.log()
    );
    let own: Value = agent.get("/.well-known/agent-card.json").await;
    assert_eq!(served["signatures"], own["signatures"], "kept unchanged");
    assert_eq!(served["supportedInterfaces"][0]["url"], through.as_str());

    let signed_url = format!("{through}/.well-known/signed-agent-card.json");
    let run = cli(&[
        "card",
        &signed_url,
        "--verify",
        "--verify-key",
        trusted.path(),
    ]);
    assert!(
        run.ok().contains("signature 0: verified"),
        "{} {}",
        run.stdout,
        run.stderr
    );
}

/// Verifies the card at `argv[1]` with the Python SDK's `create_signature_verifier`, the
/// keys from the agent's JWK Set; exit 77 when the SDK lacks its signing extra (PyJWT).
const PYTHON_VERIFY: &str = r#"
import json, sys, urllib.request
try:
    from jwt import PyJWK
    from a2a.utils.signing import create_signature_verifier
except ImportError:
    sys.exit(77)
from google.protobuf.json_format import ParseDict
from a2a.types import AgentCard
base = sys.argv[1]
card = json.load(urllib.request.urlopen(base + "/.well-known/agent-card.json"))
jwks = json.load(urllib.request.urlopen(base + "/.well-known/jwks.json"))
card = ParseDict(card, AgentCard(), ignore_unknown_fields=True)
def key_provider(kid, jku):
    return PyJWK(next(key for key in jwks["keys"] if key.get("kid") == kid))
create_signature_verifier(key_provider, ["ES256", "EdDSA"])(card)
print("verified")
"#;

/// The Python SDK 1.3.0 accepts our signed card. Its verifier canonicalises the card after
/// a round trip through its protobuf types and drops every empty value, where the spec keeps
/// REQUIRED ones and unknown members: so the card here is v1.0 only (no v0.3 members) and has
/// no empty REQUIRED field.
#[test]
fn the_python_sdk_accepts_our_signed_card() {
    let Some(python) = a2a_test_support::python::interpreter() else {
        return;
    };
    let card = TempFile::new(
        "card.json",
        &json!({
            "name": "Echo", "description": "Echoes.", "version": "1.0.0",
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "Echo", "description": "Repeats the text.",
                        "tags": ["echo"]}],
        })
        .to_string(),
    );
    for key in ["p256.pem", "ed25519.pem"] {
        let server = Server::start(&[
            "--agent",
            "echo",
            "--protocol-versions",
            "1.0",
            "--card",
            card.path(),
            "--card-signing-key",
            &key_file(key),
        ]);
        let output = std::process::Command::new(&python)
            .args(["-c", PYTHON_VERIFY, &server.url])
            .output()
            .unwrap();
        if output.status.code() == Some(77) {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI installs the Python SDK with its signing extra (.ci/run)"
            );
            eprintln!("skipping: the Python SDK is installed without its signing extra (PyJWT)");
            return;
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("verified"),
            "{key}: {stdout} {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
