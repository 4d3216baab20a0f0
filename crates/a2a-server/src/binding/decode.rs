//! Request messages from JSON, with InvalidParams errors that name the failing field (spec
//! §7.2: "SHOULD say which field and why"), for both bindings.

use a2a_types::A2aError;
use a2a_types::json::{self, DecodeError};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Decodes params (JSON-RPC) or a body (HTTP+JSON) as the request type `T`.
///
/// # Errors
/// InvalidParams naming the member at fault.
pub(crate) fn decode<T: DeserializeOwned>(value: Value) -> Result<T, A2aError> {
    json::from_value(value).map_err(|error| invalid_params(&error))
}

/// [`decode`] of a JSON object.
///
/// # Errors
/// As [`decode`].
pub(crate) fn decode_object<T: DeserializeOwned>(
    object: Map<String, Value>,
) -> Result<T, A2aError> {
    decode(Value::Object(object))
}

/// serde reports a missing member at the object that lacks it, so its name is only in the
/// message; it is moved into the path so the field violation names the missing field itself.
fn invalid_params(error: &DecodeError) -> A2aError {
    let missing = error
        .message()
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name);
    match (missing, error.path()) {
        (Some(name), "") => A2aError::invalid_field(name, "is required"),
        (Some(name), path) => A2aError::invalid_field(format!("{path}.{name}"), "is required"),
        (None, "") => A2aError::invalid_params(format!("Invalid parameters: {}", error.message())),
        (None, path) => A2aError::invalid_field(path, error.message()),
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{ErrorKind, GetTaskRequest, SendMessageRequest};
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            other => panic!("not an object: {other}"),
        }
    }

    fn field_of(error: &A2aError) -> &str {
        assert_eq!(error.kind(), ErrorKind::InvalidParams);
        &error.field_violations()[0].field
    }

    #[test]
    fn a_missing_member_is_named_with_its_path() {
        let error = decode_object::<GetTaskRequest>(Map::new()).unwrap_err();
        assert_eq!(field_of(&error), "id");
        assert!(error.message().contains("id"), "{}", error.message());

        let error = decode_object::<SendMessageRequest>(object(
            json!({"message": {"messageId": "m", "role": "ROLE_USER"}}),
        ))
        .unwrap_err();
        assert_eq!(field_of(&error), "message.parts");
    }

    #[test]
    fn an_ill_typed_member_is_named_with_its_path() {
        let params = json!({"message": {"messageId": "m", "role": true, "parts": []}});
        let error = decode_object::<SendMessageRequest>(object(params)).unwrap_err();
        assert_eq!(field_of(&error), "message.role");
        assert!(
            error.message().contains("message.role"),
            "{}",
            error.message()
        );

        let error =
            decode_object::<GetTaskRequest>(object(json!({"id": "t", "historyLength": "x"})))
                .unwrap_err();
        assert_eq!(field_of(&error), "historyLength");
    }
}
