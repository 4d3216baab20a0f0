//! Serving a router over TLS with the default connection limits.

use std::io;

use tokio::net::TcpListener;

use super::TlsConfig;
#[cfg(doc)]
use crate::auth::certificate::ClientCertificate;
use crate::connections::{self, ConnectionLimits, Transport};

/// Serves `router` over TLS on `listener` until `shutdown` completes, with the default
/// [`ConnectionLimits`] and this configuration's
/// [handshake timeout](TlsConfig::handshake_timeout): [`connections::serve`] with
/// [`Transport::Tls`]. HTTP/1.1 with upgrades; when the client presented a certificate, which
/// rustls then verified against the client CAs, every request of the connection carries it
/// as a [`ClientCertificate`] extension. A failed handshake closes that connection only.
///
/// When `shutdown` completes the listener is closed, each connection finishes the request in
/// flight and closes, and the future returns once all are closed. To bound that wait, put the
/// future in a [`tokio::time::timeout`]: dropping it drops the connections still open.
///
/// # Errors
/// Only when the configuration cannot make a TLS acceptor (client CAs unusable);
/// accepting never fails the loop.
pub async fn serve_tls(
    listener: TcpListener,
    router: axum::Router,
    config: TlsConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    connections::serve(
        listener,
        router,
        Transport::Tls(config),
        ConnectionLimits::default(),
        shutdown,
    )
    .await
}

/// As [`serve_tls`], over HTTP/2 (ALPN `h2`), as gRPC needs: for
/// [`A2aServer::grpc_router`](crate::A2aServer::grpc_router).
///
/// # Errors
/// As [`serve_tls`].
pub async fn serve_tls_h2(
    listener: TcpListener,
    router: axum::Router,
    config: TlsConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    connections::serve(
        listener,
        router,
        Transport::TlsH2(config),
        ConnectionLimits::default(),
        shutdown,
    )
    .await
}
