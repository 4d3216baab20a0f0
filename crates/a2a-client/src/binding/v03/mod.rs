//! A2A v0.3 on the two HTTP bindings, for agents that speak only v0.3.
//!
//! Each call stays a v1.0 call up to here: its v1.0 params are translated to v0.3 with
//! `a2a_types::v03::translate`, and the agent's v0.3 answers and stream events back to v1.0,
//! so the client's callers never see a v0.3 type. JSON-RPC uses the v0.3 method names
//! (`message/send`, …); HTTP+JSON uses the v0.3 REST paths under `/v1` with protobuf JSON
//! bodies ([`proto`] converts those to and from the JSON-RPC shapes). v0.3 has no
//! `ListTasks`; a v0.3 request carries no tenant.

mod jsonrpc;
mod proto;
mod rest;

use a2a_types::A2aError;
use a2a_types::jsonrpc::Method as V1Method;
use a2a_types::v03::Method;

pub(super) use self::jsonrpc::{
    decode as decode_jsonrpc, decode_event as decode_jsonrpc_event, prepare as prepare_jsonrpc,
};
pub(super) use self::rest::{
    decode as decode_rest, decode_event as decode_rest_event, error_from_answer,
    prepare as prepare_rest,
};

/// The v0.3 method of a v1.0 operation.
fn method(v1: V1Method) -> Result<Method, crate::ClientError> {
    Method::from_v1(v1).ok_or_else(|| {
        crate::ClientError::Agent(A2aError::unsupported_operation(format!(
            "{v1} is not part of A2A v0.3"
        )))
    })
}

/// A v1.0 request that has no v0.3 form.
fn request_error(method: Method, error: &A2aError) -> crate::ClientError {
    crate::ClientError::config(format!(
        "the {} request cannot be written in A2A v0.3: {}",
        method.as_str(),
        error.message()
    ))
}

/// A v0.3 answer that does not read as its v1.0 counterpart.
fn answer_error(method: Method, error: &A2aError) -> crate::ClientError {
    crate::ClientError::invalid_response(format!(
        "the {} answer is not valid A2A v0.3: {}",
        method.as_str(),
        error.message()
    ))
}
