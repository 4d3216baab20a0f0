//! What a connection's task watches: its [`Activity`] (reads and requests, for the header
//! and keep-alive timeouts), request bodies that stall ([`TimedBody`]) and responses in flight
//! ([`Tracked`]).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use hyper::body::{Frame, Incoming, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::ConnectionLimits;
use super::rate::MinRate;

/// A boxed error, as bodies carry.
type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// 408 for a request whose body stalled; over HTTP/1.1 it also closes the connection.
pub(super) fn request_timeout(http1: bool) -> Response<Body> {
    let mut response = Response::new(Body::from("the request body stalled\n"));
    *response.status_mut() = StatusCode::REQUEST_TIMEOUT;
    if http1 {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Where a connection is between requests, for the watchdog.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in flight since `since`; `fresh` until the first request.
    Idle { since: Instant, fresh: bool },
    /// Bytes of a request head arrived, the first at `since`; no request yet.
    Head { since: Instant },
    /// Requests in flight (their responses not yet finished).
    Busy { requests: usize },
}

/// Why the watchdog closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expiry {
    /// The request head did not arrive in time.
    Head,
    /// No request for the keep-alive timeout.
    Idle,
    /// A response write waited for the client to read for the write timeout.
    WriteStalled,
}

/// A connection's phase, updated by its reads and requests, watched by its task.
///
/// A change of phase wakes nobody: it is one uncontended lock. The watchdog instead never
/// sleeps longer than the shorter of the two timeouts from the moment it looks, so no phase
/// that starts while it sleeps can expire before it looks again (every deadline is a phase's
/// start plus one of the timeouts). A request therefore costs no timer and no wake-up of the
/// connection's task; a connection that stays busy or idle for long is looked at once per
/// shorter timeout.
///
/// Writes are watched the same way: the first write that cannot go out (the client's
/// buffers are full) notes when; the next one that does clears it.
#[derive(Debug)]
pub(super) struct Activity {
    phase: Mutex<Phase>,
    /// Since when writes wait for the client to read; set only while one does.
    write_blocked: Mutex<Option<Instant>>,
    /// Whether `write_blocked` is set: a write that goes out takes no lock unless one was
    /// blocked before it.
    blocked: AtomicBool,
}

impl Activity {
    pub(super) fn new() -> Self {
        Self {
            phase: Mutex::new(Phase::Idle {
                since: Instant::now(),
                fresh: true,
            }),
            write_blocked: Mutex::new(None),
            blocked: AtomicBool::new(false),
        }
    }

    /// A write could not go out: the client is not reading for now.
    fn write_pending(&self) {
        if self.blocked.load(Ordering::Relaxed) {
            return;
        }
        let mut since = self
            .write_blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        since.get_or_insert_with(Instant::now);
        self.blocked.store(true, Ordering::Relaxed);
    }

    /// A write went out.
    fn write_done(&self) {
        if !self.blocked.load(Ordering::Relaxed) {
            return;
        }
        *self
            .write_blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
        self.blocked.store(false, Ordering::Relaxed);
    }

    /// When a blocked write runs out of time.
    fn write_deadline(&self, limits: &ConnectionLimits) -> Option<Instant> {
        if !self.blocked.load(Ordering::Relaxed) {
            return None;
        }
        self.write_blocked
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .map(|since| since + limits.write_timeout)
    }

