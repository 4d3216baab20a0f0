//! Shared helpers: our server on a real socket with a scripted agent, a recording mock
//! agent, and small builders.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_client::{A2aClient, ClientError, ResponseExt as _, message};
use a2a_server::{
    A2aServer, A2aServerBuilder, AgentExecutor, ExecutorError, RequestContext, TaskUpdater,
};
use a2a_types::error::ErrorKind;
use a2a_types::{
    A2aError, AgentCard, AgentInterface, AgentSkill, Artifact, CancelTaskRequest, GetTaskRequest,
    ProtocolBinding, StreamResponse, SubscribeToTaskRequest, TaskId,
};
use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;

/// Every binding, for tests that run on each: [`Agent`] serves all three.
pub fn every_binding() -> [ProtocolBinding; 3] {
    [
        ProtocolBinding::JsonRpc,
        ProtocolBinding::HttpJson,
        ProtocolBinding::Grpc,
    ]
}

/// The two HTTP bindings, for tests of HTTP itself (SSE, proxies, transports).
pub fn bindings() -> [ProtocolBinding; 2] {
    [ProtocolBinding::JsonRpc, ProtocolBinding::HttpJson]
}

/// `GetTask` of task `id`, with no tenant and the server's history length.
pub fn get(id: impl AsRef<str>) -> GetTaskRequest {
    GetTaskRequest {
        tenant: String::new(),
        id: id.as_ref().into(),
        history_length: None,
    }
}

/// `CancelTask` of task `id`, with no tenant or metadata.
pub fn cancel(id: impl AsRef<str>) -> CancelTaskRequest {
    CancelTaskRequest {
        tenant: String::new(),
        id: id.as_ref().into(),
        metadata: None,
    }
}

/// `SubscribeToTask` of task `id`, with no tenant.
pub fn subscribe(id: impl AsRef<str>) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest {
        tenant: String::new(),
        id: id.as_ref().into(),
    }
}

/// Sends `text` as a streaming message and reads the whole stream, which must open.
pub async fn stream_text(
    client: &A2aClient,
    text: &str,
) -> Result<Vec<StreamResponse>, ClientError> {
    client
        .send_streaming_message(message::request(text))
        .await
        .unwrap()
        .collect_all()
        .await
}

/// Subscribes to task `id` and reads the whole stream, which must open.
pub async fn subscribe_all(
    client: &A2aClient,
    id: &TaskId,
) -> Result<Vec<StreamResponse>, ClientError> {
    client
        .subscribe_to_task(subscribe(id))
        .await
        .unwrap()
        .collect_all()
        .await
}

/// Sends `text` with `returnImmediately` and gives the id of the task it started.
pub async fn start_task(client: &A2aClient, text: &str) -> TaskId {
    let started = client
        .send_message(
            message::draft()
                .text(text)
                .return_immediately(true)
                .into_request(),
        )
        .await
        .unwrap();
    started.task_id().unwrap().clone()
}

/// A card for an agent at `base` (`http://127.0.0.1:port`): JSON-RPC at `/a2a`, HTTP+JSON at
/// `/rest`, streaming on.
pub fn card_at(base: &str) -> AgentCard {
    let mut card = AgentCard::new("Script agent", "Does what the message says", "1.0.0")
        .with_interface(AgentInterface::new(
            format!("{base}/a2a"),
            ProtocolBinding::JsonRpc,
        ))
        .with_interface(AgentInterface::new(
            format!("{base}/rest"),
            ProtocolBinding::HttpJson,
        ))
        .with_skill(AgentSkill::new("script", "Script", "Follows the message"));
    card.capabilities.streaming = Some(true);
    card.default_input_modes = vec!["text/plain".into()];
    card.default_output_modes = vec!["text/plain".into()];
    card
}

/// Our server, on 127.0.0.1, running [`ScriptAgent`]: the HTTP bindings on `addr`, gRPC
/// (plaintext HTTP/2) on `grpc_addr`.
pub struct Agent {
    pub addr: SocketAddr,
    pub grpc_addr: SocketAddr,
    pub card: AgentCard,
    pub server: A2aServer,
}

impl Agent {
    /// The standard card and server.
    pub async fn start() -> Self {
        Self::start_with(|_| {}, |builder| builder).await
    }

