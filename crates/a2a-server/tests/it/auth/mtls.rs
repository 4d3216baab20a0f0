//! Mutual TLS as an authentication scheme (issue 7): a certificate from the
//! trusted CA names the caller; none is 401; one from another CA never gets past the
//! handshake; two certificates are two callers with their own tasks.

use a2a_server::A2aServer;
use a2a_server::auth::{Authentication, CredentialKind};
use a2a_server::tls::{TlsConfig, serve_tls};
use a2a_test_support::tls::Authority;
use a2a_types::card::SecurityScheme;
use serde_json::{Value, json};

use super::{Callers, secured_card, send_body};

async fn rpc(
    client: &reqwest::Client,
    url: &str,
    body: Vec<u8>,
) -> Result<(u16, reqwest::header::HeaderMap, Value), reqwest::Error> {
    let response = client
        .post(url)
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    Ok((status, headers, response.json().await?))
}

#[tokio::test]
async fn a_trusted_client_certificate_is_the_caller_and_nothing_else_gets_in() {
    let authority = Authority::new("Agents CA");
    let certificate = authority.server();
    let alice = authority.client("alice");
    let bob = authority.client("bob");
    let stranger = Authority::new("Other CA").client("mallory");

    let card = secured_card(
        &[("mtls", SecurityScheme::mutual_tls())],
        &[&[("mtls", &[])]],
    );
    let callers = Callers::default();
    let server = A2aServer::builder(card, callers.clone())
        .authentication(Authentication::required())
        .build()
        .unwrap();
    let tls = TlsConfig::from_pem(certificate.cert.as_bytes(), certificate.key.as_bytes())
        .unwrap()
        .client_ca_pem(authority.pem().as_bytes())
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "https://127.0.0.1:{}/a2a",
        listener.local_addr().unwrap().port()
    );
    tokio::spawn(serve_tls(
        listener,
        server.router(),
        tls,
        std::future::pending(),
    ));

    // Accepted: the certificate names the caller.
    let as_alice = authority.https_client(Some(&alice));
    let (status, _, body) = rpc(&as_alice, &url, send_body("ask")).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let task_id = body["result"]["task"]["id"].as_str().unwrap().to_owned();
    let caller = callers.last().expect("a caller");
    assert_eq!(caller.kind, CredentialKind::Certificate);
    assert_eq!(caller.subject.as_deref(), Some("CN=alice"));
    assert_eq!(caller.issuer.as_deref(), Some("CN=Agents CA"));

    // Refused: no certificate → 401 naming mutual TLS.
    let anonymous = authority.https_client(None);
    let (status, headers, body) = rpc(&anonymous, &url, send_body("hi")).await.unwrap();
    assert_eq!(status, 401, "{body}");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with("MutualTLS realm="), "{challenge}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("client certificate"),
        "{body}"
    );

    // Refused in the handshake: a certificate from a CA the server does not trust.
    let as_stranger = authority.https_client(Some(&stranger));
    assert!(rpc(&as_stranger, &url, send_body("hi")).await.is_err());

    // Another trusted certificate is another caller: Alice's task is not Bob's.
    let as_bob = authority.https_client(Some(&bob));
    let get = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task_id}
    }))
    .unwrap();
    let (_, _, body) = rpc(&as_bob, &url, get.clone()).await.unwrap();
    assert_eq!(body["error"]["code"], -32001, "{body}");
    let (_, _, body) = rpc(&as_alice, &url, get).await.unwrap();
    assert_eq!(body["result"]["id"], task_id.as_str(), "{body}");
}
