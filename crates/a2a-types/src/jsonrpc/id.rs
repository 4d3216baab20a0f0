//! [`RequestId`]: string, number or null, with the exact JSON number kept.

use std::fmt;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use super::error::{EnvelopeError, ID_EXPECTED};

/// A JSON-RPC request id. Numbers keep their JSON form, so `7` and `7.0` stay distinct.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RequestId {
    /// A string id.
    String(String),
    /// A number id, integer or not.
    Number(Number),
    /// `null`: what an error response carries when the request's id could not be read.
    Null,
}

impl RequestId {
    /// The id a JSON value denotes; `None` for booleans, arrays and objects.
    pub fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(Self::String(text)),
            Value::Number(number) => Some(Self::Number(number)),
            Value::Null => Some(Self::Null),
            Value::Bool(_) | Value::Array(_) | Value::Object(_) => None,
        }
    }

    /// The id to answer a request body with, even one that failed validation: its `id` when
    /// that is a valid id, otherwise `Null` (JSON-RPC 2.0 §5).
    pub fn of_request(body: &Value) -> Self {
        body.get("id")
            .cloned()
            .and_then(Self::from_value)
            .unwrap_or(Self::Null)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(text) => f.write_str(text),
            Self::Number(number) => write!(f, "{number}"),
            Self::Null => f.write_str("null"),
        }
    }
}

impl From<String> for RequestId {
    fn from(text: String) -> Self {
        Self::String(text)
    }
}

impl From<&str> for RequestId {
    fn from(text: &str) -> Self {
        Self::String(text.to_owned())
    }
}

impl From<i64> for RequestId {
    fn from(number: i64) -> Self {
        Self::Number(number.into())
    }
}

impl From<u64> for RequestId {
    fn from(number: u64) -> Self {
        Self::Number(number.into())
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(text) => serializer.serialize_str(text),
            Self::Number(number) => number.serialize(serializer),
            Self::Null => serializer.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    // Through `Value` rather than a visitor, so numbers survive serde_json's
    // `arbitrary_precision` feature should any crate in the build enable it.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::from_value(Value::deserialize(deserializer)?)
            .ok_or_else(|| D::Error::custom(EnvelopeError::invalid("id", ID_EXPECTED)))
    }
}
