//! The A2A v1.0 gRPC wire form: the `lf.a2a.v1` protobuf messages and `A2AService` stubs
//! generated from `proto/lf/a2a/v1/a2a.proto`, their conversions to and from `a2a-types`,
//! and errors as gRPC statuses.
//!
//! ```
//! use a2a_grpc::proto;
//! use a2a_types::Message;
//!
//! // Every a2a-types value has a protobuf form, and the protobuf form converts back,
//! // refusing what the JSON side refuses.
//! let message = Message::user_text("hello");
//! let wire = proto::Message::from(message.clone());
//! assert_eq!(Message::try_from(wire)?, message);
//!
//! // Errors travel as gRPC statuses with their A2A reason.
//! assert_eq!(a2a_grpc::status::code_name(tonic::Code::NotFound), "NOT_FOUND");
//! # Ok::<(), a2a_grpc::convert::ConvertError>(())
//! ```
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

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
