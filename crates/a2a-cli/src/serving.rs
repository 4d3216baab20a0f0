//! How `a2a serve` serves its router: plain HTTP with axum, or HTTPS (with mutual TLS when
//! `--client-ca` is given) with `a2a_server::tls`; and the graceful stop on a signal.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use a2a_server::A2aServer;
use a2a_server::tls::{TlsConfig, TlsError, serve_tls, serve_tls_h2};
use anyhow::Context as _;
use axum::serve::ListenerExt as _;
use tokio::net::TcpListener;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::config::{ConfigError, Settings};

/// How long, after the grace period, connections still open get before they are dropped.
const CLOSE_MARGIN: Duration = Duration::from_secs(1);

/// The TLS configuration the settings name, with its files read and checked, so that a bad
/// file stops `a2a serve` before it listens (exit code 2).
///
/// # Errors
/// [`ConfigError::Invalid`] naming the option whose file cannot be read or used; the message
/// never holds key material.
pub(crate) fn tls_config(settings: &Settings) -> Result<Option<TlsConfig>, ConfigError> {
    let Some(setting) = &settings.tls else {
        return Ok(None);
    };
    let config = TlsConfig::from_pem_files(&setting.cert, &setting.key)
        .map_err(|error| invalid(option_at_fault(&setting.key, &error), &error))?;
    let config = match &setting.client_ca {
        // A client may come without a certificate: the authentication layer then asks for
        // the card's other credentials, or refuses.
        Some(client_ca) => config
            .client_ca_pem_file(client_ca)
            .map_err(|error| invalid("client-ca", &error))?,
        None => config,
    };
    Ok(Some(config))
}

/// The flag whose file `error` is about; `key` is the `--tls-key` file.
fn option_at_fault(key: &Path, error: &TlsError) -> &'static str {
    match error {
        TlsError::Read { path, .. } if path == key => "tls-key",
        TlsError::PrivateKey { .. } | TlsError::KeyMismatch { .. } => "tls-key",
        _ => "tls-cert",
    }
}

/// `--option: what: why: …`, the error and its sources on one line.
fn invalid(option: &'static str, error: &TlsError) -> ConfigError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ConfigError::Invalid { option, message }
}

/// The listeners of `a2a serve`: HTTP (the card, JSON-RPC, HTTP+JSON), and gRPC when
/// `--grpc-bind` names one.
#[derive(Debug)]
pub(crate) struct Listeners {
    pub(crate) http: TcpListener,
    pub(crate) grpc: Option<TcpListener>,
}

/// A router served on a listener until `shutdown`: over TLS when `tls` is given (HTTP/2
/// only when `h2`), else in the clear (HTTP/1.1 and HTTP/2 with prior knowledge).
fn serving(
    listener: TcpListener,
    router: axum::Router,
    tls: Option<TlsConfig>,
    shutdown: WaitForCancellationFutureOwned,
    h2: bool,
) -> Pin<Box<dyn Future<Output = io::Result<()>> + Send>> {
    match tls {
        None => {
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            Box::pin(
                axum::serve(listener, router)
                    .with_graceful_shutdown(shutdown)
                    .into_future(),
            )
        }
        // Sets TCP_NODELAY itself.
        Some(config) if h2 => Box::pin(serve_tls_h2(listener, router, config, shutdown)),
        Some(config) => Box::pin(serve_tls(listener, router, config, shutdown)),
    }
}

/// Serves `server`'s routers on `listeners`, over TLS when `tls` is given, until
/// `termination` completes (it returns the signal's name). Then running turns get `grace` to
/// finish while the listeners still accept (`/readyz` answers 503, new turns are refused);
/// once they settled the listeners close, and connections get the rest of `grace` plus a
/// margin to write their last responses, after which those still open are dropped.
///
/// Every connection gets TCP_NODELAY: without it the last frames of a response wait ~40 ms
/// for a delayed ACK.
///
/// # Errors
/// When serving fails for good before or during the shutdown.
pub(crate) async fn serve(
    listeners: Listeners,
    server: &A2aServer,
    tls: Option<TlsConfig>,
    termination: impl Future<Output = &'static str>,
    grace: Duration,
) -> anyhow::Result<()> {
    let stop = CancellationToken::new();
    let http = serving(
        listeners.http,
        server.router(),
        tls.clone(),
        stop.clone().cancelled_owned(),
        false,
    );
    let grpc = match listeners.grpc {
        Some(listener) => serving(
            listener,
            server.grpc_router(),
            tls,
            stop.clone().cancelled_owned(),
            true,
        ),
        None => Box::pin(std::future::ready(Ok(()))),
    };
    let mut serving = Box::pin(async move { tokio::try_join!(http, grpc).map(|_| ()) });
    tokio::select! {
        result = &mut serving => {
            // Serving ends by itself only when accepting fails for good.
            return result.context("the server stopped");
        }
        signal = termination => {
            tracing::info!(signal, grace_ms = grace.as_millis(), "shutting down");
        }
    }
    // The listeners stay open while running turns finish: `/readyz` answers 503 from now
    // on, so a load balancer polling it moves callers away; new work is refused as
    // Unavailable and reads are still answered. Then they close, and connections get what
    // is left of the grace plus the margin.
    let deadline = tokio::time::Instant::now() + grace + CLOSE_MARGIN;
    let draining = server.shutdown(grace);
    tokio::pin!(draining);
    let failed = tokio::select! {
        () = &mut draining => None,
        result = &mut serving => Some(result),
    };
    if let Some(result) = failed {
        draining.await;
        return result.context("the server failed while shutting down");
    }
    stop.cancel();
    match tokio::time::timeout_at(deadline, &mut serving).await {
        Ok(result) => result.context("the server failed while shutting down")?,
        Err(_elapsed) => {
            tracing::warn!("connections still open after the grace period were dropped")
        }
    }
    tracing::info!("stopped");
    Ok(())
}
