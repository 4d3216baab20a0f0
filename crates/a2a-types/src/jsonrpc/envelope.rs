//! The envelope: requests, responses, error objects, and the rules they must follow.

use serde::de::{DeserializeOwned, Error as _};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::error::{EnvelopeError, ID_EXPECTED};
use super::{Method, RequestId};
use crate::error::A2aError;
use crate::error::body::JsonRpcError;

/// The only `jsonrpc` member value accepted.
pub const JSONRPC_VERSION: &str = "2.0";

/// The object of a message, after the checks every JSON-RPC message shares.
fn envelope_object(value: Value) -> Result<Map<String, Value>, EnvelopeError> {
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => return Err(EnvelopeError::Batch),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            return Err(EnvelopeError::NotAnObject);
        }
    };
    match object.get("jsonrpc") {
        Some(Value::String(version)) if version == JSONRPC_VERSION => Ok(object),
        Some(_) => Err(EnvelopeError::UnsupportedVersion),
        None => Err(EnvelopeError::MissingMember { member: "jsonrpc" }),
    }
}

/// A JSON-RPC request or notification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonRpcRequest {
    /// Always `"2.0"` once parsed.
    pub jsonrpc: String,
    /// `None` for a notification (no `id` member); `Some(RequestId::Null)` for `"id": null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The method name, e.g. [`methods::SEND_MESSAGE`](super::methods::SEND_MESSAGE).
    pub method: String,
    /// The params object (or array); `None` when absent or `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl JsonRpcRequest {
    /// A request with an id.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id: Some(id.into()),
            method: method.into(),
            params,
        }
    }

    /// A notification: a request without an id, which gets no response.
    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id: None,
            method: method.into(),
            params,
        }
    }

    /// Whether this is a notification.
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// The v1.0 operation named by `method`, if it is one.
    pub fn a2a_method(&self) -> Option<Method> {
        Method::from_name(&self.method)
    }

    /// Validates and converts a parsed JSON body. Unknown members are ignored.
    pub fn from_value(value: Value) -> Result<Self, EnvelopeError> {
        let mut object = envelope_object(value)?;
        let id = match object.remove("id") {
            None => None,
            Some(id) => {
                Some(RequestId::from_value(id).ok_or(EnvelopeError::invalid("id", ID_EXPECTED))?)
            }
        };
        let method = match object.remove("method") {
            Some(Value::String(method)) => method,
            Some(_) => return Err(EnvelopeError::invalid("method", "a string")),
            None => return Err(EnvelopeError::MissingMember { member: "method" }),
        };
        let params = match object.remove("params") {
            None | Some(Value::Null) => None,
            Some(params @ (Value::Object(_) | Value::Array(_))) => Some(params),
            Some(_) => return Err(EnvelopeError::invalid("params", "an object or an array")),
        };
        Ok(Self {
            jsonrpc: JSONRPC_VERSION.to_owned(),
            id,
            method,
            params,
        })
    }
}

impl<'de> Deserialize<'de> for JsonRpcRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::from_value(Value::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}

/// What a response carries: exactly one of `result` and `error`.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonRpcPayload {
    /// The `result` member (which may be `null`).
    Result(Value),
    /// The `error` member.
    Error(JsonRpcError),
}

/// A JSON-RPC response: `{"jsonrpc":"2.0","id",("result"|"error")}`.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcResponse {
    /// The request's id; `Null` when it could not be read.
    pub id: RequestId,
    /// The result or the error.
    pub payload: JsonRpcPayload,
}

/// Why [`JsonRpcResponse::into_result`] produced no value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// The peer answered with an error.
    #[error(transparent)]
    Agent(A2aError),
    /// The `result` does not have the expected shape.
    #[error("result does not match the expected type")]
    Decode(#[source] serde_json::Error),
}

impl JsonRpcResponse {
    /// A success response.
    pub fn success(id: RequestId, result: Value) -> Self {
        Self {
            id,
            payload: JsonRpcPayload::Result(result),
        }
    }

    /// An error response.
    pub fn error(id: RequestId, error: JsonRpcError) -> Self {
        Self {
            id,
            payload: JsonRpcPayload::Error(error),
        }
    }

    /// Decodes the result as `T`, or recovers the [`A2aError`] the peer sent.
    pub fn into_result<T: DeserializeOwned>(self) -> Result<T, ResponseError> {
        match self.payload {
            JsonRpcPayload::Result(value) => {
                serde_json::from_value(value).map_err(ResponseError::Decode)
            }
            JsonRpcPayload::Error(error) => {
                Err(ResponseError::Agent(A2aError::from_jsonrpc_error(&error)))
            }
        }
    }

    /// Validates and converts a parsed JSON body. A missing `id` is read as `Null`, and
    /// `"error": null` beside a `result` as no error, since some servers send both.
    pub fn from_value(value: Value) -> Result<Self, EnvelopeError> {
        let mut object = envelope_object(value)?;
        let id = match object.remove("id") {
            None => RequestId::Null,
            Some(id) => {
                RequestId::from_value(id).ok_or(EnvelopeError::invalid("id", ID_EXPECTED))?
            }
        };
        let result = object.remove("result");
        let error = object.remove("error").filter(|error| !error.is_null());
        let payload = match (result, error) {
            (Some(result), None) => JsonRpcPayload::Result(result),
            (None, Some(error)) => {
                JsonRpcPayload::Error(JsonRpcError::deserialize(error).map_err(|_| {
                    EnvelopeError::invalid("error", "an object with an integer code and a message")
                })?)
            }
            (Some(_), Some(_)) => return Err(EnvelopeError::ResultAndError),
            (None, None) => return Err(EnvelopeError::NeitherResultNorError),
        };
        Ok(Self { id, payload })
    }
}

impl Serialize for JsonRpcResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        map.serialize_entry("id", &self.id)?;
        match &self.payload {
            JsonRpcPayload::Result(result) => map.serialize_entry("result", result)?,
            JsonRpcPayload::Error(error) => map.serialize_entry("error", error)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for JsonRpcResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::from_value(Value::deserialize(deserializer)?).map_err(D::Error::custom)
    }
}
