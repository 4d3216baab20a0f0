//! What a SendStreamingMessage stream carries, in which order and framing, and how it ends
//! or fails (spec §8).

use std::time::Duration;

use a2a_server::{A2aServer, ServerConfig};
use a2a_types::error::RestStatusProfile;
use serde_json::{Value, json};

use super::{
    BOTH, Binding, Sse, get_task, jsonrpc_stream, kind, rest_post, scripted, serve_streaming,
    state, stream_params,
};
use crate::support::{BindingEcho, TestServer, send_params, user_message};

#[tokio::test]
async fn working_artifact_complete_streams_task_status_artifact_status_on_both_bindings() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let mut sse = Sse::open(binding.send_stream(&server, stream_params("report")).await);
        let events = sse.rest().await;
        let payloads: Vec<Value> = events.iter().map(|block| binding.payload(block)).collect();
        let kinds: Vec<&str> = payloads.iter().map(kind).collect();
        assert_eq!(
            kinds,
            ["task", "statusUpdate", "artifactUpdate", "statusUpdate"],
            "{binding:?}"
        );
        assert_eq!(state(&payloads[0]), "TASK_STATE_SUBMITTED");
        assert_eq!(state(&payloads[1]), "TASK_STATE_WORKING");
        assert_eq!(
            payloads[2]["artifactUpdate"]["artifact"]["parts"][0]["text"],
            "report"
        );
        assert_eq!(state(&payloads[3]), "TASK_STATE_COMPLETED");
        let task_id = payloads[0]["task"]["id"].as_str().unwrap();
        for payload in &payloads[1..] {
            assert_eq!(payload[kind(payload)]["taskId"], task_id);
        }
        // `id:` is the task's event sequence, increasing from the first event.
        let ids: Vec<u64> = events.iter().map(|block| block.id.unwrap()).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
    }
}

#[tokio::test]
async fn the_stream_closes_right_after_the_terminal_event() {
    // Keep-alives every 15 s (the default) would keep a stream that failed to close alive;
    // the end must come at once instead.
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let mut sse = Sse::open(binding.send_stream(&server, stream_params("x")).await);
        sse.read_timeout = Duration::from_secs(3);
        let mut last = None;
        while let Some(block) = sse.next_block().await {
            assert!(
                !block.is_comment(),
                "{binding:?}: a keep-alive before the end"
            );
            last = Some(binding.payload(&block));
        }
        assert_eq!(state(&last.unwrap()), "TASK_STATE_COMPLETED");
    }
}

#[tokio::test]
async fn jsonrpc_frames_are_responses_carrying_the_request_id_with_its_json_type() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for id in [json!("req-7"), json!(42), json!(4.5)] {
        let response = jsonrpc_stream(
            &server,
            id.clone(),
            "SendStreamingMessage",
            stream_params("x"),
        );
        let mut sse = Sse::open(response.await);
        let events = sse.rest().await;
        assert_eq!(events.len(), 4);
        for block in &events {
            let data = block.json();
            assert_eq!(data["jsonrpc"], "2.0", "{data}");
            // Same value and same JSON type: "42" would not do for 42.
            assert_eq!(data["id"], id, "{data}");
            let members: Vec<&String> = data.as_object().unwrap().keys().collect();
            assert_eq!(members, ["jsonrpc", "id", "result"], "{data}");
            kind(&data["result"]);
        }
    }
}

#[tokio::test]
async fn a_reply_is_one_message_event() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let mut sse = Sse::open(binding.send_stream(&server, stream_params("reply")).await);
        let events = sse.rest().await;
        assert_eq!(events.len(), 1, "{binding:?}: {events:?}");
        let payload = binding.payload(&events[0]);
        assert_eq!(kind(&payload), "message");
        assert_eq!(payload["message"]["role"], "ROLE_AGENT");
        assert_eq!(payload["message"]["parts"][0]["text"], "hello");
        // A reply is made for this stream alone: it has no place in the task's sequence.
        assert_eq!(events[0].id, None);
    }
}

