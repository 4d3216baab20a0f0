//! [`HttpTransport`]: the network transport, on reqwest, with redirects off by default.

use std::time::Duration;

use bytes::Bytes;
use futures::TryStreamExt as _;

use super::{ResponseBody, Transport};
use crate::error::{ClientError, TimeoutKind};

/// The default connect timeout (CLT-15).
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends requests over HTTP(S) with reqwest (rustls).
///
/// Built by [`HttpTransport::new`] it never follows redirects (CLT-14) and gives up
/// connecting after the connect timeout; it sets no overall timeout, because a stream may
/// rightly stay open for hours; the client bounds each request itself.
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
}

impl HttpTransport {
    /// A transport with the default connect timeout (30 s).
    ///
    /// # Errors
    /// [`ClientError::Config`] when the TLS backend cannot be initialised.
    pub fn new() -> Result<Self, ClientError> {
        Self::with_connect_timeout(DEFAULT_CONNECT_TIMEOUT)
    }

    /// A transport that gives up connecting after `connect_timeout`.
    ///
    /// # Errors
    /// [`ClientError::Config`] when the TLS backend cannot be initialised.
    pub fn with_connect_timeout(connect_timeout: Duration) -> Result<Self, ClientError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|error| {
                ClientError::config(format!(
                    "cannot build the HTTP client: {}",
                    error.without_url()
                ))
            })?;
        Ok(Self { client })
    }

    /// A transport over a reqwest client you configured. Its redirect policy and timeouts
    /// are yours: keep redirects off (`redirect::Policy::none()`) and leave the overall
    /// timeout unset, or streams will be cut at that timeout.
    #[must_use]
    pub fn from_client(client: reqwest::Client) -> Self {
        Self { client }
    }
}

#[async_trait::async_trait]
impl Transport for HttpTransport {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        let url = url::Url::parse(&request.uri().to_string())
            .map_err(|error| ClientError::config(format!("invalid request url: {error}")))?;
        let request = reqwest::Request::try_from(request).map_err(|error| {
            ClientError::config(format!("invalid request: {}", error.without_url()))
        })?;
        let response = self
            .client
            .execute(request)
            .await
            .map_err(|error| map_error(&url, error))?;
        let mut builder = http::Response::builder().status(response.status());
        if let Some(headers) = builder.headers_mut() {
            headers.extend(
                response
                    .headers()
                    .iter()
                    .map(|(name, value)| (name.clone(), value.clone())),
            );
        }
        let body_url = url.clone();
        let body = response
            .bytes_stream()
            .map_err(move |error| map_error(&body_url, error));
        builder
            .body(ResponseBody::from_stream(body))
            .map_err(|error| ClientError::transport(&url, error))
    }
}

/// reqwest's errors carry the URL, query included; it is removed before the error is kept.
fn map_error(url: &url::Url, error: reqwest::Error) -> ClientError {
    if error.is_timeout() && error.is_connect() {
        return ClientError::Timeout(TimeoutKind::Connect);
    }
    ClientError::transport(url, error.without_url())
}
