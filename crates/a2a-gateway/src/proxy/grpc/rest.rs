//! An HTTP+JSON request to an agent that only speaks gRPC: the route (with an optional
//! `/{tenant}` prefix), query and body read into the rpc's request, the call made, and the
//! answer written back as the HTTP+JSON binding writes it.

use a2a_types::jsonrpc::Method as A2aMethod;
use axum::response::Response;
use bytes::Bytes;
use http::Method;
use http::header::{HeaderMap, HeaderValue};
use http::request::Parts;
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use super::super::error::GatewayError;
use super::super::state::Proxy;
use super::super::stream::Framing;
use super::super::{headers, upstream};
use super::answer::respond;
use super::invoke::{Target, invoke};
use super::operation::{Operation, decode};
use crate::metrics::Outcome;

/// The service parameter naming the protocol version.
const VERSION: &str = "a2a-version";

/// Query parameters whose values are numbers in the request message.
const INTEGER_PARAMETERS: [&str; 4] = ["pageSize", "page_size", "historyLength", "history_length"];

/// Query parameters whose values are `true` or `false` in the request message.
const BOOLEAN_PARAMETERS: [&str; 2] = ["includeArtifacts", "include_artifacts"];

/// Calls `agent_id` at its gRPC interface `url` for the HTTP+JSON request `parts` + `body`.
///
/// # Errors
/// The gateway's own error: [`GatewayError::MethodNotFound`] (404) for a path and method
/// that are no A2A route, [`GatewayError::Parse`] or [`GatewayError::InvalidParams`] (400)
/// for a body or query that is not the route's request, the concurrency limit, and the
/// call's failures (see [`invoke`]).
pub(crate) async fn call(
    proxy: &Proxy,
    agent_id: &str,
    url: &str,
    parts: &Parts,
    caller_id: &str,
    body: &Bytes,
) -> Result<(Response, Outcome), GatewayError> {
    let path = route_path(parts.uri.path());
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        serde_json::from_slice(body).map_err(|_| GatewayError::parse("invalid JSON body"))?
    };
    let deadline = upstream::deadline(Some(&body), &proxy.config);
    let operation = operation(&parts.method, &path, parts.uri.query(), body)?;
    let permit = proxy.limits.acquire(agent_id)?;
    let target = Target {
        channel: proxy.grpc.channel(agent_id, url)?,
        agent_id,
        headers: with_query_version(
            headers::to_agent(&parts.headers, caller_id),
            parts.uri.query(),
        ),
        deadline,
        max_response_bytes: proxy.config.max_response_bytes,
    };
    let answer = invoke(operation, target).await;
    respond(proxy, agent_id, Framing::HttpJson, answer, permit, None)
}

