//! [`GrpcService`]: each rpc of `A2AService` in the same three steps as the HTTP bindings:
//! settle the call (caller, version, extensions, tenant) and convert the request, run the
//! operation, convert its result or error. Streams carry the same events, in the same order,
//! with the same ending, as SSE.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use a2a_grpc::convert::ConvertError;
use a2a_grpc::proto;
use a2a_grpc::proto::a2a_service_server::A2aService;
use a2a_grpc::status::to_status;
use a2a_types::A2aError;
use futures::{Stream, StreamExt as _};
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};

use super::super::call::{self, resolve_tenant};
use super::deadline;
use crate::handler::{CallContext, EventStream, RequestHandler};

/// The events of a streaming rpc.
pub(super) type Events = Pin<Box<dyn Stream<Item = Result<proto::StreamResponse, Status>> + Send>>;

/// `A2AService` over a [`RequestHandler`].
#[derive(Debug)]
pub(super) struct GrpcService {
    pub(super) handler: RequestHandler,
    /// The tenant the card gives the gRPC interface, for requests that name none.
    pub(super) tenant: String,
}

/// A request message with a `tenant` field.
trait Tenanted {
    fn tenant(&self) -> &str;
}

macro_rules! tenanted {
    ($($message:ident),* $(,)?) => {
        $(impl Tenanted for proto::$message {
            fn tenant(&self) -> &str {
                &self.tenant
            }
        })*
    };
}

tenanted!(
    SendMessageRequest,
    GetTaskRequest,
    ListTasksRequest,
    CancelTaskRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
);

/// A settled call: its context, its request in `a2a-types` form, the caller's deadline.
struct Prepared<R> {
    call: CallContext,
    request: R,
    timeout: Option<Duration>,
}

fn status(error: impl Into<A2aError>) -> Status {
    to_status(&error.into())
}

fn deadline_exceeded() -> Status {
    Status::deadline_exceeded("the call's deadline passed")
}

impl GrpcService {
    /// Settles the call once, where it enters: caller, version, extensions, tenant; then
    /// converts the request.
    fn prepare<W, R>(&self, request: Request<W>) -> Result<Prepared<R>, Status>
    where
        W: Tenanted,
        R: TryFrom<W, Error = ConvertError>,
    {
        let (metadata, extensions, message) = request.into_parts();
        let headers = metadata.into_headers();
        // gRPC metadata is HTTP/2 headers: the same reading as the HTTP bindings.
        let mut call =
            call::call_context(&headers, &extensions, &[], self.handler.credential_names());
        call.tenant = resolve_tenant(None, message.tenant(), &self.tenant);
        self.handler.negotiate(&mut call).map_err(status)?;
        let request = R::try_from(message).map_err(status)?;
        Ok(Prepared {
            call,
            request,
            timeout: deadline::timeout(&headers),
        })
    }

    /// Under `lenient_message_id`, gives a message without `message_id` a fresh one, where
    /// the conversion would otherwise refuse it.
    fn lenient(
        &self,
        mut request: Request<proto::SendMessageRequest>,
    ) -> Request<proto::SendMessageRequest> {
        if self.handler.config().lenient_message_id
            && let Some(message) = request.get_mut().message.as_mut()
            && message.message_id.is_empty()
        {
            message.message_id = a2a_types::MessageId::generate().into_string();
        }
        request
    }

    /// A unary rpc: the operation's result, or its error as a status; DEADLINE_EXCEEDED when
    /// the caller's deadline passes first.
    async fn unary<W, R, T, P, F, Fut>(
        &self,
        request: Request<W>,
        operation: F,
    ) -> Result<Response<P>, Status>
    where
        W: Tenanted,
        R: TryFrom<W, Error = ConvertError>,
        P: From<T>,
        F: FnOnce(RequestHandler, CallContext, R) -> Fut,
        Fut: Future<Output = Result<T, A2aError>>,
    {
        let Prepared {
            call,
            request,
            timeout,
        } = self.prepare(request)?;
        let activated = call.activated_extensions.clone();
        let work = operation(self.handler.clone(), call, request);
        let result = match timeout {
            Some(timeout) => tokio::time::timeout(timeout, work)
                .await
                .map_err(|_elapsed| deadline_exceeded())?,
            None => work.await,
        };
        let value = result.map_err(status)?;
        Ok(with_extensions(Response::new(P::from(value)), &activated))
    }

