//! [`A2aClient`]: one async method per A2A operation, whatever the binding, with the same
//! headers, credentials, timeouts and retries on every call.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use a2a_types::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, Empty,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    ListTasksRequest, ListTasksResponse, ProtocolBinding, SendMessageRequest, SendMessageResponse,
    Task, TaskPushNotificationConfig,
};
use http::HeaderMap;

use crate::auth::Authenticator;
use crate::binding::grpc::GrpcChannel;
use crate::binding::{Call, Endpoint};
use crate::error::{ClientError, display_url};
use crate::options::{CallOptions, ResumePolicy, RetryPolicy, SendOperation, Timeouts};
use crate::transport::Transport;

/// A function called before every request for extra headers.
pub(crate) type HeaderFn = Arc<dyn Fn() -> HeaderMap + Send + Sync>;

/// A client of one agent interface.
///
/// Cheap to clone: clones share the connection pool, the OAuth token and the settings.
/// [`with_options`](Self::with_options) gives a clone whose calls carry extra headers, a
/// different timeout or more extensions.
///
/// Every request carries `A2A-Version: 1.0` (none to a v0.3 agent), the client's static headers, the headers of its
/// header function, its credentials (only to the agent's origin), `A2A-Extensions` when
/// extensions are asked for, and the per-call headers, in that order, later ones replacing
/// earlier ones of the same name; `A2A-Version` cannot be replaced. On gRPC the same headers
/// travel as call metadata (lower-case keys), and the request timeout is also the deadline of
/// each unary call.
#[derive(Clone)]
pub struct A2aClient {
    pub(crate) inner: Arc<Inner>,
    pub(crate) call: Arc<CallOptions>,
}

/// What every clone shares.
pub(crate) struct Inner {
    /// Card discovery, OAuth tokens and, on the HTTP bindings, every call go through it.
    pub(crate) transport: Arc<dyn Transport>,
    /// The channel of a gRPC endpoint, which calls go through instead.
    pub(crate) grpc: Option<GrpcChannel>,
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
    pub(crate) default_operation: SendOperation,
    pub(crate) history_length: Option<u32>,
    pub(crate) stream_max_duration: Option<std::time::Duration>,
    pub(crate) next_request_id: AtomicU64,
}

impl std::fmt::Debug for A2aClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values are left out: they may hold credentials.
        f.debug_struct("A2aClient")
            .field("binding", &self.inner.endpoint.binding.protocol())
            .field("url", &display_url(&self.inner.endpoint.url))
            .field("tenant", &self.inner.endpoint.tenant)
            .field("protocol_version", &self.inner.endpoint.version)
            .field("credentials", &self.inner.auth.is_some())
            .field("timeouts", &self.inner.timeouts)
            .finish_non_exhaustive()
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

    /// The protocol version the client speaks (v0.3 requests and answers are translated to
    /// and from the v1.0 types at the edge).
    #[must_use]
    pub fn protocol_version(&self) -> crate::ProtocolVersion {
        self.inner.endpoint.version
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
        self.unary(Call::SendMessage(self.with_history_length(request)))
            .await
    }

    /// The operation [`send_default`](Self::send_default) uses: this handle's, else the client's default.
    #[must_use]
    pub fn send_operation(&self) -> SendOperation {
        self.call.operation.unwrap_or(self.inner.default_operation)
    }

    /// The `historyLength` given to requests that set none: this handle's, else the
    /// client's default.
    fn default_history_length(&self) -> Option<i32> {
        self.call
            .history_length
            .or(self.inner.history_length)
            .map(|length| i32::try_from(length).unwrap_or(i32::MAX))
    }

    pub(crate) fn with_history_length(
        &self,
        mut request: SendMessageRequest,
    ) -> SendMessageRequest {
        if let Some(length) = self.default_history_length() {
            let configuration = request.configuration.get_or_insert_with(Default::default);
            if configuration.history_length.is_none() {
                configuration.history_length = Some(length);
            }
        }
        request
    }

    /// `GetTask` (spec §2.3).
    ///
    /// # Errors
    /// [`ClientError::Agent`] (TaskNotFound…) or a transport failure.
    pub async fn get_task(&self, mut request: GetTaskRequest) -> Result<Task, ClientError> {
        if request.history_length.is_none() {
            request.history_length = self.default_history_length();
        }
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

    /// `DeleteTaskPushNotificationConfig` (spec §2.10). Idempotent: deleting a config that is
    /// already gone succeeds, as `a2a serve` answers; an unknown task is TaskNotFound.
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
