//! Retries: a failed attempt is made again under the retry policy, and a refused OAuth token
//! is fetched again once.

use crate::auth::Applied;
use crate::client::A2aClient;
use crate::error::ClientError;

/// One attempt's failure, and whether it carried an OAuth token (a refused token is fetched
/// again once).
pub(crate) struct Failed {
    pub(crate) error: ClientError,
    pub(crate) applied: Applied,
}

impl From<ClientError> for Failed {
    fn from(error: ClientError) -> Self {
        Self {
            error,
            applied: Applied::Nothing,
        }
    }
}

impl A2aClient {
    /// Runs `attempt` until it succeeds, fails for good, or runs out of retries. A refused
    /// OAuth token is dropped and the call made once more with a fresh one.
    pub(super) async fn retrying<T, F, Fut>(
        &self,
        idempotent: bool,
        mut attempt: F,
    ) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failed>>,
    {
        let retries = self.inner.retry.retries_for(idempotent);
        let mut retried = 0;
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
            if failed.error.is_retryable() && retried < retries {
                let delay = self.inner.retry.delay(retried);
                tracing::debug!(error = %failed.error, retry = retried + 1, ?delay, "retrying");
                tokio::time::sleep(delay).await;
                retried += 1;
                continue;
            }
            return Err(failed.error);
        }
    }
}

/// Whether the agent refused the credentials themselves (so a fresh token may help).
fn is_refused_credential(error: &ClientError) -> bool {
    error.kind() == Some(a2a_types::ErrorKind::Authentication) || error.http_status() == Some(401)
}
