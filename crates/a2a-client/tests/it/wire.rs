//! What goes on the wire, checked against a recording mock: headers, the REST and
//! JSON-RPC request shapes, credential placement and SSE parsing.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_client::{
    A2aClient, ApiKeyPlacement, CallOptions, ClientError, Credentials, ResponseExt, message,
};
use a2a_types::{
    DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, ProtocolBinding, TaskPushNotificationConfig, TaskState,
};
use axum::body::Body;
use axum::response::Response;
use serde_json::json;

use crate::support::{
    Mock, Recorded, cancel, json_response, jsonrpc_result, stream_text, subscribe_all, task_json,
};

fn get(id: &str) -> GetTaskRequest {
    GetTaskRequest {
        tenant: String::new(),
        id: id.into(),
        history_length: None,
    }
}

fn sse(body: &str) -> Response {
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

#[tokio::test]
async fn every_request_carries_the_version_extensions_and_custom_headers() {
    let mock = Mock::start(|_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))).await;
    let counter = Arc::new(AtomicUsize::new(0));
    let calls = Arc::clone(&counter);
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .header("X-Static", "static")
        .header_fn(move || {
            let mut headers = http::HeaderMap::new();
            let call = calls.fetch_add(1, Ordering::SeqCst);
            headers.insert("x-dynamic", call.to_string().parse().unwrap());
            headers
        })
        .extension("urn:ext:a")
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    let scoped = client.with_options(
        CallOptions::new()
            .header("X-Call", "per-call")
            .header("A2A-Version", "0.3")
            .extension("urn:ext:b"),
    );
    scoped.get_task(get("t1")).await.unwrap();

    let requests = mock.requests();
    let [first, second] = requests.as_slice() else {
        panic!("{requests:?}")
    };
    for request in [first, second] {
        assert_eq!(request.header("a2a-version"), Some("1.0"), "always 1.0");
        assert_eq!(request.header("x-static"), Some("static"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.header("accept"), Some("application/json"));
    }
    assert_eq!(first.header("x-dynamic"), Some("0"));
    assert_eq!(second.header("x-dynamic"), Some("1"), "called per request");
    assert_eq!(first.header("a2a-extensions"), Some("urn:ext:a"));
    assert_eq!(
        second.header("a2a-extensions"),
        Some("urn:ext:a, urn:ext:b")
    );
    assert_eq!(first.header("x-call"), None);
    assert_eq!(second.header("x-call"), Some("per-call"));
    assert_eq!(second.json()["method"], "GetTask");
}

