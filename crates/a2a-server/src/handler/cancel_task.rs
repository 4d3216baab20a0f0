//! CancelTask (spec §2.5, §9.8).

use a2a_types::{A2aError, CancelTaskRequest, Task, TaskState, TaskStatus};

use super::{CallContext, RequestHandler, tenant_of};
use crate::cluster::ClusterSignal;
use crate::executor::{CancelRequest, ExecutorError};
use crate::store::{Expected, TaskScope};
use crate::turn::store_failure;

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
        self.prepare(call)?;
        let engine = &self.inner.engine;
        let scope = TaskScope {
            tenant: tenant_of(call, &request.tenant),
            owner: call.owner.clone(),
        };
        let _guard = engine.locks.lock(&request.id).await;
        let Some(stored) = engine.load(&scope, &request.id).await? else {
            return Err(self.missing_task(&scope, &request.id).await);
        };
        let state = stored.task.status.state;
        if state.is_terminal() {
            return if state == TaskState::Canceled && engine.config.idempotent_cancel {
                Ok(stored.task)
            } else {
                Err(A2aError::task_not_cancelable(request.id.as_str()))
            };
        }
        let running = engine.running_turn(&request.id);
        let hook = CancelRequest {
            task: &stored.task,
            // A queued turn is registered but has not started: nothing runs yet. Without a
            // turn here, a running state means a turn on another instance.
            running: match &running {
                Some(_) => !engine.admission.is_waiting(&request.id),
                None => {
                    engine.cluster.is_shared()
                        && matches!(
                            state,
                            TaskState::Submitted | TaskState::Working | TaskState::AuthRequired
                        )
                }
            },
            tenant: &scope.tenant,
            owner: scope.owner.as_deref(),
            metadata: request.metadata.as_ref(),
        };
        match self.inner.executor.cancel(hook).await {
            Ok(()) => {}
            Err(ExecutorError::Refuse(error)) => return Err(error),
            Err(error) => {
                tracing::error!(task_id = %request.id, error = %error, "cancel hook failed");
                return Err(A2aError::internal());
            }
        }
        let mut task = stored.task;
        task.status = TaskStatus::new(TaskState::Canceled);
        let event = crate::turn::status_event(&task, None);
        engine
            .record(
                &scope,
                &task,
                Expected::Version(stored.version),
                vec![event],
            )
            .await
            .map_err(store_failure)?;
        match running {
            Some(turn) => turn.end_canceled(task.clone()),
            // The turn may run on another instance: it stops when it hears of the cancel.
            None => engine.signal(ClusterSignal::Cancel {
                task_id: task.id.clone(),
            }),
        }
        Ok(task)
    }
}
