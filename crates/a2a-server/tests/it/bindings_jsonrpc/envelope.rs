//! JSON-RPC envelopes over the socket (JSON-RPC 2.0 §4–§5): parse and envelope errors,
//! unknown and v0.3 methods, params, ids, notifications, body limits.

use a2a_server::A2aServer;
use reqwest::Method;
use serde_json::{Value, json};

use super::{JSON, V1, error_of, post, result_of, rpc};
use crate::support::{BindingEcho, BrokenStore, TestServer, raw_http, standard_card, user_message};

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let server = TestServer::start(BindingEcho).await;
    for body in [
        "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ",
        "not json",
        "",
        "{} {}",
    ] {
        let response = post(&server, "/a2a", &[JSON, V1], body).await;
        let error = error_of(&response, -32700, "PARSE_ERROR");
        assert_eq!(response.json()["id"], Value::Null, "{body}");
        assert!(!error["message"].as_str().unwrap().is_empty());
    }
}

#[tokio::test]
async fn a_wrong_content_type_is_content_type_not_supported_even_when_the_body_is_not_json() {
    let server = TestServer::start(BindingEcho).await;
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#;
    for content_type in [
        "text/plain",
        "application/xml",
        "multipart/form-data; boundary=x",
    ] {
        for body in [request, "not json at all", ""] {
            let response = post(&server, "/a2a", &[("Content-Type", content_type), V1], body).await;
            assert_eq!(response.status, 200, "{content_type} {body}");
            let error = error_of(&response, -32005, "CONTENT_TYPE_NOT_SUPPORTED");
            assert_eq!(response.json()["id"], Value::Null, "{body}");
            assert_eq!(
                error["data"][0]["metadata"]["mediaType"],
                content_type.split(';').next().unwrap()
            );
        }
    }
    // Both JSON types are read, with parameters; no Content-Type at all reads as JSON.
    for headers in [
        vec![("Content-Type", "application/json; charset=utf-8"), V1],
        vec![("Content-Type", "application/a2a+json"), V1],
        vec![V1],
    ] {
        let response = post(&server, "/a2a", &headers, request).await;
        error_of(&response, -32001, "TASK_NOT_FOUND");
    }
}

#[tokio::test]
async fn envelopes_that_are_not_requests_are_invalid_requests() {
    let server = TestServer::start(BindingEcho).await;
    let cases = [
        (r#""SendMessage""#, Value::Null),
        ("42", Value::Null),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}]"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"1.0","id":7,"method":"GetTask"}"#, json!(7)),
        (r#"{"id":"a","method":"GetTask"}"#, json!("a")),
        (r#"{"jsonrpc":"2.0","id":8}"#, json!(8)),
        (r#"{"jsonrpc":"2.0","id":9,"method":5}"#, json!(9)),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"GetTask","params":"t"}"#,
            json!(10),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"GetTask"}"#,
            Value::Null,
        ),
    ];
    for (body, id) in cases {
        let response = post(&server, "/a2a", &[JSON, V1], body).await;
        error_of(&response, -32600, "INVALID_REQUEST");
        assert_eq!(response.json()["id"], id, "{body}");
    }
}

#[tokio::test]
async fn unknown_methods_are_not_found_and_v0_3_methods_are_another_version() {
    let server = TestServer::start(BindingEcho).await;
    let error = error_of(
        &rpc(&server, "DoSomething", json!({})).await,
        -32601,
        "METHOD_NOT_FOUND",
    );
    assert_eq!(error["data"][0]["metadata"]["method"], "DoSomething");
    error_of(
        &rpc(&server, "sendMessage", json!({})).await,
        -32601,
        "METHOD_NOT_FOUND",
    );
    for method in [
        "message/send",
        "tasks/get",
        "tasks/resubscribe",
        "agent/getAuthenticatedExtendedCard",
    ] {
        let error = error_of(
            &rpc(&server, method, json!({})).await,
            -32009,
            "VERSION_NOT_SUPPORTED",
        );
        assert!(
            error["message"].as_str().unwrap().contains(method),
            "{error}"
        );
    }
}