/// Answers each REST route the way an agent would.
fn rest_answer(request: &Recorded) -> Response {
    let path = request.uri.path();
    let task = task_json("t/1", "TASK_STATE_COMPLETED");
    let config = json!({"id": "c1", "taskId": "t/1", "url": "https://hooks.example/x"});
    if path.ends_with("message:send") {
        json_response(200, &json!({"task": task}))
    } else if path.ends_with("message:stream") || path.ends_with(":subscribe") {
        sse(&format!("data: {}\n\n", json!({"task": task})))
    } else if path.ends_with("/tasks") {
        json_response(
            200,
            &json!({"tasks": [task], "nextPageToken": "", "pageSize": 50, "totalSize": 1}),
        )
    } else if path.ends_with("/pushNotificationConfigs") && request.method == http::Method::GET {
        json_response(200, &json!({"configs": [config]}))
    } else if path.contains("/pushNotificationConfigs") && request.method == http::Method::DELETE {
        Response::builder().status(200).body(Body::empty()).unwrap()
    } else if path.contains("/pushNotificationConfigs") {
        json_response(200, &config)
    } else if path.ends_with("extendedAgentCard") {
        json_response(
            200,
            &json!({"name": "x", "description": "d", "version": "1", "capabilities": {},
                    "supportedInterfaces": [{"url": "http://x/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}),
        )
    } else {
        json_response(200, &task)
    }
}

#[tokio::test]
async fn rest_calls_use_the_spec_verbs_paths_queries_and_bodies() {
    let mock = Mock::start(|request, _| rest_answer(request)).await;
    let client = A2aClient::builder()
        .url(mock.url("/agent/rest"), ProtocolBinding::HttpJson)
        .tenant("acme")
        .build()
        .unwrap();
    let id = a2a_types::TaskId::new("t/1");
    client.send_message(message::request("hi")).await.unwrap();
    stream_text(&client, "hi").await.unwrap();
    client
        .get_task(GetTaskRequest {
            history_length: Some(3),
            ..get("t/1")
        })
        .await
        .unwrap();
    client
        .list_tasks(ListTasksRequest {
            context_id: Some("c 1".into()),
            status: TaskState::Working,
            page_size: Some(5),
            ..ListTasksRequest::default()
        })
        .await
        .unwrap();
    client.cancel_task(cancel(&id)).await.unwrap();
    subscribe_all(&client, &id).await.unwrap();
    let mut config = TaskPushNotificationConfig::new("https://hooks.example/x");
    config.task_id = Some(id.clone());
    client
        .create_task_push_notification_config(config)
        .await
        .unwrap();
    client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: id.clone(),
            id: "c1".into(),
        })
        .await
        .unwrap();
    let configs = client
        .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
            tenant: String::new(),
            task_id: id.clone(),
            page_size: 10,
            page_token: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(configs.configs.len(), 1);
    client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: id.clone(),
            id: "c1".into(),
        })
        .await
        .unwrap();
    client
        .get_extended_agent_card(GetExtendedAgentCardRequest::default())
        .await
        .unwrap();

    let seen: Vec<(String, String, Option<String>)> = mock
        .requests()
        .iter()
        .map(|request| {
            (
                request.method.to_string(),
                request.uri.to_string(),
                (!request.body.is_empty())
                    .then(|| String::from_utf8_lossy(&request.body).into_owned()),
            )
        })
        .collect();
    let prefix = "/agent/rest/acme";
    let expected_paths = [
        ("POST", format!("{prefix}/message:send")),
        ("POST", format!("{prefix}/message:stream")),
        ("GET", format!("{prefix}/tasks/t%2F1?historyLength=3")),
        (
            "GET",
            format!("{prefix}/tasks?contextId=c+1&status=TASK_STATE_WORKING&pageSize=5"),
        ),
        ("POST", format!("{prefix}/tasks/t%2F1:cancel")),
        ("POST", format!("{prefix}/tasks/t%2F1:subscribe")),
        (
            "POST",
            format!("{prefix}/tasks/t%2F1/pushNotificationConfigs"),
        ),
        (
            "GET",
            format!("{prefix}/tasks/t%2F1/pushNotificationConfigs/c1"),
        ),
        (
            "GET",
            format!("{prefix}/tasks/t%2F1/pushNotificationConfigs?pageSize=10"),
        ),
        (
            "DELETE",
            format!("{prefix}/tasks/t%2F1/pushNotificationConfigs/c1"),
        ),
        ("GET", format!("{prefix}/extendedAgentCard")),
    ];
    assert_eq!(seen.len(), expected_paths.len(), "{seen:#?}");
    for ((method, uri, _), (expected_method, expected_uri)) in seen.iter().zip(&expected_paths) {
        assert_eq!(
            (method.as_str(), uri.as_str()),
            (*expected_method, expected_uri.as_str())
        );
    }
    // Bodies hold what the path does not: no tenant, no ids.
    let send: serde_json::Value = serde_json::from_str(seen[0].2.as_deref().unwrap()).unwrap();
    assert!(send.get("tenant").is_none() && send["message"]["parts"][0]["text"] == "hi");
    assert_eq!(seen[4].2.as_deref(), Some("{}"), "cancel body");
    let push: serde_json::Value = serde_json::from_str(seen[6].2.as_deref().unwrap()).unwrap();
    assert_eq!(push, json!({"url": "https://hooks.example/x"}));
    assert!(seen[2].2.is_none(), "GET has no body");

    let requests = mock.requests();
    assert_eq!(
        requests[0].header("content-type"),
        Some("application/a2a+json")
    );
    assert_eq!(requests[1].header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn jsonrpc_calls_name_the_method_and_carry_the_tenant_in_params() {
    let mock = Mock::start(|request, _| {
        let method = request.json()["method"].as_str().unwrap().to_owned();
        match method.as_str() {
            "ListTasks" => jsonrpc_result(
                json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}),
            ),
            "DeleteTaskPushNotificationConfig" => jsonrpc_result(serde_json::Value::Null),
            "SendStreamingMessage" => sse(&format!(
                ": ping\n\ndata: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task_json("t1", "TASK_STATE_COMPLETED")}})
            )),
            _ => jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED")),
        }
    })
    .await;
    let client = A2aClient::builder()
        .url(mock.url("/rpc"), ProtocolBinding::JsonRpc)
        .tenant("acme")
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    client
        .list_tasks(ListTasksRequest::default())
        .await
        .unwrap();
    client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            tenant: "other".into(),
            task_id: "t1".into(),
            id: "c1".into(),
        })
        .await
        .unwrap();
    let events = stream_text(&client, "hi").await.unwrap();
    assert_eq!(events.len(), 1);
    let requests = mock.requests();
    let bodies: Vec<serde_json::Value> = requests.iter().map(Recorded::json).collect();
    assert_eq!(bodies[0]["method"], "GetTask");
    assert_eq!(bodies[0]["params"], json!({"tenant": "acme", "id": "t1"}));
    assert_eq!(bodies[1]["method"], "ListTasks");
    assert_eq!(
        bodies[2]["params"]["tenant"], "other",
        "a request's own tenant wins"
    );
    assert_eq!(bodies[3]["method"], "SendStreamingMessage");
    assert_eq!(requests[3].header("accept"), Some("text/event-stream"));
    assert!(requests.iter().all(|request| request.uri.path() == "/rpc"));
    assert_ne!(bodies[0]["id"], bodies[1]["id"], "request ids differ");
}

