//! An endpoint's binding and protocol version turn a call into an HTTP request and an
//! answer into a result. gRPC calls never come here: they go through the client's gRPC
//! channel.

use a2a_types::StreamResponse;
use a2a_types::jsonrpc::Method;
use serde::de::DeserializeOwned;

use super::{Binding, Call, Endpoint, Prepared, jsonrpc, kubemq, rest, v03};
use crate::sse::SseEvent;
use crate::{ClientError, ProtocolVersion};

impl Endpoint {
    /// The HTTP request of `call` on this endpoint.
    pub(crate) fn prepare(&self, call: &Call, request_id: u64) -> Result<Prepared, ClientError> {
        let params = call.params(&self.tenant)?;
        let streaming = call.method().is_streaming();
        match (self.binding, self.version) {
            (Binding::JsonRpc, ProtocolVersion::V1_0) => {
                jsonrpc::prepare(&self.url, call.method(), params, request_id, streaming)
            }
            (Binding::HttpJson, ProtocolVersion::V1_0) => {
                rest::prepare(&self.url, call, params, streaming)
            }
            (Binding::JsonRpc, ProtocolVersion::V0_3) => {
                v03::prepare_jsonrpc(&self.url, call.method(), params, request_id)
            }
            (Binding::HttpJson, ProtocolVersion::V0_3) => {
                v03::prepare_rest(&self.url, call.method(), params)
            }
            (Binding::Grpc, _) => Err(not_http()),
        }
    }

    /// Decodes a successful (2xx) non-streaming answer.
    pub(crate) fn decode<T: DeserializeOwned>(
        &self,
        method: Method,
        body: &[u8],
    ) -> Result<T, ClientError> {
        match (self.binding, self.version) {
            (Binding::JsonRpc, ProtocolVersion::V1_0) => jsonrpc::decode(method, body),
            (Binding::HttpJson, ProtocolVersion::V1_0) => rest::decode(method, body),
            (Binding::JsonRpc, ProtocolVersion::V0_3) => v03::decode_jsonrpc(method, body),
            (Binding::HttpJson, ProtocolVersion::V0_3) => v03::decode_rest(method, body),
            (Binding::Grpc, _) => Err(not_http()),
        }
    }

    /// Decodes one SSE event of a stream: in the binding's shape, or in one of KubeMQ's
    /// agent shapes (`task.status`, `task.artifact`, `task.done`, `task.error`, plain or
    /// wrapped in `payload.payload`; [`kubemq`]), which an agent behind KubeMQ's gateway
    /// may stream. An event named `task.*` is tried in KubeMQ's shapes first; any other is
    /// tried in them only when the binding cannot read it.
    pub(crate) fn decode_event(&self, event: &SseEvent) -> Result<StreamResponse, ClientError> {
        let named = kubemq::is_named(event);
        if named && let Some(decoded) = kubemq::decode(event) {
            return decoded;
        }
        match self.decode_binding_event(event) {
            Err(error) if !named && !matches!(error, ClientError::Agent(_)) => {
                kubemq::decode(event).unwrap_or(Err(error))
            }
            decoded => decoded,
        }
    }

    /// Decodes one SSE event of a stream in the binding's shape.
    fn decode_binding_event(&self, event: &SseEvent) -> Result<StreamResponse, ClientError> {
        match (self.binding, self.version) {
            (Binding::JsonRpc, ProtocolVersion::V1_0) => jsonrpc::decode_event(event),
            (Binding::HttpJson, ProtocolVersion::V1_0) => rest::decode_event(event),
            (Binding::JsonRpc, ProtocolVersion::V0_3) => v03::decode_jsonrpc_event(event),
            (Binding::HttpJson, ProtocolVersion::V0_3) => v03::decode_rest_event(event),
            (Binding::Grpc, _) => Err(not_http()),
        }
    }

    /// The error of a non-2xx answer (v0.3 REST agents answer `{"message": …}`).
    pub(crate) fn error_from_answer(
        &self,
        status: u16,
        location: Option<&str>,
        body: &[u8],
    ) -> ClientError {
        match (self.binding, self.version) {
            (Binding::HttpJson, ProtocolVersion::V0_3) => {
                v03::error_from_answer(status, location, body)
            }
            (Binding::JsonRpc | Binding::HttpJson | Binding::Grpc, _) => {
                super::error_from_answer(status, location, body)
            }
        }
    }
}

/// What a gRPC endpoint answers when asked for HTTP: the client never asks.
fn not_http() -> ClientError {
    ClientError::config("a gRPC interface takes no HTTP requests")
}
