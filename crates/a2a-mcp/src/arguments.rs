//! A send tool's arguments read into the A2A message they ask for.

use a2a_client::message;
use a2a_types::{MessageId, Part, SendMessageRequest};
use base64::Engine as _;
use rmcp::model::JsonObject;
use serde_json::Value;

/// The message metadata member naming the skill a `--tool-per-skill` tool is for.
pub(crate) const SKILL_METADATA: &str = "skillId";

/// The request the arguments of a send tool describe: `message` (text, required), `task_id`,
/// `context_id`, `data`, `files` and `message_id`.
///
/// # Errors
/// What is wrong with the arguments, for the host's model to read.
pub(crate) fn send_request(
    arguments: &JsonObject,
    skill: Option<&str>,
) -> Result<SendMessageRequest, String> {
    let text = match arguments.get("message") {
        Some(Value::String(text)) => text.clone(),
        Some(_) => return Err("message must be a string".to_owned()),
        None => return Err("message is required".to_owned()),
    };
    let mut draft = message::draft().text(text);
    if let Some(task_id) = optional_string(arguments, "task_id")? {
        draft = draft.task_id(task_id);
    }
    if let Some(context_id) = optional_string(arguments, "context_id")? {
        draft = draft.context_id(context_id);
    }
    match arguments.get("data") {
        None | Some(Value::Null) => {}
        Some(data) => draft = draft.data(data.clone()),
    }
    if let Some(files) = arguments.get("files") {
        let Value::Array(files) = files else {
            return Err("files must be an array".to_owned());
        };
        for (index, file) in files.iter().enumerate() {
            draft =
                draft.part(file_part(file).map_err(|error| format!("files[{index}]: {error}"))?);
        }
    }
    if let Some(skill) = skill {
        draft = draft.message_metadata(SKILL_METADATA, Value::String(skill.to_owned()));
    }
    let mut request = draft.into_request();
    if let Some(id) = optional_string(arguments, "message_id")? {
        request.message.message_id = MessageId::new(id);
    }
    Ok(request)
}

/// The follow-up that answers an agent's question in task `task_id`.
pub(crate) fn answer_request(
    task_id: &str,
    context_id: &str,
    answer: String,
) -> SendMessageRequest {
    let mut draft = message::draft().text(answer).task_id(task_id);
    if !context_id.is_empty() {
        draft = draft.context_id(context_id);
    }
    draft.into_request()
}

/// The string argument `name`, when given and not empty.
pub(crate) fn optional_string(
    arguments: &JsonObject,
    name: &str,
) -> Result<Option<String>, String> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("{name} must be a string")),
    }
}

/// The string argument `name`.
pub(crate) fn required_string(arguments: &JsonObject, name: &str) -> Result<String, String> {
    optional_string(arguments, name)?.ok_or_else(|| format!("{name} is required"))
}

fn file_part(file: &Value) -> Result<Part, String> {
    let Value::Object(file) = file else {
        return Err("a file must be an object".to_owned());
    };
    let inline = optional_string(file, "content_base64")?;
    let url = optional_string(file, "url")?;
    let mut part = match (inline, url) {
        (Some(encoded), None) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .map_err(|_| "content_base64 is not valid base64".to_owned())?;
            Part::raw(bytes)
        }
        (None, Some(url)) => Part::url(url),
        (Some(_), Some(_)) => return Err("give content_base64 or url, not both".to_owned()),
        (None, None) => return Err("give content_base64 or url".to_owned()),
    };
    if let Some(name) = optional_string(file, "name")? {
        part = part.with_filename(name);
    }
    if let Some(media_type) = optional_string(file, "media_type")? {
        part = part.with_media_type(media_type);
    }
    Ok(part)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_types::PartContent;
    use serde_json::json;

    use super::*;

    fn object(value: &Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn every_argument_lands_in_the_message() {
        let request = send_request(
            &object(&json!({
                "message": "hi",
                "task_id": "t-1",
                "context_id": "c-1",
                "data": {"n": 1},
                "files": [{"name": "a.txt", "media_type": "text/plain", "content_base64": "YWJj"},
                          {"url": "https://example.com/b.pdf"}],
                "message_id": "m-1"
            })),
            Some("weather"),
        )
        .unwrap();
        let message = &request.message;
        assert_eq!(message.task_id.as_ref().unwrap().as_str(), "t-1");
        assert_eq!(message.context_id.as_ref().unwrap().as_str(), "c-1");
        assert_eq!(message.message_id.as_str(), "m-1");
        assert_eq!(message.parts.len(), 4);
        assert_eq!(message.parts[2].content, PartContent::Raw(b"abc".to_vec()));
        assert_eq!(message.parts[2].filename, "a.txt");
        assert_eq!(
            message.metadata.as_ref().unwrap()[SKILL_METADATA],
            "weather"
        );
    }

    #[test]
    fn bad_arguments_are_explained() {
        assert_eq!(
            send_request(&object(&json!({})), None).unwrap_err(),
            "message is required"
        );
        assert_eq!(
            send_request(&object(&json!({"message": 3})), None).unwrap_err(),
            "message must be a string"
        );
        let error = send_request(
            &object(&json!({"message": "x", "files": [{"content_base64": "%%"}]})),
            None,
        )
        .unwrap_err();
        assert_eq!(error, "files[0]: content_base64 is not valid base64");
    }
}
