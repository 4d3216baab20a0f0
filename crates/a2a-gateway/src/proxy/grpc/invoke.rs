//! One call to a gRPC agent: the [`Operation`] sent as its rpc with the service parameters
//! as metadata, answered within the deadline, and the answer read back into ProtoJSON, or
//! sorted into the agent's own A2A error and the gateway's errors.

use std::time::Duration;

use a2a_grpc::proto;
use a2a_grpc::proto::a2a_service_client::A2aServiceClient;
use a2a_types::A2aError;
use futures::stream::BoxStream;
use futures::{StreamExt as _, TryFutureExt as _};
use http::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde::Serialize;
use serde_json::{Value, json};
use tonic::Extensions;
use tonic::metadata::MetadataMap;
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

use super::super::error::GatewayError;
use super::operation::Operation;

/// Why a call to a gRPC agent gave no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The agent answered with its own error, which the client gets as it is.
    Agent(A2aError),
    /// The gateway's own error: the agent could not be reached, took too long, or answered
    /// what is not an answer.
    Gateway(GatewayError),
}

/// The stream elements of a streaming call, each a ProtoJSON `StreamResponse`.
pub(crate) type Events = BoxStream<'static, Result<Value, Failure>>;

/// What a gRPC agent answered.
pub(crate) enum Answer {
    /// The ProtoJSON of the response message.
    Unary(Value),
    /// The stream, still open.
    Stream(Events),
}

/// What one call needs besides the operation.
#[derive(Debug)]
pub(crate) struct Target<'a> {
    pub(crate) channel: Channel,
    pub(crate) agent_id: &'a str,
    /// The headers the gateway forwards to agents (see `headers::to_agent`), sent as
    /// metadata.
    pub(crate) headers: HeaderMap,
    pub(crate) deadline: Duration,
    pub(crate) max_response_bytes: usize,
}

/// Calls `operation` on the agent. A unary call must be answered by the deadline, which the
/// agent is told in `grpc-timeout`; a stream must start by then and may then run as long as
/// it keeps sending (the relay's idle timeout watches it).
///
/// # Errors
/// [`Failure::Agent`] for the agent's own status; [`Failure::Gateway`] with
/// [`GatewayError::Timeout`], [`GatewayError::Unreachable`],
/// [`GatewayError::ResponseTooLarge`] or [`GatewayError::InvalidResponse`].
pub(crate) async fn invoke(operation: Operation, target: Target<'_>) -> Result<Answer, Failure> {
    let agent_id = target.agent_id.to_owned();
    let streaming = operation.is_streaming();
    let mut client =
        A2aServiceClient::new(target.channel).max_decoding_message_size(target.max_response_bytes);
    let deadline = target.deadline;
    let envelope = Envelope {
        metadata: metadata(target.headers),
        timeout: (!streaming).then_some(deadline),
    };
    let id = agent_id.as_str();
    let exchange = async {
        match operation {
            Operation::SendMessage(message) => {
                unary(
                    client.send_message(envelope.wrap(proto::SendMessageRequest::from(message))),
                    id,
                    a2a_types::SendMessageResponse::try_from,
                )
                .await
            }
            Operation::GetTask(message) => {
                unary(
                    client.get_task(envelope.wrap(proto::GetTaskRequest::from(message))),
                    id,
                    a2a_types::Task::try_from,
                )
                .await
            }
            Operation::ListTasks(message) => {
                unary(
                    client.list_tasks(envelope.wrap(proto::ListTasksRequest::from(message))),
                    id,
                    a2a_types::ListTasksResponse::try_from,
                )
                .await
            }
            Operation::CancelTask(message) => {
                unary(
                    client.cancel_task(envelope.wrap(proto::CancelTaskRequest::from(message))),
                    id,
                    a2a_types::Task::try_from,
                )
                .await
            }
            Operation::CreateTaskPushNotificationConfig(message) => {
                unary(
                    client.create_task_push_notification_config(
                        envelope.wrap(proto::TaskPushNotificationConfig::from(message)),
                    ),
                    id,
                    a2a_types::TaskPushNotificationConfig::try_from,
                )
                .await
            }
            Operation::GetTaskPushNotificationConfig(message) => {
                unary(
                    client.get_task_push_notification_config(
                        envelope.wrap(proto::GetTaskPushNotificationConfigRequest::from(message)),
                    ),
                    id,
                    a2a_types::TaskPushNotificationConfig::try_from,
                )
                .await
            }
            Operation::ListTaskPushNotificationConfigs(message) => {
                unary(
                    client.list_task_push_notification_configs(
                        envelope.wrap(proto::ListTaskPushNotificationConfigsRequest::from(message)),
                    ),
                    id,
                    a2a_types::ListTaskPushNotificationConfigsResponse::try_from,
                )
                .await
            }
            Operation::DeleteTaskPushNotificationConfig(message) => {
                unary(
                    client.delete_task_push_notification_config(envelope.wrap(
                        proto::DeleteTaskPushNotificationConfigRequest::from(message),
                    )),
                    id,
                    |()| Ok::<_, a2a_grpc::convert::ConvertError>(json!({})),
                )
                .await
            }
            Operation::GetExtendedAgentCard(message) => {
                unary(
                    client.get_extended_agent_card(
                        envelope.wrap(proto::GetExtendedAgentCardRequest::from(message)),
                    ),
                    id,
                    a2a_types::AgentCard::try_from,
                )
                .await
            }
            Operation::SendStreamingMessage(message) => {
                let call = client.send_streaming_message(
                    envelope.wrap(proto::SendMessageRequest::from(message)),
                );
                stream(call.await, id)
            }
            Operation::SubscribeToTask(message) => {
                let call = client
                    .subscribe_to_task(envelope.wrap(proto::SubscribeToTaskRequest::from(message)));
                stream(call.await, id)
            }
        }
    };
    tokio::time::timeout(deadline, exchange)
        .unwrap_or_else(|_elapsed| {
            Err(Failure::Gateway(GatewayError::Timeout {
                agent_id: agent_id.clone(),
            }))
        })
        .await
}

