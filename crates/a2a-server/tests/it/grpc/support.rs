//! A server whose gRPC router listens on 127.0.0.1, and a generated client for it that sends
//! `a2a-version: 1.0`.

use std::net::SocketAddr;

use a2a_grpc::proto::a2a_service_client::A2aServiceClient;
use a2a_server::auth::Authentication;
use a2a_server::tls::{TlsConfig, serve_tls_h2};
use a2a_server::{A2aServer, A2aServerBuilder, AgentExecutor};
use a2a_types::{A2aError, AgentCard, AgentInterface, ProtocolBinding};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use crate::support::standard_card;

/// The standard card with a GRPC interface too, and streaming.
pub fn grpc_card() -> AgentCard {
    let mut card = standard_card().with_interface(AgentInterface::new(
        "127.0.0.1:50051",
        ProtocolBinding::Grpc,
    ));
    card.capabilities.streaming = Some(true);
    card
}

/// A server's gRPC router on a plain-text HTTP/2 listener.
pub struct GrpcServer {
    pub addr: SocketAddr,
}

impl GrpcServer {
    /// Serves `executor` with [`grpc_card`], authentication off.
    pub async fn start(executor: impl AgentExecutor) -> Self {
        Self::start_with(
            A2aServer::builder(grpc_card(), executor).authentication(Authentication::disabled()),
        )
        .await
    }

    /// Serves what `builder` builds, in the clear.
    pub async fn start_with(builder: A2aServerBuilder) -> Self {
        let server = builder.build().expect("server builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = server.grpc_router();
        tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        Self { addr }
    }

    /// Serves what `builder` builds over TLS (HTTP/2 by ALPN).
    pub async fn start_tls(builder: A2aServerBuilder, tls: TlsConfig) -> Self {
        let server = builder.build().expect("server builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = server.grpc_router();
        tokio::spawn(serve_tls_h2(listener, router, tls, std::future::pending()));
        Self { addr }
    }

    /// A client over a plain-text connection.
    pub async fn client(&self) -> A2aServiceClient<Channel> {
        let channel = Endpoint::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .connect()
            .await
            .unwrap();
        A2aServiceClient::new(channel)
    }

    /// A client over TLS that trusts `ca` and presents `identity` (certificate, key) if given.
    pub async fn tls_client(
        &self,
        ca: &str,
        identity: Option<(&str, &str)>,
    ) -> Result<A2aServiceClient<Channel>, tonic::transport::Error> {
        let mut tls = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(ca))
            .domain_name("localhost");
        if let Some((cert, key)) = identity {
            tls = tls.identity(Identity::from_pem(cert, key));
        }
        let channel = Endpoint::from_shared(format!("https://{}", self.addr))
            .unwrap()
            .tls_config(tls)?
            .connect()
            .await?;
        Ok(A2aServiceClient::new(channel))
    }
}

/// `message` as a request carrying `a2a-version: 1.0`.
pub fn v1<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("a2a-version", "1.0".parse().unwrap());
    request
}

/// The A2A error a status carries.
pub fn error_of(status: &tonic::Status) -> A2aError {
    a2a_grpc::status::from_status(status)
}

/// Calls `rpc` with `message` and `metadata` over a bare HTTP/2 client, with none of a gRPC
/// client's own behaviour (it would enforce a `grpc-timeout` itself); returns the status the
/// server ended the call with.
pub async fn raw_call(
    addr: SocketAddr,
    rpc: &str,
    message: &impl prost::Message,
    metadata: &[(&'static str, &'static str)],
) -> tonic::Status {
    use http_body_util::BodyExt as _;

    let encoded = message.encode_to_vec();
    let mut frame = Vec::with_capacity(encoded.len() + 5);
    frame.push(0);
    frame.extend_from_slice(&u32::try_from(encoded.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(&encoded);
    let mut request = http::Request::post(format!("http://{addr}/lf.a2a.v1.A2AService/{rpc}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    for (name, value) in metadata {
        request = request.header(*name, *value);
    }
    let request = request
        .body(http_body_util::Full::new(bytes::Bytes::from(frame)))
        .unwrap();
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .http2_only(true)
        .build_http();
    let response = client.request(request).await.unwrap();
    if let Some(status) = tonic::Status::from_header_map(response.headers()) {
        return status;
    }
    let body = response.into_body().collect().await.unwrap();
    let trailers = body.trailers().cloned().unwrap_or_default();
    tonic::Status::from_header_map(&trailers).expect("a grpc-status")
}
