//! A2A v0.3 beside 1.0, on the same URLs: the v0.3 JSON-RPC methods (told apart by name
//! once the 1.0 lookup fails), the v0.3 REST paths (under `/v1/`), the card's v0.3 members,
//! and the marker that gives a webhook registered over v0.3 its v0.3 deliveries.
//!
//! Everything here is translation at the edge: a v0.3 request is decoded, turned into the
//! 1.0 request, run through the same [`RequestHandler`] operations the 1.0 bindings use
//! (authentication, tenant and owner isolation, limits included), and the 1.0 result is
//! written back in the v0.3 shape, errors with their v0.3 codes. The core sees 1.0 only.

mod jsonrpc;
mod proto;
mod rejected;
mod rest;

use a2a_types::card::{AgentCard, AgentInterface, ProtocolBinding};
use a2a_types::v03::{self, Method};
use a2a_types::{
    A2aError, GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsRequest,
    StreamResponse, SubscribeToTaskRequest,
};
use serde_json::Value;

use super::dispatch::Params;
use crate::config::ProtocolVersions;
use crate::handler::{CallContext, EventStream, RequestHandler};

pub(super) use self::jsonrpc::serve as serve_jsonrpc;
pub(super) use self::rest::{refusal as rest_refusal, serve as serve_rest, wants as wants_rest};

/// The `protocolVersion` of the v0.3 interfaces the served card lists.
const INTERFACE_VERSION: &str = "0.3";

/// Whether a request that names a v0.3 method (or REST path) is v0.3: it carries no
/// version (spec: a missing version is 0.3), or a 0.x one. A request that says 1.x and
/// uses a v0.3 name is left to the 1.0 binding, which refuses it as before.
pub(super) fn speaks_v03(handler: &RequestHandler, version: Option<&str>) -> bool {
    handler.config().protocol_versions.v0_3
        && version
            .map(str::trim)
            .is_none_or(|version| version.is_empty() || version.starts_with("0."))
}

/// The card as served: with v0.3 on, every 1.0 JSON-RPC and HTTP+JSON interface gets a
/// v0.3 twin at the same URL (after the 1.0 ones, so 1.0 clients pick 1.0) and the card
/// the v0.3 top-level members ([`v03::dual_protocol_card`]); with v0.3 off, v0.3 twins of
/// served interfaces and every v0.3 member ([`v03::v1_only_card`]) are left out, so a
/// strict v1.0 reader accepts the card. A signed card is served as it is: its signatures cover
/// it as given.
pub(crate) fn served_card(card: &AgentCard, versions: ProtocolVersions) -> AgentCard {
    if !card.signatures.is_empty() {
        return card.clone();
    }
    let served = |interface: &AgentInterface| {
        interface.is_v1()
            && matches!(
                interface.protocol_binding,
                ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson
            )
    };
    let twin_of = |legacy: &AgentInterface, interface: &AgentInterface| {
        !legacy.is_v1()
            && legacy.url == interface.url
            && legacy.protocol_binding == interface.protocol_binding
    };
    let mut card = card.clone();
    if !versions.v0_3 {
        let v1: Vec<AgentInterface> = card
            .supported_interfaces
            .iter()
            .filter(|interface| served(interface))
            .cloned()
            .collect();
        card.supported_interfaces
            .retain(|interface| !v1.iter().any(|served| twin_of(interface, served)));
        return v03::v1_only_card(&card);
    }
    let twins: Vec<AgentInterface> = card
        .supported_interfaces
        .iter()
        .filter(|interface| served(interface))
        .filter(|interface| {
            !card
                .supported_interfaces
                .iter()
                .any(|legacy| twin_of(legacy, interface))
        })
        .map(|interface| {
            let mut twin =
                AgentInterface::new(interface.url.clone(), interface.protocol_binding.clone());
            INTERFACE_VERSION.clone_into(&mut twin.protocol_version);
            twin
        })
        .collect();
    card.supported_interfaces.extend(twins);
    v03::dual_protocol_card(&card)
}

/// What a v0.3 operation produced: its v0.3 JSON-RPC `result`, or the 1.0 events of a
/// streaming method (written as v0.3 elements by the SSE framing).
enum Answer {
    Result(Value),
    Stream(EventStream),
}

