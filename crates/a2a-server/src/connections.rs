//! Serving a router on a listener with bounded connections: [`serve`] accepts connections in
//! the clear or over TLS and enforces [`ConnectionLimits`], so that clients that stall (send
//! half a request head, nothing at all, or a body a byte now and then) are closed and cannot
//! exhaust the server.
//!
//! Each limit and how it is enforced:
//!
//! - **Header read timeout**: a connection must deliver a complete request head within this
//!   time: counted from the accept (or the end of the TLS handshake) for its first request,
//!   and from the first byte of the next one on a kept-alive connection. A connection that
//!   misses it — half a head, or nothing at all — is closed without an answer.
//! - **Body read timeout**: while a request body is being read, the gap between two pieces of
//!   it may not exceed this time (an idle timeout per chunk, not a deadline for the whole
//!   body): a body sent a byte at a time more slowly than one byte per timeout is cut. The
//!   request is then answered 408 Request Timeout and, over HTTP/1.1, the connection closed.
//!   The body's size stays bounded by the router's own payload limit.
//! - **Body minimum rate** (Apache mod_reqtimeout's `MinRate`): after a grace period from
//!   when the server first reads a body, the bytes received divided by the time since must
//!   stay at or above the rate, so a body dripped a byte now and then, each piece inside the
//!   body read timeout, is still cut: 408 and, over HTTP/1.1, the connection closed. Checked
//!   whenever the server waits for more of the body; 0 turns it off.
//! - **Keep-alive timeout**: a connection with no request in flight is closed this long after
//!   its last response finished (HTTP/2: GOAWAY, then closed).
//! - **Write timeout**: a response write may wait this long for the client to take bytes.
//!   A client that stops reading (most often a stalled stream's reader, whose socket buffers
//!   have filled) is disconnected when the time runs out, so that it holds no connection, no
//!   task and no stream for ever. The time counts from the first write that could not go
//!   out, and starts again whenever one does.
//! - **Max connections**: at most this many connections are open at once on the listener.
//!   Further clients are not refused: they wait in the kernel's listen backlog, unanswered,
//!   until an open connection closes.
//! - **Max TLS handshakes** (TLS only): at most this many handshakes run at once. A connection
//!   waits at most the handshake timeout ([`TlsConfig::handshake_timeout`]) for a turn and is
//!   closed if it gets none; its handshake then has the handshake timeout to complete.

mod limits;
mod rate;
mod watch;

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::body::Body;
use http::{Request, Version};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

pub use self::limits::{
    ConnectionLimits, DEFAULT_BODY_MIN_RATE, DEFAULT_BODY_MIN_RATE_GRACE,
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_TLS_HANDSHAKES, DEFAULT_WRITE_TIMEOUT,
};
use self::watch::{Activity, Expiry, InFlight, TimedBody, Tracked, Watched, request_timeout};
use crate::auth::certificate::ClientCertificate;
use crate::tls::TlsConfig;

/// How long the accept loop pauses after an accept error that is not about one connection
/// (e.g. too many open files), so it does not spin.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_secs(1);

/// How long an idle HTTP/2 connection told to go away (GOAWAY) gets to close by itself.
const GOAWAY_LIMIT: Duration = Duration::from_secs(1);

/// How a listener's connections speak.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Transport {
    /// In the clear: HTTP/1.1, and HTTP/2 with prior knowledge.
    Plain,
    /// TLS, offering HTTP/1.1 in ALPN.
    Tls(TlsConfig),
    /// TLS, offering HTTP/2 in ALPN, as gRPC needs.
    TlsH2(TlsConfig),
}

