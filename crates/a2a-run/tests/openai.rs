//! The OpenAI-compatible model against the scripted model server, over a real socket.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use a2a_run::model::{Finish, Model, ModelError, ModelReply, ModelRequest};
use a2a_run::openai::OpenAiModel;
use a2a_run::run::{ChatMessage, ToolCall, ToolSpec, Usage};
use a2a_test_support::model::{ScriptedModel, Step};
use serde_json::{Value, json};

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage::System {
            text: "be brief".into(),
        },
        ChatMessage::User {
            text: "hello".into(),
        },
    ]
}

fn model(server: &ScriptedModel) -> OpenAiModel {
    OpenAiModel::new(server.base_url(), "test-model")
}

async fn ask(model: &OpenAiModel) -> Result<ModelReply, ModelError> {
    model
        .complete(ModelRequest::new(&conversation(), &[]), None)
        .await
}

/// Asks with drafts; returns the reply and the pieces the drafts received.
async fn ask_streamed(model: &OpenAiModel) -> (Result<ModelReply, ModelError>, Vec<String>) {
    let (drafts, mut pieces) = tokio::sync::mpsc::unbounded_channel();
    let reply = model
        .complete(ModelRequest::new(&conversation(), &[]), Some(drafts))
        .await;
    let mut received = Vec::new();
    while let Ok(piece) = pieces.try_recv() {
        received.push(piece);
    }
    (reply, received)
}

