//! An endpoint's binding turns a call into an HTTP request and an answer into a result.
//! gRPC calls never come here: they go through the client's gRPC channel.

use a2a_types::StreamResponse;
use a2a_types::jsonrpc::Method;
use serde::de::DeserializeOwned;

use super::{Binding, Call, Endpoint, Prepared, jsonrpc, rest};
use crate::ClientError;
use crate::sse::SseEvent;

impl Endpoint {
    /// The HTTP request of `call` on this endpoint.
    pub(crate) fn prepare(&self, call: &Call, request_id: u64) -> Result<Prepared, ClientError> {
        let params = call.params(&self.tenant)?;
        let streaming = call.method().is_streaming();
        match self.binding {
            Binding::JsonRpc => {
                jsonrpc::prepare(&self.url, call.method(), params, request_id, streaming)
            }
            Binding::HttpJson => rest::prepare(&self.url, call, params, streaming),
            Binding::Grpc => Err(not_http()),
        }
    }

    /// Decodes a successful (2xx) non-streaming answer.
    pub(crate) fn decode<T: DeserializeOwned>(
        &self,
        method: Method,
        body: &[u8],
    ) -> Result<T, ClientError> {
        match self.binding {
            Binding::JsonRpc => jsonrpc::decode(method, body),
            Binding::HttpJson => rest::decode(method, body),
            Binding::Grpc => Err(not_http()),
        }
    }

    /// Decodes one SSE event of a stream.
    pub(crate) fn decode_event(&self, event: &SseEvent) -> Result<StreamResponse, ClientError> {
        match self.binding {
            Binding::JsonRpc => jsonrpc::decode_event(event),
            Binding::HttpJson => rest::decode_event(event),
            Binding::Grpc => Err(not_http()),
        }
    }
}

/// What a gRPC endpoint answers when asked for HTTP: the client never asks.
fn not_http() -> ClientError {
    ClientError::config("a gRPC interface takes no HTTP requests")
}
