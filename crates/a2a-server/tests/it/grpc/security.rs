//! Authentication over gRPC is the card's, as on the HTTP bindings: bearer tokens and API keys
//! in the metadata, client certificates over mutual TLS; and TLS itself.

use a2a_grpc::proto;
use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_server::tls::TlsConfig;
use a2a_test_support::tls::Pki;
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use a2a_types::{AgentInterface, ErrorKind, Message, ProtocolBinding, SendMessageRequest};

use super::support::{GrpcServer, error_of, v1};
use crate::auth::{Callers, secured_card};

fn send(text: &str) -> proto::SendMessageRequest {
    SendMessageRequest::new(Message::user_text(text)).into()
}

fn grpc(card: a2a_types::AgentCard) -> a2a_types::AgentCard {
    card.with_interface(AgentInterface::new(
        "127.0.0.1:50051",
        ProtocolBinding::Grpc,
    ))
}

#[tokio::test]
async fn a_bearer_token_or_an_api_key_in_the_metadata_lets_a_call_in() {
    let card = grpc(secured_card(
        &[
            ("token", SecurityScheme::bearer("")),
            (
                "key",
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            ),
        ],
        &[&[("token", &[])], &[("key", &[])]],
    ));
    let server = GrpcServer::start_with(
        A2aServer::builder(card, Callers::default()).authentication(
            Authentication::required()
                .bearer_token("the-token")
                .api_key("the-key"),
        ),
    )
    .await;
    let mut client = server.client().await;

    let status = client.send_message(v1(send("hi"))).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
    assert_eq!(error_of(&status).kind(), ErrorKind::Authentication);

    let mut wrong = v1(send("hi"));
    wrong
        .metadata_mut()
        .insert("authorization", "Bearer wrong".parse().unwrap());
    let status = client.send_message(wrong).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);

    let mut bearer = v1(send("hi"));
    bearer
        .metadata_mut()
        .insert("authorization", "Bearer the-token".parse().unwrap());
    client.send_message(bearer).await.unwrap();

    let mut key = v1(send("hi"));
    key.metadata_mut()
        .insert("x-api-key", "the-key".parse().unwrap());
    client.send_message(key).await.unwrap();
}

#[tokio::test]
async fn tls_serves_grpc_and_a_client_certificate_is_the_caller() {
    let pki = Pki::new("grpc-client");
    let card = grpc(secured_card(
        &[("mtls", SecurityScheme::mutual_tls())],
        &[&[("mtls", &[])]],
    ));
    let tls = TlsConfig::from_pem(pki.server.cert.as_bytes(), pki.server.key.as_bytes())
        .unwrap()
        .client_ca_pem(pki.ca.as_bytes())
        .unwrap();
    let callers = Callers::default();
    let server = GrpcServer::start_tls(
        A2aServer::builder(card, callers.clone()).authentication(Authentication::required()),
        tls,
    )
    .await;

    let mut anonymous = server.tls_client(&pki.ca, None).await.unwrap();
    let status = anonymous.send_message(v1(send("hi"))).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated, "{status:?}");

    let mut client = server
        .tls_client(&pki.ca, Some((&pki.client.cert, &pki.client.key)))
        .await
        .unwrap();
    client.send_message(v1(send("hi"))).await.unwrap();
    let caller = callers.last().expect("the turn saw a caller");
    assert!(caller.identity().contains("grpc-client"), "{caller:?}");
}
