//! [`GrpcChannel`]: the HTTP/2 channel to a gRPC interface, and the calls over it: unary
//! operations and the two server streams.

use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

use a2a_grpc::convert::ConvertError;
use a2a_grpc::proto;
use a2a_grpc::proto::a2a_service_client::A2aServiceClient;
use a2a_types::StreamResponse;
use a2a_types::jsonrpc::Method;
use futures::{Stream, StreamExt as _};
use tonic::metadata::MetadataMap;
use tonic::transport::{Channel, Endpoint};

use super::answer::Answer;
use super::status::client_error;
use super::tls::client_tls;
use crate::binding::Call;
use crate::error::ClientError;
use crate::transport::TlsOptions;

/// The events of one gRPC stream, as `a2a-types`.
pub(crate) type GrpcEvents =
    Pin<Box<dyn Stream<Item = Result<StreamResponse, ClientError>> + Send>>;

/// A lazily connected channel to one gRPC address: it connects on the first call and
/// reconnects after a failure, and every clone of the client shares it.
pub(crate) struct GrpcChannel {
    endpoint: Endpoint,
    url: url::Url,
    max_message_size: usize,
    // Made on first use: making a channel spawns its worker, which needs a runtime, and
    // building a client must not.
    client: OnceLock<A2aServiceClient<Channel>>,
}

impl std::fmt::Debug for GrpcChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrpcChannel")
            .field("url", &self.url.as_str())
            .finish_non_exhaustive()
    }
}

impl GrpcChannel {
    /// A channel to `url` (`https` for TLS with `tls`, `http` for plaintext HTTP/2), giving up
    /// connecting after `connect_timeout` and refusing answers over `max_message_size` bytes.
    ///
    /// # Errors
    /// [`ClientError::Config`] when tonic refuses the address or the TLS settings.
    pub(crate) fn new(
        url: &url::Url,
        tls: &TlsOptions,
        connect_timeout: Duration,
        max_message_size: usize,
    ) -> Result<Self, ClientError> {
        let origin = url.origin().ascii_serialization();
        let mut endpoint = Endpoint::from_shared(origin)
            .map_err(|error| ClientError::config(format!("invalid gRPC address: {error}")))?
            .connect_timeout(connect_timeout)
            .tcp_nodelay(true);
        if url.scheme() == "https" {
            endpoint = endpoint.tls_config(client_tls(tls)).map_err(|error| {
                // The TLS stack's reason is the useful part; it never holds key material.
                let reason = std::error::Error::source(&error)
                    .map(|source| format!(": {source}"))
                    .unwrap_or_default();
                ClientError::config(format!("cannot set up TLS for gRPC{reason}"))
            })?;
        }
        Ok(Self {
            endpoint,
            url: url.clone(),
            max_message_size,
            client: OnceLock::new(),
        })
    }

    fn client(&self) -> A2aServiceClient<Channel> {
        self.client
            .get_or_init(|| {
                A2aServiceClient::new(self.endpoint.connect_lazy())
                    .max_decoding_message_size(self.max_message_size)
            })
            .clone()
    }

    fn fail(&self, status: tonic::Status) -> ClientError {
        client_error(&self.url, status, self.max_message_size)
    }

