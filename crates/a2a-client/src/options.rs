//! Per-call options ([`CallOptions`]) and the policies a client applies to every call:
//! timeouts, retries of idempotent operations, and resumption of broken streams.

use std::time::Duration;

use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};

/// Options for the calls of one [`A2aClient::with_options`](crate::A2aClient::with_options)
/// handle: extra headers, a timeout override, extra extensions.
///
/// ```
/// use std::time::Duration;
/// use a2a_client::CallOptions;
///
/// let options = CallOptions::new()
///     .header("X-Request-Id", "r-42")
///     .timeout(Duration::from_secs(5))
///     .extension("https://example.com/ext/trace/v1");
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) headers: HeaderMap,
    pub(crate) timeout: Option<Duration>,
    pub(crate) extensions: Vec<String>,
    pub(crate) operation: Option<SendOperation>,
    pub(crate) history_length: Option<u32>,
    /// A header that could not be used; reported by the first call.
    pub(crate) invalid: Option<String>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header names only: a value may be a credential.
        f.debug_struct("CallOptions")
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout", &self.timeout)
            .field("extensions", &self.extensions)
            .field("operation", &self.operation)
            .field("history_length", &self.history_length)
            .finish_non_exhaustive()
    }
}

impl CallOptions {
    /// No options.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a header to every call. An invalid name or value makes those calls fail with
    /// [`ClientError::Config`](crate::ClientError::Config).
    #[must_use]
    pub fn header<N, V>(mut self, name: N, value: V) -> Self
    where
        N: TryInto<HeaderName>,
        V: TryInto<HeaderValue>,
    {
        if !append_header(&mut self.headers, name, value) {
            self.invalid = Some("a call option header has an invalid name or value".into());
        }
        self
    }

    /// Adds these headers to every call.
    #[must_use]
    pub fn headers(mut self, headers: HeaderMap) -> Self {
        self.headers.extend(headers);
        self
    }

    /// Replaces the request timeout of these calls; for streams, the time to open them.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for one more extension, in addition to the client's (`A2A-Extensions`).
    #[must_use]
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.push(uri.into());
        self
    }

    /// Asks for these extensions, in addition to the client's.
    #[must_use]
    pub fn extensions<I, S>(mut self, uris: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.extensions.extend(uris.into_iter().map(Into::into));
        self
    }

    /// Replaces the client's [default operation](crate::A2aClientBuilder::default_operation)
    /// for the [`send_default`](crate::A2aClient::send_default) calls of this handle.
    ///
    /// ```
    /// use a2a_client::{CallOptions, SendOperation};
    ///
    /// let streaming = CallOptions::new().operation(SendOperation::SendStreamingMessage);
    /// # let _ = streaming;
    /// ```
    #[must_use]
    pub fn operation(mut self, operation: SendOperation) -> Self {
        self.operation = Some(operation);
        self
    }

    /// Replaces the client's [default `historyLength`](crate::A2aClientBuilder::history_length)
    /// for these calls; a request that sets its own still wins.
    ///
    /// ```
    /// use a2a_client::CallOptions;
    ///
    /// let no_history = CallOptions::new().history_length(0);
    /// # let _ = no_history;
    /// ```
    #[must_use]
    pub fn history_length(mut self, length: u32) -> Self {
        self.history_length = Some(length);
        self
    }

    /// `self`, then `other` on top: headers and extensions added, `other`'s timeout,
    /// operation and history length winning.
    pub(crate) fn merged(&self, other: CallOptions) -> CallOptions {
        let mut merged = self.clone();
        merged.headers.extend(other.headers);
        merged.timeout = other.timeout.or(merged.timeout);
        merged.operation = other.operation.or(merged.operation);
        merged.history_length = other.history_length.or(merged.history_length);
        merged.extensions.extend(other.extensions);
        merged.invalid = other.invalid.or(merged.invalid);
        merged
    }
}

