//! Canceling a task: the executor's cancel hook, then the CANCELED status recorded under the
//! task's lock, the streams ended with it, and the running turn stopped, here or (through a
//! signal) on the instance that runs it.

use a2a_types::{A2aError, Metadata, Task, TaskId, TaskState, TaskStatus};

use super::apply::status_event;
use super::engine::{Engine, store_failure};
use crate::cluster::ClusterSignal;
use crate::executor::{CancelRequest, ExecutorError};
use crate::store::{Expected, TaskScope};

impl Engine {
    /// Cancels the task `task_id` of `scope`.
    ///
    /// # Errors
    /// TaskNotFound; TaskNotCancelable for a terminal task (a CANCELED one is returned as it
    /// is under `idempotent_cancel`); the hook's own refusal; InternalError when the hook or
    /// the store fails.
    pub(crate) async fn cancel(
        &self,
        scope: &TaskScope,
        task_id: &TaskId,
        metadata: Option<&Metadata>,
    ) -> Result<Task, A2aError> {
        let _guard = self.locks.lock(task_id).await;
        let Some(stored) = self.load(scope, task_id).await? else {
            return Err(self.missing_task(scope, task_id).await);
        };
        let state = stored.task.status.state;
        if state.is_terminal() {
            return if state == TaskState::Canceled && self.config.idempotent_cancel {
                Ok(stored.task)
            } else {
                Err(A2aError::task_not_cancelable(task_id.as_str()))
            };
        }
        let running = self.running_turn(task_id);
        let hook = CancelRequest {
            task: &stored.task,
            // A queued turn is registered but has not started: nothing runs yet. Without a
            // turn here, a running state means a turn on another instance.
            running: match &running {
                Some(_) => !self.admission.is_waiting(task_id),
                None => {
                    self.cluster.is_shared()
                        && matches!(
                            state,
                            TaskState::Submitted | TaskState::Working | TaskState::AuthRequired
                        )
                }
            },
            tenant: &scope.tenant,
            owner: scope.owner.as_deref(),
            metadata,
        };
        match self.executor.cancel(hook).await {
            Ok(()) => {}
            Err(ExecutorError::Refuse(error)) => return Err(error),
            Err(error) => {
                tracing::error!(task_id = %task_id, error = %error, "cancel hook failed");
                return Err(A2aError::internal());
            }
        }
        let mut task = stored.task;
        task.status = TaskStatus::new(TaskState::Canceled);
        task.status.timestamp = Some(self.deps.clock.now());
        let event = status_event(&task, None);
        self.record(scope, &task, Expected::Version(stored.version), vec![event])
            .await
            .map_err(store_failure)?;
        match running {
            Some(turn) => turn.end_canceled(task.clone()),
            // The turn may run on another instance: it stops when it hears of the cancel.
            None => self.signal(ClusterSignal::Cancel {
                task_id: task.id.clone(),
            }),
        }
        Ok(task)
    }
}
