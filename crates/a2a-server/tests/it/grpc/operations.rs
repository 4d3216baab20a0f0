//! Every unary operation over gRPC, answered as over the HTTP bindings.

use a2a_grpc::proto;
use a2a_grpc::proto::send_message_response::Payload;
use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_types::{ErrorKind, Message, SendMessageRequest, Task, TaskState};

use super::support::{GrpcServer, error_of, grpc_card, v1};
use crate::support::BindingEcho;

fn send(text: &str) -> proto::SendMessageRequest {
    SendMessageRequest::new(Message::user_text(text)).into()
}

/// The task a SendMessage answered with.
fn task_of(response: proto::SendMessageResponse) -> Task {
    match response.payload {
        Some(Payload::Task(task)) => Task::try_from(task).unwrap(),
        other => panic!("expected a task, got {other:?}"),
    }
}

#[tokio::test]
async fn send_get_list_and_cancel_answer_over_grpc() {
    let server = GrpcServer::start(BindingEcho).await;
    let mut client = server.client().await;

    let response = client.send_message(v1(send("hello"))).await.unwrap();
    let task = task_of(response.into_inner());
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(task.artifacts[0].text(), "hello");

    let got = client
        .get_task(v1(proto::GetTaskRequest {
            id: task.id.to_string(),
            history_length: Some(0),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let got = Task::try_from(got).unwrap();
    assert_eq!(got.id, task.id);
    assert!(got.history.is_empty(), "historyLength 0 is honoured");

    let open = task_of(
        client
            .send_message(v1(send("ask")))
            .await
            .unwrap()
            .into_inner(),
    );
    assert_eq!(open.status.state, TaskState::InputRequired);
    let listed = client
        .list_tasks(v1(proto::ListTasksRequest::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.total_size, 2);
    assert_eq!(listed.tasks.len(), 2);
    assert_eq!(listed.next_page_token, "");

    let canceled = client
        .cancel_task(v1(proto::CancelTaskRequest {
            id: open.id.to_string(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        Task::try_from(canceled).unwrap().status.state,
        TaskState::Canceled
    );
    let refused = client
        .cancel_task(v1(proto::CancelTaskRequest {
            id: task.id.to_string(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert_eq!(error_of(&refused).kind(), ErrorKind::TaskNotCancelable);
}

/// The echo agent over gRPC with push notifications on and local webhooks allowed.
async fn push_server() -> GrpcServer {
    let mut card = grpc_card();
    card.capabilities.push_notifications = Some(true);
    let mut config = a2a_server::ServerConfig::default();
    config.push.allow_local_webhooks = true;
    GrpcServer::start_with(
        A2aServer::builder(card, BindingEcho)
            .config(config)
            .authentication(Authentication::disabled()),
    )
    .await
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted() {
    let server = push_server().await;
    let mut client = server.client().await;
    let task = task_of(
        client
            .send_message(v1(send("ask")))
            .await
            .unwrap()
            .into_inner(),
    );

    let created = client
        .create_task_push_notification_config(v1(proto::TaskPushNotificationConfig {
            task_id: task.id.to_string(),
            id: "hook-1".into(),
            url: "http://127.0.0.1:9/hook".into(),
            token: "secret-token".into(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.id, "hook-1");
    assert_eq!(created.task_id, task.id.to_string());

    let got = client
        .get_task_push_notification_config(v1(proto::GetTaskPushNotificationConfigRequest {
            task_id: task.id.to_string(),
            id: "hook-1".into(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.url, "http://127.0.0.1:9/hook");

    let listed = client
        .list_task_push_notification_configs(v1(proto::ListTaskPushNotificationConfigsRequest {
            task_id: task.id.to_string(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.configs.len(), 1);

    client
        .delete_task_push_notification_config(v1(proto::DeleteTaskPushNotificationConfigRequest {
            task_id: task.id.to_string(),
            id: "hook-1".into(),
            ..Default::default()
        }))
        .await
        .unwrap();
    let gone = client
        .get_task_push_notification_config(v1(proto::GetTaskPushNotificationConfigRequest {
            task_id: task.id.to_string(),
            id: "hook-1".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound);
}

#[tokio::test]
async fn deleting_a_push_config_twice_is_ok_and_an_unknown_task_is_not_found_over_grpc() {
    let server = push_server().await;
    let mut client = server.client().await;
    let task = task_of(
        client
            .send_message(v1(send("hello")))
            .await
            .unwrap()
            .into_inner(),
    );
    client
        .create_task_push_notification_config(v1(proto::TaskPushNotificationConfig {
            task_id: task.id.to_string(),
            id: "hook-1".into(),
            url: "http://127.0.0.1:9/hook".into(),
            ..Default::default()
        }))
        .await
        .unwrap();
    let delete = proto::DeleteTaskPushNotificationConfigRequest {
        task_id: task.id.to_string(),
        id: "hook-1".into(),
        ..Default::default()
    };
    for attempt in ["first", "second"] {
        let answer = client
            .delete_task_push_notification_config(v1(delete.clone()))
            .await;
        assert!(answer.is_ok(), "{attempt}: {answer:?}");
    }
    let unknown = client
        .delete_task_push_notification_config(v1(proto::DeleteTaskPushNotificationConfigRequest {
            task_id: "no-such-task".into(),
            id: "hook-1".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    assert_eq!(error_of(&unknown).kind(), ErrorKind::TaskNotFound);
}

#[tokio::test]
async fn the_extended_card_is_served_when_configured() {
    let mut card = grpc_card();
    card.capabilities.extended_agent_card = Some(true);
    let extended = card.clone().with_skill(a2a_types::AgentSkill::new(
        "secret",
        "Secret",
        "Only in the extended card",
    ));
    let server = GrpcServer::start_with(
        A2aServer::builder(card, BindingEcho)
            .extended_card(extended)
            .authentication(Authentication::disabled()),
    )
    .await;
    let mut client = server.client().await;
    let card = client
        .get_extended_agent_card(v1(proto::GetExtendedAgentCardRequest::default()))
        .await
        .unwrap()
        .into_inner();
    let card = a2a_types::AgentCard::try_from(card).unwrap();
    assert!(card.skills.iter().any(|skill| skill.id == "secret"));
}
