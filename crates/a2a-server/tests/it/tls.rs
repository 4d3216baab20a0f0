//! HTTPS and mutual TLS with `a2a_server::tls`: certificates from the test CA, a router whose
//! handler says which client certificate it saw.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::auth::certificate::ClientCertificate;
use a2a_server::tls::{TlsConfig, serve_tls};
use a2a_test_support::tls::Pki;
use axum::Extension;
use axum::routing::get;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

/// The server's certificate, without client certificates.
fn config(pki: &Pki) -> TlsConfig {
    TlsConfig::from_pem(pki.server.cert.as_bytes(), pki.server.key.as_bytes()).unwrap()
}

/// The server's certificate, asking for a client certificate from the test CA.
fn mutual(pki: &Pki, required: bool) -> TlsConfig {
    config(pki)
        .client_ca_pem(pki.ca.as_bytes())
        .unwrap()
        .require_client_certificate(required)
}

/// A server on 127.0.0.1 whose `/whoami` answers the CN of the client certificate it saw (or
/// `none`), and whose `/slow` answers `done` 300 ms after it started (`started` is notified).
struct Server {
    addr: SocketAddr,
    started: Arc<Notify>,
    stop: Option<oneshot::Sender<()>>,
    serving: JoinHandle<std::io::Result<()>>,
}

impl Server {
    async fn start(config: TlsConfig) -> Self {
        let started = Arc::new(Notify::new());
        let notify = Arc::clone(&started);
        let router = axum::Router::new()
            .route(
                "/whoami",
                get(
                    |certificate: Option<Extension<ClientCertificate>>| async move {
                        match certificate {
                            Some(Extension(certificate)) => certificate
                                .identity()
                                .unwrap()
                                .common_name
                                .unwrap_or_default(),
                            None => "none".to_owned(),
                        }
                    },
                ),
            )
            .route(
                "/slow",
                get(move || async move {
                    notify.notify_one();
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "done"
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let serving = tokio::spawn(serve_tls(listener, router, config, async move {
            let _ = stopped.await;
        }));
        Self {
            addr,
            started,
            stop: Some(stop),
            serving,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.addr.port())
    }

    async fn whoami(&self, client: &reqwest::Client) -> Result<String, reqwest::Error> {
        client.get(self.url("/whoami")).send().await?.text().await
    }
}

#[tokio::test]
async fn https_serves_the_router_and_names_no_certificate_without_client_cas() {
    let pki = Pki::new("alice");
    let server = Server::start(config(&pki)).await;
    // No client CAs: the server does not ask, so even a client that has one sends none.
    assert_eq!(
        server.whoami(&pki.https_client(None)).await.unwrap(),
        "none"
    );
    let with_identity = pki.https_client(Some(&pki.client));
    assert_eq!(server.whoami(&with_identity).await.unwrap(), "none");
}

#[tokio::test]
async fn a_trusted_client_certificate_reaches_the_handler_and_one_is_optional_by_default() {
    let pki = Pki::new("alice");
    let server = Server::start(mutual(&pki, false)).await;
    let alice = pki.https_client(Some(&pki.client));
    assert_eq!(server.whoami(&alice).await.unwrap(), "alice");
    // Every request of the connection carries it, not only the first.
    assert_eq!(server.whoami(&alice).await.unwrap(), "alice");
    assert_eq!(
        server.whoami(&pki.https_client(None)).await.unwrap(),
        "none"
    );
}

#[tokio::test]
async fn a_required_client_certificate_refuses_clients_without_one() {
    let pki = Pki::new("alice");
    let server = Server::start(mutual(&pki, true)).await;
    let refused = server.whoami(&pki.https_client(None)).await;
    assert!(refused.is_err(), "{refused:?}");
    let alice = pki.https_client(Some(&pki.client));
    assert_eq!(server.whoami(&alice).await.unwrap(), "alice");
}

#[tokio::test]
async fn a_certificate_from_another_ca_is_refused_in_the_handshake() {
    let pki = Pki::new("alice");
    let stranger = Pki::new("mallory");
    let server = Server::start(mutual(&pki, false)).await;
    // Trusts the server's CA, but presents a certificate the server's client CA did not issue.
    let mallory = pki.https_client(Some(&stranger.client));
    let refused = server.whoami(&mallory).await;
    assert!(refused.is_err(), "{refused:?}");
    let alice = pki.https_client(Some(&pki.client));
    assert_eq!(server.whoami(&alice).await.unwrap(), "alice");
}

#[tokio::test]
async fn plain_http_to_the_tls_port_fails_cleanly_and_the_server_keeps_serving() {
    let pki = Pki::new("alice");
    let server = Server::start(config(&pki)).await;
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(b"GET /whoami HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "the server closes the connection");
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&answer)
    );

    let plain = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let url = format!("http://127.0.0.1:{}/whoami", server.addr.port());
    assert!(plain.get(url).send().await.is_err());

    assert_eq!(
        server.whoami(&pki.https_client(None)).await.unwrap(),
        "none"
    );
}

#[tokio::test]
async fn a_client_that_never_completes_the_handshake_is_dropped() {
    let pki = Pki::new("alice");
    let server = Server::start(config(&pki).handshake_timeout(Duration::from_millis(200))).await;
    let mut silent = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let connected = std::time::Instant::now();
    let mut buffer = [0_u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut buffer)).await;
    assert!(
        matches!(read, Ok(Ok(0) | Err(_))),
        "the connection is closed: {read:?}"
    );
    assert!(connected.elapsed() >= Duration::from_millis(150));
    assert_eq!(
        server.whoami(&pki.https_client(None)).await.unwrap(),
        "none"
    );
}

#[tokio::test]
async fn graceful_shutdown_finishes_the_request_in_flight_then_stops_accepting() {
    let pki = Pki::new("alice");
    let mut server = Server::start(config(&pki)).await;
    let client = pki.https_client(None);
    let started = server.started.notified();
    let in_flight = tokio::spawn(client.get(server.url("/slow")).send());
    started.await;

    server.stop.take().unwrap().send(()).unwrap();
    let response = in_flight.await.unwrap().unwrap();
    assert_eq!(response.text().await.unwrap(), "done");
    let served = tokio::time::timeout(Duration::from_secs(5), &mut server.serving)
        .await
        .expect("serving ends once the connection closed");
    served.unwrap().unwrap();

    let fresh = pki.https_client(None);
    assert!(server.whoami(&fresh).await.is_err(), "no longer accepting");
}
