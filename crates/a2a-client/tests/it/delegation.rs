//! An executor that calls another agent: `?` on the client's error fails the task (or, in the
//! cancel hook, answers InternalError); the other agent's A2A error never reaches the caller
//! as the server's own, on any binding.

use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ResponseExt as _, message};
use a2a_server::executor::CancelRequest;
use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::error::ErrorKind;
use a2a_types::{A2aError, AgentInterface, ProtocolBinding, TaskState};

use crate::support::{Agent, cancel, card_at, every_binding};

/// Forwards each message to the other agent; its cancel hook asks the other agent for a
/// task that does not exist.
struct Delegating {
    other: A2aClient,
}

#[async_trait::async_trait]
impl AgentExecutor for Delegating {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        if let Some(reason) = text.strip_prefix("own ") {
            // This agent's own refusal, not another agent's.
            let kind = ErrorKind::from_reason(reason).unwrap();
            return Err(ExecutorError::Refuse(A2aError::from(kind)));
        }
        if text.starts_with("wait") {
            updater.working("waiting").await?;
            context.cancellation.cancelled().await;
            return Ok(());
        }
        self.other
            .send_message(message::request(context.text()))
            .await?;
        updater.complete(()).await?;
        Ok(())
    }

    async fn cancel(&self, request: CancelRequest<'_>) -> Result<(), ExecutorError> {
        let asked = request
            .task
            .history
            .first()
            .map(a2a_types::Message::text)
            .unwrap_or_default();
        if asked == "wait own" {
            return Err(A2aError::unsupported_operation("this task cannot be stopped").into());
        }
        self.other
            .get_task(crate::support::get("no-such-task"))
            .await?;
        Ok(())
    }
}

/// The delegating agent on a real socket, for every binding; the other agent is our
/// script agent, which refuses on request.
async fn start() -> (Agent, a2a_types::AgentCard) {
    let other = Agent::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let grpc_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc_addr = grpc_listener.local_addr().unwrap();
    let card = card_at(&format!("http://{addr}")).with_interface(AgentInterface::new(
        format!("http://{grpc_addr}"),
        ProtocolBinding::Grpc,
    ));
    let server = A2aServer::builder(
        card.clone(),
        Delegating {
            other: other.client(&ProtocolBinding::JsonRpc),
        },
    )
    .authentication(a2a_server::auth::Authentication::disabled())
    .build()
    .unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let grpc_router = server.grpc_router();
    tokio::spawn(async move { axum::serve(grpc_listener, grpc_router).await.unwrap() });
    (other, card)
}

fn caller(card: &a2a_types::AgentCard, binding: &ProtocolBinding) -> A2aClient {
    A2aClient::builder()
        .card(card.clone())
        .prefer_binding(binding.clone())
        .request_timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

#[tokio::test]
async fn another_agents_a2a_error_fails_the_task_instead_of_answering_the_caller() {
    let (_other, card) = start().await;
    for binding in every_binding() {
        let client = caller(&card, &binding);
        for kind in [
            ErrorKind::TaskNotFound,
            ErrorKind::InvalidParams,
            ErrorKind::UnsupportedOperation,
        ] {
            let what = format!("{binding} {kind:?}");
            let answer = client
                .send_message(message::request(format!("refuse {}", kind.reason())))
                .await
                .unwrap_or_else(|error| panic!("{what}: answered with {error:?}"));
            assert_eq!(answer.state(), Some(TaskState::Failed), "{what}");
            let task = match answer {
                a2a_types::SendMessageResponse::Task(task) => task,
                other @ a2a_types::SendMessageResponse::Message(_) => {
                    panic!("{what}: {other:?}")
                }
            };
            // The other agent's message text only: no code or reason of its own.
            let text = task.status.text();
            assert!(!text.is_empty(), "{what}");
            assert!(!text.contains(kind.reason()), "{what}: {text}");
        }
    }
}

#[tokio::test]
async fn another_agents_error_in_the_cancel_hook_answers_internal_error() {
    let (_other, card) = start().await;
    for binding in every_binding() {
        let client = caller(&card, &binding);
        let task = client
            .send_message(
                message::draft()
                    .text("wait")
                    .return_immediately(true)
                    .into_request(),
            )
            .await
            .unwrap();
        let task_id = task.task_id().unwrap().clone();
        let error = client.cancel_task(cancel(&task_id)).await.unwrap_err();
        match error {
            ClientError::Agent(error) => {
                assert_eq!(error.kind(), ErrorKind::Internal, "{binding}: {error:?}");
            }
            other => panic!("{binding}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_executors_own_a2a_error_answers_as_that_error_on_every_binding() {
    let (_other, card) = start().await;
    for binding in every_binding() {
        let client = caller(&card, &binding);
        for kind in [
            ErrorKind::TaskNotFound,
            ErrorKind::InvalidParams,
            ErrorKind::UnsupportedOperation,
        ] {
            let what = format!("{binding} {kind:?}");
            let request = message::request(format!("own {}", kind.reason()));
            for result in [
                client.send_message(request.clone()).await.map(|_| ()),
                client.send_streaming_message(request).await.map(|_| ()),
            ] {
                match result {
                    Err(ClientError::Agent(error)) => assert_eq!(error.kind(), kind, "{what}"),
                    other => panic!("{what}: {other:?}"),
                }
            }
        }
        // The cancel hook's own refusal too.
        let task = client
            .send_message(
                message::draft()
                    .text("wait own")
                    .return_immediately(true)
                    .into_request(),
            )
            .await
            .unwrap();
        let task_id = task.task_id().unwrap().clone();
        match client.cancel_task(cancel(&task_id)).await {
            Err(ClientError::Agent(error)) => {
                assert_eq!(error.kind(), ErrorKind::UnsupportedOperation, "{binding}");
            }
            other => panic!("{binding}: {other:?}"),
        }
    }
}
