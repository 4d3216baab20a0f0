//! Traces across processes: `a2a send` → `a2a gateway` → `a2a serve` → a push receiver, all
//! exporting over OTLP/HTTP (protobuf) to a collector in the test, carry one trace id with
//! parent links that follow the calls; on each binding the caller's `traceparent` is the
//! parent of the agent's request span; and OTLP over gRPC delivers the same spans.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use prost::Message as _;

use crate::client_mock::Run;
use crate::support::{Server, a2a, eventually};

/// One exported span, as the collector got it.
#[derive(Debug, Clone)]
struct Collected {
    service: String,
    name: String,
    trace_id: String,
    span_id: String,
    parent: String,
    attributes: HashMap<String, String>,
}

impl Collected {
    fn attribute(&self, key: &str) -> &str {
        self.attributes.get(key).map_or("", String::as_str)
    }
}

/// An OTLP collector: over HTTP, `POST /v1/traces` with a protobuf body; over gRPC, the
/// `TraceService/Export` call.
struct Collector {
    url: String,
    protocol: &'static str,
    spans: Arc<Mutex<Vec<Collected>>>,
}

/// The gRPC side of a [`Collector`].
#[derive(Clone)]
struct GrpcSink(Arc<Mutex<Vec<Collected>>>);

#[tonic::async_trait]
impl TraceService for GrpcSink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.0
            .lock()
            .unwrap()
            .extend(collected(request.into_inner()));
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

