//! [`A2aClient`]: one async method per A2A operation, whatever the binding, with the same
//! headers, credentials, timeouts and retries on every call.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use a2a_types::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, Empty,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    ListTasksRequest, ListTasksResponse, ProtocolBinding, SendMessageRequest, SendMessageResponse,
    SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use bytes::Bytes;
use http::HeaderMap;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderValue, LOCATION};
use serde::de::DeserializeOwned;

use crate::auth::{Applied, Authenticator};
use crate::binding::{
    A2A_EXTENSIONS, A2A_VERSION, Call, EVENT_STREAM, Endpoint, LAST_EVENT_ID, error_from_answer,
};
use crate::error::{ClientError, TimeoutKind, display_url};
use crate::options::{CallOptions, ResumePolicy, RetryPolicy, Timeouts};
use crate::stream::{self, EventStream};
use crate::transport::{ResponseBody, Transport, read_body};

/// A function called before every request for extra headers.
pub(crate) type HeaderFn = Arc<dyn Fn() -> HeaderMap + Send + Sync>;

/// A client of one agent interface.
///
/// Cheap to clone: clones share the connection pool, the OAuth token and the settings.
/// [`with_options`](Self::with_options) gives a clone whose calls carry extra headers, a
/// different timeout or more extensions.
///
/// Every request carries `A2A-Version: 1.0`, the client's static headers, the headers of its
/// header function, its credentials (only to the agent's origin), `A2A-Extensions` when
/// extensions are asked for, and the per-call headers, in that order, later ones replacing
/// earlier ones of the same name; `A2A-Version` cannot be replaced.
#[derive(Clone)]
pub struct A2aClient {
    pub(crate) inner: Arc<Inner>,
    pub(crate) call: Arc<CallOptions>,
}

/// What every clone shares.
pub(crate) struct Inner {
    pub(crate) transport: Arc<dyn Transport>,
    pub(crate) endpoint: Endpoint,
    pub(crate) card: Option<AgentCard>,
    pub(crate) headers: HeaderMap,
    pub(crate) header_fn: Option<HeaderFn>,
    pub(crate) extensions: Vec<String>,
    pub(crate) auth: Option<Authenticator>,
    /// The only origin credentials are sent to.
    pub(crate) auth_origin: url::Origin,
    pub(crate) timeouts: Timeouts,
    pub(crate) retry: RetryPolicy,
    pub(crate) resume: ResumePolicy,
    pub(crate) max_payload_size: usize,
    pub(crate) next_request_id: AtomicU64,
}

impl std::fmt::Debug for A2aClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values are left out: they may hold credentials.
        f.debug_struct("A2aClient")
            .field("binding", &self.inner.endpoint.binding.protocol())
            .field("url", &display_url(&self.inner.endpoint.url))
            .field("tenant", &self.inner.endpoint.tenant)
            .field("credentials", &self.inner.auth.is_some())
            .field("timeouts", &self.inner.timeouts)
            .finish_non_exhaustive()
    }
}

/// One attempt's failure, and whether it carried an OAuth token (a refused token is fetched
/// again once).
struct Failed {
    error: ClientError,
    applied: Applied,
}

impl From<ClientError> for Failed {
    fn from(error: ClientError) -> Self {
        Self {
            error,
            applied: Applied::Nothing,
        }
    }
}

