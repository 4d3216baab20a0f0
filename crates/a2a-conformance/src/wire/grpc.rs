//! The gRPC binding's wire.
//!
//! The gRPC binding: `lf.a2a.v1.A2AService` over HTTP/2, service parameters in metadata, and
//! every message turned into its ProtoJSON form (through `a2a-types`) so rules read it as they
//! read the JSON bindings.

use std::time::Duration;

use a2a_grpc::proto;
use a2a_grpc::proto::a2a_service_client::A2aServiceClient;
use a2a_types as types;
use http::HeaderMap;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::time::Instant;
use tonic::metadata::{MetadataKey, MetadataMap, MetadataValue};
use tonic::transport::{Channel, Endpoint};
use tonic_types::StatusExt as _;

use super::Wire;
use super::exchange::{CallOptions, ErrorCode, Exchange, FINAL_GRACE, Op, StreamRecord, WireError};
use super::peer::HttpPeer;
use super::sse::{Final, is_final};

/// One gRPC interface.
#[derive(Debug)]
pub(crate) struct GrpcWire {
    address: url::Url,
    client: A2aServiceClient<Channel>,
    /// The credentials and extra headers, as the HTTP bindings send them.
    peer: HttpPeer,
}

impl GrpcWire {
    /// A lazily connected channel to `address` (`http://` for h2c, `https://` for TLS).
    ///
    /// # Errors
    /// An address tonic cannot use.
    pub(crate) fn new(
        address: url::Url,
        peer: HttpPeer,
        connect: Duration,
    ) -> Result<Self, String> {
        let mut endpoint = Endpoint::from_shared(address.origin().ascii_serialization())
            .map_err(|error| format!("invalid gRPC address {address}: {error}"))?
            .connect_timeout(connect);
        if address.scheme() == "https" {
            endpoint = endpoint
                .tls_config(crate::tls::grpc(peer.tls.as_ref()))
                .map_err(|error| format!("cannot set up TLS for {address}: {error}"))?;
        }
        Ok(Self {
            address,
            client: A2aServiceClient::new(endpoint.connect_lazy()),
            peer,
        })
    }

    async fn metadata(&self, options: &CallOptions) -> Result<MetadataMap, WireError> {
        let mut headers = HeaderMap::new();
        for (name, value) in &self.peer.headers {
            headers.insert(name.clone(), value.clone());
        }
        if let Some(auth) = &self.peer.auth {
            let mut url = self.address.clone();
            auth.apply(&mut url, &mut headers)
                .await
                .map_err(|error| WireError::broken(format!("credentials: {error}")))?;
        }
        let mut metadata = MetadataMap::new();
        for (name, value) in &headers {
            if let (Ok(key), Ok(value)) = (
                MetadataKey::from_bytes(name.as_str().as_bytes()),
                MetadataValue::try_from(value.as_bytes()),
            ) {
                metadata.insert(key, value);
            }
        }
        let mut parameter = |key: &'static str, value: &Option<String>| {
            if let Some(value) = value
                && let Ok(value) = MetadataValue::try_from(value.as_str())
            {
                metadata.insert(key, value);
            }
        };
        parameter("a2a-version", &options.version);
        parameter("a2a-extensions", &options.extensions);
        Ok(metadata)
    }

    fn sent(&self, op: Op, params: &Value, options: &CallOptions) -> String {
        format!(
            "gRPC {}/lf.a2a.v1.A2AService/{} (a2a-version: {}) {params}",
            self.address.origin().ascii_serialization(),
            op.method(),
            options.version.as_deref().unwrap_or("none"),
        )
    }
}

/// The `a2a-types` form of the request, for its protobuf form.
fn typed<T: DeserializeOwned>(params: &Value) -> Result<T, WireError> {
    serde_json::from_value(params.clone()).map_err(|error| WireError {
        code: ErrorCode::Inexpressible(format!("protobuf cannot carry this request: {error}")),
        reason: None,
        domain: None,
        untyped_details: false,
    })
}

/// The ProtoJSON of an answer, through its `a2a-types` form.
fn json_of<P, T>(message: P) -> Result<Value, WireError>
where
    T: TryFrom<P, Error = a2a_grpc::convert::ConvertError> + Serialize,
{
    let typed = T::try_from(message)
        .map_err(|error| WireError::broken(format!("the answer is not valid: {error}")))?;
    serde_json::to_value(typed).map_err(|error| WireError::broken(error.to_string()))
}

/// The error of a status, with its `ErrorInfo`.
fn status_error(status: &tonic::Status) -> WireError {
    let details = status.get_error_details();
    let info = details.error_info();
    WireError {
        code: ErrorCode::Grpc(status.code()),
        reason: info.map(|info| info.reason.clone()),
        domain: info.map(|info| info.domain.clone()),
        untyped_details: false,
    }
}

fn request<T>(message: T, metadata: MetadataMap, timeout: Duration) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = metadata;
    request.set_timeout(timeout);
    request
}

#[async_trait::async_trait]
impl Wire for GrpcWire {
    async fn call(&self, op: Op, params: Value, options: &CallOptions) -> Exchange {
        let sent = self.sent(op, &params, options);
        let result = self.unary(op, &params, options).await;
        let received = match &result {
            Ok(value) => format!("OK {value}"),
            Err(error) => error.describe(),
        };
        Exchange {
            sent,
            received,
            result,
        }
    }

