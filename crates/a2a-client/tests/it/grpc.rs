//! What only the gRPC binding has to show: picking it from a card that offers nothing else,
//! addresses as `host:port`, credentials as metadata, TLS and mutual TLS over HTTP/2, time
//! limits, and a stream resumed after its connection broke. Operations and error kinds are
//! tested on every binding in `operations.rs` and `errors.rs`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, Credentials, ResponseExt as _, TimeoutKind, message};
use a2a_server::auth::Authentication;
use a2a_server::tls::{TlsConfig, serve_tls_h2};
use a2a_server::{A2aServer, A2aServerBuilder};
use a2a_test_support::tls::Pki;
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use a2a_types::{
    AgentCard, AgentInterface, DeleteTaskPushNotificationConfigRequest, ErrorKind,
    GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsRequest, ProtocolBinding,
    StreamResponse, TaskPushNotificationConfig, TaskState,
};

use crate::support::{ScriptAgent, start_task};

/// The script agent's card with one interface: gRPC at `address`.
fn grpc_only_card(address: &str) -> AgentCard {
    let mut card = AgentCard::new("gRPC agent", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(address, ProtocolBinding::Grpc));
    card.capabilities.streaming = Some(true);
    card
}

/// A gRPC-only agent: its card (and nothing else) over HTTP at the first address, gRPC in
/// plaintext HTTP/2 at the second; `server` adds to the builder, whose authentication is off
/// unless `server` sets it.
async fn grpc_only_agent(
    card: impl FnOnce(&mut AgentCard),
    server: impl FnOnce(A2aServerBuilder) -> A2aServerBuilder,
) -> (SocketAddr, SocketAddr, AgentCard) {
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (http_addr, grpc_addr) = (http.local_addr().unwrap(), grpc.local_addr().unwrap());
    let mut agent_card = grpc_only_card(&format!("http://{grpc_addr}"));
    card(&mut agent_card);
    let builder = A2aServer::builder(agent_card.clone(), ScriptAgent)
        .authentication(Authentication::disabled());
    let built = server(builder).build().unwrap();
    let (router, grpc_router) = (built.router(), built.grpc_router());
    tokio::spawn(async move { axum::serve(http, router).await.unwrap() });
    tokio::spawn(async move { axum::serve(grpc, grpc_router).await.unwrap() });
    (http_addr, grpc_addr, agent_card)
}

#[tokio::test]
async fn a_card_offering_only_grpc_is_discovered_and_spoken_over_grpc() {
    let (http, _, _) = grpc_only_agent(|_| {}, |server| server).await;
    let client = A2aClient::discover(&format!("http://{http}"))
        .await
        .unwrap();
    assert_eq!(client.binding(), ProtocolBinding::Grpc);
    let answer = client
        .send_message(message::request("hello"))
        .await
        .unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    let events = client
        .send_streaming_message(message::request("slow 2 10"))
        .await
        .unwrap()
        .collect_all()
        .await
        .unwrap();
    assert!(
        matches!(events.first(), Some(StreamResponse::Task(_))),
        "{events:?}"
    );
    assert_eq!(events.last().unwrap().state(), Some(TaskState::Completed));
}

#[tokio::test]
async fn a_bare_host_and_port_in_a_card_fetched_over_http_is_plaintext() {
    let (http, grpc, _) = grpc_only_agent(
        |card| {
            let interface = &mut card.supported_interfaces[0];
            interface.url = interface.url.trim_start_matches("http://").to_owned();
        },
        |server| server,
    )
    .await;
    let client = A2aClient::discover(&format!("http://{http}"))
        .await
        .unwrap();
    assert_eq!(client.url(), format!("http://{grpc}/"));
    let answer = client.send_message(message::request("hi")).await.unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
}

