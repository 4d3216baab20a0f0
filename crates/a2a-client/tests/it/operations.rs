//! Every operation against our server, on every binding.

use a2a_client::{A2aClient, ResponseExt, ResponseKind, message};
use a2a_types::{
    GetExtendedAgentCardRequest, GetTaskRequest, ListTasksRequest, SendMessageResponse,
    StreamResponse, Task, TaskState,
};
use futures::TryStreamExt as _;

use crate::support::{
    Agent, bindings, cancel, every_binding, get, start_task, stream_text, subscribe_all,
};

async fn send_task(client: &A2aClient, text: &str) -> Task {
    match client.send_message(message::request(text)).await.unwrap() {
        SendMessageResponse::Task(task) => task,
        SendMessageResponse::Message(reply) => panic!("expected a task, got {reply:?}"),
    }
}

#[tokio::test]
async fn send_message_returns_the_completed_task_or_a_direct_reply() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        assert_eq!(client.binding(), binding);
        let task = send_task(&client, "hello").await;
        assert_eq!(task.status.state, TaskState::Completed, "{binding}");
        assert_eq!(task.artifacts[0].text(), "hello");

        let reply = client
            .send_message(message::request("reply"))
            .await
            .unwrap();
        assert_eq!(reply.kind(), ResponseKind::Message, "{binding}");
        let SendMessageResponse::Message(reply) = reply else {
            unreachable!()
        };
        assert_eq!(reply.text(), "replied");
    }
}

#[tokio::test]
async fn streaming_yields_the_task_then_its_updates_until_completed() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let events = stream_text(&client, "slow 3 10").await.unwrap();
        assert!(
            matches!(events[0], StreamResponse::Task(_)),
            "{binding}: {events:?}"
        );
        let artifacts = events
            .iter()
            .filter(|event| event.kind() == ResponseKind::ArtifactUpdate)
            .count();
        assert_eq!(artifacts, 3, "{binding}");
        assert_eq!(events.last().unwrap().state(), Some(TaskState::Completed));

        let reply = client
            .send_streaming_message(message::request("reply"))
            .await
            .unwrap()
            .try_collect::<Vec<_>>()
            .await
            .unwrap();
        assert_eq!(reply.len(), 1);
        assert_eq!(reply[0].kind(), ResponseKind::Message);
    }
}

#[tokio::test]
async fn get_task_returns_the_task_with_limited_history() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let task = send_task(&client, "hello").await;
        let fetched = client.get_task(get(&task.id)).await.unwrap();
        assert_eq!(fetched.id, task.id, "{binding}");
        assert!(!fetched.history.is_empty());
        let trimmed = client
            .get_task(GetTaskRequest {
                history_length: Some(0),
                ..get(&task.id)
            })
            .await
            .unwrap();
        assert!(trimmed.history.is_empty(), "{binding}");
    }
}

#[tokio::test]
async fn list_tasks_filters_by_context_and_state() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let first = send_task(&client, "one").await;
        let follow = message::draft()
            .text("two")
            .context_id(first.context_id.clone())
            .into_request();
        client.send_message(follow).await.unwrap();
        let listed = client
            .list_tasks(ListTasksRequest {
                context_id: Some(first.context_id.clone()),
                status: TaskState::Completed,
                page_size: Some(10),
                include_artifacts: Some(true),
                ..ListTasksRequest::default()
            })
            .await
            .unwrap();
        assert_eq!(listed.tasks.len(), 2, "{binding}");
        assert_eq!(listed.total_size, 2);
        assert!(listed.tasks.iter().all(|task| !task.artifacts.is_empty()));
    }
}

#[tokio::test]
async fn cancel_task_cancels_a_running_task() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let id = start_task(&client, "wait").await;
        let canceled = client.cancel_task(cancel(&id)).await.unwrap();
        assert_eq!(canceled.status.state, TaskState::Canceled, "{binding}");
        let fetched = client.get_task(get(&id)).await.unwrap();
        assert_eq!(fetched.status.state, TaskState::Canceled);
    }
}

