//! GetTask (spec §2.3).

use a2a_types::{A2aError, GetTaskRequest, Task};

use super::{CallContext, RequestHandler, history_length, tenant_of, trim_history};
use crate::store::TaskScope;

impl RequestHandler {
    /// Returns a task, its history cut to `historyLength` (artifacts always included).
    ///
    /// # Errors
    /// TaskNotFound (also for another caller's task), InvalidParams, VersionNotSupported.
    pub async fn get_task(
        &self,
        call: &CallContext,
        request: GetTaskRequest,
    ) -> Result<Task, A2aError> {
        let length = history_length(request.history_length)?;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let Some(stored) = self.inner.engine.load(&scope, &request.id).await? else {
            return Err(self.missing_task(&scope, &request.id).await);
        };
        if !self.may_read(call, &stored.task).await {
            return Err(self.refused(&request.id));
        }
        Ok(trim_history(stored.task, length))
    }
}
