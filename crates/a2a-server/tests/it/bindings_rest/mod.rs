//! The HTTP+JSON binding over the socket (spec §5.2): every route, content types, tenants,
//! extensions and status profiles. Malformed requests and the error bodies are in `errors`.

mod errors;

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::error::RestStatusProfile;
use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{
    BindingEcho, RawResponse, TestServer, serve_requiring_an_extension, standard_card, user_message,
};

const A2A_JSON: (&str, &str) = ("Content-Type", "application/a2a+json");
const V1: (&str, &str) = ("A2A-Version", "1.0");

async fn call(
    server: &TestServer,
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> RawResponse {
    let body = body.map(|body| body.to_string().into_bytes());
    server
        .send(method, &format!("/rest{path}"), headers, body)
        .await
}

async fn get(server: &TestServer, path: &str) -> RawResponse {
    call(server, Method::GET, path, &[V1], None).await
}

async fn post(server: &TestServer, path: &str, body: Value) -> RawResponse {
    call(server, Method::POST, path, &[V1, A2A_JSON], Some(body)).await
}

fn ok(response: &RawResponse, status: u16) -> Value {
    assert_eq!(
        response.status,
        status,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    response.json()
}

/// The `error` of a google.rpc.Status body, checked for status, gRPC name and reason.
fn status_error(response: &RawResponse, status: u16, grpc: &str, reason: &str) -> Value {
    assert_eq!(
        response.status,
        status,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    // Error bodies are application/json whatever the request used.
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    let error = body["error"].clone();
    assert_eq!(error["code"], status, "{body}");
    assert_eq!(error["status"], grpc, "{body}");
    assert_eq!(
        error["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
        "{body}"
    );
    assert_eq!(error["details"][0]["reason"], reason, "{body}");
    assert_eq!(error["details"][0]["domain"], "a2a-protocol.org", "{body}");
    error
}

async fn send(server: &TestServer, text: &str) -> Value {
    ok(
        &post(
            server,
            "/message:send",
            json!({"message": user_message(text)}),
        )
        .await,
        200,
    )["task"]
        .clone()
}

#[tokio::test]
async fn send_message_answers_in_the_content_type_the_request_used() {
    let server = TestServer::start(BindingEcho).await;
    let response = post(
        &server,
        "/message:send",
        json!({"message": user_message("hello")}),
    )
    .await;
    assert_eq!(
        response.header("content-type"),
        Some("application/a2a+json")
    );
    let task = ok(&response, 200)["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hello");

    let body = Some(json!({"message": user_message("hi")}));
    let headers = [V1, ("Content-Type", "application/json; charset=utf-8")];
    let response = call(&server, Method::POST, "/message:send", &headers, body).await;
    assert_eq!(response.header("content-type"), Some("application/json"));
    ok(&response, 200);

    let response = call(
        &server,
        Method::GET,
        "/tasks",
        &[V1, ("Accept", "application/json")],
        None,
    )
    .await;
    assert_eq!(response.header("content-type"), Some("application/json"));
    let response = get(&server, "/tasks").await;
    assert_eq!(
        response.header("content-type"),
        Some("application/a2a+json")
    );
}

#[tokio::test]
async fn task_routes_read_list_and_cancel() {
    let server = TestServer::start(BindingEcho).await;
    let done = send(&server, "hello").await;
    let id = done["id"].as_str().unwrap();

    let task = ok(&get(&server, &format!("/tasks/{id}")).await, 200);
    assert_eq!(task["history"].as_array().unwrap().len(), 1);
    let task = ok(
        &get(&server, &format!("/tasks/{id}?historyLength=0")).await,
        200,
    );
    assert!(task.get("history").is_none(), "{task}");

    let waiting = send(&server, "ask").await;
    let page = ok(
        &get(&server, "/tasks?status=TASK_STATE_COMPLETED").await,
        200,
    );
    assert_eq!(page["totalSize"], 1);
    assert!(page["tasks"][0].get("artifacts").is_none(), "{page}");
    let page = ok(
        &get(
            &server,
            "/tasks?status=completed,INPUT_REQUIRED&includeArtifacts=true&pageSize=1",
        )
        .await,
        200,
    );
    assert_eq!(page["totalSize"], 2);
    assert_eq!(page["pageSize"], 1);
    assert_ne!(page["nextPageToken"], "");
    let context = waiting["contextId"].as_str().unwrap();
    let page = ok(
        &get(&server, &format!("/tasks?contextId={context}")).await,
        200,
    );
    assert_eq!(page["tasks"][0]["id"], waiting["id"]);

    // The cancel body is optional: empty, or `{metadata}`, even naming the task again.
    let waiting_id = waiting["id"].as_str().unwrap();
    let response = call(
        &server,
        Method::POST,
        &format!("/tasks/{waiting_id}:cancel"),
        &[V1],
        None,
    )
    .await;
    assert_eq!(ok(&response, 200)["status"]["state"], "TASK_STATE_CANCELED");
    let again = send(&server, "ask").await;
    let body = json!({"id": "ignored", "metadata": {"why": "test"}});
    let response = post(
        &server,
        &format!("/tasks/{}:cancel", again["id"].as_str().unwrap()),
        body,
    )
    .await;
    let canceled = ok(&response, 200);
    assert_eq!(canceled["id"], again["id"]);
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn a2a_errors_have_their_http_status_and_reason() {
    let server = TestServer::start(BindingEcho).await;
    let error = status_error(
        &get(&server, "/tasks/nope").await,
        404,
        "NOT_FOUND",
        "TASK_NOT_FOUND",
    );
    assert_eq!(error["details"][0]["metadata"]["taskId"], "nope");
    let error = status_error(
        &get(&server, "/tasks/a%2Fb").await,
        404,
        "NOT_FOUND",
        "TASK_NOT_FOUND",
    );
    assert_eq!(error["details"][0]["metadata"]["taskId"], "a/b");

    let done = send(&server, "hello").await;
    let path = format!("/tasks/{}:cancel", done["id"].as_str().unwrap());
    status_error(
        &post(&server, &path, json!({})).await,
        400,
        "FAILED_PRECONDITION",
        "TASK_NOT_CANCELABLE",
    );

    let id = done["id"].as_str().unwrap();
    let configs = format!("/tasks/{id}/pushNotificationConfigs");
    let push = [
        call(
            &server,
            Method::POST,
            &configs,
            &[V1, A2A_JSON],
            Some(json!({"url": "https://example.com/hook"})),
        )
        .await,
        get(&server, &configs).await,
        get(&server, &format!("{configs}/c1")).await,
        call(
            &server,
            Method::DELETE,
            &format!("{configs}/c1"),
            &[V1],
            None,
        )
        .await,
    ];
    for response in &push {
        status_error(
            response,
            400,
            "FAILED_PRECONDITION",
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
        );
    }

    status_error(
        &get(&server, "/extendedAgentCard").await,
        400,
        "FAILED_PRECONDITION",
        "UNSUPPORTED_OPERATION",
    );
}

#[tokio::test]
async fn streaming_routes_answer_unsupported_operation_when_the_card_does_not_stream() {
    let server = TestServer::start(BindingEcho).await;
    let responses = [
        post(
            &server,
            "/message:stream",
            json!({"message": user_message("hi")}),
        )
        .await,
        call(&server, Method::POST, "/tasks/t1:subscribe", &[V1], None).await,
        get(&server, "/tasks/t1:subscribe").await,
    ];
    for response in &responses {
        let error = status_error(
            response,
            400,
            "FAILED_PRECONDITION",
            "UNSUPPORTED_OPERATION",
        );
        assert_eq!(error["message"], "streaming is not available");
    }
}

#[tokio::test]
async fn the_extended_card_is_served_when_configured() {
    let mut card = standard_card();
    card.capabilities.extended_agent_card = Some(true);
    let extended = AgentCard::new("Extended", "More", "1.0.0").with_interface(AgentInterface::new(
        "http://localhost/rest",
        ProtocolBinding::HttpJson,
    ));
    let server =
        TestServer::start_with(A2aServer::builder(card, BindingEcho).extended_card(extended)).await;
    assert_eq!(
        ok(&get(&server, "/extendedAgentCard").await, 200)["name"],
        "Extended"
    );
}

#[tokio::test]
async fn the_version_is_required_from_a_header_or_the_query() {
    let server = TestServer::start(BindingEcho).await;
    let response = call(&server, Method::GET, "/tasks", &[], None).await;
    // HTTP 400; the body's status is the gRPC code of the error, UNIMPLEMENTED.
    let error = status_error(&response, 400, "UNIMPLEMENTED", "VERSION_NOT_SUPPORTED");
    assert_eq!(error["details"][0]["metadata"]["version"], "0.3");
    ok(
        &call(
            &server,
            Method::GET,
            "/tasks",
            &[("X-A2A-Version", "1.0")],
            None,
        )
        .await,
        200,
    );
    ok(
        &call(&server, Method::GET, "/tasks?A2A-Version=1.0", &[], None).await,
        200,
    );
}

#[tokio::test]
async fn a_required_extension_must_be_requested_and_activated_ones_are_echoed() {
    let server = serve_requiring_an_extension().await;
    let refused = get(&server, "/tasks").await;
    status_error(
        &refused,
        400,
        "FAILED_PRECONDITION",
        "EXTENSION_SUPPORT_REQUIRED",
    );
    let accepted = call(
        &server,
        Method::GET,
        "/tasks",
        &[V1, ("A2A-Extensions", "urn:ext:required")],
        None,
    )
    .await;
    ok(&accepted, 200);
    assert_eq!(accepted.header("a2a-extensions"), Some("urn:ext:required"));
}

#[tokio::test]
async fn the_tenant_prefix_routes_and_wins_over_the_body() {
    let server = TestServer::start(BindingEcho).await;
    let task = ok(
        &post(
            &server,
            "/acme/message:send",
            json!({"message": user_message("x")}),
        )
        .await,
        200,
    )["task"]
        .clone();
    let id = task["id"].as_str().unwrap();
    status_error(
        &get(&server, &format!("/tasks/{id}")).await,
        404,
        "NOT_FOUND",
        "TASK_NOT_FOUND",
    );
    ok(&get(&server, &format!("/acme/tasks/{id}")).await, 200);
    assert_eq!(ok(&get(&server, "/acme/tasks").await, 200)["totalSize"], 1);
    assert_eq!(ok(&get(&server, "/tasks").await, 200)["totalSize"], 0);

    // A body tenant is honoured on an unprefixed route and loses to a path tenant.
    let body = json!({"tenant": "beta", "message": user_message("y")});
    let in_beta =
        ok(&post(&server, "/message:send", body.clone()).await, 200)["task"]["id"].clone();
    ok(
        &get(
            &server,
            &format!("/beta/tasks/{}", in_beta.as_str().unwrap()),
        )
        .await,
        200,
    );
    let in_gamma = ok(&post(&server, "/gamma/message:send", body).await, 200)["task"]["id"].clone();
    ok(
        &get(
            &server,
            &format!("/gamma/tasks/{}", in_gamma.as_str().unwrap()),
        )
        .await,
        200,
    );

    // Escaped tenants are decoded.
    ok(
        &post(
            &server,
            "/a%20b/message:send",
            json!({"message": user_message("z")}),
        )
        .await,
        200,
    );
    assert_eq!(ok(&get(&server, "/a%20b/tasks").await, 200)["totalSize"], 1);
}

#[tokio::test]
async fn the_status_profile_decides_the_http_status() {
    let mut config = ServerConfig::default();
    config.rest_status_profile = RestStatusProfile::Camel;
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).config(config))
            .await;
    let done = send(&server, "hello").await;
    let path = format!("/tasks/{}:cancel", done["id"].as_str().unwrap());
    status_error(
        &post(&server, &path, json!({})).await,
        409,
        "FAILED_PRECONDITION",
        "TASK_NOT_CANCELABLE",
    );
}

#[tokio::test]
async fn the_endpoint_tenant_applies_when_the_request_names_none() {
    let mut card = standard_card();
    let mut tenanted = AgentInterface::new("http://localhost/acme-rest", ProtocolBinding::HttpJson);
    tenanted.tenant = "acme".into();
    card.supported_interfaces.push(tenanted);
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;
    let response = server
        .send(
            Method::POST,
            "/acme-rest/message:send",
            &[V1, A2A_JSON],
            Some(
                json!({"message": user_message("x")})
                    .to_string()
                    .into_bytes(),
            ),
        )
        .await;
    let id = ok(&response, 200)["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(&get(&server, &format!("/acme/tasks/{id}")).await, 200);
}

#[tokio::test]
async fn the_most_specific_endpoint_owns_a_path() {
    let mut card = standard_card();
    let mut nested = AgentInterface::new("http://localhost/rest/v2", ProtocolBinding::HttpJson);
    nested.tenant = "t2".into();
    card.supported_interfaces.push(nested);
    let server = TestServer::start_with(A2aServer::builder(card, BindingEcho)).await;
    let response = post(
        &server,
        "/v2/message:send",
        json!({"message": user_message("x")}),
    )
    .await;
    let id = ok(&response, 200)["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The task is in the nested interface's tenant: had `/rest` taken the request, it would
    // be in tenant `v2`.
    ok(&get(&server, &format!("/t2/tasks/{id}")).await, 200);
    ok(&get(&server, &format!("/v2/tasks/{id}")).await, 200);
}
