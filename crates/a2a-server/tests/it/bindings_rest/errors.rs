//! Malformed HTTP+JSON requests and the error bodies: content types, bodies, query values,
//! unknown routes and methods, problem details (when `Accept` prefers them), limits.

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::error::RestStatusProfile;
use reqwest::Method;
use serde_json::{Value, json};

use super::{A2A_JSON, V1, call, get, post, status_error};
use crate::support::{BindingEcho, BrokenStore, TestServer, raw_http, standard_card, user_message};

#[tokio::test]
async fn bodies_must_be_json_objects_of_the_request() {
    let server = TestServer::start(BindingEcho).await;
    let message = json!({"message": user_message("x")})
        .to_string()
        .into_bytes();
    let send = |headers: Vec<(&'static str, &'static str)>, body: Option<Vec<u8>>| {
        let server = &server;
        async move {
            server
                .send(Method::POST, "/rest/message:send", &headers, body)
                .await
        }
    };

    // A body with no Content-Type is read as JSON.
    let response = send(vec![V1], Some(message.clone())).await;
    assert_eq!(
        response.status,
        200,
        "{}",
        String::from_utf8_lossy(&response.body)
    );

    // An empty body on either send route.
    for path in ["/rest/message:send", "/rest/message:stream"] {
        let response = server.send(Method::POST, path, &[V1, A2A_JSON], None).await;
        status_error(
            &response,
            400,
            "INVALID_ARGUMENT",
            "CONTENT_TYPE_NOT_SUPPORTED",
        );
    }

    let response = send(vec![V1, A2A_JSON], Some(b"{\"message\":".to_vec())).await;
    status_error(&response, 400, "INVALID_ARGUMENT", "PARSE_ERROR");
    let response = send(vec![V1, A2A_JSON], Some(b"[1]".to_vec())).await;
    status_error(&response, 400, "INVALID_ARGUMENT", "INVALID_PARAMS");

    let mut bad = user_message("x");
    bad["parts"] = json!([{"text": "a", "data": 1}]);
    let response = post(&server, "/message:send", json!({"message": bad})).await;
    let error = status_error(&response, 400, "INVALID_ARGUMENT", "INVALID_PARAMS");
    assert_eq!(
        error["details"][1]["@type"],
        "type.googleapis.com/google.rpc.BadRequest"
    );
    assert_eq!(
        error["details"][1]["fieldViolations"][0]["field"],
        "message.parts[0]"
    );
    let response = post(&server, "/message:send", json!({"configuration": {}})).await;
    let error = status_error(&response, 400, "INVALID_ARGUMENT", "INVALID_PARAMS");
    assert_eq!(
        error["details"][1]["fieldViolations"][0]["field"],
        "message"
    );
}

#[tokio::test]
async fn bad_query_values_are_invalid_params_naming_the_parameter() {
    let server = TestServer::start(BindingEcho).await;
    let cases = [
        ("/tasks?pageSize=ten", "pageSize"),
        ("/tasks?historyLength=-1", "historyLength"),
        ("/tasks?includeArtifacts=yes", "includeArtifacts"),
        (
            "/tasks?statusTimestampAfter=yesterday",
            "statusTimestampAfter",
        ),
        ("/tasks?pageToken=forged", "pageToken"),
        ("/tasks/t1?historyLength=x", "historyLength"),
    ];
    for (path, parameter) in cases {
        let error = status_error(
            &get(&server, path).await,
            400,
            "INVALID_ARGUMENT",
            "INVALID_PARAMS",
        );
        assert!(
            error["message"].as_str().unwrap().contains(parameter),
            "{path}: {error}"
        );
    }
}

