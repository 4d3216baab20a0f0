//! Errors over gRPC: the status code of the error's kind and an `ErrorInfo` (domain
//! `a2a-protocol.org`) in the status details; version and extension negotiation from the
//! metadata; the caller's deadline; the message size limit.

use std::time::Duration;

use a2a_grpc::proto;
use a2a_server::auth::Authentication;
use a2a_server::{A2aServer, ServerConfig};
use a2a_types::card::AgentExtension;
use a2a_types::{ErrorKind, Message, SendMessageRequest};
use tonic_types::StatusExt as _;

use super::support::{GrpcServer, error_of, grpc_card, raw_call, v1};
use crate::support::{BindingEcho, FnExecutor};

fn send(text: &str) -> proto::SendMessageRequest {
    SendMessageRequest::new(Message::user_text(text)).into()
}

#[tokio::test]
async fn an_unknown_task_is_not_found_with_error_info() {
    let server = GrpcServer::start(BindingEcho).await;
    let mut client = server.client().await;
    let status = client
        .get_task(v1(proto::GetTaskRequest {
            id: "no-such-task".into(),
            ..Default::default()
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    let details = status.get_error_details();
    let info = details.error_info().expect("an ErrorInfo detail");
    assert_eq!(info.reason, "TASK_NOT_FOUND");
    assert_eq!(info.domain, "a2a-protocol.org");
    assert_eq!(
        info.metadata.get("taskId").map(String::as_str),
        Some("no-such-task")
    );
}

#[tokio::test]
async fn a_call_without_a_version_is_a_0_3_call_refused_as_unimplemented_with_its_reason() {
    let server = GrpcServer::start(BindingEcho).await;
    let mut client = server.client().await;
    let status = client
        .send_message(tonic::Request::new(send("hello")))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unimplemented);
    assert_eq!(error_of(&status).kind(), ErrorKind::VersionNotSupported);
    let details = status.get_error_details();
    let info = details.error_info().expect("an ErrorInfo detail");
    assert_eq!(info.reason, "VERSION_NOT_SUPPORTED");
    assert_eq!(info.domain, "a2a-protocol.org");
}

#[tokio::test]
async fn invalid_requests_are_invalid_argument_naming_the_field() {
    let server = GrpcServer::start(BindingEcho).await;
    let mut client = server.client().await;
    let mut no_content = send("x");
    if let Some(message) = no_content.message.as_mut() {
        message.parts = vec![proto::Part::default()];
    }
    let mut no_message = send("x");
    no_message.message = None;
    for request in [no_content, no_message] {
        let status = client.send_message(v1(request)).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        let error = error_of(&status);
        assert_eq!(error.kind(), ErrorKind::InvalidParams);
        assert!(!error.field_violations().is_empty(), "{error:?}");
    }
}

#[tokio::test]
async fn a_required_extension_must_be_activated_in_the_metadata() {
    let mut card = grpc_card();
    card.capabilities.extensions.push(AgentExtension {
        uri: "urn:example:needed".into(),
        required: true,
        ..AgentExtension::default()
    });
    let server = GrpcServer::start_with(
        A2aServer::builder(card, BindingEcho).authentication(Authentication::disabled()),
    )
    .await;
    let mut client = server.client().await;
    let status = client.send_message(v1(send("hi"))).await.unwrap_err();
    assert_eq!(
        error_of(&status).kind(),
        ErrorKind::ExtensionSupportRequired
    );

    let mut request = v1(send("hi"));
    request
        .metadata_mut()
        .insert("a2a-extensions", "urn:example:needed".parse().unwrap());
    let response = client.send_message(request).await.unwrap();
    assert_eq!(
        response
            .metadata()
            .get("a2a-extensions")
            .and_then(|value| value.to_str().ok()),
        Some("urn:example:needed")
    );
}

#[tokio::test]
async fn the_callers_deadline_ends_a_call_that_takes_longer() {
    let server = GrpcServer::start(FnExecutor(
        |_context, updater: a2a_server::TaskUpdater| async move {
            tokio::time::sleep(Duration::from_secs(3)).await;
            updater.complete(()).await?;
            Ok(())
        },
    ))
    .await;
    let started = std::time::Instant::now();
    let status = raw_call(
        server.addr,
        "SendMessage",
        &send("slow"),
        &[("a2a-version", "1.0"), ("grpc-timeout", "200m")],
    )
    .await;
    assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_message_over_the_payload_limit_is_refused() {
    let mut config = ServerConfig::default();
    config.max_payload_size = 4 * 1024;
    let server = GrpcServer::start_with(
        A2aServer::builder(grpc_card(), BindingEcho)
            .config(config)
            .authentication(Authentication::disabled()),
    )
    .await;
    let mut client = server.client().await;
    let status = client
        .send_message(v1(send(&"x".repeat(8 * 1024))))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
    assert_eq!(error_of(&status).kind(), ErrorKind::PayloadTooLarge);
    let fits = client.send_message(v1(send("small"))).await;
    assert!(fits.is_ok(), "{fits:?}");
}
