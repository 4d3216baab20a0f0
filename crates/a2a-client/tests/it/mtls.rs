//! HTTPS with a private CA and mutual TLS: our server behind `a2a_server::tls`, which requires
//! a client certificate, and a client given the CA and its certificate as PEM.

use std::time::Duration;

use a2a_client::transport::{HttpTransport, TlsOptions};
use a2a_client::{A2aClient, ClientError, ResponseExt as _, message};
use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_server::tls::{TlsConfig, serve_tls};
use a2a_test_support::tls::Pki;
use a2a_types::TaskState;

use crate::support::{ScriptAgent, card_at};

/// Our server over HTTPS on 127.0.0.1, requiring a client certificate from the test CA;
/// returns its base URL. Authentication is off, as in the other client tests: the
/// certificate is checked in the handshake.
async fn serve_https(pki: &Pki) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("https://{}", listener.local_addr().unwrap());
    let server = A2aServer::builder(card_at(&base), ScriptAgent)
        .authentication(Authentication::disabled())
        .build()
        .unwrap();
    let tls = TlsConfig::from_pem(pki.server.cert.as_bytes(), pki.server.key.as_bytes())
        .unwrap()
        .client_ca_pem(pki.ca.as_bytes())
        .unwrap()
        .require_client_certificate(true);
    tokio::spawn(serve_tls(
        listener,
        server.router(),
        tls,
        std::future::pending(),
    ));
    base
}

#[tokio::test]
async fn a_client_with_the_ca_and_a_certificate_discovers_and_sends_over_mutual_tls() {
    let pki = Pki::new("alice");
    let base = serve_https(&pki).await;
    let client = A2aClient::builder()
        .root_certificate_pem(pki.ca.as_bytes())
        .client_identity_pem(pki.client.identity().as_bytes())
        .request_timeout(Duration::from_secs(20))
        .discover(&base)
        .await
        .unwrap();
    assert_eq!(
        client.card().map(|card| card.name.as_str()),
        Some("Script agent")
    );
    let answer = client
        .send_message(message::request("hello"))
        .await
        .unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
}

#[tokio::test]
async fn without_the_ca_or_without_a_certificate_the_handshake_fails() {
    let pki = Pki::new("alice");
    let base = serve_https(&pki).await;
    let untrusted = A2aClient::builder()
        .client_identity_pem(pki.client.identity().as_bytes())
        .discover(&base)
        .await;
    assert!(
        matches!(untrusted, Err(ClientError::Transport { .. })),
        "{untrusted:?}"
    );
    let anonymous = A2aClient::builder()
        .root_certificate_pem(pki.ca.as_bytes())
        .discover(&base)
        .await;
    assert!(
        matches!(anonymous, Err(ClientError::Transport { .. })),
        "{anonymous:?}"
    );
}

#[tokio::test]
async fn unusable_pem_is_a_configuration_error_that_does_not_quote_the_key() {
    let pki = Pki::new("alice");
    let key_line = pki.client.key.lines().nth(1).unwrap().to_owned();
    let cases = [
        // A key without its certificate, then a certificate without its key.
        A2aClient::builder().client_identity_pem(pki.client.key.as_bytes()),
        A2aClient::builder().client_identity_pem(pki.client.cert.as_bytes()),
        A2aClient::builder().root_certificate_pem(pki.client.key.as_bytes()),
    ];
    for builder in cases {
        let error = builder
            .url(
                "https://127.0.0.1:1/a2a",
                a2a_types::ProtocolBinding::JsonRpc,
            )
            .build()
            .unwrap_err();
        let text = format!("{error} {error:?}");
        assert!(matches!(error, ClientError::Config { .. }), "{text}");
        assert!(!text.contains(&key_line), "{text}");
    }
    // Discovery stops before any request.
    let error = A2aClient::builder()
        .client_identity_pem(b"junk")
        .discover("https://127.0.0.1:1")
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Config { .. }), "{error:?}");
}

#[tokio::test]
async fn tls_settings_with_a_transport_of_ones_own_are_refused_rather_than_ignored() {
    let pki = Pki::new("alice");
    let error = A2aClient::builder()
        .root_certificate_pem(pki.ca.as_bytes())
        .transport(HttpTransport::new().unwrap())
        .url(
            "https://127.0.0.1:1/a2a",
            a2a_types::ProtocolBinding::JsonRpc,
        )
        .build()
        .unwrap_err();
    assert!(matches!(error, ClientError::Config { .. }), "{error:?}");

    // The transport can carry them itself.
    let tls = TlsOptions::new()
        .root_certificate_pem(pki.ca.as_bytes())
        .unwrap()
        .client_identity_pem(pki.client.identity().as_bytes())
        .unwrap();
    let base = serve_https(&pki).await;
    let client = A2aClient::builder()
        .transport(HttpTransport::with_tls(Duration::from_secs(5), &tls).unwrap())
        .discover(&base)
        .await
        .unwrap();
    let answer = client
        .send_message(message::request("hello"))
        .await
        .unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
}