fn usage(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

/// A port nothing listens on.
async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_reply_not_streamed_brings_its_text_usage_and_finish() {
    let server = ScriptedModel::start(vec![Step::text("Hello there").usage(12, 3)])
        .await
        .unwrap();

    let reply = ask(&model(&server)).await.unwrap();

    assert_eq!(reply.text.as_deref(), Some("Hello there"));
    assert!(reply.tool_calls.is_empty());
    assert_eq!(reply.usage, usage(12, 3));
    assert_eq!(reply.finish, Finish::Stop);
    let request = &server.requests()[0];
    assert_eq!(request["stream"], false);
    assert_eq!(request["model"], "test-model");
    assert!(request.get("stream_options").is_none());
}

#[tokio::test]
async fn a_streamed_reply_sends_its_pieces_to_the_drafts_in_order_and_asks_for_usage() {
    let server = ScriptedModel::start(vec![Step::text("Hello there, world").usage(20, 5)])
        .await
        .unwrap();

    let (reply, pieces) = ask_streamed(&model(&server)).await;
    let reply = reply.unwrap();

    assert_eq!(reply.text.as_deref(), Some("Hello there, world"));
    assert_eq!(pieces.len(), 3, "{pieces:?}");
    assert_eq!(pieces.concat(), "Hello there, world");
    assert_eq!(reply.usage, usage(20, 5));
    assert_eq!(reply.finish, Finish::Stop);
    let request = &server.requests()[0];
    assert_eq!(request["stream"], true);
    assert_eq!(request["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn a_streamed_reply_without_usage_counts_nothing() {
    let server = ScriptedModel::start(vec![Step::text("hi")]).await.unwrap();

    let (reply, _) = ask_streamed(&model(&server)).await;

    assert_eq!(reply.unwrap().usage, Usage::default());
}

#[tokio::test]
async fn two_tool_calls_in_one_reply_are_read_not_streamed() {
    let server = ScriptedModel::start(vec![
        Step::tool_call("call_1", "read_file", json!({ "path": "a.txt" }))
            .and_tool_call("call_2", "list_dir", json!({ "path": "." }))
            .usage(30, 9),
    ])
    .await
    .unwrap();

    let reply = ask(&model(&server)).await.unwrap();

    assert_eq!(
        reply.tool_calls,
        vec![
            call("call_1", "read_file", json!({ "path": "a.txt" })),
            call("call_2", "list_dir", json!({ "path": "." })),
        ]
    );
    assert_eq!(reply.text, None);
    assert_eq!(reply.finish, Finish::ToolCalls);
    assert_eq!(reply.usage, usage(30, 9));
}

#[tokio::test]
async fn streamed_tool_calls_are_put_together_from_arguments_split_across_chunks() {
    let server = ScriptedModel::start(vec![
        Step::tool_call(
            "call_1",
            "write_file",
            json!({ "path": "notes/a.txt", "content": "a longer text, split in pieces" }),
        )
        .and_tool_call("call_2", "list_dir", json!({ "path": "notes" }))
        .with_text("Let me write that.")
        .usage(40, 11),
    ])
    .await
    .unwrap();

    let (reply, pieces) = ask_streamed(&model(&server)).await;
    let reply = reply.unwrap();

    assert_eq!(
        reply.tool_calls,
        vec![
            call(
                "call_1",
                "write_file",
                json!({ "path": "notes/a.txt", "content": "a longer text, split in pieces" })
            ),
            call("call_2", "list_dir", json!({ "path": "notes" })),
        ]
    );
    assert_eq!(reply.text.as_deref(), Some("Let me write that."));
    assert_eq!(pieces.concat(), "Let me write that.");
    assert_eq!(reply.finish, Finish::ToolCalls);
    assert_eq!(reply.usage, usage(40, 11));
}

#[tokio::test]
async fn arguments_that_are_not_json_are_kept_as_a_string() {
    let server = ScriptedModel::start(vec![
        Step::tool_call_raw("call_1", "read_file", "{\"path\": \"a.txt\""),
        Step::tool_call_raw("call_2", "read_file", "{\"path\": oops}"),
    ])
    .await
    .unwrap();
    let model = model(&server);

    let whole = ask(&model).await.unwrap();
    let (streamed, _) = ask_streamed(&model).await;

    assert_eq!(
        whole.tool_calls,
        vec![call("call_1", "read_file", json!("{\"path\": \"a.txt\""))]
    );
    assert_eq!(
        streamed.unwrap().tool_calls,
        vec![call("call_2", "read_file", json!("{\"path\": oops}"))]
    );
}

#[tokio::test]
async fn a_length_finish_is_reported() {
    let server = ScriptedModel::start(vec![
        Step::text("cut sh").finish_reason("length"),
        Step::text("cut sh").finish_reason("length"),
    ])
    .await
    .unwrap();
    let model = model(&server);

    assert_eq!(ask(&model).await.unwrap().finish, Finish::Length);
    assert_eq!(ask_streamed(&model).await.0.unwrap().finish, Finish::Length);
}

#[tokio::test]
async fn the_request_carries_the_tools_and_every_role_of_the_transcript() {
    let server = ScriptedModel::start(vec![Step::text("done")])
        .await
        .unwrap();
    let model = model(&server)
        .with_max_output_tokens(Some(256))
        .with_temperature(Some(0.5));
    let transcript = vec![
        ChatMessage::System {
            text: "be brief".into(),
        },
        ChatMessage::User {
            text: "read a.txt".into(),
        },
        ChatMessage::Assistant {
            text: None,
            tool_calls: vec![
                call("call_1", "read_file", json!({ "path": "a.txt" })),
                call("call_2", "read_file", json!("{broken")),
            ],
        },
        ChatMessage::Tool {
            call_id: "call_1".into(),
            content: "hello from a.txt".into(),
        },
        ChatMessage::Tool {
            call_id: "call_2".into(),
            content: "error: arguments are not JSON".into(),
        },
    ];
    let tools = vec![ToolSpec::new(
        "read_file",
        "Reads a file",
        json!({ "type": "object", "properties": { "path": { "type": "string" } }, "required": ["path"] }),
    )];

    model
        .complete(ModelRequest::new(&transcript, &tools), None)
        .await
        .unwrap();

    let request = &server.requests()[0];
    assert_eq!(request["max_tokens"], 256);
    assert_eq!(request["temperature"], 0.5);
    assert_eq!(
        request["tools"],
        json!([{ "type": "function", "function": {
            "name": "read_file",
            "description": "Reads a file",
            "parameters": { "type": "object", "properties": { "path": { "type": "string" } }, "required": ["path"] },
        }}])
    );
    assert_eq!(
        request["messages"],
        json!([
            { "role": "system", "content": "be brief" },
            { "role": "user", "content": "read a.txt" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "call_1", "type": "function", "function": { "name": "read_file", "arguments": "{\"path\":\"a.txt\"}" } },
                { "id": "call_2", "type": "function", "function": { "name": "read_file", "arguments": "{broken" } },
            ]},
            { "role": "tool", "tool_call_id": "call_1", "content": "hello from a.txt" },
            { "role": "tool", "tool_call_id": "call_2", "content": "error: arguments are not JSON" },
        ])
    );
}

#[tokio::test]
async fn a_request_without_tools_sends_no_tools() {
    let server = ScriptedModel::start(vec![Step::text("hi")]).await.unwrap();

    ask(&model(&server)).await.unwrap();

    assert!(server.requests()[0].get("tools").is_none());
}

#[tokio::test]
async fn failed_calls_are_named_by_a_stable_code() {
    let cases = [
        (
            Step::error(400, r#"{"error":{"message":"bad model"}}"#),
            "bad_request",
        ),
        (
            Step::error(401, r#"{"error":{"message":"no key"}}"#),
            "unauthorized",
        ),
        (Step::error(403, "forbidden"), "unauthorized"),
        (
            Step::error(404, r#"{"detail":"no such model"}"#),
            "bad_request",
        ),
        (
            Step::error(429, r#"{"error":{"message":"slow down"}}"#),
            "rate_limit",
        ),
        (Step::error(500, "boom"), "server_error"),
        (
            Step::error(503, r#"{"error":{"message":"overloaded"}}"#),
            "server_error",
        ),
        (Step::raw(200, "this is not JSON"), "bad_response"),
        (Step::raw(200, r#"{"choices":[]}"#), "bad_response"),
    ];
    for (step, code) in cases {
        for streamed in [false, true] {
            let server = ScriptedModel::start(vec![step.clone()]).await.unwrap();
            let model = model(&server);
            let error = if streamed {
                ask_streamed(&model).await.0.unwrap_err()
            } else {
                ask(&model).await.unwrap_err()
            };
            assert_eq!(error.code, code, "streamed: {streamed}, {error:?}");
            assert_eq!(server.requests().len(), 1, "no retry: {code}");
        }
    }
}

#[tokio::test]
async fn a_rate_limit_fails_at_once_without_retrying() {
    let server = ScriptedModel::start(vec![
        Step::error(
            429,
            r#"{"error":{"message":"slow down","type":"rate_limit_error"}}"#,
        ),
        Step::text("too late"),
    ])
    .await
    .unwrap();

    let started = Instant::now();
    let error = ask(&model(&server)).await.unwrap_err();

    assert_eq!(error.code, "rate_limit");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn a_broken_chunk_in_a_stream_is_a_bad_response() {
    let server = ScriptedModel::start(vec![Step::raw(
        200,
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {oops\n\n",
    )])
    .await
    .unwrap();

    let (reply, _) = ask_streamed(&model(&server)).await;

    assert_eq!(reply.unwrap_err().code, "bad_response");
}

#[tokio::test]
async fn an_error_sent_inside_a_stream_is_a_server_error() {
    let server = ScriptedModel::start(vec![Step::raw(
        200,
        "data: {\"error\":{\"message\":\"the engine died\"}}\n\n",
    )])
    .await
    .unwrap();

    let (reply, _) = ask_streamed(&model(&server)).await;

    assert_eq!(reply.unwrap_err().code, "server_error");
}

#[tokio::test]
async fn an_exhausted_script_is_a_server_error() {
    let server = ScriptedModel::start(Vec::new()).await.unwrap();

    assert_eq!(ask(&model(&server)).await.unwrap_err().code, "server_error");
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let port = closed_port().await;
    let model = OpenAiModel::new(format!("http://127.0.0.1:{port}/v1"), "test-model");

    let started = Instant::now();
    let whole = ask(&model).await.unwrap_err();
    let (streamed, _) = ask_streamed(&model).await;

    assert_eq!(whole.code, "unreachable");
    assert_eq!(streamed.unwrap_err().code, "unreachable");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn the_api_key_is_sent_and_never_shown_in_an_error() {
    let server = ScriptedModel::start_with_api_key(
        vec![
            Step::text("hi"),
            Step::error(
                400,
                r#"{"error":{"message":"key sk-right-key-123 may not use this model"}}"#,
            ),
        ],
        "sk-right-key-123",
    )
    .await
    .unwrap();
    let model = model(&server).with_api_key(Some("sk-right-key-123".into()));

    assert_eq!(ask(&model).await.unwrap().text.as_deref(), Some("hi"));
    let error = ask(&model).await.unwrap_err();

    assert_eq!(error.code, "bad_request");
    assert!(
        !error.detail.contains("sk-right-key-123"),
        "{}",
        error.detail
    );
    assert!(!error.to_string().contains("sk-right-key-123"));
    assert!(!format!("{model:?}").contains("sk-right-key-123"));
}

#[tokio::test]
async fn a_wrong_or_missing_key_is_unauthorized() {
    let server = ScriptedModel::start_with_api_key(vec![Step::text("hi")], "sk-right")
        .await
        .unwrap();

    let wrong = ask(&model(&server).with_api_key(Some("sk-wrong".into())))
        .await
        .unwrap_err();
    let (missing, _) = ask_streamed(&model(&server)).await;

    assert_eq!(wrong.code, "unauthorized");
    assert_eq!(missing.unwrap_err().code, "unauthorized");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_slow_reply_ends_in_a_timeout() {
    let server = ScriptedModel::start(vec![
        Step::text("late").delay(Duration::from_secs(30)),
        Step::text("late too").chunk_delay(Duration::from_secs(30)),
    ])
    .await
    .unwrap();
    let model = model(&server).with_timeout(Duration::from_millis(300));

    let started = Instant::now();
    let whole = ask(&model).await.unwrap_err();
    let (streamed, _) = ask_streamed(&model).await;

    assert_eq!(whole.code, "timeout");
    assert_eq!(streamed.unwrap_err().code, "timeout");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn dropping_the_call_returns_at_once() {
    let server = ScriptedModel::start(vec![
        Step::text("late").delay(Duration::from_secs(30)),
        Step::text("slowly, piece by piece").chunk_delay(Duration::from_secs(30)),
    ])
    .await
    .unwrap();
    let model = model(&server);

    let started = Instant::now();
    let whole = tokio::time::timeout(Duration::from_millis(200), ask(&model)).await;
    let streamed = tokio::time::timeout(Duration::from_millis(200), ask_streamed(&model)).await;

    assert!(whole.is_err());
    assert!(streamed.is_err());
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_streamed_reply_that_is_slow_between_pieces_still_arrives() {
    let server = ScriptedModel::start(vec![
        Step::text("one two three").chunk_delay(Duration::from_millis(100)),
    ])
    .await
    .unwrap();
    let model = model(&server).with_timeout(Duration::from_millis(500));

    let (reply, pieces) = ask_streamed(&model).await;

    assert_eq!(reply.unwrap().text.as_deref(), Some("one two three"));
    assert_eq!(pieces.concat(), "one two three");
}

#[tokio::test]
async fn check_tells_a_refused_key_from_an_unreachable_server() {
    let server = ScriptedModel::start_with_api_key(Vec::new(), "sk-right")
        .await
        .unwrap();
    let port = closed_port().await;

    let right = model(&server).with_api_key(Some("sk-right".into()));
    let wrong = model(&server).with_api_key(Some("sk-wrong".into()));
    let missing = model(&server);
    let nowhere = OpenAiModel::new(format!("http://127.0.0.1:{port}/v1"), "test-model");

    assert_eq!(right.check().await, Ok(()));
    assert_eq!(wrong.check().await.unwrap_err().code, "unauthorized");
    assert_eq!(missing.check().await.unwrap_err().code, "unauthorized");
    assert_eq!(nowhere.check().await.unwrap_err().code, "unreachable");
}

#[tokio::test]
async fn check_accepts_a_server_without_a_model_list() {
    let server = ScriptedModel::start(Vec::new()).await.unwrap();
    // The scripted server serves nothing under /elsewhere: its /models is a 404.
    let base_url = server.base_url().replace("/v1", "/elsewhere");

    assert_eq!(
        OpenAiModel::new(base_url, "test-model").check().await,
        Ok(())
    );
}

#[tokio::test]
async fn a_base_url_with_a_trailing_slash_works() {
    let server = ScriptedModel::start(vec![Step::text("hi")]).await.unwrap();
    let model = OpenAiModel::new(format!("{}/", server.base_url()), "test-model");

    assert_eq!(ask(&model).await.unwrap().text.as_deref(), Some("hi"));
    assert_eq!(model.base_url(), server.base_url());
}
