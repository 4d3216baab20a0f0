//! The HTTP+JSON binding (spec §5.2): the route table of `rest_route`, bodies that are the
//! request message minus its path-bound fields, query parameters for reads, SSE for the two
//! streaming routes, and errors as `google.rpc.Status` or RFC 9457 problems.

use a2a_types::{
    A2aError, DeleteTaskPushNotificationConfigRequest, ErrorKind, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    PushConfigId, SendMessageRequest, SendMessageResponse, SubscribeToTaskRequest, TaskId,
};
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http::StatusCode;
use http::request::Parts;
use serde::Serialize;
use serde_json::{Map, Value};

use super::call::{self, resolve_tenant};
use super::decode::{decode, decode_object};
use super::media;
use super::response::{self, RestErrors};
use super::rest_query::{self, Query};
use super::rest_route::{self, Miss, Operation};
use super::state::Bindings;
use super::{Endpoint, body, sse, v03};
use crate::handler::{CallContext, EventStream};

/// Serves one request under an HTTP+JSON endpoint; `path` is what follows the endpoint's path.
pub(super) async fn serve(
    bindings: &Bindings,
    endpoint: &Endpoint,
    path: &str,
    request: Request,
) -> Response {
    if v03::wants_rest(bindings, path, request.headers(), request.uri()) {
        return v03::serve_rest(bindings, endpoint, path, request).await;
    }
    let (parts, body) = request.into_parts();
    let negotiated = media::negotiate(&parts.headers);
    let errors = RestErrors {
        negotiated,
        profile: bindings.profile,
        instance: parts.uri.path(),
    };
    let route = match rest_route::resolve(path, &parts.method) {
        Ok(route) => route,
        Err(Miss::NotFound) => {
            let message = format!("no operation at {} {}", parts.method, parts.uri.path());
            return errors.response(&route_error(message, &parts));
        }
        Err(Miss::WrongMethod(allowed)) => {
            let names: Vec<&str> = allowed.iter().map(http::Method::as_str).collect();
            let message = format!(
                "{} is not allowed on {}; use {}",
                parts.method,
                parts.uri.path(),
                names.join(" or ")
            );
            let error = route_error(message, &parts);
            let status = StatusCode::METHOD_NOT_ALLOWED.as_u16();
            return response::with_allow(errors.response_with_status(&error, status), &allowed);
        }
    };
    crate::access::note_operation(route.operation.method().as_str());
    crate::trace::note_binding("HTTP+JSON");
    // Named in the log only once the operation succeeded: then the task exists.
    let task_id = route.operation.task_id().map(TaskId::from);
    let query = crate::percent::query_pairs(parts.uri.query().unwrap_or_default());
    let mut call = call::call_context(
        &parts.headers,
        &parts.extensions,
        &query,
        bindings.handler.credential_names(),
    );
    let request = RestRequest {
        bindings,
        parts: &parts,
        query: Query::new(&query),
        path_tenant: route.tenant,
        endpoint_tenant: &endpoint.tenant,
    };
    let outcome = request.execute(route.operation, body, &mut call).await;
    if outcome.is_ok()
        && let Some(task_id) = &task_id
    {
        crate::access::note_task(task_id);
    }
    let response = match outcome {
        Ok(Success::Document { status, body }) => {
            response::bytes(status, negotiated.media.as_str(), body)
        }
        Ok(Success::NoContent) => response::empty(StatusCode::NO_CONTENT),
        Ok(Success::Stream(events)) => {
            let framing = sse::Framing::HttpJson {
                profile: bindings.profile,
                problem: negotiated.problem,
                instance: parts.uri.path().to_owned(),
            };
            sse::response(events, framing, bindings.sse_keepalive)
        }
        Err(Failure {
            error,
            status: None,
        }) => return errors.response(&error),
        Err(Failure {
            error,
            status: Some(status),
        }) => return errors.response_with_status(&error, status.as_u16()),
    };
    response::with_extensions(response, &call.activated_extensions)
}

/// MethodNotFound for a path or method the route table does not have; the binding sets the
/// HTTP status (404 for an unknown path, 405 for a known path with another method), as no
/// error kind has 405.
fn route_error(message: String, parts: &Parts) -> A2aError {
    A2aError::new(ErrorKind::MethodNotFound, message)
        .with_metadata("method", parts.method.as_str())
        .with_metadata("path", parts.uri.path())
}

/// A success: a document with its status, no content, or the events of a streaming
/// operation.
enum Success {
    Document { status: StatusCode, body: Vec<u8> },
    NoContent,
    Stream(EventStream),
}

