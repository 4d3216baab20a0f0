//! [`InProcessTransport`]: calls a tower service (an axum `Router`, e.g.
//! `A2aServer::router()`) directly, with no socket.

use bytes::Bytes;
use futures::TryStreamExt as _;
use http_body_util::{BodyExt as _, Full};
use tower::ServiceExt as _;

use super::request::request_url;
use super::{ResponseBody, Transport};
use crate::error::{BoxError, ClientError};

/// Hands each request to a tower service, such as an axum `Router`, in this process.
///
/// The service sees the request exactly as a server would (absolute URI, headers, body), so
/// routing by path works as it does over the network. Useful in tests and to embed an agent.
#[derive(Clone)]
pub struct InProcessTransport<S> {
    service: S,
}

impl<S> InProcessTransport<S> {
    /// A transport that calls `service`.
    pub fn new(service: S) -> Self {
        Self { service }
    }
}

impl<S> std::fmt::Debug for InProcessTransport<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessTransport").finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
impl<S, B> Transport for InProcessTransport<S>
where
    S: tower::Service<http::Request<Full<Bytes>>, Response = http::Response<B>>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        let url = request_url(&request)?;
        let request = request.map(Full::new);
        let response = self
            .service
            .clone()
            .oneshot(request)
            .await
            .map_err(|error| ClientError::transport(&url, error))?;
        let (parts, body) = response.into_parts();
        let chunks = body
            .into_data_stream()
            .map_err(move |error| ClientError::transport(&url, error));
        Ok(http::Response::from_parts(
            parts,
            ResponseBody::from_stream(chunks),
        ))
    }
}