/// Runs the v0.3 `method` with its v0.3 JSON-RPC `params` through the 1.0 handler. The
/// call's version was judged by the caller ([`speaks_v03`]); the extensions are settled
/// here, as `negotiate` does for 1.0.
async fn run(
    handler: &RequestHandler,
    method: Method,
    params: Value,
    call: &mut CallContext,
) -> Result<Answer, A2aError> {
    call.activated_extensions = handler.activated_extensions(call)?;
    handler.settle_owner(call);
    let params = match params {
        Value::Null if method == Method::GetAuthenticatedExtendedCard => params,
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => params,
        _ => return Err(A2aError::invalid_params("params must be a JSON object")),
    };
    if method == Method::PushConfigGet && params.get("pushNotificationConfigId").is_none() {
        return first_push_config(handler, params, call).await;
    }
    let mut request = v03::translate::params_to_v1(method, params)?;
    // A webhook registered over v0.3, inline or on its own, is remembered as v0.3 so its
    // deliveries are v0.3 too.
    match method {
        Method::PushConfigSet => mark_push_request(&mut request),
        Method::MessageSend | Method::MessageStream => {
            v03::translate::complete_message(&mut request);
            if let Some(config) = request
                .get_mut("configuration")
                .and_then(|configuration| configuration.get_mut("taskPushNotificationConfig"))
            {
                mark_push_request(config);
            }
        }
        Method::TasksGet
        | Method::TasksCancel
        | Method::TasksResubscribe
        | Method::PushConfigGet
        | Method::PushConfigList
        | Method::PushConfigDelete
        | Method::GetAuthenticatedExtendedCard => {}
    }
    match method {
        Method::MessageStream => {
            let request = Params::Tree(request).decode_message(handler)?;
            Ok(Answer::Stream(
                handler.send_streaming_message(call, request).await?,
            ))
        }
        Method::TasksResubscribe => {
            let request: SubscribeToTaskRequest = Params::Tree(request).decode()?;
            Ok(Answer::Stream(
                handler.subscribe_to_task(call, request).await?,
            ))
        }
        Method::MessageSend
        | Method::TasksGet
        | Method::TasksCancel
        | Method::PushConfigSet
        | Method::PushConfigGet
        | Method::PushConfigList
        | Method::PushConfigDelete
        | Method::GetAuthenticatedExtendedCard => {
            let outcome = handler
                .run_unary(call, method.to_v1(), Params::Tree(request))
                .await?;
            let result = serde_json::to_value(&outcome).map_err(|error| {
                tracing::error!(error = %error, "could not encode a response");
                A2aError::internal()
            })?;
            let mut result = v03::translate::result_from_v1(method, result)?;
            unmark_result(&mut result);
            rejected::result(&mut result);
            Ok(Answer::Result(result))
        }
    }
}

/// `tasks/pushNotificationConfig/get` without a config id (allowed in v0.3, absent from
/// 1.0): the task's first config, or TaskNotFound naming the task when it has none.
async fn first_push_config(
    handler: &RequestHandler,
    params: Value,
    call: &CallContext,
) -> Result<Answer, A2aError> {
    let Some(task_id) = params.get("id").and_then(Value::as_str) else {
        return Err(A2aError::invalid_field("id", "is required"));
    };
    let request = ListTaskPushNotificationConfigsRequest {
        tenant: String::new(),
        task_id: task_id.into(),
        page_size: 1,
        page_token: String::new(),
    };
    let page = handler
        .list_task_push_notification_configs(call, request)
        .await?;
    let Some(first) = page.configs.into_iter().next() else {
        // The same answer as a 1.0 Get of a config the task does not have.
        let request = GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: task_id.into(),
            id: "-".into(),
        };
        handler
            .get_task_push_notification_config(call, request)
            .await?;
        return Err(A2aError::task_not_found(task_id));
    };
    let mut result = serde_json::to_value(v03::TaskPushNotificationConfig::from(first))
        .map_err(|_| A2aError::internal())?;
    unmark_result(&mut result);
    Ok(Answer::Result(result))
}

/// One v0.3 stream element for a 1.0 event. A status update is `final` where the stream
/// ends: a terminal state, or an interrupted one (input or auth required), after which a
/// message stream closes too.
pub(super) fn stream_event(response: &StreamResponse) -> v03::StreamEvent {
    let mut event = match response {
        StreamResponse::StatusUpdate(update) => {
            let state = update.status.state;
            v03::StreamEvent::StatusUpdate(v03::TaskStatusUpdateEvent::from_v1(
                update.clone(),
                state.is_terminal() || state.is_interrupted(),
            ))
        }
        other => v03::StreamEvent::from(other.clone()),
    };
    rejected::stream_event(&mut event);
    event
}

/// A v0.3 REST stream element (the v0.3 protobuf JSON `StreamResponse`) for a 1.0 event.
///
/// # Errors
/// Internal when the event cannot be encoded.
pub(super) fn rest_stream_event(response: &StreamResponse) -> Result<Value, A2aError> {
    let event = serde_json::to_value(stream_event(response)).map_err(|_| A2aError::internal())?;
    proto::stream_event(&event)
}

