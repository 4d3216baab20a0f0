//! The A2A operation and binding a recorded HTTP request stands for.

use serde_json::Value;

/// The A2A operation and binding of a request, from its JSON-RPC method or REST route.
pub(super) fn operation_of(
    method: &http::Method,
    path: &str,
    json: Option<&Value>,
) -> (String, Option<String>) {
    if let Some(name) = json
        .filter(|body| body.get("jsonrpc").is_some())
        .and_then(|body| body.get("method"))
        .and_then(Value::as_str)
    {
        return (name.to_owned(), Some("JSONRPC".to_owned()));
    }
    let rest = |name: &str| (name.to_owned(), Some("HTTP+JSON".to_owned()));
    let other = |name: &str| (name.to_owned(), None);
    if path.ends_with("agent-card.json") || path.ends_with("agent.json") {
        return other("GetAgentCard");
    }
    if path.ends_with("jwks.json") {
        return other("GetJwks");
    }
    if path.ends_with("/agents") && method == http::Method::GET {
        return other("ListAgents");
    }
    if path.ends_with("/message:send") {
        return rest("SendMessage");
    }
    if path.ends_with("/message:stream") {
        return rest("SendStreamingMessage");
    }
    if path.ends_with(":cancel") {
        return rest("CancelTask");
    }
    if path.ends_with(":subscribe") {
        return rest("SubscribeToTask");
    }
    if path.ends_with("/extendedAgentCard") {
        return rest("GetExtendedAgentCard");
    }
    if path.contains("/pushNotificationConfigs") {
        let name = match *method {
            http::Method::POST => "CreateTaskPushNotificationConfig",
            http::Method::DELETE => "DeleteTaskPushNotificationConfig",
            _ if path.ends_with("/pushNotificationConfigs") => "ListTaskPushNotificationConfigs",
            _ => "GetTaskPushNotificationConfig",
        };
        return rest(name);
    }
    if path.ends_with("/tasks") && method == http::Method::GET {
        return rest("ListTasks");
    }
    if path.contains("/tasks/") && method == http::Method::GET {
        return rest("GetTask");
    }
    if method == http::Method::POST && json.is_none() {
        return other("GetToken");
    }
    other(&format!("{method} request"))
}
