//! Every error kind our server produces arrives as `ClientError::Agent` with its kind, on
//! every binding.

use a2a_client::{A2aClient, CallOptions, ClientError, ResponseExt, message};
use a2a_types::card::AgentExtension;
use a2a_types::error::ErrorKind;
use a2a_types::{
    DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, TaskId, TaskPushNotificationConfig,
};

use crate::support::{Agent, cancel, every_binding, get, subscribe};

#[track_caller]
fn assert_kind<T: std::fmt::Debug>(result: Result<T, ClientError>, kind: ErrorKind, what: &str) {
    match result {
        Err(ClientError::Agent(error)) => assert_eq!(error.kind(), kind, "{what}: {error:?}"),
        other => panic!("{what}: expected an agent error {kind:?}, got {other:?}"),
    }
}

async fn completed_task(client: &A2aClient) -> TaskId {
    let answer = client
        .send_message(message::request("hello"))
        .await
        .unwrap();
    answer.task_id().unwrap().clone()
}

#[tokio::test]
async fn task_not_found() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let what = format!("{binding}");
        assert_kind(
            client.get_task(get("nope")).await,
            ErrorKind::TaskNotFound,
            &what,
        );
        assert_kind(
            client.cancel_task(cancel("nope")).await,
            ErrorKind::TaskNotFound,
            &what,
        );
        assert_kind(
            client.subscribe_to_task(subscribe("nope")).await,
            ErrorKind::TaskNotFound,
            &what,
        );
        let follow_up = message::draft().text("x").task_id("nope").into_request();
        assert_kind(
            client.send_message(follow_up).await,
            ErrorKind::TaskNotFound,
            &what,
        );
    }
}

#[tokio::test]
async fn task_not_cancelable() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let id = completed_task(&client).await;
        assert_kind(
            client.cancel_task(cancel(&id)).await,
            ErrorKind::TaskNotCancelable,
            &format!("{binding}"),
        );
    }
}

#[tokio::test]
async fn unsupported_operation() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let what = format!("{binding}");
        let id = completed_task(&client).await;
        assert_kind(
            client.subscribe_to_task(subscribe(&id)).await,
            ErrorKind::UnsupportedOperation,
            &what,
        );
        let to_finished = message::draft().text("again").task_id(id).into_request();
        assert_kind(
            client.send_message(to_finished).await,
            ErrorKind::UnsupportedOperation,
            &what,
        );
        assert_kind(
            client
                .get_extended_agent_card(GetExtendedAgentCardRequest::default())
                .await,
            ErrorKind::UnsupportedOperation,
            &what,
        );
    }
    let no_streaming = Agent::start_with(
        |card| card.capabilities.streaming = Some(false),
        |server| server,
    )
    .await;
    for binding in every_binding() {
        let client = no_streaming.client(&binding);
        assert_kind(
            client.send_streaming_message(message::request("hi")).await,
            ErrorKind::UnsupportedOperation,
            &format!("{binding} without streaming"),
        );
    }
}

#[tokio::test]
async fn invalid_params() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let what = format!("{binding}");
        let id = completed_task(&client).await;
        let negative = GetTaskRequest {
            history_length: Some(-1),
            ..get(id.as_str())
        };
        assert_kind(
            client.get_task(negative).await,
            ErrorKind::InvalidParams,
            &what,
        );
        let bad_page = ListTasksRequest {
            page_size: Some(-5),
            ..ListTasksRequest::default()
        };
        assert_kind(
            client.list_tasks(bad_page).await,
            ErrorKind::InvalidParams,
            &what,
        );
        let bad_token = ListTasksRequest {
            page_token: "not-a-token".into(),
            ..ListTasksRequest::default()
        };
        assert_kind(
            client.list_tasks(bad_token).await,
            ErrorKind::InvalidParams,
            &what,
        );
    }
}