/// The answer of a unary rpc, converted by `convert` and written as ProtoJSON.
async fn unary<P, T, E>(
    call: impl Future<Output = Result<tonic::Response<P>, tonic::Status>>,
    agent_id: &str,
    convert: impl FnOnce(P) -> Result<T, E>,
) -> Result<Answer, Failure>
where
    T: Serialize,
    E: std::fmt::Display,
{
    let response = call.await.map_err(|status| failure(&status, agent_id))?;
    let value = convert(response.into_inner())
        .map_err(|error| invalid(agent_id, &error))
        .and_then(|answer| to_json(&answer, agent_id))?;
    Ok(Answer::Unary(value))
}

/// The elements of a server-streaming rpc as ProtoJSON, ending after the first failure.
fn stream(
    call: Result<tonic::Response<tonic::Streaming<proto::StreamResponse>>, tonic::Status>,
    agent_id: &str,
) -> Result<Answer, Failure> {
    let events = call
        .map_err(|status| failure(&status, agent_id))?
        .into_inner();
    let agent_id = agent_id.to_owned();
    let events = events.map(move |element| {
        let element = element.map_err(|status| failure(&status, &agent_id))?;
        let response = a2a_types::StreamResponse::try_from(element)
            .map_err(|error| invalid(&agent_id, &error))?;
        to_json(&response, &agent_id)
    });
    let mut failed = false;
    let events = events.take_while(move |element| {
        let go_on = !failed;
        failed |= element.is_err();
        futures::future::ready(go_on)
    });
    Ok(Answer::Stream(events.boxed()))
}

/// The status of a failed call as the client should learn it. A status with an `ErrorInfo`
/// is the agent's own error. Without one, the status is the transport's or the agent
/// runtime's: unreachable when it could not be delivered, a timeout when the deadline
/// passed, too large when the answer broke the size cap; anything else is the agent's
/// error as the status code classifies it.
fn failure(status: &tonic::Status, agent_id: &str) -> Failure {
    let agent_id_owned = || agent_id.to_owned();
    if status.get_details_error_info().is_none() {
        let gateway = match status.code() {
            tonic::Code::Unavailable => Some(GatewayError::Unreachable {
                agent_id: agent_id_owned(),
            }),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => Some(GatewayError::Timeout {
                agent_id: agent_id_owned(),
            }),
            // The client's own decoder refuses a message over the cap with OUT_OF_RANGE,
            // a code no A2A error uses.
            tonic::Code::OutOfRange => Some(GatewayError::ResponseTooLarge {
                agent_id: agent_id_owned(),
            }),
            tonic::Code::Ok
            | tonic::Code::Unknown
            | tonic::Code::InvalidArgument
            | tonic::Code::NotFound
            | tonic::Code::AlreadyExists
            | tonic::Code::PermissionDenied
            | tonic::Code::ResourceExhausted
            | tonic::Code::FailedPrecondition
            | tonic::Code::Aborted
            | tonic::Code::Unimplemented
            | tonic::Code::Internal
            | tonic::Code::DataLoss
            | tonic::Code::Unauthenticated => None,
        };
        if let Some(error) = gateway {
            tracing::warn!(agent_id, code = ?status.code(), "agent gRPC call failed");
            return Failure::Gateway(error);
        }
    }
    Failure::Agent(a2a_grpc::status::from_status(status))
}

fn invalid(agent_id: &str, error: &impl std::fmt::Display) -> Failure {
    Failure::Gateway(GatewayError::invalid_response(agent_id, error.to_string()))
}

fn to_json(answer: &impl Serialize, agent_id: &str) -> Result<Value, Failure> {
    serde_json::to_value(answer).map_err(|error| invalid(agent_id, &error))
}

/// What every request of a call carries besides its message.
struct Envelope {
    metadata: MetadataMap,
    /// Sent as `grpc-timeout`; `None` for streams, which may outlive the deadline.
    timeout: Option<Duration>,
}

impl Envelope {
    fn wrap<T>(&self, message: T) -> tonic::Request<T> {
        let mut request =
            tonic::Request::from_parts(self.metadata.clone(), Extensions::default(), message);
        if let Some(timeout) = self.timeout {
            request.set_timeout(timeout);
        }
        request
    }
}

/// The forwarded headers as gRPC metadata, less those that describe an HTTP body.
fn metadata(mut headers: HeaderMap) -> MetadataMap {
    headers.remove(CONTENT_TYPE);
    headers.remove(ACCEPT);
    MetadataMap::from_headers(headers)
}