    /// The card changed by `card`, the server by `server`.
    pub async fn start_with(
        card: impl FnOnce(&mut AgentCard),
        server: impl FnOnce(A2aServerBuilder) -> A2aServerBuilder,
    ) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let grpc_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let grpc_addr = grpc_listener.local_addr().unwrap();
        let mut agent_card = card_at(&format!("http://{addr}")).with_interface(
            AgentInterface::new(format!("http://{grpc_addr}"), ProtocolBinding::Grpc),
        );
        card(&mut agent_card);
        // Authentication off unless `server` configures it: these tests are about the
        // client, not about who may call.
        let builder = A2aServer::builder(agent_card.clone(), ScriptAgent)
            .authentication(a2a_server::auth::Authentication::disabled());
        let built = server(builder).build().expect("the server builds");
        let router = built.router();
        tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        let grpc_router = built.grpc_router();
        tokio::spawn(async move {
            axum::serve(grpc_listener, grpc_router).await.unwrap();
        });
        Self {
            addr,
            grpc_addr,
            card: agent_card,
            server: built,
        }
    }

    /// `http://127.0.0.1:port`.
    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:port` of the gRPC listener.
    pub fn grpc_url(&self) -> String {
        format!("http://{}", self.grpc_addr)
    }

    /// A client for `binding`, from the card.
    pub fn client(&self, binding: &ProtocolBinding) -> A2aClient {
        A2aClient::builder()
            .card(self.card.clone())
            .prefer_binding(binding.clone())
            .request_timeout(Duration::from_secs(20))
            .build()
            .unwrap()
    }
}

/// An agent that does what the message text says:
/// - `reply`: replies with the message `replied`;
/// - `ask`: asks for input (INPUT_REQUIRED);
/// - `refuse REASON`: refuses with the error of that `ErrorInfo` reason;
/// - `slow N MS`: WORKING, then N artifacts `chunk i` (id `chunk-i`) MS apart, then COMPLETED;
/// - `wait`: WORKING until canceled;
/// - anything else: one artifact with the text, then COMPLETED.
pub struct ScriptAgent;

#[async_trait::async_trait]
impl AgentExecutor for ScriptAgent {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let text = context.text();
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["reply"] => updater.reply("replied").await?,
            ["ask"] => updater.require_input("what else?").await?,
            ["refuse", reason] => {
                let kind = ErrorKind::from_reason(reason).expect("a known reason");
                return Err(ExecutorError::Refuse(A2aError::from(kind)));
            }
            ["slow", steps, millis] => {
                let steps: usize = steps.parse().unwrap();
                let pause = Duration::from_millis(millis.parse().unwrap());
                updater.working("starting").await?;
                for step in 0..steps {
                    tokio::select! {
                        () = tokio::time::sleep(pause) => {}
                        () = context.cancellation.cancelled() => return Ok(()),
                    }
                    updater
                        .add_artifact(
                            Artifact::from_text(format!("chunk {step}"))
                                .with_id(format!("chunk-{step}")),
                        )
                        .await?;
                }
                updater.complete(()).await?;
            }
            ["wait"] => {
                updater.working("waiting").await?;
                context.cancellation.cancelled().await;
            }
            _ => {
                updater
                    .add_artifact(Artifact::from_text(text.clone()))
                    .await?;
                updater.complete(()).await?;
            }
        }
        Ok(())
    }
}

/// One request a [`Mock`] received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: http::Method,
    pub uri: http::Uri,
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

impl Recorded {
    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

type Responder = dyn Fn(&Recorded, usize) -> Response + Send + Sync;

/// An HTTP server answering every request with `respond(request, index)`, and recording it.
#[derive(Clone)]
pub struct Mock {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Mock {
    pub async fn start(
        respond: impl Fn(&Recorded, usize) -> Response + Send + Sync + 'static,
    ) -> Self {
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let respond: Arc<Responder> = Arc::new(respond);
        let recorded = Arc::clone(&requests);
        let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
            let recorded = Arc::clone(&recorded);
            let respond = Arc::clone(&respond);
            async move {
                let (parts, body) = request.into_parts();
                let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
                let request = Recorded {
                    method: parts.method,
                    uri: parts.uri,
                    headers: parts.headers,
                    body,
                };
                let index = {
                    let mut requests = recorded.lock().unwrap();
                    requests.push(request.clone());
                    requests.len() - 1
                };
                respond(&request, index)
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { addr, requests }
    }

    /// `http://127.0.0.1:port` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}

/// A JSON response.
pub fn json_response(status: u16, body: &serde_json::Value) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

/// A JSON-RPC success response with `result`.
pub fn jsonrpc_result(result: serde_json::Value) -> Response {
    let mut body = serde_json::json!({"jsonrpc": "2.0", "id": 1});
    body["result"] = result;
    json_response(200, &body)
}

/// A completed task as JSON.
pub fn task_json(id: &str, state: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "contextId": "c1", "status": {"state": state}})
}
