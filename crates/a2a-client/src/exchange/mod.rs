//! One call's exchange with the agent, whatever the binding: the headers and credentials it
//! carries, its time limit and retries, and the wire it goes over (an HTTP request through
//! the transport, or a call on the gRPC channel).

mod calls;
mod grpc;
mod headers;
mod http;
mod retry;

pub(crate) use self::retry::Failed;