#[tokio::test]
async fn unknown_routes_are_404_and_wrong_methods_405_with_allow() {
    let server = TestServer::start(BindingEcho).await;
    for path in [
        "/message:sendx",
        "/messages",
        "/tasks/t1/other",
        "/a/b/tasks",
        "",
        "/",
    ] {
        let error = status_error(
            &get(&server, path).await,
            404,
            "UNIMPLEMENTED",
            "METHOD_NOT_FOUND",
        );
        assert!(!error["message"].as_str().unwrap().is_empty(), "{path}");
    }
    let cases = [
        (Method::GET, "/message:send", "POST"),
        (Method::POST, "/tasks", "GET"),
        (Method::GET, "/tasks/t1:cancel", "POST"),
        (Method::DELETE, "/tasks/t1:subscribe", "GET, POST"),
        (
            Method::PUT,
            "/tasks/t1/pushNotificationConfigs/c1",
            "GET, DELETE",
        ),
    ];
    for (method, path, allow) in cases {
        let response = call(&server, method.clone(), path, &[V1], None).await;
        status_error(&response, 405, "UNIMPLEMENTED", "METHOD_NOT_FOUND");
        assert_eq!(response.header("allow"), Some(allow), "{method} {path}");
    }
}

#[tokio::test]
async fn a_wrong_content_type_is_415_before_the_body_is_read_under_every_profile() {
    for profile in [
        RestStatusProfile::Spec,
        RestStatusProfile::Camel,
        RestStatusProfile::Rfc7807Java,
    ] {
        let mut config = ServerConfig::default();
        config.rest_status_profile = profile;
        let server =
            TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).config(config))
                .await;
        let json_body = json!({"message": user_message("x")}).to_string();
        for content_type in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "application/jsonl",
            "application/xml; charset=utf-8",
        ] {
            // A JSON body, a body that is not JSON at all, and none: the type decides first.
            for body in [
                Some(json_body.clone().into_bytes()),
                Some(b"<message>hi</message>".to_vec()),
                None,
            ] {
                for path in [
                    "/rest/message:send",
                    "/rest/message:stream",
                    "/rest/tasks/t-1:cancel",
                    "/rest/tasks/t-1/pushNotificationConfigs",
                ] {
                    let headers = [V1, ("Content-Type", content_type)];
                    let response = server
                        .send(Method::POST, path, &headers, body.clone())
                        .await;
                    assert_eq!(
                        response.header("content-type"),
                        Some("application/json"),
                        "{profile:?} {path} {content_type}"
                    );
                    let error = status_error(
                        &response,
                        415,
                        "INVALID_ARGUMENT",
                        "CONTENT_TYPE_NOT_SUPPORTED",
                    );
                    assert_eq!(
                        error["details"][0]["metadata"]["mediaType"],
                        content_type.split(';').next().unwrap(),
                        "{profile:?} {path}"
                    );
                }
            }
        }
        // Either JSON type, any parameters, is fine.
        for content_type in ["application/json; charset=utf-8", "Application/A2A+JSON"] {
            let headers = [V1, ("Content-Type", content_type)];
            let response = server
                .send(
                    Method::POST,
                    "/rest/message:send",
                    &headers,
                    Some(json_body.clone().into_bytes()),
                )
                .await;
            assert_eq!(response.status, 200, "{content_type}");
        }
    }
}

#[tokio::test]
async fn error_bodies_are_application_json_whatever_type_the_request_used() {
    let server = TestServer::start(BindingEcho).await;
    for content_type in [None, Some("application/a2a+json"), Some("application/json")] {
        for accept in [None, Some("application/a2a+json"), Some("*/*")] {
            let mut headers = vec![V1];
            headers.extend(content_type.map(|value| ("Content-Type", value)));
            headers.extend(accept.map(|value| ("Accept", value)));
            let shown = format!("{content_type:?} {accept:?}");
            let response = call(&server, Method::GET, "/tasks/nope", &headers, None).await;
            assert_eq!(response.status, 404, "{shown}");
            assert_eq!(
                response.header("content-type"),
                Some("application/json"),
                "{shown}"
            );
            let response = server
                .send(
                    Method::POST,
                    "/rest/message:send",
                    &headers,
                    Some(b"{\"message\": 1}".to_vec()),
                )
                .await;
            assert_eq!(response.status, 400, "{shown}");
            assert_eq!(
                response.header("content-type"),
                Some("application/json"),
                "{shown}"
            );
        }
    }
    // Successes keep the type the request used.
    let headers = [V1, A2A_JSON];
    let body = json!({"message": user_message("x")})
        .to_string()
        .into_bytes();
    let response = server
        .send(Method::POST, "/rest/message:send", &headers, Some(body))
        .await;
    assert_eq!(
        response.header("content-type"),
        Some("application/a2a+json")
    );
}