impl Success {
    fn ok<T: Serialize>(outcome: Result<T, A2aError>) -> Result<Self, Failure> {
        Self::with_status(StatusCode::OK, outcome)
    }

    fn with_status<T: Serialize>(
        status: StatusCode,
        outcome: Result<T, A2aError>,
    ) -> Result<Self, Failure> {
        Ok(Self::Document {
            status,
            body: response::encode(&outcome?)?,
        })
    }
}

/// An error, and the HTTP status when a rule fixes it regardless of the configured status
/// profile (which otherwise maps each error kind to a status).
struct Failure {
    error: A2aError,
    status: Option<StatusCode>,
}

impl From<A2aError> for Failure {
    fn from(error: A2aError) -> Self {
        Self {
            error,
            status: None,
        }
    }
}

/// What one HTTP+JSON request carries besides its operation and body.
struct RestRequest<'a> {
    bindings: &'a Bindings,
    parts: &'a Parts,
    query: Query<'a>,
    path_tenant: Option<String>,
    endpoint_tenant: &'a str,
}

impl RestRequest<'_> {
    async fn execute(
        &self,
        operation: Operation,
        body: Body,
        call: &mut CallContext,
    ) -> Result<Success, Failure> {
        let handler = &self.bindings.handler;
        // Negotiated once, here: the version decides how everything else is read, so it
        // comes first; operations trust the outcome.
        handler.negotiate(call)?;
        // The path's tenant, else the interface's; `body` lets a body name one when the path
        // does not (the proto's HTTP rules map the whole body, `tenant` included).
        call.tenant = resolve_tenant(self.path_tenant.clone(), "", self.endpoint_tenant);
        let tenant = call.tenant.clone();
        match operation {
            Operation::SendMessage => {
                let request = self.message_request(body, call).await?;
                // Boxed, as in the JSON-RPC dispatch: the largest future of the operations.
                let sent = Box::pin(handler.send_message(call, request)).await;
                if let Ok(SendMessageResponse::Task(task)) = &sent {
                    crate::access::note_task(&task.id);
                }
                Success::ok(sent)
            }
            Operation::SendStreamingMessage => {
                let request = self.message_request(body, call).await?;
                if request.return_immediately() == Some(true) {
                    // As in Apache Camel, HTTP+JSON refuses the flag on a stream with 400 under
                    // every status profile, where JSON-RPC ignores it (spec §2.1).
                    return Err(Failure {
                        error: A2aError::unsupported_operation(
                            "returnImmediately cannot be used with message:stream; use message:send",
                        )
                        .with_metadata("field", "configuration.returnImmediately"),
                        status: Some(StatusCode::BAD_REQUEST),
                    });
                }
                let events = handler.send_streaming_message(call, request).await?;
                Ok(Success::Stream(events))
            }
            Operation::ListTasks => {
                let (mut request, states) = rest_query::list_tasks(self.query)?;
                request.tenant = tenant;
                if states.len() > 1 {
                    Success::ok(handler.list_tasks_in_states(call, request, states).await)
                } else {
                    Success::ok(handler.list_tasks(call, request).await)
                }
            }
            Operation::GetTask { task_id } => {
                let request = GetTaskRequest {
                    tenant,
                    id: TaskId::from(task_id),
                    history_length: self.query.int32("historyLength", "history_length")?,
                };
                Success::ok(handler.get_task(call, request).await)
            }
            Operation::CancelTask { task_id } => {
                let mut object = self.body(body, false, call).await?;
                object.insert("id".into(), Value::String(task_id));
                Success::ok(handler.cancel_task(call, decode_object(object)?).await)
            }
            Operation::SubscribeToTask { task_id } => {
                let mut object = self.body(body, false, call).await?;
                object.insert("id".into(), Value::String(task_id));
                let request: SubscribeToTaskRequest = decode_object(object)?;
                Ok(Success::Stream(
                    handler.subscribe_to_task(call, request).await?,
                ))
            }
            Operation::CreatePushConfig { task_id } => {
                let mut object = self.body(body, false, call).await?;
                // The path wins over a `taskId` (or its snake_case alias) in the body.
                object.remove("task_id");
                object.insert("taskId".into(), Value::String(task_id));
                let request = decode_object(object)?;
                Success::with_status(
                    StatusCode::CREATED,
                    handler
                        .create_task_push_notification_config(call, request)
                        .await,
                )
            }
            Operation::GetPushConfig { task_id, config_id } => {
                let request = GetTaskPushNotificationConfigRequest {
                    tenant,
                    task_id: TaskId::from(task_id),
                    id: PushConfigId::from(config_id),
                };
                Success::ok(
                    handler
                        .get_task_push_notification_config(call, request)
                        .await,
                )
            }
            Operation::ListPushConfigs { task_id } => {
                let request = ListTaskPushNotificationConfigsRequest {
                    tenant,
                    task_id: TaskId::from(task_id),
                    page_size: self
                        .query
                        .int32("pageSize", "page_size")?
                        .unwrap_or_default(),
                    page_token: self
                        .query
                        .single("pageToken", "page_token")?
                        .unwrap_or_default()
                        .to_owned(),
                };
                Success::ok(
                    handler
                        .list_task_push_notification_configs(call, request)
                        .await,
                )
            }
            Operation::DeletePushConfig { task_id, config_id } => {
                let request = DeleteTaskPushNotificationConfigRequest {
                    tenant,
                    task_id: TaskId::from(task_id),
                    id: PushConfigId::from(config_id),
                };
                let outcome = handler
                    .delete_task_push_notification_config(call, request)
                    .await;
                if self.bindings.profile.deletes_with_no_content() {
                    outcome.map(|_| Success::NoContent).map_err(Failure::from)
                } else {
                    Success::ok(outcome)
                }
            }
            Operation::GetExtendedAgentCard => {
                let request = GetExtendedAgentCardRequest { tenant };
                Success::ok(handler.get_extended_agent_card(call, request).await)
            }
        }
    }

    /// The body as a JSON object. An empty body is `{}`, except on the send routes
    /// (`required`), where it is ContentTypeNotSupported. A body naming a tenant
    /// sets the call's tenant unless the path named one.
    ///
    /// # Errors
    /// ContentTypeNotSupported (HTTP 415) for a non-JSON content type, before anything is
    /// read; PayloadTooLarge; ContentTypeNotSupported for an empty body where one is
    /// required; ParseError; InvalidParams when it is not an object.
    /// The body of a SendMessage request. A body that is a valid request is read once,
    /// straight into its type; any other goes through [`RestRequest::object`], which
    /// refuses it exactly as every other operation's body.
    async fn message_request(
        &self,
        body: Body,
        call: &mut CallContext,
    ) -> Result<SendMessageRequest, Failure> {
        let handler = &self.bindings.handler;
        let bytes = self.bytes(body).await?;
        if let Ok(mut request) = serde_json::from_slice::<SendMessageRequest>(&bytes) {
            if self.path_tenant.is_none() && !request.tenant.is_empty() {
                call.tenant.clone_from(&request.tenant);
            }
            if handler.config().lenient_message_id && request.message.message_id.is_empty() {
                request.message.message_id = a2a_types::MessageId::generate();
            }
            return Ok(request);
        }
        let object = self.object(&bytes, true, call)?;
        Ok(decode(handler.lenient_message_id(Value::Object(object)))?)
    }

    /// The body as a JSON object; see [`RestRequest::object`].
    async fn body(
        &self,
        body: Body,
        required: bool,
        call: &mut CallContext,
    ) -> Result<Map<String, Value>, Failure> {
        let bytes = self.bytes(body).await?;
        self.object(&bytes, required, call)
    }

    /// The body's bytes, once its media type is one of the two JSON types.
    async fn bytes(&self, body: Body) -> Result<bytes::Bytes, Failure> {
        let headers = &self.parts.headers;
        // The type is checked before the body is read, with 415 under every status
        // profile: it is the HTTP answer to a body of the wrong media type.
        media::check_request_type(headers).map_err(|error| Failure {
            error,
            status: Some(StatusCode::UNSUPPORTED_MEDIA_TYPE),
        })?;
        Ok(body::read_limited(body, headers, self.bindings.max_body_bytes).await?)
    }

    /// The body as a JSON object (empty when there is none and `required` is false); its
    /// `tenant` member names the tenant when the path does not.
    fn object(
        &self,
        bytes: &[u8],
        required: bool,
        call: &mut CallContext,
    ) -> Result<Map<String, Value>, Failure> {
        let headers = &self.parts.headers;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return if required {
                Err(A2aError::new(
                    ErrorKind::ContentTypeNotSupported,
                    "the request body is empty; send the request as application/a2a+json",
                )
                .with_metadata(
                    "mediaType",
                    media::content_type(headers).unwrap_or_default(),
                )
                .into())
            } else {
                Ok(Map::new())
            };
        }
        let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
            return Err(A2aError::parse_error().into());
        };
        let Value::Object(object) = document else {
            return Err(A2aError::invalid_params("the request body must be a JSON object").into());
        };
        if self.path_tenant.is_none()
            && let Some(tenant) = object
                .get("tenant")
                .and_then(Value::as_str)
                .filter(|tenant| !tenant.is_empty())
        {
            call.tenant = tenant.to_owned();
        }
        Ok(object)
    }
}
