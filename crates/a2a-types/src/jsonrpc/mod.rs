//! The JSON-RPC 2.0 envelope of the A2A JSON-RPC binding (`a2a-v1.md` §5.1): request,
//! response and error objects, request ids, and the method names of v1.0 and v0.3.
//!
//! Requests and responses are deserialised by hand from a JSON value so that the protocol's
//! rules hold after parsing: `jsonrpc` is `"2.0"`, an absent `id` (notification) differs from
//! `"id": null`, a response has exactly one of `result` and `error`, and batches (which A2A
//! does not use) are rejected with a clear [`EnvelopeError`].
//!
//! ```
//! use a2a_types::jsonrpc::{JsonRpcRequest, JsonRpcResponse, Method, RequestId, methods};
//! use serde_json::json;
//!
//! let request: JsonRpcRequest = serde_json::from_str(
//!     r#"{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t1"}}"#,
//! )?;
//! assert_eq!(request.a2a_method(), Some(Method::GetTask));
//!
//! let response = JsonRpcResponse::success(RequestId::from(7_i64), json!({"id": "t1"}));
//! assert_eq!(
//!     serde_json::to_string(&response)?,
//!     r#"{"jsonrpc":"2.0","id":7,"result":{"id":"t1"}}"#
//! );
//! assert_eq!(methods::ALL.len(), 11);
//! # Ok::<(), serde_json::Error>(())
//! ```

mod envelope;
mod error;
mod id;
mod method;
pub mod methods;
pub mod v0_3;

#[cfg(test)]
mod tests;

pub use self::envelope::{
    JSONRPC_VERSION, JsonRpcPayload, JsonRpcRequest, JsonRpcResponse, ResponseError,
};
pub use self::error::EnvelopeError;
pub use self::id::RequestId;
pub use self::method::{Method, UnknownMethod};
// The error object lives with the other error bodies, below this module.
pub use crate::error::body::JsonRpcError;
