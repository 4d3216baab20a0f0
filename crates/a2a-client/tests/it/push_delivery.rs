//! A real signed delivery, end to end (issue 8 item 5): an `A2aServer` with a `PushSigner`
//! delivers a task's events to a webhook on 127.0.0.1, which checks every one with a
//! `PushVerifier` whose keys it fetched from the agent's `/.well-known/jwks.json`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_client::push::PushVerifier;
use a2a_server::auth::Authentication;
use a2a_server::push::signing::PushSigner;
use a2a_server::{
    A2aServer, AgentExecutor, ExecutorError, RequestContext, ServerConfig, TaskUpdater,
};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding, StreamResponse};
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use serde_json::json;

struct Steps;

#[async_trait::async_trait]
impl AgentExecutor for Steps {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater.working(()).await?;
        updater
            .add_artifact(Artifact::from_text(context.text()))
            .await?;
        updater.complete(()).await?;
        Ok(())
    }
}

type Seen = Arc<Mutex<Vec<(HeaderMap, Bytes)>>>;

#[tokio::test]
async fn every_delivery_is_signed_with_a_key_the_agent_publishes_and_a_tampered_one_fails() {
    // The webhook: records what it receives.
    let seen: Seen = Arc::default();
    let sink = Arc::clone(&seen);
    let hook = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let sink = Arc::clone(&sink);
            async move {
                sink.lock().unwrap().push((headers, body));
                StatusCode::OK
            }
        }),
    );
    let hook_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook_url = format!("http://{}/hook", hook_listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(hook_listener, hook).await });

    // The agent.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut card = AgentCard::new("Signer", "Signs its deliveries", "1.0.0").with_interface(
        AgentInterface::new(format!("{base}/a2a"), ProtocolBinding::JsonRpc),
    );
    card.capabilities.push_notifications = Some(true);
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    config.push.poll_interval = Duration::from_millis(50);
    let server = A2aServer::builder(card, Steps)
        .config(config)
        .authentication(Authentication::disabled())
        .push_signer(PushSigner::generate().unwrap())
        .build()
        .unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });

    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {
            "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "signed"}]},
            "configuration": {"taskPushNotificationConfig": {"url": hook_url, "token": "tok"}}
        }
    });
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("{base}/a2a"))
        .header("A2A-Version", "1.0")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );

    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while seen.lock().unwrap().len() < 4 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "deliveries: {}",
            seen.lock().unwrap().len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let verifier = PushVerifier::fetch(&base)
        .await
        .unwrap()
        .expect_token("tok");
    let deliveries = seen.lock().unwrap().clone();
    let mut last = None;
    for (headers, body) in &deliveries {
        let delivered = verifier.verify(headers, body).unwrap();
        last = Some(delivered.event);
    }
    assert!(
        matches!(&last, Some(StreamResponse::StatusUpdate(update)) if update.status.state == a2a_types::TaskState::Completed),
        "{last:?}"
    );

    let (headers, body) = &deliveries[0];
    let mut tampered = body.to_vec();
    let at = tampered.len() / 2;
    tampered[at] ^= 0x01;
    assert!(verifier.verify(headers, &tampered).is_err());
}
