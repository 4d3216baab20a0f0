//! Which send a SendMessage is, for exactly-once sends: its key (the `Idempotency-Key`
//! header when the request has one, else the message id) and the digest of its message as
//! received, which tells a retry (same message) from a clash (another message, same key).
//! Under an `Idempotency-Key` the digest leaves the message id out, so a retry may carry a
//! new one.

use a2a_types::{A2aError, Message, Task};
use sha2::{Digest as _, Sha256};

use super::CallContext;
use crate::turn::SendKey;

/// The request header (gRPC: metadata) whose value, when present, is the send's key instead
/// of its message id.
pub const IDEMPOTENCY_KEY_HEADER: &str = "idempotency-key";

/// The metadata member set to `true` on the task that answers a repeated send (same key,
/// same message, same caller): no turn ran for it, the task is the first send's.
pub const DUPLICATE_SEND_METADATA: &str = "duplicate_send";

/// The longest `Idempotency-Key` accepted, in bytes.
const MAX_KEY_LEN: usize = 256;

/// The key and digest of the send of `message` in `call`.
pub(super) fn send_key(call: &CallContext, message: &Message) -> Result<SendKey, A2aError> {
    // Prefixed, so that a header value never matches another send's message id.
    let key = match call
        .headers
        .get(IDEMPOTENCY_KEY_HEADER)
        .map(str::trim)
        .filter(|key| !key.is_empty())
    {
        Some(key) if key.len() > MAX_KEY_LEN => {
            return Err(A2aError::invalid_params(format!(
                "the Idempotency-Key header is longer than {MAX_KEY_LEN} bytes"
            )));
        }
        Some(key) => {
            // A client that names the send by a key of its own may give its retry a new
            // message id: the rest of the message must be the same.
            let mut unnamed = message.clone();
            unnamed.message_id = a2a_types::MessageId::new("");
            return Ok(SendKey {
                key: format!("key:{key}"),
                digest: digest(&unnamed)?,
            });
        }
        None => format!("message:{}", message.message_id.as_str()),
    };
    Ok(SendKey {
        key,
        digest: digest(message)?,
    })
}

/// SHA-256 of the message's canonical JSON (members sorted, compact), in hex.
fn digest(message: &Message) -> Result<String, A2aError> {
    let mut value = serde_json::to_value(message).map_err(|_| A2aError::internal())?;
    value.sort_all_objects();
    let bytes = serde_json::to_vec(&value).map_err(|_| A2aError::internal())?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// Marks `task` as the answer to a repeated send.
pub(super) fn mark_repeated(task: &mut Task) {
    task.metadata
        .get_or_insert_with(a2a_types::Metadata::new)
        .insert(
            DUPLICATE_SEND_METADATA.to_owned(),
            serde_json::Value::Bool(true),
        );
}

#[cfg(test)]
mod tests {
    use a2a_types::{Part, Role};
    use serde_json::json;

    use super::*;

    fn message(text: &str) -> Message {
        let mut message = Message::new(Role::User, vec![Part::text(text)]);
        message.message_id = a2a_types::MessageId::new("m-1");
        message
    }

    #[test]
    fn the_digest_ignores_the_order_of_metadata_members() {
        let (mut a, mut b) = (message("hi"), message("hi"));
        a.metadata = serde_json::from_value(json!({"x": 1, "y": 2})).ok();
        b.metadata = serde_json::from_value(json!({"y": 2, "x": 1})).ok();
        assert_eq!(digest(&a).ok(), digest(&b).ok());
        assert_ne!(digest(&a).ok(), digest(&message("hi")).ok());
    }

    #[test]
    fn the_header_is_the_key_when_present_and_the_message_id_otherwise() {
        let plain = CallContext::default();
        let mut map = http::HeaderMap::new();
        map.insert("idempotency-key", "k-9".parse().unwrap());
        let keyed =
            CallContext::default().with_headers(super::super::RequestHeaders::from_map(&map));
        let message = message("hi");
        assert_eq!(send_key(&plain, &message).unwrap().key, "message:m-1");
        assert_eq!(send_key(&keyed, &message).unwrap().key, "key:k-9");
        let mut renamed = message.clone();
        renamed.message_id = a2a_types::MessageId::new("m-2");
        assert_eq!(
            send_key(&keyed, &message).unwrap().digest,
            send_key(&keyed, &renamed).unwrap().digest,
            "under a key of the client's, a retry may carry a new message id"
        );
        assert_ne!(
            send_key(&plain, &message).unwrap().digest,
            send_key(&plain, &renamed).unwrap().digest
        );
    }
}