#[tokio::test]
async fn credentials_are_placed_as_configured() {
    let mock = Mock::start(|_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))).await;
    let cases = [
        (Credentials::bearer("tok"), "authorization", "Bearer tok"),
        (
            Credentials::api_key_in("k1", ApiKeyPlacement::Header("X-API-Key".into())),
            "x-api-key",
            "k1",
        ),
        (
            Credentials::api_key_in("k2", ApiKeyPlacement::Cookie("session".into())),
            "cookie",
            "session=k2",
        ),
        (Credentials::api_key("k3"), "authorization", "k3"),
    ];
    for (credentials, header, value) in cases {
        let client = A2aClient::builder()
            .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
            .credentials(credentials)
            .build()
            .unwrap();
        client.get_task(get("t1")).await.unwrap();
        let last = mock.requests().pop().unwrap();
        assert_eq!(last.header(header), Some(value), "{header}");
    }
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .credentials(Credentials::api_key_in(
            "k4",
            ApiKeyPlacement::Query("api_key".into()),
        ))
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    assert_eq!(
        mock.requests().pop().unwrap().uri.query(),
        Some("api_key=k4")
    );
}

#[tokio::test]
async fn api_keys_follow_the_cards_security_scheme() {
    let mock = Mock::start(|_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))).await;
    let card: a2a_types::AgentCard = serde_json::from_value(json!({
        "name": "keyed", "description": "d", "version": "1", "capabilities": {},
        "supportedInterfaces": [{"url": mock.url("/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Agent-Key"}}},
        "securityRequirements": [{"schemes": {"key": {}}}]
    }))
    .unwrap();
    let client = A2aClient::builder()
        .card(card)
        .credentials(Credentials::api_key("secret-key"))
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    assert_eq!(mock.requests()[0].header("x-agent-key"), Some("secret-key"));
    assert!(!format!("{client:?}").contains("secret-key"));
}