/// Serves `router` on `listener` until `shutdown` completes, within `limits`.
///
/// Every connection gets TCP_NODELAY. Over TLS, when the client presented a certificate, which
/// rustls then verified against the client CAs, every request of the connection carries it as
/// a [`ClientCertificate`] extension; a failed handshake closes that connection only.
///
/// When `shutdown` completes the listener is closed, each connection finishes the request in
/// flight and closes, and the future returns once all are closed. To bound that wait, put the
/// future in a [`tokio::time::timeout`]: dropping it drops the connections still open.
///
/// # Errors
/// Only when the TLS configuration cannot make an acceptor (client CAs unusable); accepting
/// never fails the loop.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    transport: Transport,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let limits = Arc::new(limits.sane());
    let tls = match transport {
        Transport::Plain => None,
        Transport::Tls(config) => Some(Handshakes::new(&config, false, &limits)?),
        Transport::TlsH2(config) => Some(Handshakes::new(&config, true, &limits)?),
    };
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let closing = CancellationToken::new();
    let mut connections = JoinSet::new();
    let mut full = false;
    tokio::pin!(shutdown);
    loop {
        // A free connection slot first: beyond the cap, clients wait in the listen backlog.
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(permit) => {
                full = false;
                permit
            }
            Err(_) => {
                if !full {
                    full = true;
                    tracing::warn!(
                        max_connections = limits.max_connections,
                        "the connection limit is reached; new connections wait"
                    );
                }
                tokio::select! {
                    () = &mut shutdown => break,
                    Some(finished) = connections.join_next(), if !connections.is_empty() => {
                        reap(finished);
                        continue;
                    }
                    permit = Arc::clone(&slots).acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_closed) => break,
                    },
                }
            }
        };
        let (tcp, peer) = tokio::select! {
            () = &mut shutdown => break,
            Some(finished) = connections.join_next(), if !connections.is_empty() => {
                reap(finished);
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    tracing::error!(%error, "accepting a connection failed");
                    tokio::select! {
                        () = tokio::time::sleep(ACCEPT_ERROR_PAUSE) => continue,
                        () = &mut shutdown => break,
                    }
                }
            },
        };
        let task = Connection {
            peer,
            router: router.clone(),
            limits: Arc::clone(&limits),
            closing: closing.clone(),
        };
        let tls = tls.clone();
        connections.spawn(async move {
            let _slot = permit;
            task.run(tcp, tls).await;
        });
    }
    drop(listener);
    closing.cancel();
    tracing::debug!(
        connections = connections.len(),
        "waiting for connections to close"
    );
    while let Some(finished) = connections.join_next().await {
        reap(finished);
    }
    Ok(())
}

fn reap(finished: Result<(), tokio::task::JoinError>) {
    if let Err(error) = finished {
        tracing::warn!(%error, "a connection task failed");
    }
}

/// Errors about one connection that went away before it was accepted.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The TLS side of a listener: the acceptor, its handshake timeout and the handshake slots.
#[derive(Clone)]
struct Handshakes {
    acceptor: TlsAcceptor,
    timeout: Duration,
    slots: Arc<Semaphore>,
}

impl Handshakes {
    fn new(config: &TlsConfig, h2: bool, limits: &ConnectionLimits) -> io::Result<Self> {
        let mut server_config = config
            .server_config()
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
        if h2 {
            let mut h2 = (*server_config).clone();
            h2.alpn_protocols = vec![b"h2".to_vec()];
            server_config = Arc::new(h2);
        }
        Ok(Self {
            acceptor: TlsAcceptor::from(server_config),
            timeout: config.configured_handshake_timeout(),
            slots: Arc::new(Semaphore::new(limits.max_tls_handshakes)),
        })
    }

    /// The handshake on `tcp`: a turn within the timeout, then the handshake within it.
    async fn handshake(
        &self,
        tcp: TcpStream,
        peer: SocketAddr,
    ) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
        let Ok(Ok(_turn)) = tokio::time::timeout(self.timeout, self.slots.acquire()).await else {
            tracing::debug!(%peer, "no TLS handshake slot in time; closing");
            return None;
        };
        match tokio::time::timeout(self.timeout, self.acceptor.accept(tcp)).await {
            Ok(Ok(tls)) => Some(tls),
            Ok(Err(error)) => {
                tracing::debug!(%peer, %error, "TLS handshake failed");
                None
            }
            Err(_elapsed) => {
                tracing::debug!(%peer, "TLS handshake timed out");
                None
            }
        }
    }
}

