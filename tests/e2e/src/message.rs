//! SendMessage params for a text message.

use serde_json::{Value, json};

/// SendMessage params for a text message, optionally continuing `task_id`.
pub fn send(text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({
        "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"message": message})
}