#[tokio::test]
async fn with_credentials_requests_stay_on_the_card_origin() {
    // The card is served by `home`, but names `elsewhere` as its interface.
    let elsewhere =
        Mock::start(|_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))).await;
    let interface = elsewhere.url("/a2a");
    let home = Mock::start(move |request, _| {
        if request.uri.path() == "/.well-known/agent-card.json" {
            json_response(
                200,
                &json!({"name": "a", "description": "d", "version": "1", "capabilities": {},
                        "supportedInterfaces": [{"url": interface, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]}),
            )
        } else {
            jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))
        }
    })
    .await;
    let with_credentials = A2aClient::builder()
        .credentials(Credentials::bearer("tok"))
        .discover(&home.url("/"))
        .await
        .unwrap();
    with_credentials.get_task(get("t1")).await.unwrap();
    assert!(
        elsewhere.requests().is_empty(),
        "credentials never go to a URL from the card"
    );
    let last = home.requests().pop().unwrap();
    assert_eq!(last.uri.path(), "/a2a");
    assert_eq!(last.header("authorization"), Some("Bearer tok"));
    assert!(
        home.requests()[0].header("authorization").is_none(),
        "not on the card fetch"
    );

    let without = A2aClient::discover(&home.url("/")).await.unwrap();
    without.get_task(get("t1")).await.unwrap();
    assert_eq!(
        elsewhere.requests().len(),
        1,
        "without credentials the card decides"
    );
}

#[tokio::test]
async fn a_host_override_wins_over_the_card() {
    let target = Mock::start(|_, _| jsonrpc_result(task_json("t1", "TASK_STATE_COMPLETED"))).await;
    let card: a2a_types::AgentCard = serde_json::from_value(json!({
        "name": "a", "description": "d", "version": "1", "capabilities": {},
        "supportedInterfaces": [{"url": "http://unreachable.invalid/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    }))
    .unwrap();
    let client = A2aClient::builder()
        .card(card)
        .host(format!("http://127.0.0.1:{}", target.addr.port()))
        .base_path("/gateway/a2a")
        .credentials(Credentials::bearer("tok"))
        .build()
        .unwrap();
    client.get_task(get("t1")).await.unwrap();
    let request = target.requests().pop().unwrap();
    assert_eq!(request.uri.path(), "/gateway/a2a");
    assert_eq!(request.header("authorization"), Some("Bearer tok"));
}

#[tokio::test]
async fn sse_streams_skip_heartbeats_and_join_multi_line_data() {
    let body = concat!(
        ": keep-alive\r\n\r\n",
        "retry: 100\n",
        "id: 1\r\n",
        "data: {\"task\": {\"id\": \"t1\", \"contextId\": \"c1\",\n",
        "data:  \"status\": {\"state\": \"TASK_STATE_WORKING\"}}}\r\n\r\n",
        ": ping\n\n",
        "event: message\n",
        "data: {\"statusUpdate\": {\"taskId\": \"t1\", \"contextId\": \"c1\", \"status\": {\"state\": \"TASK_STATE_COMPLETED\"}}}\n\n",
    );
    let mock = Mock::start(move |_, _| sse(body)).await;
    let client = A2aClient::from_url(&mock.url("/rest"), ProtocolBinding::HttpJson).unwrap();
    let events = stream_text(&client, "hi").await.unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].state(), Some(TaskState::Completed));
}

#[tokio::test]
async fn an_event_over_the_size_limit_fails_the_stream() {
    let big = "x".repeat(4096);
    let body = format!(
        "data: {{\"task\": {{\"id\": \"t1\", \"contextId\": \"c1\", \"status\": {{\"state\": \"TASK_STATE_WORKING\"}}, \"metadata\": {{\"pad\": \"{big}\"}}}}}}\n\n"
    );
    let mock = Mock::start(move |_, _| sse(&body)).await;
    let client = A2aClient::builder()
        .url(mock.url("/rest"), ProtocolBinding::HttpJson)
        .max_payload_size(1024)
        .build()
        .unwrap();
    let error = stream_text(&client, "hi").await.unwrap_err();
    assert!(
        matches!(error, ClientError::PayloadTooLarge { limit: 1024 }),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_error_frame_ends_the_stream_with_the_agents_error() {
    let jsonrpc_body = format!(
        "data: {}\n\nevent: error\ndata: {}\n\n",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task_json("t1", "TASK_STATE_WORKING")}}),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "gone"}}),
    );
    let rest_body = format!(
        "data: {}\n\nevent: error\ndata: {}\n\n",
        json!({"task": task_json("t1", "TASK_STATE_WORKING")}),
        json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "gone",
               "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}}),
    );
    let mock = Mock::start(move |request, _| {
        if request.uri.path() == "/rpc" {
            sse(&jsonrpc_body)
        } else {
            sse(&rest_body)
        }
    })
    .await;
    for (path, binding) in [
        ("/rpc", ProtocolBinding::JsonRpc),
        ("/rest", ProtocolBinding::HttpJson),
    ] {
        let client = A2aClient::from_url(&mock.url(path), binding.clone()).unwrap();
        let mut stream = client
            .send_streaming_message(message::request("hi"))
            .await
            .unwrap();
        use futures::StreamExt as _;
        assert!(stream.next().await.unwrap().is_ok());
        let error = stream.next().await.unwrap().unwrap_err();
        assert_eq!(
            error.kind(),
            Some(a2a_types::ErrorKind::TaskNotFound),
            "{binding}: {error:?}"
        );
        assert!(
            stream.next().await.is_none(),
            "{binding}: nothing after the error"
        );
    }
}

