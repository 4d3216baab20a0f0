//! [`ApprovalKey`]: signs the approval requests a run sends out, so that an approval names
//! exactly the call that was shown (tool, arguments, task) and nothing else.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::run::ToolCall;

/// An HMAC-SHA256 key for approval tokens. Every instance serving one agent over one store
/// must share it: an approval asked for on one instance may be answered on another.
#[derive(Clone)]
pub struct ApprovalKey {
    key: Vec<u8>,
}

impl std::fmt::Debug for ApprovalKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApprovalKey(..)")
    }
}

impl ApprovalKey {
    /// A key of these bytes.
    #[must_use]
    pub fn new(key: impl Into<Vec<u8>>) -> Self {
        Self { key: key.into() }
    }

    /// A random key, for one instance alone (tokens it signs die with it).
    #[must_use]
    pub fn random() -> Self {
        let mut key = Vec::with_capacity(32);
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        Self { key }
    }

    /// The token of approval `approval_id` for `call` in task `task_id`.
    #[must_use]
    pub fn sign(&self, task_id: &str, approval_id: &str, call: &ToolCall) -> String {
        self.mac(task_id, approval_id, call)
            .map(|mac| URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
            .unwrap_or_default()
    }

    /// True when `token` is the token of that approval (compared in constant time).
    #[must_use]
    pub fn verify(&self, token: &str, task_id: &str, approval_id: &str, call: &ToolCall) -> bool {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(token) else {
            return false;
        };
        self.mac(task_id, approval_id, call)
            .is_some_and(|mac| mac.verify_slice(&bytes).is_ok())
    }

    fn mac(&self, task_id: &str, approval_id: &str, call: &ToolCall) -> Option<Hmac<Sha256>> {
        // HMAC takes keys of any length: this never fails.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).ok()?;
        for field in [
            task_id,
            approval_id,
            call.id.as_str(),
            call.name.as_str(),
            &call.arguments.to_string(),
        ] {
            // Length-prefixed, so that no two field lists share a byte string.
            mac.update(&(field.len() as u64).to_be_bytes());
            mac.update(field.as_bytes());
        }
        Some(mac)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "call-1".to_owned(),
            name: "write_file".to_owned(),
            arguments,
        }
    }

    #[test]
    fn a_token_names_exactly_one_call() {
        let key = ApprovalKey::new(b"secret".to_vec());
        let token = key.sign("task", "ap-1", &call(serde_json::json!({"path": "a"})));
        assert!(key.verify(
            &token,
            "task",
            "ap-1",
            &call(serde_json::json!({"path": "a"}))
        ));
        assert!(!key.verify(
            &token,
            "task",
            "ap-1",
            &call(serde_json::json!({"path": "b"}))
        ));
        assert!(!key.verify(
            &token,
            "other",
            "ap-1",
            &call(serde_json::json!({"path": "a"}))
        ));
        assert!(!key.verify(
            &token,
            "task",
            "ap-2",
            &call(serde_json::json!({"path": "a"}))
        ));
        assert!(!ApprovalKey::new(b"other".to_vec()).verify(
            &token,
            "task",
            "ap-1",
            &call(serde_json::json!({"path": "a"}))
        ));
        assert!(!key.verify("not base64!", "task", "ap-1", &call(serde_json::json!({}))));
    }
}