impl A2aClient {
    /// A clone whose calls also carry `options` (added to any this handle already has).
    #[must_use]
    pub fn with_options(&self, options: CallOptions) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            call: Arc::new(self.call.merged(options)),
        }
    }

    /// The binding in use.
    #[must_use]
    pub fn binding(&self) -> ProtocolBinding {
        self.inner.endpoint.binding.protocol()
    }

    /// The interface URL requests go to (after host override and origin rules).
    #[must_use]
    pub fn url(&self) -> &str {
        self.inner.endpoint.url.as_str()
    }

    /// The tenant put into requests that name none.
    #[must_use]
    pub fn tenant(&self) -> &str {
        &self.inner.endpoint.tenant
    }

    /// The card the client was built from, if any.
    #[must_use]
    pub fn card(&self) -> Option<&AgentCard> {
        self.inner.card.as_ref()
    }

    /// `SendMessage`: a task or a direct reply (spec §2.1).
    ///
    /// # Errors
    /// [`ClientError::Agent`] with the agent's refusal, or a transport failure.
    pub async fn send_message(
        &self,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, ClientError> {
        self.unary(Call::SendMessage(request)).await
    }

    /// `SendStreamingMessage`: the task's events as they happen (spec §2.2). A stream that
    /// breaks before the task reaches a final state is resumed (see [`ResumePolicy`]).
    ///
    /// # Errors
    /// An error before the first event: the agent's refusal or a transport failure. Later
    /// errors arrive as stream items.
    pub async fn send_streaming_message(
        &self,
        request: SendMessageRequest,
    ) -> Result<EventStream, ClientError> {
        stream::open(self.clone(), Call::SendStreamingMessage(request)).await
    }

    /// `GetTask` (spec §2.3).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (TaskNotFound…) or a transport failure.
    pub async fn get_task(&self, request: GetTaskRequest) -> Result<Task, ClientError> {
        self.unary(Call::GetTask(request)).await
    }

    /// `ListTasks` (spec §2.4).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (InvalidParams…) or a transport failure.
    pub async fn list_tasks(
        &self,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, ClientError> {
        self.unary(Call::ListTasks(request)).await
    }

    /// `CancelTask` (spec §2.5).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (TaskNotFound, TaskNotCancelable…) or a transport failure.
    pub async fn cancel_task(&self, request: CancelTaskRequest) -> Result<Task, ClientError> {
        self.unary(Call::CancelTask(request)).await
    }

    /// `SubscribeToTask`: the task's snapshot, then its events (spec §2.6); resumed like
    /// [`send_streaming_message`](Self::send_streaming_message).
    ///
    /// # Errors
    /// An error before the first event (TaskNotFound, UnsupportedOperation for a finished
    /// task…); later errors arrive as stream items.
    pub async fn subscribe_to_task(
        &self,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, ClientError> {
        stream::open(self.clone(), Call::SubscribeToTask(request)).await
    }

    /// `CreateTaskPushNotificationConfig` (spec §2.7); `config.task_id` is required.
    ///
    /// # Errors
    /// [`ClientError::Agent`] (PushNotificationNotSupported, TaskNotFound…), a transport
    /// failure, or [`ClientError::Config`] without a task id on HTTP+JSON.
    pub async fn create_task_push_notification_config(
        &self,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.unary(Call::CreatePushConfig(config)).await
    }

    /// `GetTaskPushNotificationConfig` (spec §2.8).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (TaskNotFound also for an unknown config…) or a transport
    /// failure.
    pub async fn get_task_push_notification_config(
        &self,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, ClientError> {
        self.unary(Call::GetPushConfig(request)).await
    }

    /// `ListTaskPushNotificationConfigs` (spec §2.9).
    ///
    /// # Errors
    /// [`ClientError::Agent`] or a transport failure.
    pub async fn list_task_push_notification_configs(
        &self,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, ClientError> {
        self.unary(Call::ListPushConfigs(request)).await
    }

    /// `DeleteTaskPushNotificationConfig` (spec §2.10); deleting twice succeeds.
    ///
    /// # Errors
    /// [`ClientError::Agent`] or a transport failure.
    pub async fn delete_task_push_notification_config(
        &self,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), ClientError> {
        self.unary::<Empty>(Call::DeletePushConfig(request))
            .await
            .map(|_| ())
    }

    /// `GetExtendedAgentCard` (spec §2.11).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (UnsupportedOperation, ExtendedAgentCardNotConfigured,
    /// Authentication…) or a transport failure.
    pub async fn get_extended_agent_card(
        &self,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, ClientError> {
        self.unary(Call::GetExtendedAgentCard(request)).await
    }

    /// A non-streaming call, with the request timeout and retries.
    async fn unary<T: DeserializeOwned>(&self, call: Call) -> Result<T, ClientError> {
        let timeout = self.call.timeout.unwrap_or(self.inner.timeouts.request);
        self.retrying(call.is_idempotent(), || async {
            match tokio::time::timeout(timeout, self.unary_once(&call)).await {
                Ok(result) => result,
                Err(_elapsed) => Err(ClientError::Timeout(TimeoutKind::Request).into()),
            }
        })
        .await
    }

    async fn unary_once<T: DeserializeOwned>(&self, call: &Call) -> Result<T, Failed> {
        let (response, applied) = self.send(call, None).await?;
        let fail = |error| Failed { error, applied };
        let status = response.status();
        let location = location_of(response.headers());
        let body = read_body(response.into_body(), self.inner.max_payload_size)
            .await
            .map_err(fail)?;
        if !status.is_success() {
            return Err(fail(error_from_answer(
                status.as_u16(),
                location.as_deref(),
                &body,
            )));
        }
        self.inner
            .endpoint
            .decode(call.method(), &body)
            .map_err(fail)
    }

    /// Runs `attempt` until it succeeds, fails for good, or runs out of retries. A refused
    /// OAuth token is dropped and the call made once more with a fresh one.
    async fn retrying<T, F, Fut>(&self, idempotent: bool, mut attempt: F) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failed>>,
    {
        let retries = self.inner.retry.retries_for(idempotent);
        let mut retried = 0;
        let mut reauthenticated = false;
        loop {
            let failed = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            if failed.applied == Applied::OAuthToken
                && !reauthenticated
                && is_refused_credential(&failed.error)
                && let Some(auth) = &self.inner.auth
            {
                tracing::debug!("the agent refused the OAuth token; fetching a new one");
                auth.invalidate().await;
                reauthenticated = true;
                continue;
            }
            if failed.error.is_retryable() && retried < retries {
                let delay = self.inner.retry.delay(retried);
                tracing::debug!(error = %failed.error, retry = retried + 1, ?delay, "retrying");
                tokio::time::sleep(delay).await;
                retried += 1;
                continue;
            }
            return Err(failed.error);
        }
    }

    /// Sends one request for `call` and returns the response once its head arrived.
    async fn send(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<(http::Response<ResponseBody>, Applied), ClientError> {
        if let Some(invalid) = &self.call.invalid {
            return Err(ClientError::config(invalid.clone()));
        }
        let inner = &self.inner;
        let request_id = inner.next_request_id.fetch_add(1, Ordering::Relaxed);
        let prepared = inner.endpoint.prepare(call, request_id)?;
        let mut url = prepared.url;
        let mut headers = inner.headers.clone();
        if let Some(header_fn) = &inner.header_fn {
            headers.extend(header_fn());
        }
        let applied = match &inner.auth {
            // Credentials never go to an origin other than the agent's.
            Some(auth) if url.origin() == inner.auth_origin => {
                auth.apply(&mut url, &mut headers).await?
            }
            Some(_) | None => Applied::Nothing,
        };
        headers.extend(self.call.headers.clone());
        if let Some(content_type) = prepared.content_type {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        headers.insert(ACCEPT, HeaderValue::from_static(prepared.accept));
        let mut extensions: Vec<&str> = Vec::new();
        for uri in inner.extensions.iter().chain(&self.call.extensions) {
            if !extensions.contains(&uri.as_str()) {
                extensions.push(uri);
            }
        }
        if !extensions.is_empty() {
            let value = HeaderValue::from_str(&extensions.join(", "))
                .map_err(|_| ClientError::config("an extension URI is not a valid header value"))?;
            headers.insert(A2A_EXTENSIONS, value);
        }
        if let Some(id) = last_event_id {
            let value = HeaderValue::from_str(id).map_err(|_| {
                ClientError::invalid_response("the server sent an unusable event id")
            })?;
            headers.insert(LAST_EVENT_ID, value);
        }
        headers.insert(
            A2A_VERSION,
            HeaderValue::from_static(a2a_types::PROTOCOL_VERSION),
        );
        let mut request = http::Request::builder()
            .method(prepared.method)
            .uri(url.as_str())
            .body(prepared.body.unwrap_or_else(Bytes::new))
            .map_err(|error| ClientError::config(format!("cannot build the request: {error}")))?;
        *request.headers_mut() = headers;
        let response = inner.transport.send(request).await?;
        Ok((response, applied))
    }

    /// Opens a stream for `call` (the response head, within the request timeout), with the
    /// retry policy for non-idempotent calls.
    pub(crate) async fn open_stream(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<stream::Connection, ClientError> {
        let timeout = self.call.timeout.unwrap_or(self.inner.timeouts.request);
        self.retrying(false, || async {
            match tokio::time::timeout(timeout, self.open_stream_once(call, last_event_id)).await {
                Ok(result) => result,
                Err(_elapsed) => Err(ClientError::Timeout(TimeoutKind::Request).into()),
            }
        })
        .await
    }

    async fn open_stream_once(
        &self,
        call: &Call,
        last_event_id: Option<&str>,
    ) -> Result<stream::Connection, Failed> {
        let (response, applied) = self.send(call, last_event_id).await?;
        let fail = |error| Failed { error, applied };
        let status = response.status();
        let is_event_stream = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.trim_start().starts_with(EVENT_STREAM));
        if status.is_success() && is_event_stream {
            return Ok(stream::Connection::events(
                response.into_body(),
                self.inner.max_payload_size,
            ));
        }
        let location = location_of(response.headers());
        let body = read_body(response.into_body(), self.inner.max_payload_size)
            .await
            .map_err(fail)?;
        if !status.is_success() {
            return Err(fail(error_from_answer(
                status.as_u16(),
                location.as_deref(),
                &body,
            )));
        }
        // A plain answer to a streaming call: an error before the first event (sent unframed), or a
        // server that answered with a single result.
        let single = self
            .inner
            .endpoint
            .decode(call.method(), &body)
            .map_err(fail)?;
        Ok(stream::Connection::single(single))
    }

    pub(crate) fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }

    pub(crate) fn stream_idle_timeout(&self) -> std::time::Duration {
        self.inner.timeouts.stream_idle
    }

    pub(crate) fn resume_policy(&self) -> &ResumePolicy {
        &self.inner.resume
    }
}

/// Whether the agent refused the credentials themselves (so a fresh token may help).
fn is_refused_credential(error: &ClientError) -> bool {
    error.kind() == Some(a2a_types::ErrorKind::Authentication) || error.http_status() == Some(401)
}

fn location_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(LOCATION)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}
