//! The A2A error catalogue ([`ErrorKind`]) and the wire error ([`A2aError`]) with every body
//! format that carries it: the JSON-RPC error object, the HTTP+JSON `google.rpc.Status`
//! envelope, RFC 9457 problem details and the legacy `{"error","message"}` body.
//!
//! Servers build a body from an [`A2aError`]; clients recover an [`A2aError`] from whatever
//! body arrives ([`A2aError::from_http_body`], [`A2aError::from_jsonrpc_error`]). Kinds are
//! recovered by `ErrorInfo` reason first, then by code, problem type or status, so peers that
//! use another HTTP status table (v1.0.0, Camel, a2a-java) are still classified correctly.
//!
//! ```
//! use a2a_types::error::{A2aError, ErrorKind, RestStatusProfile};
//!
//! // Server side: one error, any binding.
//! let error = A2aError::task_not_found("t-9");
//! let rpc = error.to_jsonrpc_error();
//! assert_eq!(rpc.code, -32001);
//! let body = error.to_status_body(RestStatusProfile::Spec);
//! assert_eq!(body["error"]["status"], "NOT_FOUND");
//!
//! // Client side: whatever came back, the same error is recovered.
//! let recovered = A2aError::from_http_body(404, body.to_string().as_bytes());
//! assert_eq!(recovered.kind(), ErrorKind::TaskNotFound);
//! assert_eq!(recovered.metadata()["taskId"], "t-9");
//! assert_eq!(recovered, error);
//! ```

mod a2a_error;
// Crate-visible so that `jsonrpc` can re-export the JSON-RPC error object kept here.
pub(crate) mod body;
mod details;
mod kind;
mod problem;
mod status;

#[cfg(test)]
mod body_tests;
#[cfg(test)]
mod tests;

pub use self::a2a_error::A2aError;
pub use self::body::{RpcStatus, RpcStatusBody};
pub use self::details::{A2A_DOMAIN, BadRequest, ErrorInfo, FieldViolation};
pub use self::kind::{ErrorKind, PROBLEM_TYPE_BASE};
pub use self::problem::{LegacyErrorBody, PROBLEM_JSON, ProblemDetails};
pub use self::status::{RestStatusProfile, UnknownRestStatusProfile};
