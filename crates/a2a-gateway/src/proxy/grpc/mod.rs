//! Agents whose card offers only gRPC, reached through the gateway's JSON-RPC and HTTP+JSON
//! routes: each call is read into the rpc's request, sent over a channel kept per agent,
//! and its answer, stream or error written back in the client's binding.

mod answer;
mod channels;
mod insecure;
mod invoke;
pub(crate) mod jsonrpc;
mod operation;
pub(crate) mod rest;

pub(crate) use self::channels::{Channels, grpc_interface, grpc_url};
