//! The four push-notification config operations (spec §2.7–§2.10). Push delivery is not
//! built yet, so a server refuses to start with a card that declares `pushNotifications`, and
//! these operations answer PushNotificationNotSupported (spec §10.1).

use a2a_types::{
    A2aError, DeleteTaskPushNotificationConfigRequest, Empty, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse,
    TaskPushNotificationConfig,
};

use super::{CallContext, RequestHandler};

impl RequestHandler {
    /// The answer to every push operation for now: `build` refuses cards that declare push.
    fn refuse_push(&self, call: &CallContext) -> A2aError {
        match self.prepare(call) {
            Err(error) => error,
            Ok(_) => A2aError::push_notification_not_supported(),
        }
    }

    /// CreateTaskPushNotificationConfig.
    ///
    /// # Errors
    /// PushNotificationNotSupported.
    pub async fn create_task_push_notification_config(
        &self,
        call: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let _ = request;
        Err(self.refuse_push(call))
    }

    /// GetTaskPushNotificationConfig.
    ///
    /// # Errors
    /// PushNotificationNotSupported.
    pub async fn get_task_push_notification_config(
        &self,
        call: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2aError> {
        let _ = request;
        Err(self.refuse_push(call))
    }

    /// ListTaskPushNotificationConfigs.
    ///
    /// # Errors
    /// PushNotificationNotSupported.
    pub async fn list_task_push_notification_configs(
        &self,
        call: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2aError> {
        let _ = request;
        Err(self.refuse_push(call))
    }

    /// DeleteTaskPushNotificationConfig.
    ///
    /// # Errors
    /// PushNotificationNotSupported.
    pub async fn delete_task_push_notification_config(
        &self,
        call: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<Empty, A2aError> {
        let _ = request;
        Err(self.refuse_push(call))
    }
}
