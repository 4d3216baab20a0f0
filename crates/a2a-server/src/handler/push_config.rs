//! The four push-notification config operations (spec §2.7–§2.10, §10): gated by
//! `capabilities.pushNotifications`, scoped to the task's owner, webhook addresses checked at
//! registration, ids generated when missing, at most `max_configs_per_task` per task.

use a2a_types::{
    A2aError, DeleteTaskPushNotificationConfigRequest, Empty, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, PushConfigId,
    TaskId, TaskPushNotificationConfig,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::{CallContext, RequestHandler, tenant_of};
use crate::hooks::Access;
use crate::push::address::{AddressError, check_webhook};
use crate::push::delivery::{Dispatcher, delivery_headers};
use crate::store::TaskScope;
use crate::turn::store_failure;

/// Configs per page when the request names no page size.
const DEFAULT_PAGE_SIZE: usize = 100;

impl RequestHandler {
    /// The dispatcher, or PushNotificationNotSupported when the card does not declare push
    /// notifications.
    pub(crate) fn push(&self) -> Result<&Dispatcher, A2aError> {
        self.inner
            .engine
            .push()
            .ok_or_else(A2aError::push_notification_not_supported)
    }

    /// Checks a config for registration: a webhook address we may call (a public address
    /// over https; loopback too, plain http included, under `allow_local_webhooks`) and
    /// header values without line breaks. Returns it with its id set.
    pub(crate) async fn checked_push_config(
        &self,
        dispatcher: &Dispatcher,
        mut config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        if config.url.trim().is_empty() {
            return Err(A2aError::invalid_field("url", "is required"));
        }
        match check_webhook(&config.url, &dispatcher.policy(), dispatcher.resolver()).await {
            Ok(_) => {}
            // A name that does not resolve now is accepted: DNS may be down or
            // split-horizon, and the check before each delivery refuses it then if it
            // resolves somewhere forbidden. So the answer says nothing about our DNS.
            Err(AddressError::Unresolvable { host, source }) => {
                tracing::debug!(host = %host, error = %source, "webhook host does not resolve yet; it is checked again at delivery");
            }
            Err(error) => return Err(error.to_a2a_error()),
        }
        delivery_headers(&config).map_err(A2aError::invalid_params)?;
        if config.id.as_ref().is_none_or(|id| id.as_str().is_empty()) {
            config.id = Some(PushConfigId::new(uuid::Uuid::new_v4().to_string()));
        }
        Ok(config)
    }

    /// CreateTaskPushNotificationConfig: registers a webhook for a task of the caller's.
    /// Events logged from now on are delivered to it.
    ///
    /// # Errors
    /// PushNotificationNotSupported; TaskNotFound; InvalidParams for a URL that may not be
    /// called, a header value with a line break, or a task at its config limit.
    pub async fn create_task_push_notification_config(
        &self,
        call: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let dispatcher = self.push()?;
        let task_id = request
            .task_id
            .clone()
            .filter(|id| !id.as_str().is_empty())
            .ok_or_else(|| A2aError::invalid_field("taskId", "is required"))?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let Some(stored) = self.inner.engine.load(&scope, &task_id).await? else {
            return Err(self.missing_task(&scope, &task_id).await);
        };
        if !self.may_write(call, &stored.task).await {
            return Err(self.refused(&task_id));
        }
        let mut config = self.checked_push_config(dispatcher, request).await?;
        dispatcher
            .register(&scope, &task_id, &mut config, stored.last_sequence)
            .await?;
        config.tenant = scope.tenant;
        Ok(config)
    }

    /// GetTaskPushNotificationConfig.
    ///
    /// # Errors
    /// PushNotificationNotSupported; TaskNotFound for an unknown task or config.
    pub async fn get_task_push_notification_config(
        &self,
        call: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let dispatcher = self.push()?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        self.authorize(call, &scope, &request.task_id, Access::Read)
            .await?;
        let found = dispatcher
            .configs()
            .get_push_config(&scope, &request.task_id, &request.id)
            .await
            .map_err(store_failure)?;
        match found {
            Some(mut config) => {
                config.tenant = scope.tenant;
                Ok(config)
            }
            None => Err(self
                .missing_config(&scope, &request.task_id, &request.id)
                .await),
        }
    }

    /// ListTaskPushNotificationConfigs, ordered by config id, paged.
    ///
    /// # Errors
    /// PushNotificationNotSupported; TaskNotFound; InvalidParams for a bad page size or token.
    pub async fn list_task_push_notification_configs(
        &self,
        call: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError> {
        let dispatcher = self.push()?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let page_size = match request.page_size {
            0 => DEFAULT_PAGE_SIZE,
            size => usize::try_from(size)
                .ok()
                .filter(|size| (1..=1000).contains(size))
                .ok_or_else(|| A2aError::invalid_field("pageSize", "must be between 1 and 1000"))?,
        };
        let after = if request.page_token.is_empty() {
            None
        } else {
            let bytes = URL_SAFE_NO_PAD
                .decode(request.page_token.as_bytes())
                .map_err(|_| {
                    A2aError::invalid_field("pageToken", "is not a token this server gave")
                })?;
            Some(String::from_utf8(bytes).map_err(|_| {
                A2aError::invalid_field("pageToken", "is not a token this server gave")
            })?)
        };
        let Some(stored) = self.inner.engine.load(&scope, &request.task_id).await? else {
            return Err(self.missing_task(&scope, &request.task_id).await);
        };
        if !self.may_read(call, &stored.task).await {
            return Err(self.refused(&request.task_id));
        }
        let all = dispatcher
            .configs()
            .list_push_configs(&scope, &request.task_id)
            .await
            .map_err(store_failure)?;
        let mut rest: Vec<TaskPushNotificationConfig> = all
            .into_iter()
            .filter(|config| {
                let id = config.id.as_ref().map_or("", PushConfigId::as_str);
                after.as_deref().is_none_or(|after| id > after)
            })
            .collect();
        let next_page_token = if rest.len() > page_size {
            rest.truncate(page_size);
            rest.last()
                .and_then(|config| config.id.as_ref())
                .map(|id| URL_SAFE_NO_PAD.encode(id.as_str()))
                .unwrap_or_default()
        } else {
            String::new()
        };
        for config in &mut rest {
            config.tenant.clone_from(&scope.tenant);
        }
        Ok(ListTaskPushNotificationConfigsResponse {
            configs: rest,
            next_page_token,
        })
    }

    /// DeleteTaskPushNotificationConfig: no more deliveries to that webhook. Idempotent
    /// (spec §2.10): a config that is already gone, on a task of the caller's, is a
    /// success too.
    ///
    /// # Errors
    /// PushNotificationNotSupported; TaskNotFound for an unknown task.
    pub async fn delete_task_push_notification_config(
        &self,
        call: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<Empty, A2aError> {
        let dispatcher = self.push()?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let Some(stored) = self.inner.engine.load(&scope, &request.task_id).await? else {
            return Err(self.missing_task(&scope, &request.task_id).await);
        };
        if !self.may_write(call, &stored.task).await {
            return Err(self.refused(&request.task_id));
        }
        let deleted = dispatcher
            .configs()
            .delete_push_config(&scope, &request.task_id, &request.id)
            .await
            .map_err(store_failure)?;
        if !deleted {
            tracing::debug!(task_id = %request.task_id, config_id = %request.id, "push config already deleted");
        }
        Ok(Empty::default())
    }

    /// TaskNotFound naming the config when the task is the caller's, else the task's own
    /// refusal (so a config id says nothing about other callers' tasks).
    async fn missing_config(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        id: &PushConfigId,
    ) -> A2aError {
        match self.inner.engine.load(scope, task_id).await {
            Ok(Some(_)) => A2aError::task_not_found(task_id.as_str())
                .with_metadata("pushNotificationConfigId", id.as_str()),
            Ok(None) | Err(_) => self.missing_task(scope, task_id).await,
        }
    }
}
