//! The A2A v1.0 gRPC wire form: the `lf.a2a.v1` protobuf messages and `A2AService` stubs
//! generated from `proto/lf/a2a/v1/a2a.proto`, their conversions to and from `a2a-types`,
//! and errors as gRPC statuses.

pub mod convert;
pub mod status;

/// The `lf.a2a.v1` messages and the `A2AService` client and server stubs, generated from
/// `proto/lf/a2a/v1/a2a.proto`.
#[allow(
    missing_docs,
    unreachable_pub,
    missing_debug_implementations,
    clippy::all,
    clippy::pedantic
)]
pub mod proto {
    tonic::include_proto!("lf.a2a.v1");
}