#[tokio::test]
async fn subscribe_to_task_starts_with_a_snapshot_and_ends_with_the_task() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let id = start_task(&client, "slow 3 100").await;
        let events = subscribe_all(&client, &id).await.unwrap();
        assert!(
            matches!(events[0], StreamResponse::Task(_)),
            "{binding}: {events:?}"
        );
        assert_eq!(
            events.last().unwrap().state(),
            Some(TaskState::Completed),
            "{binding}"
        );
    }
}

#[tokio::test]
async fn a_follow_up_answers_a_task_waiting_for_input() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let asked = send_task(&client, "ask").await;
        assert_eq!(asked.status.state, TaskState::InputRequired, "{binding}");
        assert_eq!(asked.status.text(), "what else?");
        let answer = message::draft()
            .text("more")
            .task_id(asked.id.clone())
            .into_request();
        let done = client.send_message(answer).await.unwrap();
        assert_eq!(done.task_id(), Some(&asked.id));
        assert_eq!(done.state(), Some(TaskState::Completed), "{binding}");
    }
}

#[tokio::test]
async fn the_extended_card_is_returned_when_configured() {
    let agent = Agent::start_with(
        |card| card.capabilities.extended_agent_card = Some(true),
        |server| {
            let extended = a2a_types::AgentCard::new("Script agent", "The extended card", "1.0.0")
                .with_interface(a2a_types::AgentInterface::new(
                    "http://localhost/a2a",
                    a2a_types::ProtocolBinding::JsonRpc,
                ));
            server.extended_card(extended)
        },
    )
    .await;
    for binding in every_binding() {
        let card = agent
            .client(&binding)
            .get_extended_agent_card(GetExtendedAgentCardRequest::default())
            .await
            .unwrap();
        assert_eq!(card.description, "The extended card", "{binding}");
    }
}

#[tokio::test]
async fn tenants_scope_tasks_on_every_binding() {
    let agent = Agent::start().await;
    for (binding, url) in [
        (
            a2a_types::ProtocolBinding::JsonRpc,
            format!("{}/a2a", agent.base()),
        ),
        (
            a2a_types::ProtocolBinding::HttpJson,
            format!("{}/rest", agent.base()),
        ),
        (a2a_types::ProtocolBinding::Grpc, agent.grpc_url()),
    ] {
        let acme = A2aClient::builder()
            .url(&url, binding.clone())
            .tenant("acme")
            .build()
            .unwrap();
        let other = A2aClient::from_url(&url, binding.clone()).unwrap();
        let task = send_task(&acme, "hello").await;
        assert_eq!(acme.get_task(get(&task.id)).await.unwrap().id, task.id);
        let error = other.get_task(get(&task.id)).await.unwrap_err();
        assert_eq!(
            error.kind(),
            Some(a2a_types::ErrorKind::TaskNotFound),
            "{binding}: another tenant must not see the task"
        );
    }
}

#[tokio::test]
async fn in_process_clients_need_no_socket() {
    let agent = Agent::start().await;
    for binding in bindings() {
        let client = A2aClient::builder()
            .transport(a2a_client::transport::InProcessTransport::new(
                agent.server.router(),
            ))
            .card(agent.card.clone())
            .prefer_binding(binding.clone())
            .build()
            .unwrap();
        let task = send_task(&client, "hello").await;
        assert_eq!(task.status.state, TaskState::Completed, "{binding}");
        let events = stream_text(&client, "slow 2 5").await.unwrap();
        assert_eq!(
            events.last().unwrap().state(),
            Some(TaskState::Completed),
            "{binding}"
        );
    }
}

#[tokio::test]
async fn dropping_a_stream_leaves_the_task_running() {
    let agent = Agent::start().await;
    for binding in every_binding() {
        let client = agent.client(&binding);
        let mut stream = client
            .send_streaming_message(message::request("slow 3 100"))
            .await
            .unwrap();
        let first = stream.try_next().await.unwrap().unwrap();
        let id = first.task_id().unwrap().clone();
        drop(stream);
        let mut state = TaskState::Working;
        for _ in 0..100 {
            state = client.get_task(get(&id)).await.unwrap().status.state;
            if state.is_terminal() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(state, TaskState::Completed, "{binding}");
    }
}
