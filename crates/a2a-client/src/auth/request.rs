//! [`RequestAuth`]: credentials resolved against an agent's card, for a caller that builds
//! its own requests (a conformance tester, a relay) instead of calling through
//! [`A2aClient`](crate::A2aClient).

use std::sync::Arc;
use std::time::Duration;

use a2a_types::AgentCard;
use http::HeaderMap;

use super::{Authenticator, Credentials};
use crate::ClientError;
use crate::transport::{HttpTransport, Transport};

/// Credentials ready to add to requests: an API key placed where the card's scheme says, a
/// bearer token, or an OAuth 2.0 client-credentials token fetched, cached and refreshed.
/// `Debug` never shows a secret.
#[derive(Debug, Clone)]
pub struct RequestAuth {
    authenticator: Authenticator,
}

impl RequestAuth {
    /// Resolves `credentials` against `card`, fetched from `card_url` (the API key's place,
    /// the OAuth token endpoint); tokens are fetched with `timeout`.
    ///
    /// # Errors
    /// [`ClientError::Config`] for a header name or token URL that cannot be used.
    pub fn resolve(
        credentials: Credentials,
        card: &AgentCard,
        card_url: &url::Url,
        timeout: Duration,
    ) -> Result<Self, ClientError> {
        let transport: Arc<dyn Transport> = Arc::new(HttpTransport::with_connect_timeout(timeout)?);
        let authenticator =
            Authenticator::resolve(credentials, Some(card), Some(card_url), transport, timeout)?;
        Ok(Self { authenticator })
    }

    /// Adds the credentials to a request for `url`: a header, a cookie or a query parameter.
    ///
    /// # Errors
    /// A token endpoint that refuses or cannot be reached; a credential that is not a valid
    /// header value.
    pub async fn apply(
        &self,
        url: &mut url::Url,
        headers: &mut HeaderMap,
    ) -> Result<(), ClientError> {
        self.authenticator.apply(url, headers).await.map(|_| ())
    }
}