impl Collector {
    /// A collector of OTLP over gRPC (HTTP/2 in the clear).
    async fn start_grpc() -> Self {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let service = TraceServiceServer::new(GrpcSink(Arc::clone(&spans)));
        let router = axum::Router::new().route_service(
            "/opentelemetry.proto.collector.trace.v1.TraceService/{rpc}",
            service,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self {
            url,
            protocol: "grpc",
            spans,
        }
    }

    async fn start() -> Self {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&spans);
        let router = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(move |body: axum::body::Bytes| {
                let sink = Arc::clone(&sink);
                async move {
                    let request = ExportTraceServiceRequest::decode(body).unwrap();
                    sink.lock().unwrap().extend(collected(request));
                    (
                        [(http::header::CONTENT_TYPE, "application/x-protobuf")],
                        ExportTraceServiceResponse::default().encode_to_vec(),
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self {
            url,
            protocol: "http/protobuf",
            spans,
        }
    }

    /// The variables that make an `a2a` process export here, quickly.
    fn env(&self) -> [(&'static str, String); 3] {
        [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", self.url.clone()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", self.protocol.to_owned()),
            ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
        ]
    }

    fn spans(&self) -> Vec<Collected> {
        self.spans.lock().unwrap().clone()
    }

    /// Waits until a span matches `wanted`; the first that does.
    async fn wait_for(&self, what: &str, wanted: impl Fn(&Collected) -> bool) -> Collected {
        let found = eventually(Duration::from_secs(20), || async {
            self.spans().into_iter().find(|span| wanted(span))
        })
        .await;
        found.unwrap_or_else(|| panic!("no {what} span; got:\n{:#?}", self.spans()))
    }
}

fn collected(request: ExportTraceServiceRequest) -> Vec<Collected> {
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource_spans.resource.unwrap_or_default();
        let service = attributes(&resource.attributes)
            .remove("service.name")
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                spans.push(Collected {
                    service: service.clone(),
                    name: span.name,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                    attributes: attributes(&span.attributes),
                });
            }
        }
    }
    spans
}

fn attributes(pairs: &[KeyValue]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|pair| {
            let value = match pair.value.as_ref().and_then(|value| value.value.as_ref()) {
                Some(AnyValue::StringValue(text)) => text.clone(),
                Some(AnyValue::IntValue(number)) => number.to_string(),
                Some(AnyValue::BoolValue(flag)) => flag.to_string(),
                Some(other) => format!("{other:?}"),
                None => String::new(),
            };
            (pair.key.clone(), value)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A push receiver recording the `traceparent` of each delivery.
async fn push_receiver(seen: Arc<Mutex<Vec<String>>>) -> String {
    let router = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: http::HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                let traceparent = headers
                    .get("traceparent")
                    .and_then(|value| value.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                seen.lock().unwrap().push(traceparent);
                http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// `a2a ARGS…` with the collector's variables, off the runtime's threads.
async fn traced_cli(collector: &Collector, args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let env = collector.env();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli_with_env(&args, &env)
    })
    .await
    .unwrap()
}

/// Runs `a2a ARGS…` with `env` set.
fn cli_with_env(args: &[&str], env: &[(&'static str, String)]) -> Run {
    let output = a2a().envs(env.iter().cloned()).args(args).output().unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// `(trace id, parent span id)` of a W3C `traceparent`.
fn parse_traceparent(value: &str) -> (String, String) {
    let fields: Vec<&str> = value.split('-').collect();
    assert_eq!(fields.len(), 4, "not a traceparent: {value:?}");
    (fields[1].to_owned(), fields[2].to_owned())
}

#[tokio::test]
async fn one_trace_runs_from_the_client_through_the_gateway_and_the_agent_to_the_push_receiver() {
    let collector = Collector::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook = push_receiver(Arc::clone(&seen)).await;

    let mut command = a2a();
    command.envs(collector.env());
    command.args(["gateway", "--shutdown-grace", "1s", "--bind", "127.0.0.1:0"]);
    let mut gateway = Server::spawn(command, "a2a gateway");
    let mut command = a2a();
    command.envs(collector.env());
    let mut agent = Server::start_command(
        command,
        &[
            "--register",
            &gateway.url,
            "--agent-id",
            "traced-01",
            "--heartbeat-interval",
            "250ms",
            "--push-notifications",
            "--allow-local-webhooks",
        ],
    );
    let http = reqwest::Client::new();
    let registered = eventually(Duration::from_secs(20), || async {
        let agents: serde_json::Value = http
            .get(format!("{}/agents", gateway.url))
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        agents.to_string().contains("traced-01").then_some(())
    })
    .await;
    assert!(registered.is_some(), "gateway log:\n{}", gateway.log());

    let run = traced_cli(
        &collector,
        &[
            "send",
            &format!("{}/a2a/traced-01", gateway.url),
            "hello traces",
            "--push-url",
            &hook,
            "--push-token",
            "t-1",
        ],
    )
    .await;
    run.ok();
    let delivered = eventually(Duration::from_secs(20), || async {
        let seen = seen.lock().unwrap().clone();
        (!seen.is_empty()).then_some(seen)
    })
    .await
    .unwrap_or_else(|| panic!("no push delivery; agent log:\n{}", agent.log()));

    // The client's span is the root.
    let client = collector
        .wait_for("client", |span| span.name == "a2a send")
        .await;
    assert_eq!(client.service, "a2a");
    assert_eq!(client.parent, "", "{client:?}");
    let trace = client.trace_id.clone();

    // The agent's SendMessage request span, whose parent is a gateway span that is the
    // client's child.
    let request = collector
        .wait_for("agent request", |span| {
            span.service == "a2a-serve"
                && span.attribute("operation").contains("end")
                && !span.attribute("task_id").is_empty()
        })
        .await;
    assert_eq!(request.trace_id, trace, "{request:?}");
    assert!(
        request.attribute("binding").starts_with("JSONRPC"),
        "{request:?}"
    );
    assert!(!request.attribute("task_id").is_empty(), "{request:?}");
    assert!(!request.attribute("context_id").is_empty(), "{request:?}");
    let hop = collector
        .wait_for("gateway", |span| span.span_id == request.parent)
        .await;
    assert_eq!(hop.service, "a2a-gateway", "{hop:?}");
    assert_eq!(hop.name, "proxy traced-01", "{hop:?}");
    assert_eq!(hop.attribute("agent_id"), "traced-01", "{hop:?}");
    assert!(hop.attribute("operation").contains("end"), "{hop:?}");
    assert_eq!(hop.trace_id, trace);
    assert_eq!(
        hop.parent, client.span_id,
        "the gateway's span is the client's child"
    );

    // The turn is the request's child; the store calls and push deliveries are in the trace.
    let turn = collector
        .wait_for("turn", |span| {
            span.name == "a2a.turn" && span.trace_id == trace
        })
        .await;
    assert_eq!(turn.parent, request.span_id);
    assert_eq!(turn.attribute("task_id"), request.attribute("task_id"));
    let store = collector
        .wait_for("store", |span| {
            span.name == "a2a.store" && span.trace_id == trace
        })
        .await;
    assert!(
        store.parent == turn.span_id || store.parent == request.span_id,
        "{store:?}"
    );
    let push = collector
        .wait_for("push delivery", |span| {
            span.name == "a2a.push" && span.trace_id == trace
        })
        .await;
    assert!(
        push.parent == turn.span_id || push.parent == request.span_id,
        "{push:?}"
    );

    // Each delivery the receiver got names the trace, its parent a push delivery span (which
    // is exported once it ended, after the receiver answered).
    for traceparent in delivered {
        let (trace_id, parent) = parse_traceparent(&traceparent);
        assert_eq!(trace_id, trace, "{traceparent}");
        let delivery = collector
            .wait_for("the delivery's", |span| span.span_id == parent)
            .await;
        assert_eq!(delivery.name, "a2a.push", "{delivery:?}");
    }
    agent.terminate();
    gateway.terminate();
}

#[tokio::test]
async fn on_every_binding_the_callers_context_is_the_parent_of_the_request_span() {
    let collector = Collector::start().await;
    let mut command = a2a();
    command.envs(collector.env());
    let mut agent = Server::start_command(command, &["--grpc-bind", "127.0.0.1:0"]);
    let cases = [
        ("JSONRPC", "1.0", "JSONRPC"),
        ("HTTP+JSON", "1.0", "HTTP+JSON"),
        ("GRPC", "1.0", "GRPC"),
        ("JSONRPC", "0.3", "JSONRPC v0.3"),
    ];
    for (binding, version, recorded) in cases {
        let text = format!("over {recorded}");
        let run = traced_cli(
            &collector,
            &[
                "send",
                &agent.url,
                &text,
                "--binding",
                binding,
                "--protocol-version",
                version,
            ],
        )
        .await;
        run.ok();
        // Each `a2a send` exports its own root span before it exits; the newest is ours.
        let clients: Vec<Collected> = collector
            .spans()
            .into_iter()
            .filter(|span| span.name == "a2a send")
            .collect();
        let client = clients.last().unwrap().clone();
        let request = collector
            .wait_for(recorded, |span| {
                span.service == "a2a-serve"
                    && span.attribute("binding") == recorded
                    && span.trace_id == client.trace_id
                    && span.attribute("operation").contains("end")
            })
            .await;
        assert_eq!(
            request.parent, client.span_id,
            "{binding} {version}: {request:?}"
        );
    }
    agent.terminate();
}

#[tokio::test]
async fn spans_go_over_otlp_grpc_from_a_server_and_a_command_that_exits() {
    let collector = Collector::start_grpc().await;
    let mut command = a2a();
    command.envs(collector.env());
    let mut agent = Server::start_command(command, &[]);
    let run = traced_cli(&collector, &["send", &agent.url, "over gRPC export"]).await;
    run.ok();
    // The command's span was sent before it exited, after its own runtime had stopped.
    let client = collector
        .wait_for("a2a send", |span| {
            span.service == "a2a" && span.name == "a2a send"
        })
        .await;
    // The agent's request span, a child of the command's, came the same way.
    let request = collector
        .wait_for("the agent's request", |span| {
            span.service == "a2a-serve" && span.parent == client.span_id
        })
        .await;
    assert_eq!(request.trace_id, client.trace_id, "{request:?}");
    agent.terminate();
}