    fn update(&self, change: impl FnOnce(Phase) -> Option<Phase>) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(next) = change(*phase) {
            *phase = next;
        }
    }

    /// Bytes arrived: an idle connection starts a request head.
    fn bytes_read(&self) {
        self.update(|phase| match phase {
            // The first request's head is timed from the accept.
            Phase::Idle { since, fresh: true } => Some(Phase::Head { since }),
            Phase::Idle { fresh: false, .. } => Some(Phase::Head {
                since: Instant::now(),
            }),
            Phase::Head { .. } | Phase::Busy { .. } => None,
        });
    }

    fn request_started(&self) {
        self.update(|phase| match phase {
            Phase::Idle { .. } | Phase::Head { .. } => Some(Phase::Busy { requests: 1 }),
            Phase::Busy { requests } => Some(Phase::Busy {
                requests: requests + 1,
            }),
        });
    }

    fn request_finished(&self) {
        self.update(|phase| match phase {
            Phase::Busy { requests } if requests > 1 => Some(Phase::Busy {
                requests: requests - 1,
            }),
            Phase::Busy { .. } => Some(Phase::Idle {
                since: Instant::now(),
                fresh: false,
            }),
            Phase::Idle { .. } | Phase::Head { .. } => None,
        });
    }

    /// When the current phase expires, and why; `None` while requests are in flight.
    fn deadline(&self, limits: &ConnectionLimits) -> Option<(Instant, Expiry)> {
        match *self.phase.lock().unwrap_or_else(PoisonError::into_inner) {
            Phase::Idle { since, fresh: true } | Phase::Head { since } => {
                Some((since + limits.header_read_timeout, Expiry::Head))
            }
            Phase::Idle {
                since,
                fresh: false,
            } => Some((since + limits.keep_alive_timeout, Expiry::Idle)),
            Phase::Busy { .. } => None,
        }
    }

    /// Completes when the connection's phase expires, or a write waited too long.
    pub(super) async fn expired(&self, limits: &ConnectionLimits) -> Expiry {
        let longest_sleep = limits
            .header_read_timeout
            .min(limits.keep_alive_timeout)
            .min(limits.write_timeout);
        let sleep = tokio::time::sleep(longest_sleep);
        tokio::pin!(sleep);
        loop {
            let now = Instant::now();
            let look_again = now + longest_sleep;
            let write = self
                .write_deadline(limits)
                .map(|deadline| (deadline, Expiry::WriteStalled));
            let first = [self.deadline(limits), write]
                .into_iter()
                .flatten()
                .min_by_key(|(deadline, _)| *deadline);
            let wake = match first {
                Some((deadline, expiry)) if deadline <= now => return expiry,
                Some((deadline, _)) => deadline.min(look_again),
                None => look_again,
            };
            sleep.as_mut().reset(wake);
            sleep.as_mut().await;
        }
    }
}

/// A request in flight, until its response body is finished or dropped.
#[derive(Debug)]
pub(super) struct InFlight(Arc<Activity>);

impl InFlight {
    pub(super) fn start(activity: &Arc<Activity>) -> Self {
        activity.request_started();
        Self(Arc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that keeps its request counted in flight until it is dropped.
pub(super) struct Tracked {
    pub(super) body: Body,
    pub(super) _in_flight: InFlight,
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The request body stalled: no piece of it arrived within the body read timeout.
#[derive(Debug, thiserror::Error)]
#[error("no part of the request body arrived for {0:?}")]
struct BodyStalled(Duration);

/// A request body that fails when its next piece does not arrive within the timeout.
pub(super) struct TimedBody {
    body: Incoming,
    timeout: Duration,
    /// The body's progress against the minimum rate.
    rate: MinRate,
    /// Made the first time the body waits (most bodies never do: they came with the head).
    sleep: Option<Pin<Box<Sleep>>>,
    armed: bool,
    timed_out: Arc<AtomicBool>,
}

impl TimedBody {
    pub(super) fn new(
        body: Incoming,
        limits: &ConnectionLimits,
        timed_out: Arc<AtomicBool>,
    ) -> Self {
        Self {
            body,
            timeout: limits.body_read_timeout,
            rate: MinRate::new(limits.body_min_rate, limits.body_min_rate_grace),
            sleep: None,
            armed: false,
            timed_out,
        }
    }
}

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        if this.timed_out.load(Ordering::Acquire) {
            return Poll::Ready(None);
        }
        this.rate.reading();
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.armed = false;
                if let Some(Ok(data)) = frame
                    .as_ref()
                    .map(|frame| frame.as_ref().map(Frame::data_ref))
                {
                    this.rate.received(data.map_or(0, Bytes::len));
                }
                Poll::Ready(frame.map(|frame| frame.map_err(BoxError::from)))
            }
            Poll::Pending => {
                // Waiting for more: the gap may not pass the timeout, nor the bytes so far
                // fall below the minimum rate.
                let gap = Instant::now() + this.timeout;
                let deadline = this.rate.deadline().map_or(gap, |slow| slow.min(gap));
                let sleep = this
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if !this.armed {
                    this.armed = true;
                    sleep.as_mut().reset(deadline);
                }
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.timed_out.store(true, Ordering::Release);
                        Poll::Ready(Some(Err(Box::new(BodyStalled(this.timeout)))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A connection's stream, reporting the bytes it reads to the connection's [`Activity`].
pub(super) struct Watched<S> {
    pub(super) io: S,
    pub(super) activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let result = Pin::new(&mut this.io).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.activity.bytes_read();
        }
        result
    }
}

impl<S> Watched<S> {
    /// Notes whether a write went out or waits for the client to read.
    fn watch_write<T>(&self, result: Poll<T>) -> Poll<T> {
        match result {
            Poll::Pending => self.activity.write_pending(),
            Poll::Ready(_) => self.activity.write_done(),
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch_write(result)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_flush(cx);
        this.watch_write(result)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.watch_write(result)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
