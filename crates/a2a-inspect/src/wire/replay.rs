//! The `curl` and `a2a` command lines that repeat a recorded call, secrets as variables.

use serde_json::Value;

use super::context::{AuthShape, RecordContext};
use super::redact::{REDACTED, redact_form};

/// `text` quoted for a POSIX shell.
pub(super) fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The variable a secret header's value is shown as.
pub(super) fn variable_for(name: &str, value: &str, auth: &AuthShape) -> String {
    let lower = name.to_ascii_lowercase();
    if lower == "authorization" {
        if value.starts_with("Bearer ") || value.starts_with("bearer ") {
            return "Bearer $A2A_TOKEN".to_owned();
        }
        if let AuthShape::ApiKey(header) = auth
            && header.eq_ignore_ascii_case(name)
        {
            return "$A2A_API_KEY".to_owned();
        }
        return "$A2A_AUTHORIZATION".to_owned();
    }
    if lower.contains("cookie") {
        return "$A2A_COOKIE".to_owned();
    }
    "$A2A_API_KEY".to_owned()
}

pub(super) fn curl_command(
    method: &str,
    url: &str,
    headers: &http::HeaderMap,
    body: &[u8],
    context: &RecordContext,
) -> String {
    let mut words = vec!["curl".to_owned(), "-sS".to_owned()];
    let streams = headers
        .get(http::header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.contains("text/event-stream"));
    if streams {
        words.push("-N".to_owned());
    }
    if method != "GET" || !body.is_empty() {
        words.push("-X".to_owned());
        words.push(method.to_owned());
    }
    words.push(shell_quote(url));
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        if context.is_secret(name.as_str()) {
            let variable = variable_for(name.as_str(), &value, &context.auth);
            // Double quotes, so the shell puts the variable's value in.
            words.push("-H".to_owned());
            words.push(format!("\"{}: {variable}\"", name.as_str()));
        } else {
            words.push("-H".to_owned());
            words.push(shell_quote(&format!("{}: {value}", name.as_str())));
        }
    }
    if !body.is_empty() {
        let text = String::from_utf8_lossy(body);
        let text = match headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
        {
            Some(kind) if kind.starts_with("application/x-www-form-urlencoded") => {
                redact_form(&text).replace(REDACTED, "$A2A_OAUTH_CLIENT_SECRET")
            }
            _ => text.into_owned(),
        };
        words.push("--data-raw".to_owned());
        words.push(shell_quote(&text));
    }
    words.join(" ")
}

/// The `a2a` command that makes the same call, for the operations it has a command for.
pub(super) fn a2a_command(
    operation: &str,
    path: &str,
    json: Option<&Value>,
    binding: Option<&str>,
    context: &RecordContext,
) -> Option<String> {
    let params = json.map(|body| body.get("params").unwrap_or(body));
    let task_from_path = || {
        let tail = path.rsplit("/tasks/").next()?;
        let id = tail.split([':', '/']).next()?;
        Some(percent_decode(id))
    };
    let task_id = || {
        params
            .and_then(|params| params.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(task_from_path)
    };
    let mut words = vec!["a2a".to_owned()];
    match operation {
        "SendMessage" | "SendStreamingMessage" => {
            let message = params?.get("message")?;
            let parts = message.get("parts").and_then(Value::as_array)?;
            words.push("send".to_owned());
            words.push(shell_quote(&context.agent_url));
            let text: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            if !text.is_empty() {
                words.push(shell_quote(&text.join("\n")));
            }
            for part in parts {
                if let Some(data) = part.get("data") {
                    words.push("--data".to_owned());
                    words.push(shell_quote(&data.to_string()));
                }
            }
            if operation == "SendStreamingMessage" {
                words.push("--stream".to_owned());
            }
            for (member, flag) in [("taskId", "--task-id"), ("contextId", "--context-id")] {
                if let Some(value) = message.get(member).and_then(Value::as_str) {
                    words.push(flag.to_owned());
                    words.push(shell_quote(value));
                }
            }
        }
        "GetTask" | "CancelTask" | "SubscribeToTask" => {
            words.push(
                match operation {
                    "GetTask" => "get",
                    "CancelTask" => "cancel",
                    _ => "subscribe",
                }
                .to_owned(),
            );
            words.push(shell_quote(&context.agent_url));
            words.push(shell_quote(&task_id()?));
        }
        "ListTasks" => {
            words.push("list".to_owned());
            words.push(shell_quote(&context.agent_url));
        }
        "GetAgentCard" => {
            words.push("card".to_owned());
            words.push(shell_quote(&context.agent_url));
            return Some(words.join(" "));
        }
        _ => return None,
    }
    if let Some(binding) = binding {
        words.push("--binding".to_owned());
        words.push(shell_quote(binding));
    }
    match &context.auth {
        AuthShape::None => {}
        AuthShape::ApiKey(header) => {
            words.push("--api-key".to_owned());
            words.push("\"$A2A_API_KEY\"".to_owned());
            words.push("--api-key-header".to_owned());
            words.push(shell_quote(header));
        }
        AuthShape::Bearer => {
            words.push("--bearer".to_owned());
            words.push("\"$A2A_TOKEN\"".to_owned());
        }
        AuthShape::OAuth2(client_id) => {
            words.push("--oauth-client-id".to_owned());
            words.push(shell_quote(client_id));
            words.push("--oauth-client-secret".to_owned());
            words.push("\"$A2A_OAUTH_CLIENT_SECRET\"".to_owned());
        }
    }
    Some(words.join(" "))
}

pub(super) fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map_or_else(|| text.to_owned(), |(_, value)| value.into_owned())
}