#[tokio::test]
async fn a_bare_host_and_port_means_tls_unless_plaintext_is_asked_for() {
    let (_, grpc, _) = grpc_only_agent(|_| {}, |server| server).await;
    let plaintext = A2aClient::builder()
        .url(grpc.to_string(), ProtocolBinding::Grpc)
        .grpc_plaintext(true)
        .build()
        .unwrap();
    assert_eq!(plaintext.url(), format!("http://{grpc}/"));
    let answer = plaintext
        .send_message(message::request("hi"))
        .await
        .unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));

    let tls = A2aClient::builder()
        .url(grpc.to_string(), ProtocolBinding::Grpc)
        .connect_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    assert_eq!(tls.url(), format!("https://{grpc}/"));
    let error = tls.send_message(message::request("hi")).await.unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted() {
    let (_, _, card) = grpc_only_agent(
        |card| card.capabilities.push_notifications = Some(true),
        |server| server,
    )
    .await;
    let client = A2aClient::from_card(card).unwrap();
    let task = start_task(&client, "wait").await;
    let mut config = TaskPushNotificationConfig::new("https://hooks.example/a2a");
    config.task_id = Some(task.clone());
    config.id = Some("c1".into());
    let created = client
        .create_task_push_notification_config(config)
        .await
        .unwrap();
    assert_eq!(created.url, "https://hooks.example/a2a");
    let read = client
        .get_task_push_notification_config(GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: task.clone(),
            id: "c1".into(),
        })
        .await
        .unwrap();
    assert_eq!(read, created);
    let list = ListTaskPushNotificationConfigsRequest {
        tenant: String::new(),
        task_id: task.clone(),
        page_size: 0,
        page_token: String::new(),
    };
    let listed = client
        .list_task_push_notification_configs(list.clone())
        .await
        .unwrap();
    assert_eq!(listed.configs, vec![created]);
    client
        .delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: task.clone(),
            id: "c1".into(),
        })
        .await
        .unwrap();
    let listed = client
        .list_task_push_notification_configs(list)
        .await
        .unwrap();
    assert!(listed.configs.is_empty(), "{listed:?}");
    client
        .cancel_task(crate::support::cancel(&task))
        .await
        .unwrap();
}

#[tokio::test]
async fn bearer_tokens_and_api_keys_travel_as_metadata() {
    let (_, _, card) = grpc_only_agent(
        |card| {
            card.security_schemes
                .insert("token".into(), SecurityScheme::bearer(""));
            card.security_schemes.insert(
                "key".into(),
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            );
            card.security_requirements
                .push(SecurityRequirement::scheme("token", Vec::<String>::new()));
            card.security_requirements
                .push(SecurityRequirement::scheme("key", Vec::<String>::new()));
        },
        |server| {
            server.authentication(
                Authentication::required()
                    .bearer_token("the-token")
                    .api_key("the-key"),
            )
        },
    )
    .await;
    let anonymous = A2aClient::from_card(card.clone()).unwrap();
    let error = anonymous
        .send_message(message::request("hi"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Authentication), "{error:?}");
    for credentials in [
        Credentials::bearer("the-token"),
        // Placed as the card says: the `x-api-key` metadata.
        Credentials::api_key("the-key"),
    ] {
        let client = A2aClient::builder()
            .card(card.clone())
            .credentials(credentials.clone())
            .build()
            .unwrap();
        let answer = client.send_message(message::request("hi")).await;
        assert_eq!(
            answer.unwrap().state(),
            Some(TaskState::Completed),
            "{credentials:?}"
        );
    }
    let wrong = A2aClient::builder()
        .card(card)
        .credentials(Credentials::bearer("wrong"))
        .build()
        .unwrap();
    let error = wrong
        .send_message(message::request("hi"))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), Some(ErrorKind::Authentication), "{error:?}");
}

#[tokio::test]
async fn the_request_timeout_bounds_a_unary_call() {
    let (_, _, card) = grpc_only_agent(|_| {}, |server| server).await;
    let client = A2aClient::builder()
        .card(card)
        .request_timeout(Duration::from_millis(300))
        // One attempt: a retried send would get the first send's task.
        .retry(a2a_client::RetryPolicy::none())
        .build()
        .unwrap();
    let error = client
        .send_message(message::request("slow 3 400"))
        .await
        .unwrap_err();
    assert!(
        matches!(error, ClientError::Timeout(TimeoutKind::Request)),
        "{error:?}"
    );
    // A stream is bounded by its silences, not by the request timeout.
    let events = client
        .send_streaming_message(message::request("slow 3 200"))
        .await
        .unwrap()
        .collect_all()
        .await
        .unwrap();
    assert_eq!(events.last().unwrap().state(), Some(TaskState::Completed));
}

#[tokio::test]
async fn an_agent_that_does_not_listen_is_a_retryable_transport_failure() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let client = A2aClient::builder()
        .url(format!("http://{address}"), ProtocolBinding::Grpc)
        .retry(a2a_client::RetryPolicy::none())
        .build()
        .unwrap();
    let error = client.get_task(crate::support::get("t")).await.unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");
    assert!(error.is_retryable());
}

