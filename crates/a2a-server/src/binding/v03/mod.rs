//! A2A v0.3 beside 1.0, on the same URLs: the v0.3 JSON-RPC methods (told apart by name
//! once the 1.0 lookup fails), the v0.3 REST paths (under `/v1/`), the card's v0.3 members,
//! and the marker that gives a webhook registered over v0.3 its v0.3 deliveries.
//!
//! Everything here is translation at the edge: a v0.3 request is decoded, turned into the
//! 1.0 request, run through the same [`RequestHandler`](crate::handler::RequestHandler)
//! operations the 1.0 bindings use (authentication, tenant and owner isolation, limits
//! included), and the 1.0 result is written back in the v0.3 shape, errors with their v0.3
//! codes. The core sees 1.0 only.

mod card;
mod delivery;
mod jsonrpc;
mod marker;
mod proto;
mod rejected;
mod rest;
mod run;
mod stream;
mod version;

pub(crate) use self::card::served_card;
pub(crate) use self::delivery::push_body;
pub(super) use self::jsonrpc::serve as serve_jsonrpc;
pub(crate) use self::marker::is_marked;
pub(super) use self::rest::{refusal as rest_refusal, serve as serve_rest, wants as wants_rest};
pub(super) use self::stream::{rest_stream_event, stream_event};
pub(super) use self::version::speaks_v03;
