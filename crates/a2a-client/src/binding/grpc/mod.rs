//! The gRPC binding (spec §5.3): every operation as a call of `lf.a2a.v1.A2AService` over
//! tonic's HTTP/2 channel, streams as server-streaming calls, A2A errors in the status
//! details, and the client's headers as call metadata.

mod address;
mod answer;
mod channel;
mod status;
mod tls;

pub(crate) use self::address::{bind_to_card_host, grpc_url};
pub(crate) use self::answer::Reply;
pub(crate) use self::channel::{GrpcChannel, GrpcEvents};