/// What [`A2aClient::send_default`](crate::A2aClient::send_default) does with a message: the client's
/// default operation, set with
/// [`A2aClientBuilder::default_operation`](crate::A2aClientBuilder::default_operation)
/// and per call with [`CallOptions::operation`].
///
/// Parsed from the operation's name in the spec's PascalCase (`SendMessage`,
/// `SendStreamingMessage`), as an enum constant (`SEND_MESSAGE`, `SEND_STREAMING_MESSAGE`),
/// or in Camel's spelling (`MESSAGE_SEND`/`MessageSend`, `MESSAGE_STREAM`/`MessageStream`).
///
/// ```
/// use a2a_client::SendOperation;
///
/// assert_eq!(SendOperation::default(), SendOperation::SendMessage);
/// assert_eq!("MESSAGE_STREAM".parse(), Ok(SendOperation::SendStreamingMessage));
/// assert_eq!("SendMessage".parse(), Ok(SendOperation::SendMessage));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SendOperation {
    /// `SendMessage`: one answer, the task or a direct reply (the default).
    #[default]
    SendMessage,
    /// `SendStreamingMessage`: the task's events as they happen.
    SendStreamingMessage,
}

impl SendOperation {
    /// The operation's name in the spec.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SendMessage => "SendMessage",
            Self::SendStreamingMessage => "SendStreamingMessage",
        }
    }
}

impl std::fmt::Display for SendOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name [`SendOperation`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown operation {0:?}: expected SendMessage or SendStreamingMessage")]
pub struct UnknownOperation(String);

impl std::str::FromStr for SendOperation {
    type Err = UnknownOperation;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let folded: String = name
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .collect::<String>()
            .to_ascii_lowercase();
        match folded.as_str() {
            "sendmessage" | "messagesend" => Ok(Self::SendMessage),
            "sendstreamingmessage" | "messagestream" | "sendmessagestreaming" => {
                Ok(Self::SendStreamingMessage)
            }
            _ => Err(UnknownOperation(name.to_owned())),
        }
    }
}

/// The client's time limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening a connection; default 30 s. Only the HTTP transport built by the client uses
    /// it.
    pub connect: Duration,
    /// A whole non-streaming call, and the wait for a stream's response head; default 60 s.
    pub request: Duration,
    /// The longest silence on an open stream, heartbeats included; default 300 s. The
    /// stream then fails with a timeout (and is resumed, when resuming is on).
    pub stream_idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(30),
            request: Duration::from_secs(60),
            stream_idle: Duration::from_secs(300),
        }
    }
}

/// Retries of failed calls, with exponential backoff and jitter ([`a2a_retry::Backoff`]).
/// An answer with `Retry-After` (seconds or an HTTP date) waits at least that long, up to
/// [`max_retry_after`](Self::max_retry_after).
///
/// Only [retryable](crate::ClientError::is_retryable) failures are retried (a timeout, a
/// dropped connection, 429/502/503/504), and by default only for operations a retry cannot
/// repeat: GetTask, ListTasks, Get/List/Delete push config, GetExtendedAgentCard, card
/// discovery, and SendMessage. A retried SendMessage is the same request, with the same
/// `messageId`: an agent that de-duplicates sends by it (`a2a serve` does, per caller,
/// for as long as it keeps the task) answers the retry with the task the first attempt
/// made, marked `metadata.duplicate_send`, and runs no second turn; so a send whose answer
/// was lost to a timeout or a broken connection is safe to retry. CancelTask,
/// CreateTaskPushNotificationConfig and the opening of streams (SendStreamingMessage
/// included) are retried only with [`retry_non_idempotent`](Self::retry_non_idempotent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    pub(crate) max_retries: u32,
    pub(crate) initial_backoff: Duration,
    pub(crate) max_backoff: Duration,
    pub(crate) max_retry_after: Duration,
    pub(crate) retry_non_idempotent: bool,
}

impl Default for RetryPolicy {
    /// Two retries, backoff from 200 ms up to 5 s, `Retry-After` honoured up to 60 s,
    /// idempotent operations only.
    fn default() -> Self {
        Self {
            max_retries: 2,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(5),
            max_retry_after: a2a_retry::DEFAULT_RETRY_AFTER_CAP,
            retry_non_idempotent: false,
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    #[must_use]
    pub fn none() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// Retries at most `retries` times after the first attempt.
    #[must_use]
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Waits about `initial` before the first retry, doubling each time up to `max`.
    #[must_use]
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max.max(initial);
        self
    }

    /// Waits at most `max` when an answer's `Retry-After` asks for longer.
    #[must_use]
    pub fn max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = max;
        self
    }