#[tokio::test]
async fn params_that_do_not_decode_are_invalid_params_naming_the_field() {
    let server = TestServer::start(BindingEcho).await;
    let mut message = user_message("hi");
    message["role"] = json!("ROLE_SPEAKER");
    let error = error_of(
        &rpc(&server, "SendMessage", json!({"message": message})).await,
        -32602,
        "INVALID_PARAMS",
    );
    assert!(
        error["message"].as_str().unwrap().contains("message.role"),
        "{error}"
    );
    assert_eq!(
        error["data"][1]["@type"],
        "type.googleapis.com/google.rpc.BadRequest"
    );
    assert_eq!(
        error["data"][1]["fieldViolations"][0]["field"],
        "message.role"
    );

    let error = error_of(
        &rpc(
            &server,
            "GetTask",
            json!({"id": "t", "historyLength": "many"}),
        )
        .await,
        -32602,
        "INVALID_PARAMS",
    );
    assert_eq!(
        error["data"][1]["fieldViolations"][0]["field"],
        "historyLength"
    );

    let error = error_of(
        &rpc(&server, "GetTask", json!(["t"])).await,
        -32602,
        "INVALID_PARAMS",
    );
    assert!(
        error["message"].as_str().unwrap().contains("object"),
        "{error}"
    );

    // The handler's own validation comes back the same way.
    let mut message = user_message("hi");
    message["role"] = json!("ROLE_AGENT");
    let error = error_of(
        &rpc(&server, "SendMessage", json!({"message": message})).await,
        -32602,
        "INVALID_PARAMS",
    );
    assert_eq!(
        error["data"][1]["fieldViolations"][0]["field"],
        "message.role"
    );
}

#[tokio::test]
async fn absent_params_read_as_an_empty_object() {
    let server = TestServer::start(BindingEcho).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ListTasks"}"#;
    let page = result_of(&post(&server, "/a2a", &[JSON, V1], body).await);
    assert_eq!(page["tasks"], json!([]));
}

