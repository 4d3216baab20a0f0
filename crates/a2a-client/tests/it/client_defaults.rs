//! Client-wide defaults: the operation `send_default` uses, the `historyLength` of requests
//! that set none, and the cap on a whole stream's duration; each overridable per call.

use std::time::{Duration, Instant};

use a2a_client::{
    A2aClient, CallOptions, ClientError, ResponseExt as _, SendOperation, TimeoutKind,
};
use a2a_types::{GetTaskRequest, ProtocolBinding, StreamResponse, TaskState};
use futures::StreamExt as _;

use crate::support::{Agent, Mock, every_binding, get, jsonrpc_result, task_json};

fn client_with(
    agent: &Agent,
    binding: &ProtocolBinding,
    builder: impl FnOnce(a2a_client::A2aClientBuilder) -> a2a_client::A2aClientBuilder,
) -> A2aClient {
    builder(
        A2aClient::builder()
            .card(agent.card.clone())
            .prefer_binding(binding.clone())
            .request_timeout(Duration::from_secs(20)),
    )
    .build()
    .unwrap()
}

#[tokio::test]
async fn the_default_operation_decides_whether_send_default_streams() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let blocking = client_with(&agent, &binding, |builder| builder);
        assert_eq!(blocking.send_operation(), SendOperation::SendMessage);
        let events = blocking
            .send_default(a2a_client::message::request("hello"))
            .await
            .unwrap()
            .collect_all()
            .await
            .unwrap();
        assert_eq!(events.len(), 1, "{binding:?}: {events:?}");
        assert!(
            matches!(&events[0], StreamResponse::Task(task) if task.status.state == TaskState::Completed)
        );

        let streaming = client_with(&agent, &binding, |builder| {
            builder.default_operation(SendOperation::SendStreamingMessage)
        });
        let events = streaming
            .send_default(a2a_client::message::request("slow 2 10"))
            .await
            .unwrap()
            .collect_all()
            .await
            .unwrap();
        assert!(events.len() > 2, "{binding:?}: {events:?}");
        assert_eq!(
            events.last().and_then(|event| event.state()),
            Some(TaskState::Completed)
        );

        // Per call, the other way round.
        let once = streaming.with_options(CallOptions::new().operation(SendOperation::SendMessage));
        assert_eq!(once.send_operation(), SendOperation::SendMessage);
        let events = once
            .send_default(a2a_client::message::request("slow 2 10"))
            .await
            .unwrap()
            .collect_all()
            .await
            .unwrap();
        assert_eq!(events.len(), 1, "{binding:?}: {events:?}");
    }
}

#[test]
fn operation_names_parse_in_enum_and_pascal_case() {
    for (name, operation) in [
        ("MESSAGE_SEND", SendOperation::SendMessage),
        ("MessageSend", SendOperation::SendMessage),
        ("SendMessage", SendOperation::SendMessage),
        ("SEND_MESSAGE", SendOperation::SendMessage),
        ("MESSAGE_STREAM", SendOperation::SendStreamingMessage),
        ("SendStreamingMessage", SendOperation::SendStreamingMessage),
    ] {
        assert_eq!(name.parse::<SendOperation>(), Ok(operation), "{name}");
    }
    let error = "GET_TASK".parse::<SendOperation>().unwrap_err();
    assert!(error.to_string().contains("GET_TASK"), "{error}");
}

#[tokio::test]
async fn the_default_history_length_trims_history_and_a_call_or_request_overrides_it() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = client_with(&agent, &binding, |builder| builder.history_length(0));
        let task = client
            .send_message(a2a_client::message::request("ask"))
            .await
            .unwrap();
        let task_id = task.task_id().unwrap().clone();
        assert!(
            client
                .get_task(get(&task_id))
                .await
                .unwrap()
                .history
                .is_empty(),
            "{binding:?}"
        );
        let per_call = client.with_options(CallOptions::new().history_length(5));
        assert!(
            !per_call
                .get_task(get(&task_id))
                .await
                .unwrap()
                .history
                .is_empty(),
            "{binding:?}"
        );
        let own = GetTaskRequest {
            history_length: Some(5),
            ..get(&task_id)
        };
        assert!(
            !client.get_task(own).await.unwrap().history.is_empty(),
            "{binding:?}"
        );
    }
}

#[tokio::test]
async fn the_default_history_length_is_sent_with_messages_unless_the_request_sets_one() {
    let mock = Mock::start(|_, _| {
        jsonrpc_result(serde_json::json!({"task": task_json("t1", "TASK_STATE_COMPLETED")}))
    })
    .await;
    let client = A2aClient::builder()
        .url(mock.url("/a2a"), ProtocolBinding::JsonRpc)
        .history_length(3)
        .build()
        .unwrap();
    client
        .send_message(a2a_client::message::request("hi"))
        .await
        .unwrap();
    let own = a2a_client::message::draft()
        .text("hi")
        .history_length(1)
        .into_request();
    client.send_message(own).await.unwrap();
    client
        .with_options(CallOptions::new().history_length(7))
        .send_message(a2a_client::message::request("hi"))
        .await
        .unwrap();
    let sent: Vec<_> = mock
        .requests()
        .iter()
        .map(|request| request.json()["params"]["configuration"]["historyLength"].clone())
        .collect();
    assert_eq!(
        sent,
        [
            serde_json::json!(3),
            serde_json::json!(1),
            serde_json::json!(7)
        ]
    );
}

#[tokio::test]
async fn a_stream_open_longer_than_its_cap_is_closed_with_a_timeout() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = client_with(&agent, &binding, |builder| {
            builder.stream_max_duration(Duration::from_millis(600))
        });
        let started = Instant::now();
        let mut events = client
            .send_streaming_message(a2a_client::message::request("slow 40 100"))
            .await
            .unwrap();
        let mut delivered = 0;
        let error = loop {
            match events.next().await {
                Some(Ok(_)) => delivered += 1,
                Some(Err(error)) => break error,
                None => panic!("{binding:?}: the stream ended without hitting its cap"),
            }
        };
        assert!(
            matches!(error, ClientError::Timeout(TimeoutKind::StreamDuration)),
            "{binding:?}: {error:?}"
        );
        assert!(delivered > 0, "{binding:?}: events came before the cap");
        assert!(started.elapsed() < Duration::from_secs(3), "{binding:?}");
        assert!(
            events.next().await.is_none(),
            "{binding:?}: the stream is closed"
        );
    }
}
