//! A2A v0.3 on the two HTTP bindings, for agents that speak only v0.3.
//!
//! Each call stays a v1.0 call up to here: its v1.0 params are translated to v0.3 with
//! `a2a_types::v03::translate`, and the agent's v0.3 answers and stream events back to v1.0,
//! so the client's callers never see a v0.3 type. JSON-RPC uses the v0.3 method names
//! (`message/send`, …); HTTP+JSON uses the v0.3 REST paths under `/v1` with protobuf JSON
//! bodies ([`proto`] converts those to and from the JSON-RPC shapes). v0.3 has no
//! `ListTasks`; a v0.3 request carries no tenant.

mod jsonrpc;
mod mapping;
mod proto;
mod rest;

pub(super) use self::jsonrpc::{
    decode as decode_jsonrpc, decode_event as decode_jsonrpc_event, prepare as prepare_jsonrpc,
};
pub(super) use self::rest::{
    decode as decode_rest, decode_event as decode_rest_event, error_from_answer,
    prepare as prepare_rest,
};
