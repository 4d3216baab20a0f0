//! The JSON-RPC binding over the socket (spec §5.1): every method, version and extension
//! negotiation, tenants. Envelope errors, ids, notifications and limits are in `envelope`.

mod envelope;

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::card::AgentExtension;
use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{
    BindingEcho, RawResponse, TestServer, required_extension, standard_card, user_message,
};

const JSON: (&str, &str) = ("Content-Type", "application/json");
const V1: (&str, &str) = ("A2A-Version", "1.0");

/// POSTs `body` as text to `path` with `headers`.
async fn post(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> RawResponse {
    server
        .send(Method::POST, path, headers, Some(body.as_bytes().to_vec()))
        .await
}

/// A v1.0 call of `method` with id 1.
async fn rpc(server: &TestServer, method: &str, params: Value) -> RawResponse {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post(server, "/a2a", &[JSON, V1], &body.to_string()).await
}

/// The body of a JSON-RPC response, checked to be JSON with status 200.
fn json_body(response: &RawResponse) -> Value {
    assert_eq!(
        response.status,
        200,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    assert_eq!(response.header("content-type"), Some("application/json"));
    response.json()
}

/// The `error` of a 200 JSON-RPC error response, checked for code and ErrorInfo reason.
fn error_of(response: &RawResponse, code: i64, reason: &str) -> Value {
    let body = json_body(response);
    assert_eq!(body["jsonrpc"], "2.0");
    assert!(body.get("result").is_none(), "{body}");
    let error = body["error"].clone();
    assert_eq!(error["code"], code, "{body}");
    assert_eq!(
        error["data"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
        "{body}"
    );
    assert_eq!(error["data"][0]["reason"], reason, "{body}");
    assert_eq!(error["data"][0]["domain"], "a2a-protocol.org", "{body}");
    error
}

fn result_of(response: &RawResponse) -> Value {
    let body = json_body(response);
    assert!(body.get("error").is_none(), "{body}");
    assert_eq!(body["id"], 1);
    body["result"].clone()
}

async fn send(server: &TestServer, text: &str) -> Value {
    result_of(
        &rpc(
            server,
            "SendMessage",
            json!({"message": user_message(text)}),
        )
        .await,
    )["task"]
        .clone()
}

#[tokio::test]
async fn send_message_answers_with_the_completed_task_and_its_artifact() {
    let server = TestServer::start(BindingEcho).await;
    let task = send(&server, "hello").await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hello");
}

#[tokio::test]
async fn every_unary_operation_is_served() {
    let server = TestServer::start(BindingEcho).await;
    let done = send(&server, "hello").await;
    let id = done["id"].as_str().unwrap();

    let task = result_of(&rpc(&server, "GetTask", json!({"id": id, "historyLength": 0})).await);
    assert_eq!(task["id"], id);
    assert!(task.get("history").is_none(), "{task}");

    let page = result_of(&rpc(&server, "ListTasks", json!({})).await);
    assert_eq!(page["totalSize"], 1);
    assert_eq!(page["nextPageToken"], "");

    let waiting = send(&server, "ask").await;
    assert_eq!(waiting["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let canceled = result_of(&rpc(&server, "CancelTask", json!({"id": waiting["id"]})).await);
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");

    let push_calls = [
        (
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": "https://example.com/hook"}),
        ),
        (
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": "c1"}),
        ),
        ("ListTaskPushNotificationConfigs", json!({"taskId": id})),
        (
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": "c1"}),
        ),
    ];
    for (method, params) in push_calls {
        error_of(
            &rpc(&server, method, params).await,
            -32003,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        );
    }

    let error = error_of(
        &rpc(&server, "GetExtendedAgentCard", json!({})).await,
        -32004,
        "UNSUPPORTED_OPERATION",
    );
    assert!(
        error["message"].as_str().unwrap().contains("extended"),
        "{error}"
    );
}

#[tokio::test]
async fn streaming_methods_answer_unsupported_operation_when_the_card_does_not_stream() {
    let server = TestServer::start(BindingEcho).await;
    let calls = [
        (
            "SendStreamingMessage",
            json!({"message": user_message("hi")}),
        ),
        ("SubscribeToTask", json!({"id": "t-1"})),
    ];
    for (method, params) in calls {
        let error = error_of(
            &rpc(&server, method, params).await,
            -32004,
            "UNSUPPORTED_OPERATION",
        );
        assert_eq!(error["message"], "streaming is not available");
    }
    // Their params are still checked.
    let error = error_of(
        &rpc(&server, "SubscribeToTask", json!({})).await,
        -32602,
        "INVALID_PARAMS",
    );
    assert_eq!(error["data"][1]["fieldViolations"][0]["field"], "id");
}

#[tokio::test]
async fn the_extended_card_is_served_when_configured() {
    let mut card = standard_card();
    card.capabilities.extended_agent_card = Some(true);
    let extended = AgentCard::new("Test agent (extended)", "More skills", "1.0.0").with_interface(
        AgentInterface::new("http://localhost/a2a", ProtocolBinding::JsonRpc),
    );
    let server =
        TestServer::start_with(A2aServer::builder(card, BindingEcho).extended_card(extended)).await;
    let card = result_of(&rpc(&server, "GetExtendedAgentCard", json!({})).await);
    assert_eq!(card["name"], "Test agent (extended)");
}

#[tokio::test]
async fn the_version_comes_from_either_header_or_the_query_and_is_required() {
    let server = TestServer::start(BindingEcho).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();

    let missing = post(&server, "/a2a", &[JSON], &body).await;
    let error = error_of(&missing, -32009, "VERSION_NOT_SUPPORTED");
    assert_eq!(error["data"][0]["metadata"]["version"], "0.3");
    let future = post(&server, "/a2a", &[JSON, ("A2A-Version", "2.0")], &body).await;
    assert_eq!(
        error_of(&future, -32009, "VERSION_NOT_SUPPORTED")["data"][0]["metadata"]["version"],
        "2.0"
    );

    for (path, headers) in [
        ("/a2a", vec![JSON, ("x-a2a-version", "1.0")]),
        ("/a2a?A2A-Version=1.0", vec![JSON]),
        ("/a2a?a2a-version=1.1", vec![JSON]),
        ("/a2a", vec![JSON, ("A2A-VERSION", "1.0")]),
    ] {
        result_of(&post(&server, path, &headers, &body).await);
    }
}

fn card_with_extensions() -> AgentCard {
    let mut card = standard_card();
    card.capabilities.extensions = vec![
        required_extension("urn:ext:required"),
        AgentExtension {
            uri: "urn:ext:optional".into(),
            ..AgentExtension::default()
        },
    ];
    card
}

#[tokio::test]
async fn a_required_extension_must_be_requested_and_activated_ones_are_echoed() {
    let server =
        TestServer::start_with(A2aServer::builder(card_with_extensions(), BindingEcho)).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).to_string();

    let refused = post(&server, "/a2a", &[JSON, V1], &body).await;
    let error = error_of(&refused, -32008, "EXTENSION_SUPPORT_REQUIRED");
    assert_eq!(
        error["data"][0]["metadata"]["extension"],
        "urn:ext:required"
    );
    assert_eq!(refused.header("a2a-extensions"), None);

    let headers = [
        JSON,
        V1,
        ("A2A-Extensions", "urn:ext:required, urn:ext:unknown"),
        ("X-A2A-Extensions", "urn:ext:optional"),
    ];
    let accepted = post(&server, "/a2a", &headers, &body).await;
    result_of(&accepted);
    assert_eq!(
        accepted.header("a2a-extensions"),
        Some("urn:ext:required, urn:ext:optional")
    );
}

#[tokio::test]
async fn strict_extensions_refuse_an_undeclared_one_with_extension_support_required() {
    let mut config = ServerConfig::default();
    config.strict_extensions = true;
    let server = TestServer::start_with(
        A2aServer::builder(card_with_extensions(), BindingEcho).config(config),
    )
    .await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).to_string();
    let headers = [
        JSON,
        V1,
        ("A2A-Extensions", "urn:ext:required, urn:ext:unknown"),
    ];
    let refused = post(&server, "/a2a", &headers, &body).await;
    let error = error_of(&refused, -32008, "EXTENSION_SUPPORT_REQUIRED");
    assert_eq!(error["data"][0]["metadata"]["extension"], "urn:ext:unknown");
    // The same over HTTP+JSON: 400 with the same reason.
    let response = server
        .send(
            Method::GET,
            "/rest/tasks",
            &[V1, ("A2A-Extensions", "urn:ext:required, urn:ext:unknown")],
            None,
        )
        .await;
    assert_eq!(response.status, 400);
    assert_eq!(
        response.json()["error"]["details"][0]["reason"],
        "EXTENSION_SUPPORT_REQUIRED"
    );
    // Declared ones only: accepted.
    let headers = [
        JSON,
        V1,
        ("A2A-Extensions", "urn:ext:required, urn:ext:optional"),
    ];
    result_of(&post(&server, "/a2a", &headers, &body).await);
}

#[tokio::test]
async fn unknown_and_finished_tasks_give_their_a2a_errors() {
    let server = TestServer::start(BindingEcho).await;
    let error = error_of(
        &rpc(&server, "GetTask", json!({"id": "nope"})).await,
        -32001,
        "TASK_NOT_FOUND",
    );
    assert_eq!(error["data"][0]["metadata"]["taskId"], "nope");
    error_of(
        &rpc(&server, "CancelTask", json!({"id": "nope"})).await,
        -32001,
        "TASK_NOT_FOUND",
    );

    let done = send(&server, "hello").await;
    let error = error_of(
        &rpc(&server, "CancelTask", json!({"id": done["id"]})).await,
        -32002,
        "TASK_NOT_CANCELABLE",
    );
    assert_eq!(error["data"][0]["metadata"]["taskId"], done["id"]);
}

#[tokio::test]
async fn the_tenant_comes_from_params_else_from_the_interface() {
    let mut card = standard_card();
    let mut tenanted = AgentInterface::new("http://localhost/acme-rpc", ProtocolBinding::JsonRpc);
    tenanted.tenant = "acme".into();
    card.supported_interfaces.push(tenanted);
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;

    // Sent through the interface whose card tenant is `acme`.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": user_message("x")}});
    let task = result_of(&post(&server, "/acme-rpc", &[JSON, V1], &body.to_string()).await)["task"]
        .clone();
    let get = |tenant: Option<&str>| {
        let mut params = json!({"id": task["id"]});
        if let Some(tenant) = tenant {
            params["tenant"] = json!(tenant);
        }
        params
    };
    error_of(
        &rpc(&server, "GetTask", get(None)).await,
        -32001,
        "TASK_NOT_FOUND",
    );
    error_of(
        &rpc(&server, "GetTask", get(Some("other"))).await,
        -32001,
        "TASK_NOT_FOUND",
    );
    result_of(&rpc(&server, "GetTask", get(Some("acme"))).await);

    // A request's own tenant wins over the interface's.
    let params = json!({"tenant": "beta", "message": user_message("y")});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params});
    let task = result_of(&post(&server, "/acme-rpc", &[JSON, V1], &body.to_string()).await)["task"]
        .clone();
    result_of(
        &rpc(
            &server,
            "GetTask",
            json!({"id": task["id"], "tenant": "beta"}),
        )
        .await,
    );
}

#[tokio::test]
async fn routes_sit_under_the_base_path() {
    let builder = A2aServer::builder(standard_card(), BindingEcho).base_path("/agents/echo");
    let server = TestServer::start_with(builder).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).to_string();
    result_of(&post(&server, "/agents/echo/a2a", &[JSON, V1], &body).await);
    assert_eq!(post(&server, "/a2a", &[JSON, V1], &body).await.status, 404);
}