#[tokio::test]
async fn problem_details_are_sent_when_accept_prefers_them() {
    let server = TestServer::start(BindingEcho).await;
    let headers = [
        V1,
        ("Accept", "application/problem+json, application/json;q=0.9"),
    ];
    let response = call(&server, Method::GET, "/tasks/nope", &headers, None).await;
    assert_eq!(response.status, 404);
    assert_eq!(
        response.header("content-type"),
        Some("application/problem+json")
    );
    let problem = response.json();
    assert_eq!(
        problem["type"],
        "https://a2a-protocol.org/errors/task-not-found"
    );
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["title"], "Task not found");
    assert_eq!(problem["detail"], problem["details"]);
    assert_eq!(problem["instance"], "/rest/tasks/nope");
    assert_eq!(problem["metadata"]["taskId"], "nope");

    let response = call(&server, Method::POST, "/tasks", &headers, None).await;
    assert_eq!(
        (response.status, response.json()["status"].clone()),
        (405, json!(405))
    );

    let headers = [V1, ("Accept", "application/json, application/problem+json")];
    let response = call(&server, Method::GET, "/tasks/nope", &headers, None).await;
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(response.json()["error"]["code"], 404);
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let server = TestServer::start(BindingEcho).await;
    let declared = 6 * 1024 * 1024 + 1;
    let request = format!(
        "POST /rest/message:send HTTP/1.1\r\nHost: test\r\nA2A-Version: 1.0\r\n\
         Content-Type: application/a2a+json\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n{{"
    );
    let (status, body) = raw_http(server.addr, request.as_bytes()).await;
    assert_eq!(status, 413);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["status"], "RESOURCE_EXHAUSTED");
    assert_eq!(body["error"]["details"][0]["reason"], "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn internal_errors_are_500_and_say_nothing_more() {
    let builder = A2aServer::builder(standard_card(), BindingEcho).store(BrokenStore);
    let server = TestServer::start_with(builder).await;
    let error = status_error(
        &get(&server, "/tasks/t1").await,
        500,
        "INTERNAL",
        "INTERNAL_ERROR",
    );
    assert_eq!(error["message"], "Internal error");
    let response = get(&server, "/tasks").await;
    assert_eq!(response.status, 500);
    assert!(!String::from_utf8_lossy(&response.body).contains("fire"));
}

#[tokio::test]
async fn hostile_requests_get_protocol_errors() {
    let server = TestServer::start(BindingEcho).await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let bodies: [&[u8]; 3] = [
        deep.as_bytes(),
        b"{\"message\": \"\xff\"}",
        b"\xef\xbb\xbf{}",
    ];
    for body in bodies {
        let response = server
            .send(
                Method::POST,
                "/rest/message:send",
                &[V1, A2A_JSON],
                Some(body.to_vec()),
            )
            .await;
        status_error(&response, 400, "INVALID_ARGUMENT", "PARSE_ERROR");
    }
    let error = status_error(
        &get(&server, "/tasks/%ZZ%").await,
        404,
        "NOT_FOUND",
        "TASK_NOT_FOUND",
    );
    assert_eq!(error["details"][0]["metadata"]["taskId"], "%ZZ%");
    let response = get(&server, "/tasks?pageSize=%FF").await;
    status_error(&response, 400, "INVALID_ARGUMENT", "INVALID_PARAMS");
    let response = call(&server, Method::HEAD, "/tasks", &[V1], None).await;
    assert_eq!(response.status, 405);
    assert_eq!(response.header("allow"), Some("GET"));
}
