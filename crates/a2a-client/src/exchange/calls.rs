//! The two shapes of call, with their time limit and retries, on whichever wire the client
//! speaks.

use super::Failed;
use crate::binding::{Call, Reply};
use crate::client::A2aClient;
use crate::error::{ClientError, TimeoutKind};
use crate::stream;

impl A2aClient {
    /// A non-streaming call, with the request timeout and retries. On gRPC the timeout is
    /// also the call's deadline.
    pub(crate) async fn unary<T: Reply>(&self, call: Call) -> Result<T, ClientError> {
        let timeout = self.call.timeout.unwrap_or(self.inner.timeouts.request);
        self.retrying(call.is_idempotent(), || async {
            let attempt = async {
                match &self.inner.grpc {
                    Some(channel) => self.unary_grpc(channel, &call, timeout).await,
                    None => self.unary_http(&call).await,
                }
            };
            tokio::time::timeout(timeout, attempt)
                .await
                .unwrap_or_else(|_elapsed| Err(ClientError::Timeout(TimeoutKind::Request).into()))
        })
        .await
    }

    /// Opens a stream for `call` (the response head, within the request timeout), with the
    /// retry policy for non-idempotent calls. `last_event_id` is sent on the HTTP bindings;
    /// gRPC has no event ids.
    pub(crate) async fn open_stream(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<stream::Connection, ClientError> {
        self.open_stream_failed(call, last_event_id)
            .await
            .map_err(|failed| failed.error)
    }

    /// As [`open_stream`](Self::open_stream), with the failure's `Retry-After`.
    pub(crate) async fn open_stream_failed(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<stream::Connection, Failed> {
        let timeout = self.call.timeout.unwrap_or(self.inner.timeouts.request);
        self.retrying_failed(false, || async {
            let attempt = async {
                match &self.inner.grpc {
                    Some(channel) => self.open_stream_grpc(channel, call).await,
                    None => self.open_stream_http(call, last_event_id).await,
                }
            };
            tokio::time::timeout(timeout, attempt)
                .await
                .unwrap_or_else(|_elapsed| {
                    Err(Failed::from(ClientError::Timeout(TimeoutKind::Request)))
                })
        })
        .await
    }
}
