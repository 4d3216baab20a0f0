//! CancelTask (spec §2.5): the engine cancels; this checks the call and names the scope.

use a2a_types::{A2aError, CancelTaskRequest, Task};

use super::{CallContext, RequestHandler, tenant_of};
use crate::store::TaskScope;

impl RequestHandler {
    /// Cancels a task: asks the executor's cancel hook, marks the task CANCELED, ends its
    /// streams with the CANCELED status, and fires the running turn's cancellation.
    ///
    /// # Errors
    /// TaskNotFound; TaskNotCancelable for a terminal task (a CANCELED one is returned as it
    /// is under `idempotent_cancel`); the hook's own refusal; InternalError when the hook fails.
    pub async fn cancel_task(
        &self,
        call: &CallContext,
        request: CancelTaskRequest,
    ) -> Result<Task, A2aError> {
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        self.authorize(call, &scope, &request.id, crate::hooks::Access::Write)
            .await?;
        self.inner
            .engine
            .cancel(&scope, &request.id, request.metadata.as_ref())
            .await
    }
}