    /// A streaming rpc: an error before the first event is the call's status; after it, the
    /// stream's last item.
    async fn stream<W, R, F, Fut>(
        &self,
        request: Request<W>,
        operation: F,
    ) -> Result<Response<Events>, Status>
    where
        W: Tenanted,
        R: TryFrom<W, Error = ConvertError>,
        F: FnOnce(RequestHandler, CallContext, R) -> Fut,
        Fut: Future<Output = Result<EventStream, A2aError>>,
    {
        let Prepared {
            call,
            request,
            timeout,
        } = self.prepare(request)?;
        let activated = call.activated_extensions.clone();
        let events = operation(self.handler.clone(), call, request)
            .await
            .map_err(status)?
            .map(|item| match item {
                Ok(event) => Ok(proto::StreamResponse::from(event.response)),
                Err(error) => Err(status(error)),
            });
        let events: Events = match timeout {
            Some(timeout) => Box::pin(until(events, timeout)),
            None => Box::pin(events),
        };
        Ok(with_extensions(Response::new(events), &activated))
    }
}

/// `events` until `timeout` passes; then DEADLINE_EXCEEDED ends the stream.
fn until(
    events: impl Stream<Item = Result<proto::StreamResponse, Status>> + Send + 'static,
    timeout: Duration,
) -> impl Stream<Item = Result<proto::StreamResponse, Status>> + Send + 'static {
    let deadline = Box::pin(tokio::time::sleep(timeout));
    futures::stream::unfold(
        (Box::pin(events), deadline, false),
        |(mut events, mut deadline, ended)| async move {
            if ended {
                return None;
            }
            tokio::select! {
                item = events.next() => item.map(|item| (item, (events, deadline, false))),
                () = &mut deadline => Some((Err(deadline_exceeded()), (events, deadline, true))),
            }
        },
    )
}

/// Echoes the activated extensions in the response metadata, as the HTTP bindings do in the
/// `A2A-Extensions` header.
fn with_extensions<T>(mut response: Response<T>, activated: &[String]) -> Response<T> {
    if !activated.is_empty()
        && let Ok(value) = MetadataValue::try_from(activated.join(", "))
    {
        response.metadata_mut().insert("a2a-extensions", value);
    }
    response
}

/// The `A2AService` impl: each unary rpc maps its request to the operation of the same name
/// through [`GrpcService::unary`]; the rest (the two streams, SendMessage's leniency, Delete's
/// empty answer) is written out after them.
macro_rules! a2a_service {
    ($($rpc:ident($request:ident) -> $response:ty;)* { $($rest:tt)* }) => {
        #[tonic::async_trait]
        impl A2aService for GrpcService {
            $(
                async fn $rpc(
                    &self,
                    request: Request<proto::$request>,
                ) -> Result<Response<$response>, Status> {
                    self.unary(request, |handler, call, request| async move {
                        handler.$rpc(&call, request).await
                    })
                    .await
                }
            )*
            $($rest)*
        }
    };
}

a2a_service! {
    get_task(GetTaskRequest) -> proto::Task;
    list_tasks(ListTasksRequest) -> proto::ListTasksResponse;
    cancel_task(CancelTaskRequest) -> proto::Task;
    create_task_push_notification_config(TaskPushNotificationConfig)
        -> proto::TaskPushNotificationConfig;
    get_task_push_notification_config(GetTaskPushNotificationConfigRequest)
        -> proto::TaskPushNotificationConfig;
    list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest)
        -> proto::ListTaskPushNotificationConfigsResponse;
    get_extended_agent_card(GetExtendedAgentCardRequest) -> proto::AgentCard;
    {
        async fn send_message(
            &self,
            request: Request<proto::SendMessageRequest>,
        ) -> Result<Response<proto::SendMessageResponse>, Status> {
            let request = self.lenient(request);
            self.unary(request, |handler, call, request| async move {
                handler.send_message(&call, request).await
            })
            .await
        }

        type SendStreamingMessageStream = Events;

        async fn send_streaming_message(
            &self,
            request: Request<proto::SendMessageRequest>,
        ) -> Result<Response<Events>, Status> {
            let request = self.lenient(request);
            self.stream(request, |handler, call, request| async move {
                handler.send_streaming_message(&call, request).await
            })
            .await
        }

        type SubscribeToTaskStream = Events;

        async fn subscribe_to_task(
            &self,
            request: Request<proto::SubscribeToTaskRequest>,
        ) -> Result<Response<Events>, Status> {
            self.stream(request, |handler, call, request| async move {
                handler.subscribe_to_task(&call, request).await
            })
            .await
        }

        async fn delete_task_push_notification_config(
            &self,
            request: Request<proto::DeleteTaskPushNotificationConfigRequest>,
        ) -> Result<Response<()>, Status> {
            self.unary(request, |handler, call, request| async move {
                handler
                    .delete_task_push_notification_config(&call, request)
                    .await
                    .map(|_empty| ())
            })
            .await
        }
    }
}