#[tokio::test]
async fn a_refusal_before_the_first_event_is_a_plain_error_response() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let response = binding.send_stream(&server, stream_params("refuse")).await;
        let reason = binding.plain_error(response, 400).await;
        assert_eq!(reason, "INVALID_PARAMS", "{binding:?}");
    }
    // A follow-up naming an unknown task is refused before any event too.
    for binding in BOTH {
        let params = send_params("more", json!({"taskId": "no-such-task"}));
        let response = binding.send_stream(&server, params).await;
        assert_eq!(binding.plain_error(response, 404).await, "TASK_NOT_FOUND");
    }
}

#[tokio::test]
async fn a_follow_up_refused_after_its_snapshot_ends_with_an_error_frame() {
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    for binding in BOTH {
        let task = server
            .call("SendMessage", send_params("ask", json!({})))
            .await;
        let task_id = task["task"]["id"].as_str().unwrap().to_owned();
        assert_eq!(task["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        let params = send_params("refuse", json!({"taskId": task_id}));
        let refused_id = params["message"]["messageId"].clone();

        let mut sse = Sse::open(binding.send_stream(&server, params).await);
        let events = sse.rest().await;
        assert_eq!(events.len(), 2, "{binding:?}: {events:?}");
        let snapshot = binding.payload(&events[0]);
        assert_eq!(state(&snapshot), "TASK_STATE_INPUT_REQUIRED");
        let history = snapshot["task"]["history"].as_array().unwrap();
        assert_eq!(history.last().unwrap()["messageId"], refused_id);
        assert_eq!(binding.error_reason(&events[1]), "INVALID_PARAMS");

        // The stored task no longer has the refused message, and still waits.
        let stored = get_task(&server, &task_id).await;
        assert_eq!(stored["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        let history = stored["history"].as_array().unwrap();
        assert!(
            history
                .iter()
                .all(|message| message["messageId"] != refused_id)
        );
    }
}

#[tokio::test]
async fn streaming_off_answers_unsupported_operation_on_both_bindings() {
    // Spec §8.5: streaming needs `capabilities.streaming`; the standard card says nothing
    // about streaming.
    let server = TestServer::start(BindingEcho).await;
    let task = server
        .call("SendMessage", send_params("ask", json!({})))
        .await;
    let task_id = task["task"]["id"].as_str().unwrap().to_owned();
    for binding in BOTH {
        let responses = [
            binding.send_stream(&server, stream_params("hi")).await,
            binding.subscribe(&server, &task_id).await,
        ];
        for response in responses {
            let reason = binding.plain_error(response, 400).await;
            assert_eq!(reason, "UNSUPPORTED_OPERATION", "{binding:?}");
        }
    }
    let response = super::client()
        .get(server.url(&format!("/rest/tasks/{task_id}:subscribe")))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    let reason = Binding::Rest.plain_error(response, 400).await;
    assert_eq!(reason, "UNSUPPORTED_OPERATION");
}

#[tokio::test]
async fn rest_refuses_return_immediately_on_a_stream_and_jsonrpc_ignores_it() {
    let with_flag =
        || json!({"message": user_message("x"), "configuration": {"returnImmediately": true}});
    // HTTP+JSON: 400 under every status profile, also Camel's (which has 405 for capability off).
    for profile in [RestStatusProfile::Spec, RestStatusProfile::Camel] {
        let mut config = ServerConfig::default();
        config.rest_status_profile = profile;
        let builder = A2aServer::builder(
            super::streaming_card(),
            crate::support::FnExecutor(scripted),
        );
        let server = TestServer::start_with(builder.config(config)).await;
        let response = rest_post(&server, "/rest/message:stream", with_flag()).await;
        let reason = Binding::Rest.plain_error(response, 400).await;
        assert_eq!(reason, "UNSUPPORTED_OPERATION", "{profile:?}");
    }
    let server = serve_streaming(ServerConfig::default(), scripted).await;
    let mut sse = Sse::open(Binding::JsonRpc.send_stream(&server, with_flag()).await);
    let events = sse.rest().await;
    let kinds: Vec<String> = events
        .iter()
        .map(|block| kind(&Binding::JsonRpc.payload(block)).to_owned())
        .collect();
    assert_eq!(
        kinds,
        ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
    );
}