#[tokio::test]
async fn ids_are_echoed_with_their_json_type() {
    let server = TestServer::start(BindingEcho).await;
    for id in [
        json!("abc"),
        json!(""),
        json!(7),
        json!(-3),
        json!(1.5),
        json!(9_007_199_254_740_993_u64),
        Value::Null,
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ListTasks"}}"#);
        let response = post(&server, "/a2a", &[JSON, V1], &body).await;
        assert_eq!(response.status, 200);
        let text = String::from_utf8(response.body.clone()).unwrap();
        assert!(text.contains(&format!(r#""id":{id}"#)), "{text}");
        // Errors echo the id too.
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask","params":{{"id":"nope"}}}}"#);
        let response = post(&server, "/a2a", &[JSON, V1], &body).await;
        assert_eq!(response.json()["id"], id);
    }
}

#[tokio::test]
async fn a_request_without_an_id_is_answered_under_a_null_id_with_200() {
    let server = TestServer::start(BindingEcho).await;
    let body = json!({"jsonrpc": "2.0", "method": "SendMessage", "params": {"message": user_message("no id")}});
    let response = post(&server, "/a2a", &[JSON, V1], &body.to_string()).await;
    assert_eq!(response.status, 200);
    let answer = response.json();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(
        answer["result"]["task"]["artifacts"][0]["parts"][0]["text"], "no id",
        "{answer}"
    );

    // Errors too: an unknown task, an unknown or malformed method name, params that are not
    // an object. Never 204 and an empty body, which would hide the mistake.
    let cases = [
        (
            json!({"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "nope"}}),
            -32001,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "NoSuchMethod", "params": {}}),
            -32601,
        ),
        (json!({"jsonrpc": "2.0", "method": 7, "params": {}}), -32600),
        (
            json!({"jsonrpc": "2.0", "method": "GetTask", "params": ["nope"]}),
            -32602,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "GetTask", "params": "nope"}),
            -32600,
        ),
    ];
    for (body, code) in cases {
        let response = post(&server, "/a2a", &[JSON, V1], &body.to_string()).await;
        assert_eq!(response.status, 200, "{body}");
        let answer = response.json();
        assert_eq!(answer["id"], Value::Null, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
}

#[tokio::test]
async fn the_endpoint_answers_on_its_path_with_a_trailing_slash_and_only_to_post() {
    let server = TestServer::start(BindingEcho).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks"}).to_string();
    result_of(&post(&server, "/a2a/", &[JSON, V1], &body).await);

    let response = server.send(Method::GET, "/a2a", &[V1], None).await;
    assert_eq!(response.status, 405);
    assert_eq!(response.header("allow"), Some("POST"));
    assert_eq!(response.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_without_being_read() {
    let server = TestServer::start(BindingEcho).await;
    let declared = 6 * 1024 * 1024 + 1;
    let request = format!(
        "POST /a2a HTTP/1.1\r\nHost: test\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n\
         Content-Length: {declared}\r\nConnection: close\r\n\r\n{{\"jsonrpc\":\"2.0\""
    );
    let (status, body) = raw_http(server.addr, request.as_bytes()).await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["id"], Value::Null);
    assert_eq!(body["error"]["code"], -32000);
    assert_eq!(body["error"]["data"][0]["reason"], "PAYLOAD_TOO_LARGE");
    assert_eq!(
        body["error"]["data"][0]["metadata"]["limitBytes"],
        "6291456"
    );

    // A body of exactly the limit is read (and then found not to be JSON).
    let at_limit = vec![b' '; 6 * 1024 * 1024];
    let response = server
        .send(Method::POST, "/a2a", &[JSON, V1], Some(at_limit))
        .await;
    assert_eq!(response.json()["error"]["code"], -32700);
}

#[tokio::test]
async fn a_chunked_body_is_cut_off_at_the_limit() {
    let server = TestServer::start(BindingEcho).await;
    let chunk = vec![b' '; 1024 * 1024];
    let mut request = b"POST /a2a HTTP/1.1\r\nHost: test\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
    for _ in 0..7 {
        request.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        request.extend_from_slice(&chunk);
        request.extend_from_slice(b"\r\n");
    }
    let (status, body) = raw_http(server.addr, &request).await;
    assert_eq!(status, 200);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["data"][0]["reason"], "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn internal_errors_are_http_500_and_say_nothing_more() {
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), BindingEcho).store(BrokenStore))
            .await;
    let response = rpc(&server, "GetTask", json!({"id": "t"})).await;
    assert_eq!(response.status, 500);
    let body = response.json();
    assert_eq!(body["id"], 1);
    assert_eq!(body["error"]["code"], -32603);
    assert_eq!(body["error"]["message"], "Internal error");
    assert!(!String::from_utf8_lossy(&response.body).contains("fire"));
}

#[tokio::test]
async fn hostile_bodies_get_protocol_errors() {
    let server = TestServer::start(BindingEcho).await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: [(&[u8], i64); 4] = [
        (deep.as_bytes(), -32700),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"Get\xffTask\"}",
            -32700,
        ),
        (b"\xef\xbb\xbf{}", -32700),
        (b"null", -32600),
    ];
    for (body, code) in cases {
        let response = server
            .send(Method::POST, "/a2a", &[JSON, V1], Some(body.to_vec()))
            .await;
        assert_eq!(response.status, 200);
        assert_eq!(response.json()["error"]["code"], code);
    }
    let deep_params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{{"message":{}1{}}}}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    let response = post(&server, "/a2a", &[JSON, V1], &deep_params).await;
    error_of(&response, -32602, "INVALID_PARAMS");
}
