//! [`Transport`]: how a request reaches an agent. [`HttpTransport`] goes over the network
//! with reqwest; [`InProcessTransport`] calls a tower service such as an axum `Router`
//! directly, with no socket.
//!
//! A transport only moves bytes. Bindings, headers, credentials, timeouts and retries are the
//! client's, so they behave the same over every transport.

mod body;
mod http_transport;
mod in_process;
mod request;

use std::pin::Pin;

use bytes::Bytes;
use futures::Stream;

use crate::ClientError;

pub(crate) use self::body::read_body;
pub use self::http_transport::{HttpTransport, TlsOptions};
pub use self::in_process::InProcessTransport;

/// Sends one HTTP request and returns the response as soon as its head has arrived; the body
/// is read from [`ResponseBody`] afterwards, so streams are not buffered.
///
/// Implementations must not follow redirects (the client decides) and should
/// map connection failures to [`ClientError::Transport`] and an expired connect timeout to
/// [`ClientError::Timeout`]. Overall request timeouts are applied by the client.
#[async_trait::async_trait]
pub trait Transport: Send + Sync + std::fmt::Debug + 'static {
    /// Sends `request`, whose URI is absolute.
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError>;
}

/// The body of a response, as a stream of chunks. Dropping it releases the connection.
pub struct ResponseBody {
    chunks: Pin<Box<dyn Stream<Item = Result<Bytes, ClientError>> + Send>>,
}
