//! Retries: a failed attempt is made again on the retry policy's schedule
//! ([`a2a_retry::Backoff`]: exponential backoff with jitter, lengthened by the answer's
//! `Retry-After`), and a refused OAuth token is fetched again once.

use std::time::Duration;

use crate::auth::Applied;
use crate::client::A2aClient;
use crate::error::ClientError;

/// One attempt's failure, whether it carried an OAuth token (a refused token is fetched
/// again once), and how long the answer asked the client to wait (`Retry-After`).
pub(crate) struct Failed {
    pub(crate) error: ClientError,
    pub(crate) applied: Applied,
    pub(crate) retry_after: Option<Duration>,
}

impl Failed {
    pub(crate) fn new(error: ClientError, applied: Applied) -> Self {
        Self {
            error,
            applied,
            retry_after: None,
        }
    }

    /// The answer's `Retry-After`.
    pub(crate) fn retry_after(mut self, retry_after: Option<Duration>) -> Self {
        self.retry_after = retry_after;
        self
    }
}

impl From<ClientError> for Failed {
    fn from(error: ClientError) -> Self {
        Self::new(error, Applied::Nothing)
    }
}

impl A2aClient {
    /// Runs `attempt` until it succeeds, fails for good, or runs out of retries. A refused
    /// OAuth token is dropped and the call made once more with a fresh one (not counted as
    /// a retry).
    pub(super) async fn retrying<T, F, Fut>(
        &self,
        idempotent: bool,
        attempt: F,
    ) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failed>>,
    {
        self.retrying_failed(idempotent, attempt)
            .await
            .map_err(|failed| failed.error)
    }

    /// As [`retrying`](Self::retrying), with the last failure whole: its `Retry-After`
    /// too, for a caller that goes on trying on its own schedule.
    pub(super) async fn retrying_failed<T, F, Fut>(
        &self,
        idempotent: bool,
        mut attempt: F,
    ) -> Result<T, Failed>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failed>>,
    {
        let schedule = self.inner.retry.schedule(idempotent);
        let mut delays = schedule.delays();
        let mut retried = 0_u32;
        let mut reauthenticated = false;
        loop {
            let failed = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            if failed.applied == Applied::OAuthToken
                && !reauthenticated
                && is_refused_credential(&failed.error)
                && let Some(auth) = &self.inner.auth
            {
                tracing::debug!("the agent refused the OAuth token; fetching a new one");
                auth.invalidate().await;
                reauthenticated = true;
                continue;
            }
            if failed.error.is_retryable()
                && let Some(backoff) = delays.next()
            {
                let delay = schedule.wait(backoff, failed.retry_after);
                retried += 1;
                tracing::debug!(error = %failed.error, retry = retried, ?delay, "retrying");
                tokio::time::sleep(delay).await;
                continue;
            }
            return Err(failed);
        }
    }

    /// The wait before trying again on the caller's own schedule: `backoff`, or the
    /// failure's `Retry-After` when longer, up to the retry policy's cap.
    pub(crate) fn wait_after(&self, backoff: Duration, retry_after: Option<Duration>) -> Duration {
        self.inner.retry.wait_after(backoff, retry_after)
    }
}

/// Whether the agent refused the credentials themselves (so a fresh token may help).
fn is_refused_credential(error: &ClientError) -> bool {
    error.kind() == Some(a2a_types::ErrorKind::Authentication) || error.http_status() == Some(401)
}