    async fn stream(&self, op: Op, params: Value, options: &CallOptions) -> StreamRecord {
        let sent = self.sent(op, &params, options);
        let deadline = Instant::now() + options.timeout;
        let refused =
            |error: WireError| StreamRecord::refused(sent.clone(), error.describe(), error);
        let metadata = match self.metadata(options).await {
            Ok(metadata) => metadata,
            Err(error) => return refused(error),
        };
        let mut client = self.client.clone();
        let opened = match op {
            Op::SubscribeToTask => match typed::<types::SubscribeToTaskRequest>(&params) {
                Ok(typed) => {
                    client
                        .subscribe_to_task(request(
                            proto::SubscribeToTaskRequest::from(typed),
                            metadata,
                            options.timeout,
                        ))
                        .await
                }
                Err(error) => return refused(error),
            },
            _ => match typed::<types::SendMessageRequest>(&params) {
                Ok(typed) => {
                    client
                        .send_streaming_message(request(
                            proto::SendMessageRequest::from(typed),
                            metadata,
                            options.timeout,
                        ))
                        .await
                }
                Err(error) => return refused(error),
            },
        };
        let mut stream = match opened {
            Ok(response) => response.into_inner(),
            Err(status) => return refused(status_error(&status)),
        };
        let mut record = StreamRecord {
            sent: sent.clone(),
            ..StreamRecord::default()
        };
        let mut final_at: Option<(Instant, Final)> = None;
        loop {
            let until = match final_at {
                Some((at, _)) => (at + FINAL_GRACE).min(deadline),
                None => deadline,
            };
            match tokio::time::timeout_at(until, stream.message()).await {
                Err(_) => {
                    record.open_after_final = matches!(final_at, Some((_, Final::End)));
                    break;
                }
                Ok(Ok(None)) => {
                    record.closed = true;
                    break;
                }
                Ok(Err(status)) => {
                    record.error_event = Some(status_error(&status));
                    break;
                }
                Ok(Ok(Some(message))) => match json_of::<_, types::StreamResponse>(message) {
                    Ok(event) => {
                        if record.received.len() < 4096 {
                            record.received.push_str(&format!("{event}\n"));
                        }
                        if final_at.is_none()
                            && let Some(kind) = is_final(&event)
                        {
                            final_at = Some((Instant::now(), kind));
                        }
                        record.events.push(event);
                    }
                    Err(error) => record.framing.push(error.describe()),
                },
            }
        }
        record
    }
}

impl GrpcWire {
    async fn unary(
        &self,
        op: Op,
        params: &Value,
        options: &CallOptions,
    ) -> Result<Value, WireError> {
        let metadata = self.metadata(options).await?;
        let mut client = self.client.clone();
        let timeout = options.timeout;
        // One rpc: the request's typed and protobuf forms, the answer's back to ProtoJSON.
        macro_rules! rpc {
            ($rpc:ident, $request:ty => $proto:ty, $answer:ty) => {{
                let typed = typed::<$request>(params)?;
                let answer = client
                    .$rpc(request(<$proto>::from(typed), metadata, timeout))
                    .await
                    .map_err(|status| status_error(&status))?;
                json_of::<_, $answer>(answer.into_inner())
            }};
        }
        match op {
            Op::SendMessage | Op::SendStreamingMessage => rpc!(
                send_message,
                types::SendMessageRequest => proto::SendMessageRequest,
                types::SendMessageResponse
            ),
            Op::GetTask => {
                rpc!(get_task, types::GetTaskRequest => proto::GetTaskRequest, types::Task)
            }
            Op::ListTasks => rpc!(
                list_tasks,
                types::ListTasksRequest => proto::ListTasksRequest,
                types::ListTasksResponse
            ),
            Op::CancelTask => rpc!(
                cancel_task,
                types::CancelTaskRequest => proto::CancelTaskRequest,
                types::Task
            ),
            Op::SubscribeToTask => Err(WireError::broken("a stream, not a unary call")),
            Op::CreatePushConfig => rpc!(
                create_task_push_notification_config,
                types::TaskPushNotificationConfig => proto::TaskPushNotificationConfig,
                types::TaskPushNotificationConfig
            ),
            Op::GetPushConfig => rpc!(
                get_task_push_notification_config,
                types::GetTaskPushNotificationConfigRequest
                    => proto::GetTaskPushNotificationConfigRequest,
                types::TaskPushNotificationConfig
            ),
            Op::ListPushConfigs => rpc!(
                list_task_push_notification_configs,
                types::ListTaskPushNotificationConfigsRequest
                    => proto::ListTaskPushNotificationConfigsRequest,
                types::ListTaskPushNotificationConfigsResponse
            ),
            Op::DeletePushConfig => {
                let typed = typed::<types::DeleteTaskPushNotificationConfigRequest>(params)?;
                client
                    .delete_task_push_notification_config(request(
                        proto::DeleteTaskPushNotificationConfigRequest::from(typed),
                        metadata,
                        timeout,
                    ))
                    .await
                    .map_err(|status| status_error(&status))?;
                Ok(Value::Object(serde_json::Map::new()))
            }
            Op::GetExtendedAgentCard => rpc!(
                get_extended_agent_card,
                types::GetExtendedAgentCardRequest => proto::GetExtendedAgentCardRequest,
                types::AgentCard
            ),
        }
    }
}
