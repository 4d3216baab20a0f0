//! A call over the gRPC binding: the request headers as call metadata, the endpoint's tenant
//! in the request, and the call made on the client's channel.

use tonic::metadata::MetadataMap;

use super::Failed;
use crate::auth::Applied;
use crate::binding::Call;
use crate::binding::grpc::{GrpcChannel, Reply};
use crate::client::A2aClient;
use crate::error::ClientError;
use crate::stream;

impl A2aClient {
    /// One attempt at a non-streaming call, which the server must answer within `deadline`.
    pub(super) async fn unary_grpc<T: Reply>(
        &self,
        channel: &GrpcChannel,
        call: &Call,
        deadline: std::time::Duration,
    ) -> Result<T, Failed> {
        let (metadata, applied) = self.grpc_metadata().await?;
        let fail = |error| Failed::new(error, applied);
        let call = call.clone().with_tenant(&self.inner.endpoint.tenant);
        let method = call.method();
        let answer = channel
            .unary(call, metadata, deadline)
            .await
            .map_err(fail)?;
        T::from_answer(answer).ok_or_else(|| {
            fail(ClientError::invalid_response(format!(
                "the {method} answer is of another operation"
            )))
        })
    }

    /// One attempt at opening a stream.
    pub(super) async fn open_stream_grpc(
        &self,
        channel: &GrpcChannel,
        call: &Call,
    ) -> Result<stream::Connection, Failed> {
        let (metadata, applied) = self.grpc_metadata().await?;
        let call = call.clone().with_tenant(&self.inner.endpoint.tenant);
        let events = channel
            .open_stream(call, metadata)
            .await
            .map_err(|error| Failed::new(error, applied))?;
        Ok(stream::Connection::decoded(events))
    }

    /// The request headers as gRPC metadata (keys are lower-case already).
    async fn grpc_metadata(&self) -> Result<(MetadataMap, Applied), ClientError> {
        let mut url = self.inner.endpoint.url.clone();
        let (headers, applied) = self.request_headers(&mut url, None).await?;
        if url.query().is_some() {
            return Err(ClientError::config(
                "an API key placed in the query cannot be sent over gRPC; place it in a header",
            ));
        }
        Ok((MetadataMap::from_headers(headers), applied))
    }
}