#[tokio::test]
async fn push_notification_not_supported() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let what = format!("{binding}");
        let id = completed_task(&client).await;
        let mut config = TaskPushNotificationConfig::new("https://hooks.example/a2a");
        config.task_id = Some(id.clone());
        assert_kind(
            client.create_task_push_notification_config(config).await,
            ErrorKind::PushNotificationNotSupported,
            &what,
        );
        assert_kind(
            client
                .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
                    tenant: String::new(),
                    task_id: id.clone(),
                    id: "c1".into(),
                })
                .await,
            ErrorKind::PushNotificationNotSupported,
            &what,
        );
        assert_kind(
            client
                .list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest {
                    tenant: String::new(),
                    task_id: id.clone(),
                    page_size: 0,
                    page_token: String::new(),
                })
                .await,
            ErrorKind::PushNotificationNotSupported,
            &what,
        );
        assert_kind(
            client
                .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
                    tenant: String::new(),
                    task_id: id,
                    id: "c1".into(),
                })
                .await,
            ErrorKind::PushNotificationNotSupported,
            &what,
        );
    }
}

#[tokio::test]
async fn extended_agent_card_not_configured() {
    let agent = Agent::start_with(
        |card| card.capabilities.extended_agent_card = Some(true),
        |server| server,
    )
    .await;
    for binding in every_binding() {
        assert_kind(
            agent
                .client(&binding)
                .get_extended_agent_card(GetExtendedAgentCardRequest::default())
                .await,
            ErrorKind::ExtendedAgentCardNotConfigured,
            &format!("{binding}"),
        );
    }
}

#[tokio::test]
async fn extension_support_required_until_the_client_asks_for_it() {
    const EXTENSION: &str = "https://example.com/ext/required/v1";
    let agent = Agent::start_with(
        |card| {
            card.capabilities.extensions.push(AgentExtension {
                uri: EXTENSION.into(),
                description: String::new(),
                required: true,
                params: None,
            })
        },
        |server| server,
    )
    .await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        assert_kind(
            client.send_message(message::request("hi")).await,
            ErrorKind::ExtensionSupportRequired,
            &format!("{binding}"),
        );
        let with_extension = client.with_options(CallOptions::new().extension(EXTENSION));
        with_extension
            .send_message(message::request("hi"))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn refusals_of_every_kind_keep_their_kind() {
    // The executor refuses with each kind; the server encodes it per binding (JSON-RPC
    // code + ErrorInfo, google.rpc.Status with its HTTP status) and the client recovers it.
    // VersionNotSupported can only be reached this way: the client always sends 1.0.
    let agent = Agent::start().await;
    let kinds = [
        ErrorKind::ContentTypeNotSupported,
        ErrorKind::VersionNotSupported,
        ErrorKind::ExtensionSupportRequired,
        ErrorKind::InvalidParams,
        ErrorKind::UnsupportedOperation,
        ErrorKind::InvalidAgentResponse,
        ErrorKind::Authentication,
        ErrorKind::Authorization,
        ErrorKind::ServerBusy,
    ];
    for binding in every_binding() {
        let client = agent.client(&binding);
        for kind in kinds {
            let request = message::request(format!("refuse {}", kind.reason()));
            let what = format!("{binding} {kind:?}");
            assert_kind(client.send_message(request.clone()).await, kind, &what);
            assert_kind(client.send_streaming_message(request).await, kind, &what);
        }
    }
}

#[tokio::test]
async fn agent_errors_are_not_retryable_but_busy_is() {
    let agent = Agent::start().await;
    let client = agent.client(&a2a_types::ProtocolBinding::HttpJson);
    let not_found = client.get_task(get("nope")).await.unwrap_err();
    assert!(!not_found.is_retryable());
    let busy = client
        .send_message(message::request("refuse SERVER_BUSY"))
        .await
        .unwrap_err();
    assert!(busy.is_retryable(), "{busy:?}");
}