#[tokio::test]
async fn non_a2a_http_failures_are_http_errors_with_a_safe_snippet() {
    let mock = Mock::start(|_, _| {
        Response::builder()
            .status(502)
            .body(Body::from("Bad Gateway"))
            .unwrap()
    })
    .await;
    let client = A2aClient::builder()
        .url(mock.url("/a2a?api_key=hush"), ProtocolBinding::JsonRpc)
        .retry(a2a_client::RetryPolicy::none())
        .build()
        .unwrap();
    let error = client.get_task(get("t1")).await.unwrap_err();
    assert!(
        matches!(&error, ClientError::Http { status: 502, body } if body == "Bad Gateway"),
        "{error:?}"
    );
    assert!(error.is_retryable());
    assert_eq!(error.to_string(), "HTTP 502: Bad Gateway");

    let refused = A2aClient::from_url(
        "http://127.0.0.1:9/a2a?api_key=hush",
        ProtocolBinding::JsonRpc,
    )
    .unwrap()
    .with_options(CallOptions::new().timeout(std::time::Duration::from_secs(5)));
    let error = refused.get_task(get("t1")).await.unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains("hush"), "{shown}");
}

#[tokio::test]
async fn results_expose_ids_state_and_kind() {
    let mock =
        Mock::start(|_, _| jsonrpc_result(json!({"task": task_json("t1", "TASK_STATE_WORKING")})))
            .await;
    let client = A2aClient::from_url(&mock.url("/a2a"), ProtocolBinding::JsonRpc).unwrap();
    let answer = client.send_message(message::request("hi")).await.unwrap();
    assert_eq!(answer.task_id().map(|id| id.as_str()), Some("t1"));
    assert_eq!(answer.context_id().map(|id| id.as_str()), Some("c1"));
    assert_eq!(answer.state(), Some(TaskState::Working));
    assert_eq!(answer.kind(), a2a_client::ResponseKind::Task);
}