/// A gRPC agent over TLS on 127.0.0.1 (its card names it `127.0.0.1:port`, TLS by
/// default), asking for a client certificate from the test CA when `mutual` is set.
async fn tls_agent(pki: &Pki, mutual: bool) -> AgentCard {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let card = grpc_only_card(&listener.local_addr().unwrap().to_string());
    let server = A2aServer::builder(card.clone(), ScriptAgent)
        .authentication(Authentication::disabled())
        .build()
        .unwrap();
    let mut tls =
        TlsConfig::from_pem(pki.server.cert.as_bytes(), pki.server.key.as_bytes()).unwrap();
    if mutual {
        tls = tls
            .client_ca_pem(pki.ca.as_bytes())
            .unwrap()
            .require_client_certificate(true);
    }
    tokio::spawn(serve_tls_h2(
        listener,
        server.grpc_router(),
        tls,
        std::future::pending(),
    ));
    card
}

#[tokio::test]
async fn tls_with_the_agents_ca_and_mutual_tls_with_a_client_certificate() {
    let pki = Pki::new("alice");
    let card = tls_agent(&pki, false).await;
    let trusting = A2aClient::builder()
        .card(card.clone())
        .root_certificate_pem(pki.ca.as_bytes())
        .build()
        .unwrap();
    assert!(trusting.url().starts_with("https://"), "{}", trusting.url());
    let answer = trusting.send_message(message::request("hi")).await.unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    let untrusting = A2aClient::from_card(card).unwrap();
    let error = untrusting
        .send_message(message::request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");

    let card = tls_agent(&pki, true).await;
    let with_certificate = A2aClient::builder()
        .card(card.clone())
        .root_certificate_pem(pki.ca.as_bytes())
        .client_identity_pem(pki.client.identity().as_bytes())
        .build()
        .unwrap();
    let answer = with_certificate
        .send_message(message::request("hi"))
        .await
        .unwrap();
    assert_eq!(answer.state(), Some(TaskState::Completed));
    let without_certificate = A2aClient::builder()
        .card(card)
        .root_certificate_pem(pki.ca.as_bytes())
        .build()
        .unwrap();
    let error = without_certificate
        .send_message(message::request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Transport { .. }), "{error:?}");
}

/// A TCP proxy to `target` that drops its first connection `cut_after` after it opened,
/// and counts connections.
async fn cutting_proxy(target: SocketAddr, cut_after: Duration) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let first = counted.fetch_add(1, Ordering::SeqCst) == 0;
            tokio::spawn(async move {
                let mut server = tokio::net::TcpStream::connect(target).await.unwrap();
                let relay = tokio::io::copy_bidirectional(&mut client, &mut server);
                if first {
                    // Dropping both sockets mid-stream breaks the connection.
                    let _ = tokio::time::timeout(cut_after, relay).await;
                } else {
                    let _ = relay.await;
                }
            });
        }
    });
    (addr, connections)
}

#[tokio::test]
async fn a_broken_stream_is_resumed_with_no_update_repeated() {
    let (_, grpc, card) = grpc_only_agent(|_| {}, |server| server).await;
    let (proxy, connections) = cutting_proxy(grpc, Duration::from_millis(500)).await;
    let client = A2aClient::builder()
        .card(card)
        .grpc_plaintext(true)
        .host(proxy.to_string())
        .build()
        .unwrap();
    let events = client
        .send_streaming_message(message::request("slow 6 200"))
        .await
        .unwrap()
        .collect_all()
        .await
        .unwrap();
    assert!(
        connections.load(Ordering::SeqCst) >= 2,
        "the client connected again"
    );
    let mut artifacts: Vec<String> = Vec::new();
    let mut seen_in_snapshots: Vec<String> = Vec::new();
    for event in &events {
        match event {
            StreamResponse::ArtifactUpdate(update) => {
                let id = update.artifact.artifact_id.to_string();
                assert!(!artifacts.contains(&id), "{id} repeated: {events:#?}");
                artifacts.push(id);
            }
            StreamResponse::Task(task) => seen_in_snapshots.extend(
                task.artifacts
                    .iter()
                    .map(|artifact| artifact.artifact_id.to_string()),
            ),
            StreamResponse::StatusUpdate(_) | StreamResponse::Message(_) => {}
        }
    }
    for step in 0..6 {
        let id = format!("chunk-{step}");
        assert!(
            artifacts.contains(&id) || seen_in_snapshots.contains(&id),
            "{id} was lost: {events:#?}"
        );
    }
    assert_eq!(events.last().unwrap().state(), Some(TaskState::Completed));
}