// The push marker.
//
// A webhook registered over v0.3 expects v0.3 deliveries (the whole Task, `kind: "task"`),
// so the server must remember, per config, which version registered it, in every push
// store (memory, SQLite, PostgreSQL) and across restarts. Rather than a new column in each
// store, the marker rides in what every store already persists as given: the webhook URL,
// as a fragment member (`#a2a-push=0.3`). A fragment is never sent over HTTP (the address
// check drops it before each delivery), so the webhook sees the URL it registered; the v0.3
// answers strip the marker again, and a 1.0 reader sees it and learns the deliveries are
// v0.3-shaped. A 1.0 client that re-registers the URL without it gets 1.0 deliveries.

/// The fragment member that marks a v0.3 registration.
const PUSH_MARKER: &str = "a2a-push=0.3";

/// `url` with the v0.3 marker.
pub(crate) fn mark_url(url: &str) -> String {
    if is_marked(url) {
        return url.to_owned();
    }
    let separator = if url.contains('#') { '&' } else { '#' };
    format!("{url}{separator}{PUSH_MARKER}")
}

/// Whether `url` was registered over v0.3.
pub(crate) fn is_marked(url: &str) -> bool {
    url.strip_suffix(PUSH_MARKER)
        .is_some_and(|rest| rest.ends_with(['#', '&']))
}

/// `url` without the v0.3 marker.
pub(crate) fn unmark_url(url: &str) -> &str {
    match url.strip_suffix(PUSH_MARKER) {
        Some(rest) if rest.ends_with(['#', '&']) => &rest[..rest.len() - 1],
        _ => url,
    }
}

/// Marks the URL of a 1.0 push config (JSON).
fn mark_push_request(request: &mut Value) {
    if let Some(url) = request.get_mut("url")
        && let Some(text) = url.as_str()
    {
        *url = Value::String(mark_url(text));
    }
}

/// Strips the marker from the push configs of a v0.3 result (one config or a list).
fn unmark_result(result: &mut Value) {
    let configs: Vec<&mut Value> = match result {
        Value::Array(items) => items.iter_mut().collect(),
        single => vec![single],
    };
    for config in configs {
        if let Some(url) = config
            .get_mut("pushNotificationConfig")
            .and_then(|push| push.get_mut("url"))
            && let Some(text) = url.as_str()
        {
            *url = Value::String(unmark_url(text).to_owned());
        }
    }
}

/// The body of a v0.3 push delivery: the task, `kind: "task"`.
///
/// # Errors
/// When the task cannot be encoded.
pub(crate) fn push_body(task: a2a_types::Task) -> Result<Vec<u8>, serde_json::Error> {
    let mut task = v03::Task::from(task);
    rejected::task(&mut task);
    serde_json::to_vec(&task)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_push_marker_rides_in_the_fragment_and_comes_off_again() {
        let marked = mark_url("https://hook.example/a?b=1");
        assert_eq!(marked, "https://hook.example/a?b=1#a2a-push=0.3");
        assert!(is_marked(&marked));
        assert_eq!(unmark_url(&marked), "https://hook.example/a?b=1");
        let with_fragment = mark_url("https://hook.example/a#x");
        assert_eq!(with_fragment, "https://hook.example/a#x&a2a-push=0.3");
        assert_eq!(unmark_url(&with_fragment), "https://hook.example/a#x");
        assert_eq!(mark_url(&marked), marked);
        assert!(!is_marked("https://hook.example/a2a-push=0.3"));
        assert_eq!(
            unmark_url("https://hook.example/xa2a-push=0.3"),
            "https://hook.example/xa2a-push=0.3"
        );
    }

    #[test]
    fn the_served_card_lists_v03_twins_only_when_on() {
        let mut card: AgentCard = serde_json::from_value(serde_json::json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [
                {"url": "http://h/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
            ],
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        }))
        .unwrap();
        let both = served_card(&card, ProtocolVersions::BOTH);
        let versions: Vec<&str> = both
            .supported_interfaces
            .iter()
            .map(|interface| interface.protocol_version.as_str())
            .collect();
        assert_eq!(versions, ["1.0", "1.0", "0.3", "0.3"]);
        let json = serde_json::to_value(&both).unwrap();
        assert_eq!(json["url"], "http://h/a2a");
        assert_eq!(json["preferredTransport"], "JSONRPC");
        assert_eq!(json["protocolVersion"], "0.3");

        card.supported_interfaces = both.supported_interfaces.clone();
        let only = served_card(&card, ProtocolVersions::V1_ONLY);
        assert_eq!(only.supported_interfaces.len(), 2);
        assert!(only.supported_interfaces.iter().all(AgentInterface::is_v1));
        assert!(serde_json::to_value(&only).unwrap().get("url").is_none());
    }
}
