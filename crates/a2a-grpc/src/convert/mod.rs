//! Conversions between the generated `lf.a2a.v1` messages and `a2a-types`.
//!
//! Every message with an `a2a-types` counterpart converts both ways:
//! `From<a2a_types::T> for proto::T` never fails (every valid value has a protobuf form),
//! and `TryFrom<proto::T> for a2a_types::T` refuses what the JSON side refuses, with a
//! [`ConvertError`] naming the field. Proto3 has no presence for strings, numbers, enums and
//! lists, so a required field left at its default (`""`, `ROLE_UNSPECIFIED`, no parts) is
//! refused as absent; message fields and `optional` scalars keep their presence exactly.
//!
//! What protobuf cannot carry: members `a2a-types` keeps only to write them back (the
//! `extra` maps of the card types and of `SendMessageConfiguration`, and its v0.3
//! `blocking` flag, which is sent as `return_immediately`), the order of map entries, and
//! JSON integers beyond 2^53 (every `google.protobuf.Value` number is a double).

mod card;
mod error;
mod fields;
mod message;
mod oauth;
mod push;
mod requests;
mod security;
mod structs;
mod task;

pub use self::error::ConvertError;
pub use self::structs::{
    json_to_value, metadata_to_struct, struct_to_metadata, timestamp_from_proto,
    timestamp_to_proto, value_to_json,
};
