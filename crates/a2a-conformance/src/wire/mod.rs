//! The wire: one operation sent over one interface as its binding defines it.
//!
//! What came back is kept as JSON (ProtoJSON) whatever the binding, so rules read every
//! binding the same way.

mod exchange;
mod grpc;
mod jsonrpc;
mod peer;
mod rest;
mod sse;

use serde_json::Value;

pub(crate) use self::exchange::{
    CallOptions, ErrorCode, Exchange, FINAL_GRACE, Op, StreamRecord, WireError,
};
pub(crate) use self::grpc::GrpcWire;
pub(crate) use self::jsonrpc::JsonRpcWire;
pub(crate) use self::peer::HttpPeer;
pub(crate) use self::rest::RestWire;
pub(crate) use self::sse::is_final;

/// One binding's way of sending operations.
#[async_trait::async_trait]
pub(crate) trait Wire: Send + Sync + std::fmt::Debug {
    /// Sends a unary operation with `params` (the request message as ProtoJSON).
    async fn call(&self, op: Op, params: Value, options: &CallOptions) -> Exchange;

    /// Opens a streaming operation and reads it until it ends, stays open past
    /// [`FINAL_GRACE`] after a final event, or `options.timeout` passes.
    async fn stream(&self, op: Op, params: Value, options: &CallOptions) -> StreamRecord;

    /// The JSON-RPC wire, for checks of that binding's envelope (and v0.3 methods).
    fn jsonrpc(&self) -> Option<&JsonRpcWire> {
        None
    }

    /// The HTTP+JSON wire, for checks of raw paths (and v0.3 routes).
    fn rest(&self) -> Option<&RestWire> {
        None
    }
}
