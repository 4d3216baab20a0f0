//! SendStreamingMessage and SubscribeToTask over gRPC: the same events in the same order as
//! SSE, and the stream completes OK after the terminal event.

use std::time::Duration;

use a2a_grpc::proto;
use a2a_grpc::proto::stream_response::Payload;
use a2a_types::{Artifact, ArtifactChunk, ErrorKind, Message, SendMessageRequest};
use futures::StreamExt as _;

use super::support::{GrpcServer, error_of, v1};
use crate::support::FnExecutor;

/// What each event is, in a word, with the state of status events.
fn describe(event: &proto::StreamResponse) -> String {
    match &event.payload {
        Some(Payload::Task(task)) => format!(
            "task:{:?}",
            proto::TaskState::try_from(task.status.as_ref().map_or(0, |status| status.state))
                .unwrap()
        ),
        Some(Payload::Message(_)) => "message".to_owned(),
        Some(Payload::StatusUpdate(update)) => format!(
            "status:{:?}",
            proto::TaskState::try_from(update.status.as_ref().map_or(0, |status| status.state))
                .unwrap()
        ),
        Some(Payload::ArtifactUpdate(update)) => {
            format!("artifact:{}:{}", update.append, update.last_chunk)
        }
        None => "empty".to_owned(),
    }
}

async fn collect(
    mut events: tonic::Streaming<proto::StreamResponse>,
) -> (Vec<proto::StreamResponse>, Option<tonic::Status>) {
    let mut seen = Vec::new();
    loop {
        match events.next().await {
            Some(Ok(event)) => seen.push(event),
            Some(Err(status)) => return (seen, Some(status)),
            None => return (seen, None),
        }
    }
}

fn send(text: &str) -> proto::SendMessageRequest {
    SendMessageRequest::new(Message::user_text(text)).into()
}

#[tokio::test]
async fn a_streamed_turn_sends_every_event_in_order_then_completes() {
    let server = GrpcServer::start(FnExecutor(
        |_context, updater: a2a_server::TaskUpdater| async move {
            updater.working(()).await?;
            let id = a2a_types::ArtifactId::generate();
            updater
                .artifact(
                    Artifact::from_text("one ").with_id(id.clone()),
                    ArtifactChunk::First,
                )
                .await?;
            updater
                .artifact(Artifact::from_text("two").with_id(id), ArtifactChunk::Last)
                .await?;
            updater.complete(()).await?;
            Ok(())
        },
    ))
    .await;
    let mut client = server.client().await;
    let events = client
        .send_streaming_message(v1(send("go")))
        .await
        .unwrap()
        .into_inner();
    let (events, error) = collect(events).await;
    assert!(error.is_none(), "{error:?}");
    let described: Vec<String> = events.iter().map(describe).collect();
    assert_eq!(
        described,
        [
            "task:Submitted",
            "status:Working",
            "artifact:false:false",
            "artifact:true:true",
            "status:Completed",
        ]
    );
}

#[tokio::test]
async fn a_message_reply_is_the_only_event() {
    let server = GrpcServer::start(FnExecutor(
        |_context, updater: a2a_server::TaskUpdater| async move {
            updater.reply(Message::agent_text("just this")).await?;
            Ok(())
        },
    ))
    .await;
    let mut client = server.client().await;
    let events = client
        .send_streaming_message(v1(send("hi")))
        .await
        .unwrap()
        .into_inner();
    let (events, error) = collect(events).await;
    assert!(error.is_none(), "{error:?}");
    let described: Vec<String> = events.iter().map(describe).collect();
    assert_eq!(described, ["message"]);
}

#[tokio::test]
async fn a_subscriber_gets_the_snapshot_then_the_rest_and_a_finished_task_is_refused() {
    let server = GrpcServer::start(FnExecutor(
        |_context, updater: a2a_server::TaskUpdater| async move {
            updater.working(()).await?;
            tokio::time::sleep(Duration::from_millis(400)).await;
            updater.complete(()).await?;
            Ok(())
        },
    ))
    .await;
    let mut client = server.client().await;
    let mut request = send("slow");
    request.configuration = Some(proto::SendMessageConfiguration {
        return_immediately: true,
        ..Default::default()
    });
    let response = client.send_message(v1(request)).await.unwrap().into_inner();
    let Some(proto::send_message_response::Payload::Task(task)) = response.payload else {
        panic!("expected a task");
    };
    let subscribe = proto::SubscribeToTaskRequest {
        id: task.id.clone(),
        ..Default::default()
    };
    let events = client
        .subscribe_to_task(v1(subscribe.clone()))
        .await
        .unwrap()
        .into_inner();
    let (events, error) = collect(events).await;
    assert!(error.is_none(), "{error:?}");
    let described: Vec<String> = events.iter().map(describe).collect();
    assert!(described[0].starts_with("task:"), "{described:?}");
    assert_eq!(
        described.last().map(String::as_str),
        Some("status:Completed")
    );

    let refused = client.subscribe_to_task(v1(subscribe)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert_eq!(error_of(&refused).kind(), ErrorKind::UnsupportedOperation);
}