    /// Makes the unary call `call` with `metadata`, which the server must answer within
    /// `deadline` (sent as `grpc-timeout`).
    pub(crate) async fn unary(
        &self,
        call: Call,
        metadata: MetadataMap,
        deadline: Duration,
    ) -> Result<Answer, ClientError> {
        let mut client = self.client();
        let method = call.method();
        let fail = |status| self.fail(status);
        // One rpc: the request in its protobuf form with the metadata and deadline, the
        // answer decoded into `$answer`.
        macro_rules! rpc {
            ($rpc:ident($request:expr) as $proto:ty) => {
                client
                    .$rpc(with_metadata(
                        <$proto>::from($request),
                        metadata,
                        Some(deadline),
                    ))
                    .await
                    .map_err(fail)?
            };
            ($rpc:ident($request:expr) as $proto:ty => $answer:path) => {
                $answer(decode(method, rpc!($rpc($request) as $proto))?)
            };
        }
        Ok(match call {
            Call::SendMessage(send) => {
                rpc!(send_message(send) as proto::SendMessageRequest => Answer::SendMessage)
            }
            Call::GetTask(get) => rpc!(get_task(get) as proto::GetTaskRequest => Answer::Task),
            Call::ListTasks(list) => {
                rpc!(list_tasks(list) as proto::ListTasksRequest => Answer::Tasks)
            }
            Call::CancelTask(cancel) => {
                rpc!(cancel_task(cancel) as proto::CancelTaskRequest => Answer::Task)
            }
            Call::CreatePushConfig(config) => rpc!(
                create_task_push_notification_config(config)
                    as proto::TaskPushNotificationConfig => Answer::PushConfig
            ),
            Call::GetPushConfig(get) => rpc!(
                get_task_push_notification_config(get)
                    as proto::GetTaskPushNotificationConfigRequest => Answer::PushConfig
            ),
            Call::ListPushConfigs(list) => rpc!(
                list_task_push_notification_configs(list)
                    as proto::ListTaskPushNotificationConfigsRequest => Answer::PushConfigs
            ),
            Call::DeletePushConfig(delete) => {
                rpc!(delete_task_push_notification_config(delete)
                    as proto::DeleteTaskPushNotificationConfigRequest);
                Answer::Deleted
            }
            Call::GetExtendedAgentCard(get) => rpc!(
                get_extended_agent_card(get) as proto::GetExtendedAgentCardRequest => Answer::Card
            ),
            Call::SendStreamingMessage(_) | Call::SubscribeToTask(_) => {
                return Err(ClientError::config(format!("{method} is a stream")));
            }
        })
    }

    /// Opens the stream of `call` (SendStreamingMessage or SubscribeToTask) with `metadata`;
    /// returns once the server answered with its headers, or refused. No deadline is sent: it
    /// would bound the whole stream, which may rightly stay open for hours.
    pub(crate) async fn open_stream(
        &self,
        call: Call,
        metadata: MetadataMap,
    ) -> Result<GrpcEvents, ClientError> {
        let mut client = self.client();
        let method = call.method();
        let opened = match call {
            Call::SendStreamingMessage(message) => {
                let sent = proto::SendMessageRequest::from(message);
                client
                    .send_streaming_message(with_metadata(sent, metadata, None))
                    .await
            }
            Call::SubscribeToTask(subscribe) => {
                let sent = proto::SubscribeToTaskRequest::from(subscribe);
                client
                    .subscribe_to_task(with_metadata(sent, metadata, None))
                    .await
            }
            Call::SendMessage(_)
            | Call::GetTask(_)
            | Call::ListTasks(_)
            | Call::CancelTask(_)
            | Call::CreatePushConfig(_)
            | Call::GetPushConfig(_)
            | Call::ListPushConfigs(_)
            | Call::DeletePushConfig(_)
            | Call::GetExtendedAgentCard(_) => {
                return Err(ClientError::config(format!("{method} is not a stream")));
            }
        };
        let events = opened.map_err(|status| self.fail(status))?.into_inner();
        let url = self.url.clone();
        let limit = self.max_message_size;
        Ok(Box::pin(events.map(move |event| match event {
            Ok(event) => {
                StreamResponse::try_from(event).map_err(|error| {
                    invalid(Method::SendStreamingMessage, "a stream event", &error)
                })
            }
            Err(status) => Err(client_error(&url, status, limit)),
        })))
    }
}

/// A request of `message` carrying `metadata`, and `deadline` as `grpc-timeout`.
fn with_metadata<T>(
    message: T,
    metadata: MetadataMap,
    deadline: Option<Duration>,
) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = metadata;
    if let Some(deadline) = deadline {
        request.set_timeout(deadline);
    }
    request
}

/// The `a2a-types` form of an answer; one that has none breaks the protocol.
fn decode<P, T>(method: Method, answer: tonic::Response<P>) -> Result<T, ClientError>
where
    T: TryFrom<P, Error = ConvertError>,
{
    T::try_from(answer.into_inner()).map_err(|error| invalid(method, "the answer", &error))
}

fn invalid(method: Method, what: &str, error: &ConvertError) -> ClientError {
    ClientError::invalid_response(format!("{what} to {method} is not valid: {error}"))
}