/// The segments of `path` after `/a2a/{agent_id}`, still percent-encoded.
fn route_path(path: &str) -> Vec<&str> {
    path.strip_prefix("/a2a/")
        .and_then(|after| after.split_once('/'))
        .map(|(_, rest)| {
            rest.split('/')
                .filter(|segment| !segment.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The operation of `method` on `segments`, read first without a tenant, then with the
/// first segment as the tenant.
fn operation(
    method: &Method,
    segments: &[&str],
    query: Option<&str>,
    body: Value,
) -> Result<Operation, GatewayError> {
    let (tenant, route) = match Route::parse(method, segments) {
        Some(route) => (None, route),
        None => segments
            .split_first()
            .and_then(|(tenant, rest)| {
                Route::parse(method, rest).map(|route| (Some(*tenant), route))
            })
            .ok_or_else(|| GatewayError::MethodNotFound {
                reason: format!("{method} {} is not an A2A route", segments.join("/")),
            })?,
    };
    let mut fields = match (route.takes_body, body) {
        (true, Value::Object(fields)) => fields,
        (true, _) => {
            return Err(GatewayError::InvalidParams {
                reason: "the body must be a JSON object".to_owned(),
            });
        }
        (false, _) => query_fields(query),
    };
    if let Some(tenant) = tenant {
        fields.insert("tenant".to_owned(), decoded(tenant).into());
    }
    for (name, segment) in route.path_fields {
        fields.insert(name.to_owned(), decoded(segment).into());
    }
    let fields = Value::Object(fields);
    Ok(match route.method {
        A2aMethod::SendMessage => Operation::SendMessage(decode(fields)?),
        A2aMethod::SendStreamingMessage => Operation::SendStreamingMessage(decode(fields)?),
        A2aMethod::GetTask => Operation::GetTask(decode(fields)?),
        A2aMethod::ListTasks => Operation::ListTasks(decode(fields)?),
        A2aMethod::CancelTask => Operation::CancelTask(decode(fields)?),
        A2aMethod::SubscribeToTask => Operation::SubscribeToTask(decode(fields)?),
        A2aMethod::CreateTaskPushNotificationConfig => {
            Operation::CreateTaskPushNotificationConfig(decode(fields)?)
        }
        A2aMethod::GetTaskPushNotificationConfig => {
            Operation::GetTaskPushNotificationConfig(decode(fields)?)
        }
        A2aMethod::ListTaskPushNotificationConfigs => {
            Operation::ListTaskPushNotificationConfigs(decode(fields)?)
        }
        A2aMethod::DeleteTaskPushNotificationConfig => {
            Operation::DeleteTaskPushNotificationConfig(decode(fields)?)
        }
        A2aMethod::GetExtendedAgentCard => Operation::GetExtendedAgentCard(decode(fields)?),
    })
}

/// One matched route: the operation, whether its request comes from the body (else the
/// query), and the request fields its path carries.
struct Route<'a> {
    method: A2aMethod,
    takes_body: bool,
    path_fields: Vec<(&'static str, &'a str)>,
}

impl<'a> Route<'a> {
    /// The HTTP+JSON route table of the A2A v1.0 binding. The verb is the text after the
    /// last raw `:`, so an id ending in `:cancel` must escape its colon as `%3A`.
    fn parse(method: &Method, segments: &[&'a str]) -> Option<Self> {
        let (get, post, delete) = (
            method == Method::GET,
            method == Method::POST,
            method == Method::DELETE,
        );
        let route = |method, takes_body, path_fields| {
            Some(Self {
                method,
                takes_body,
                path_fields,
            })
        };
        match segments {
            ["message:send"] if post => route(A2aMethod::SendMessage, true, vec![]),
            ["message:stream"] if post => route(A2aMethod::SendStreamingMessage, true, vec![]),
            ["tasks"] if get => route(A2aMethod::ListTasks, false, vec![]),
            ["extendedAgentCard"] if get => route(A2aMethod::GetExtendedAgentCard, false, vec![]),
            ["tasks", task] => {
                if let Some(id) = task.strip_suffix(":cancel") {
                    post.then(|| route(A2aMethod::CancelTask, true, vec![("id", id)]))?
                } else if let Some(id) = task.strip_suffix(":subscribe") {
                    // The proto binds GET, the spec prose POST; both are read.
                    (get || post)
                        .then(|| route(A2aMethod::SubscribeToTask, false, vec![("id", id)]))?
                } else {
                    get.then(|| route(A2aMethod::GetTask, false, vec![("id", task)]))?
                }
            }
            ["tasks", task, "pushNotificationConfigs"] if post => route(
                A2aMethod::CreateTaskPushNotificationConfig,
                true,
                vec![("taskId", task)],
            ),
            ["tasks", task, "pushNotificationConfigs"] if get => route(
                A2aMethod::ListTaskPushNotificationConfigs,
                false,
                vec![("taskId", task)],
            ),
            ["tasks", task, "pushNotificationConfigs", config] if get || delete => route(
                if get {
                    A2aMethod::GetTaskPushNotificationConfig
                } else {
                    A2aMethod::DeleteTaskPushNotificationConfig
                },
                false,
                vec![("taskId", task), ("id", config)],
            ),
            _ => None,
        }
    }
}

/// The query as request fields: camelCase (or snake_case) names, numbers and booleans
/// where the request has them, text otherwise; the first of repeated names wins.
fn query_fields(query: Option<&str>) -> Map<String, Value> {
    let mut fields = Map::new();
    for (name, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        if value.is_empty() || fields.contains_key(name.as_ref()) {
            continue;
        }
        let typed = if INTEGER_PARAMETERS.contains(&name.as_ref()) {
            value
                .trim()
                .parse::<i64>()
                .map_or_else(|_| Value::from(value.as_ref()), Value::from)
        } else if BOOLEAN_PARAMETERS.contains(&name.as_ref()) {
            match value.as_ref() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                other => Value::from(other),
            }
        } else {
            Value::from(value.as_ref())
        };
        fields.insert(name.into_owned(), typed);
    }
    fields
}

/// `forwarded` with the `A2A-Version` query parameter as its `a2a-version` when no header
/// gave one: HTTP+JSON clients may send the version either way, gRPC only as metadata.
fn with_query_version(mut forwarded: HeaderMap, query: Option<&str>) -> HeaderMap {
    if forwarded.contains_key(VERSION) {
        return forwarded;
    }
    let version = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name.eq_ignore_ascii_case(VERSION))
        .and_then(|(_, value)| HeaderValue::from_str(value.trim()).ok());
    if let Some(version) = version {
        forwarded.insert(VERSION, version);
    }
    forwarded
}

fn decoded(segment: &str) -> String {
    percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(method: &Method, path: &str, query: Option<&str>, body: Value) -> Operation {
        operation(method, &route_path(path), query, body).unwrap()
    }

    #[test]
    fn routes_become_their_operations_with_path_query_and_body() {
        let send =
            json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
        let operation = read(
            &Method::POST,
            "/a2a/echo/message:stream",
            None,
            send.clone(),
        );
        assert_eq!(operation.method(), A2aMethod::SendStreamingMessage);
        let Operation::SendMessage(request) =
            read(&Method::POST, "/a2a/echo/acme/message:send", None, send)
        else {
            panic!("not a send");
        };
        assert_eq!(request.tenant, "acme");
        let Operation::GetTask(request) = read(
            &Method::GET,
            "/a2a/echo/tasks/a%2Fb",
            Some("historyLength=2"),
            json!({}),
        ) else {
            panic!("not a get");
        };
        assert_eq!(
            (request.id.as_str(), request.history_length),
            ("a/b", Some(2))
        );
        let Operation::ListTasks(request) = read(
            &Method::GET,
            "/a2a/echo/tasks",
            Some("pageSize=5&includeArtifacts=true&status=TASK_STATE_WORKING"),
            json!({}),
        ) else {
            panic!("not a list");
        };
        assert_eq!(
            (request.page_size, request.include_artifacts),
            (Some(5), Some(true))
        );
        let cases = [
            (
                Method::POST,
                "/a2a/echo/tasks/t1:cancel",
                A2aMethod::CancelTask,
            ),
            (
                Method::GET,
                "/a2a/echo/tasks/t1:subscribe",
                A2aMethod::SubscribeToTask,
            ),
            (
                Method::POST,
                "/a2a/echo/tasks/t1:subscribe",
                A2aMethod::SubscribeToTask,
            ),
            (
                Method::GET,
                "/a2a/echo/tasks/t1/pushNotificationConfigs",
                A2aMethod::ListTaskPushNotificationConfigs,
            ),
            (
                Method::GET,
                "/a2a/echo/tasks/t1/pushNotificationConfigs/c1",
                A2aMethod::GetTaskPushNotificationConfig,
            ),
            (
                Method::DELETE,
                "/a2a/echo/tasks/t1/pushNotificationConfigs/c1",
                A2aMethod::DeleteTaskPushNotificationConfig,
            ),
            (
                Method::GET,
                "/a2a/echo/extendedAgentCard",
                A2aMethod::GetExtendedAgentCard,
            ),
        ];
        for (method, path, expected) in cases {
            assert_eq!(
                read(&method, path, None, json!({})).method(),
                expected,
                "{method} {path}"
            );
        }
    }

    #[test]
    fn other_paths_are_not_found_and_bad_requests_are_invalid() {
        let missing = operation(
            &Method::DELETE,
            &route_path("/a2a/echo/tasks/t1"),
            None,
            json!({}),
        );
        assert!(matches!(missing, Err(GatewayError::MethodNotFound { .. })));
        let bad = operation(
            &Method::GET,
            &route_path("/a2a/echo/tasks"),
            Some("pageSize=ten"),
            json!({}),
        );
        assert!(matches!(bad, Err(GatewayError::InvalidParams { .. })));
        let array = operation(
            &Method::POST,
            &route_path("/a2a/echo/message:send"),
            None,
            json!([]),
        );
        assert!(matches!(array, Err(GatewayError::InvalidParams { .. })));
    }
}