/// One accepted connection and what serving it needs.
struct Connection {
    peer: SocketAddr,
    router: axum::Router,
    limits: Arc<ConnectionLimits>,
    closing: CancellationToken,
}

impl Connection {
    async fn run(self, tcp: TcpStream, tls: Option<Handshakes>) {
        // Without TCP_NODELAY the last frames of a response wait ~40 ms for a delayed ACK.
        let _ = tcp.set_nodelay(true);
        let Some(tls) = tls else {
            self.serve(tcp, None).await;
            return;
        };
        let stream = tokio::select! {
            stream = tls.handshake(tcp, self.peer) => stream,
            // No request is in flight yet, so there is nothing to finish.
            () = self.closing.cancelled() => None,
        };
        let Some(stream) = stream else { return };
        let certificate = stream
            .get_ref()
            .1
            .peer_certificates()
            .and_then(<[_]>::first)
            .map(|leaf| ClientCertificate::new(leaf.as_ref()));
        self.serve(stream, certificate).await;
    }

    async fn serve<S>(self, io: S, certificate: Option<ClientCertificate>)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let Self {
            peer,
            router,
            limits,
            closing,
        } = self;
        let activity = Arc::new(Activity::new());
        let io = TokioIo::new(Watched {
            io,
            activity: Arc::clone(&activity),
        });
        let body_limits = Arc::clone(&limits);
        let requests = Arc::clone(&activity);
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            if let Some(certificate) = &certificate {
                request.extensions_mut().insert(certificate.clone());
            }
            let in_flight = InFlight::start(&requests);
            let http1 = request.version() < Version::HTTP_2;
            let timed_out = Arc::new(AtomicBool::new(false));
            let flag = Arc::clone(&timed_out);
            let request = request.map(|body| Body::new(TimedBody::new(body, &body_limits, flag)));
            let router = router.clone();
            async move {
                let response = match router.oneshot(request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                let response = if timed_out.load(Ordering::Acquire) {
                    tracing::debug!(%peer, "request body timed out");
                    request_timeout(http1)
                } else {
                    response
                };
                Ok::<_, Infallible>(response.map(|body| Tracked {
                    body,
                    _in_flight: in_flight,
                }))
            }
        });
        // HTTP/1.1 or HTTP/2, whichever the client speaks. hyper's own header timeout is off:
        // it would also close kept-alive connections that are merely idle; the watchdog below
        // times heads and idleness apart.
        let mut http = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        http.http1()
            .timer(TokioTimer::new())
            .header_read_timeout(None);
        http.http2().timer(TokioTimer::new());
        let connection = http.serve_connection_with_upgrades(io, service);
        tokio::pin!(connection);
        let mut graceful = false;
        let mut close_by: Option<Instant> = None;
        let result = loop {
            tokio::select! {
                result = connection.as_mut() => break result,
                expiry = activity.expired(&limits), if !graceful => match expiry {
                    Expiry::Head => {
                        tracing::debug!(%peer, "no complete request head in time; closing");
                        return;
                    }
                    Expiry::Idle => {
                        tracing::trace!(%peer, "idle connection closed");
                        graceful = true;
                        close_by = Some(Instant::now() + GOAWAY_LIMIT);
                        connection.as_mut().graceful_shutdown();
                    }
                    // Nothing can be said to a client that does not read: it is cut.
                    Expiry::WriteStalled => {
                        tracing::debug!(
                            %peer,
                            timeout = ?limits.write_timeout,
                            "the client stopped reading the response; closing"
                        );
                        return;
                    }
                },
                () = tokio::time::sleep_until(close_by.unwrap_or_else(Instant::now)),
                    if close_by.is_some() => return,
                () = closing.cancelled(), if !graceful => {
                    graceful = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        };
        if let Err(error) = result {
            tracing::debug!(%peer, %error, "connection ended with an error");
        }
    }
}
