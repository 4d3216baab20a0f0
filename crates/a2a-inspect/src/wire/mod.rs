//! The wire log: every call the inspector makes to an agent, recorded by a
//! [`RecordingTransport`] wrapped around the network transport. Request head and body,
//! response head, and the response body's chunks are tee'd as they pass, so a stream is
//! recorded frame by frame without being buffered. Secrets are replaced by `<redacted>`
//! when the call is recorded, so they never sit in the log in clear.

mod context;
mod grpc;
mod log;
mod operation;
mod record;
mod redact;
mod replay;

pub use self::context::{AuthShape, RecordContext};
pub(crate) use self::grpc::GrpcCall;
pub use self::log::{CALL_IDS, SseFrame, WIRE_CAPACITY, WireCall, WireLog, now, with_call_ids};
pub use self::record::RecordingTransport;
pub use self::redact::{REDACTED, pretty_value};

#[cfg(test)]
mod tests;