    /// Also retries CancelTask, CreateTaskPushNotificationConfig and the opening of
    /// streams. SendStreamingMessage keeps its `messageId`, so an agent that de-duplicates
    /// by it sees the retry as the same message (`a2a serve` answers it with the first
    /// attempt's task alone, which SubscribeToTask then follows).
    #[must_use]
    pub fn retry_non_idempotent(mut self, retry: bool) -> Self {
        self.retry_non_idempotent = retry;
        self
    }

    /// The retries allowed for an operation.
    pub(crate) fn retries_for(&self, idempotent: bool) -> u32 {
        if idempotent || self.retry_non_idempotent {
            self.max_retries
        } else {
            0
        }
    }

    /// The schedule of an operation's retries.
    pub(crate) fn schedule(&self, idempotent: bool) -> a2a_retry::Backoff {
        a2a_retry::Backoff::new(self.initial_backoff, self.max_backoff)
            .max_retries(self.retries_for(idempotent))
            .retry_after_cap(self.max_retry_after)
    }

    /// The wait before trying again after `backoff`: what an answer's `Retry-After` asked
    /// when that is longer, never more than [`max_retry_after`](Self::max_retry_after).
    pub(crate) fn wait_after(&self, backoff: Duration, retry_after: Option<Duration>) -> Duration {
        self.schedule(true).wait(backoff, retry_after)
    }

    /// The wait before retry number `attempt` (0-based).
    pub(crate) fn delay(&self, attempt: u32) -> Duration {
        a2a_retry::Backoff::new(self.initial_backoff, self.max_backoff).delay(attempt)
    }
}

/// How a broken stream is resumed (SendStreamingMessage and SubscribeToTask).
///
/// When a stream ends or fails before its task reaches a terminal or interrupted state, the
/// client subscribes to the task again, sending `Last-Event-ID` when the server numbered its
/// events, and drops what it already delivered, so the caller sees one continuous stream.
/// Each attempt waits with exponential backoff and jitter, or as long as a refused
/// attempt's `Retry-After` asks when that is longer (up to
/// [`RetryPolicy::max_retry_after`]); attempts start again from zero whenever a new event
/// arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePolicy {
    pub(crate) max_attempts: u32,
    pub(crate) initial_backoff: Duration,
    pub(crate) max_backoff: Duration,
}

impl Default for ResumePolicy {
    /// Up to 5 attempts in a row, backoff from 100 ms up to 5 s.
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl ResumePolicy {
    /// Never resume: a broken stream ends (with its error, if it failed with one).
    #[must_use]
    pub fn disabled() -> Self {
        Self {
            max_attempts: 0,
            ..Self::default()
        }
    }

    /// At most `attempts` re-subscriptions in a row without a new event.
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts;
        self
    }

    /// Waits about `initial` before the first attempt, doubling each time up to `max`.
    #[must_use]
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max.max(initial);
        self
    }

    /// Whether resuming is on.
    #[must_use]
    pub fn is_enabled(&self) -> bool {
        self.max_attempts > 0
    }

    pub(crate) fn delay(&self, attempt: u32) -> Duration {
        a2a_retry::Backoff::new(self.initial_backoff, self.max_backoff).delay(attempt)
    }
}

/// Appends `name: value` to `headers`; false, leaving them as they were, when either is
/// invalid.
pub(crate) fn append_header<N, V>(headers: &mut HeaderMap, name: N, value: V) -> bool
where
    N: TryInto<HeaderName>,
    V: TryInto<HeaderValue>,
{
    match (name.try_into(), value.try_into()) {
        (Ok(name), Ok(value)) => {
            headers.append(name, value);
            true
        }
        (Err(_), _) | (_, Err(_)) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter_and_stays_under_the_cap() {
        let policy =
            RetryPolicy::default().backoff(Duration::from_millis(100), Duration::from_secs(1));
        for attempt in 0..10 {
            let ceiling =
                (Duration::from_millis(100) * 2_u32.pow(attempt)).min(Duration::from_secs(1));
            let delay = policy.delay(attempt);
            assert!(
                delay >= ceiling / 2 && delay <= ceiling,
                "{attempt}: {delay:?}"
            );
        }
    }

    #[test]
    fn only_idempotent_calls_are_retried_by_default() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.retries_for(true), 2);
        assert_eq!(policy.retries_for(false), 0);
        assert_eq!(policy.retry_non_idempotent(true).retries_for(false), 2);
    }
}
