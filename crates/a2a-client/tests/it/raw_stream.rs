//! Raw streams: the bytes of an SSE body passed on exactly as the agent sent them, for
//! callers that relay a stream.

use std::time::Duration;

use a2a_client::{A2aClient, ClientError, message};
use a2a_types::ProtocolBinding;
use axum::body::Body;
use axum::response::Response;
use futures::StreamExt as _;

use crate::support::{Agent, Mock, bindings, subscribe};

async fn read_all(mut raw: a2a_client::RawEventStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    while let Some(chunk) = raw.next().await {
        bytes.extend_from_slice(&chunk.unwrap());
    }
    bytes
}

/// Frames with ids, a comment, CRLF line ends and a multi-line data field: whatever a
/// decoder would normalise is kept.
const BODY: &str = ": hello\r\n\
id: 1\r\n\
data: {\"jsonrpc\":\"2.0\",\"id\":1,\r\n\
data:  \"result\":{\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\r\n\
\r\n\
:\n\
id: 2\n\
data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}}\n\
\n";

#[tokio::test]
async fn a_raw_stream_relays_the_sse_bytes_exactly_as_sent() {
    let mock = Mock::start(|_, _| {
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(Body::from(BODY))
            .unwrap()
    })
    .await;
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .build()
        .unwrap();
    let raw = client
        .send_streaming_message_raw(message::request("go"))
        .await
        .unwrap();
    assert_eq!(String::from_utf8(read_all(raw).await).unwrap(), BODY);
    // The decoded stream of the same body still works.
    let events = client
        .send_streaming_message(message::request("go"))
        .await
        .unwrap()
        .collect_all()
        .await
        .unwrap();
    assert_eq!(events.len(), 2);
}

#[tokio::test]
async fn raw_streams_of_our_server_carry_its_frames_on_the_http_bindings() {
    let agent = Agent::start().await;
    for binding in bindings() {
        let client = agent.client(&binding);
        let raw = client
            .send_streaming_message_raw(message::request("slow 2 10"))
            .await
            .unwrap();
        let text = String::from_utf8(read_all(raw).await).unwrap();
        let frames = text
            .split("\n\n")
            .filter(|frame| frame.contains("data:"))
            .count();
        assert!(frames >= 3, "{binding:?}: {text}");
        assert!(text.contains("TASK_STATE_COMPLETED"), "{binding:?}: {text}");

        // SubscribeToTask too, while the task runs.
        let task = client
            .send_message(
                message::draft()
                    .text("slow 3 100")
                    .return_immediately(true)
                    .into_request(),
            )
            .await
            .unwrap();
        let task_id = a2a_client::ResponseExt::task_id(&task).unwrap().clone();
        let raw = client
            .subscribe_to_task_raw(subscribe(&task_id))
            .await
            .unwrap();
        let text = String::from_utf8(read_all(raw).await).unwrap();
        assert!(text.contains("chunk 2"), "{binding:?}: {text}");
    }
}

#[tokio::test]
async fn a_raw_stream_is_refused_over_grpc_with_a_clear_error() {
    let agent = Agent::start().await;
    let client = agent.client(&ProtocolBinding::Grpc);
    let error = client
        .send_streaming_message_raw(message::request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Config { .. }), "{error:?}");
    assert!(error.to_string().contains("gRPC"), "{error}");
}

#[tokio::test]
async fn a_raw_stream_stops_at_the_stream_duration_cap() {
    let agent = Agent::start().await;
    let client = A2aClient::builder()
        .card(agent.card.clone())
        .stream_max_duration(Duration::from_millis(400))
        .build()
        .unwrap();
    let mut raw = client
        .send_streaming_message_raw(message::request("slow 40 100"))
        .await
        .unwrap();
    let error = loop {
        match raw.next().await {
            Some(Ok(_)) => {}
            Some(Err(error)) => break error,
            None => panic!("the stream ended before its cap"),
        }
    };
    assert!(
        matches!(
            error,
            ClientError::Timeout(a2a_client::TimeoutKind::StreamDuration)
        ),
        "{error:?}"
    );
    assert!(raw.next().await.is_none());
}
