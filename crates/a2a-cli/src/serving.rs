//! How `a2a serve`, `a2a gateway` and `a2a webhook` serve their routers: plain HTTP or HTTPS
//! (with mutual TLS when `--client-ca` is given), both through
//! [`a2a_server::connections::serve`], which closes stalled connections and caps open ones
//! ([`ConnectionLimits`]); and `a2a serve`'s graceful stop on a signal.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use a2a_server::A2aServer;
use a2a_server::connections::{self, ConnectionLimits, Transport};
use a2a_server::tls::{TlsConfig, TlsError};
use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::config::{ConfigError, Millis, Settings};

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
        .map_err(|error| invalid(option_at_fault(&setting.key, &error), &error))?
        .handshake_timeout(settings.connections.tls_handshake_timeout);
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

/// A router served on a listener until `shutdown`, within `limits`: over TLS when `tls` is
/// given (HTTP/2 only when `h2`), else in the clear (HTTP/1.1 and HTTP/2 with prior
/// knowledge). Sets TCP_NODELAY on every connection.
pub(crate) fn serving(
    listener: TcpListener,
    router: axum::Router,
    tls: Option<TlsConfig>,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
    h2: bool,
) -> Pin<Box<dyn Future<Output = io::Result<()>> + Send>> {
    let transport = match tls {
        None => Transport::Plain,
        Some(config) if h2 => Transport::TlsH2(config),
        Some(config) => Transport::Tls(config),
    };
    Box::pin(connections::serve(
        listener, router, transport, limits, shutdown,
    ))
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
    limits: ConnectionLimits,
    termination: impl Future<Output = &'static str>,
    grace: Duration,
) -> anyhow::Result<()> {
    let stop = CancellationToken::new();
    let http = serving(
        listeners.http,
        server.router(),
        tls.clone(),
        limits.clone(),
        stop.clone().cancelled_owned(),
        false,
    );
    let grpc = match listeners.grpc {
        Some(listener) => serving(
            listener,
            server.grpc_router(),
            tls,
            limits,
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

/// A duration flag that must be more than 0.
fn positive_duration(text: &str) -> Result<Millis, String> {
    let duration: Millis = text.parse()?;
    if duration.0.is_zero() {
        return Err("must be more than 0".to_owned());
    }
    Ok(duration)
}

/// A count flag that must be more than 0.
fn positive_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be more than 0".to_owned()),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

/// The connection limits of `a2a gateway`, as flags, `A2A_*` variables and file keys; see
/// [`a2a_server::connections`] for how each is enforced.
#[derive(Debug, Clone, clap::Args, serde::Serialize)]
pub(crate) struct GatewayConnectionArgs {
    /// Time a connection gets to send a complete request head: from the accept (after TLS, the handshake) for its first request, from the head's first byte on a kept-alive connection; else it is closed
    #[arg(long, value_name = "DURATION", default_value = "10s",
          value_parser = positive_duration)]
    header_read_timeout: Millis,
    /// Longest wait for the next piece of a request body being read; a body slower than that (e.g. one byte per this time) is cut with 408 and its connection closed
    #[arg(long, value_name = "DURATION", default_value = "30s",
          value_parser = positive_duration)]
    body_read_timeout: Millis,
    /// Least rate of a request body, in bytes per second, once --body-min-rate-grace is over (its bytes so far divided by the time since it was first read); a slower body is cut with 408 and its connection closed; 0 for no minimum
    #[arg(long, value_name = "BYTES/S", default_value = "1024")]
    body_min_rate: u64,
    /// How long a request body may arrive more slowly than --body-min-rate, from when it is first read
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    body_min_rate_grace: Millis,
    /// A connection with no request in flight is closed this long after its last response
    #[arg(long, value_name = "DURATION", default_value = "60s",
          value_parser = positive_duration)]
    keep_alive_timeout: Millis,
    /// Longest wait for a client to take response bytes; a client that stops reading (e.g. a stalled stream's reader) is disconnected
    #[arg(long, value_name = "DURATION", default_value = "60s",
          value_parser = positive_duration)]
    write_timeout: Millis,
    /// Connections open at once; more are not refused but wait in the listen backlog until one closes
    #[arg(long, value_name = "N", default_value = "10000",
          value_parser = positive_count)]
    max_connections: usize,
    /// TLS handshakes in progress at once; a connection waits up to --tls-handshake-timeout for a turn
    #[arg(long, value_name = "N", default_value = "256",
          value_parser = positive_count)]
    max_tls_handshakes: usize,
    /// Time a TLS handshake may take (and, before it, wait for a turn) before the connection is closed
    #[arg(long, value_name = "DURATION", default_value = "10s",
          value_parser = positive_duration)]
    tls_handshake_timeout: Millis,
}

impl GatewayConnectionArgs {
    /// The limits of the gateway's listener.
    pub(crate) fn limits(&self) -> ConnectionLimits {
        ConnectionLimits::default()
            .header_read_timeout(self.header_read_timeout.0)
            .body_read_timeout(self.body_read_timeout.0)
            .body_min_rate(self.body_min_rate)
            .body_min_rate_grace(self.body_min_rate_grace.0)
            .keep_alive_timeout(self.keep_alive_timeout.0)
            .write_timeout(self.write_timeout.0)
            .max_connections(self.max_connections)
            .max_tls_handshakes(self.max_tls_handshakes)
    }

    /// The TLS handshake timeout.
    pub(crate) fn tls_handshake_timeout(&self) -> Duration {
        self.tls_handshake_timeout.0
    }
}

/// The connection limits of `a2a webhook`, as flags (it serves no TLS); see
/// [`a2a_server::connections`] for how each is enforced.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct WebhookConnectionArgs {
    /// Time a connection gets to send a complete request head: from the accept for its first request, from the head's first byte on a kept-alive connection; else it is closed
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = positive_duration)]
    header_read_timeout: Millis,
    /// Longest wait for the next piece of a request body being read; a body slower than that (e.g. one byte per this time) is cut with 408 and its connection closed
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = positive_duration)]
    body_read_timeout: Millis,
    /// A connection with no request in flight is closed this long after its last response
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = positive_duration)]
    keep_alive_timeout: Millis,
    /// Longest wait for a client to take response bytes; a client that stops reading is disconnected
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = positive_duration)]
    write_timeout: Millis,
    /// Connections open at once; more are not refused but wait in the listen backlog until one closes
    #[arg(long, value_name = "N", default_value = "10000", value_parser = positive_count)]
    max_connections: usize,
}

impl WebhookConnectionArgs {
    /// The limits of the receiver's listener.
    pub(crate) fn limits(&self) -> ConnectionLimits {
        ConnectionLimits::default()
            .header_read_timeout(self.header_read_timeout.0)
            .body_read_timeout(self.body_read_timeout.0)
            .keep_alive_timeout(self.keep_alive_timeout.0)
            .write_timeout(self.write_timeout.0)
            .max_connections(self.max_connections)
    }
}

/// Completes on SIGINT or SIGTERM, watched from the call on (so a signal that arrives
/// before the caller awaits it is not missed).
pub(crate) fn termination() -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch SIGINT")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}
