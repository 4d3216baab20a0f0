//! Applying one [`Change`] to a task, producing the event that describes it.

use a2a_types::{
    ContextId, Message, Metadata, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskId,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};

use super::lifecycle::can_move;
use crate::executor::Change;
use crate::executor::UpdateError;
use crate::store::fold_artifact_update;

/// Fills in what an agent message must carry: role, ids (spec §3.4).
pub(crate) fn agent_message(
    mut message: Message,
    task_id: Option<&TaskId>,
    context_id: &ContextId,
    deps: &crate::hooks::Deps,
) -> Message {
    message.role = Role::Agent;
    if message.message_id.is_empty() {
        message.message_id = deps.ids.message_id();
    }
    message.context_id = Some(context_id.clone());
    message.task_id = task_id.cloned();
    message
}

/// The status-update event for the task's current status.
pub(crate) fn status_event(task: &Task, metadata: Option<Metadata>) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        metadata,
    })
}

fn merge_metadata(task: &mut Task, metadata: Option<&Metadata>) {
    if let Some(metadata) = metadata {
        let target = task.metadata.get_or_insert_with(Metadata::new);
        for (key, value) in metadata {
            target.insert(key.clone(), value.clone());
        }
    }
}

/// Applies `change` to `task` and returns the event to publish.
pub(crate) fn apply_change(
    task: &mut Task,
    change: Change,
    deps: &crate::hooks::Deps,
) -> Result<StreamResponse, UpdateError> {
    match change {
        Change::Status { state, update } => {
            let from = task.status.state;
            if !can_move(from, state) {
                return Err(UpdateError::InvalidTransition { from, to: state });
            }
            let message = update
                .message
                .map(|message| agent_message(message, Some(&task.id), &task.context_id, deps));
            if let Some(message) = &message {
                task.history.push(message.clone());
            }
            task.status = TaskStatus {
                state,
                message,
                timestamp: Some(deps.clock.now()),
            };
            merge_metadata(task, update.metadata.as_ref());
            Ok(status_event(task, update.metadata))
        }
        Change::Message { update } => {
            let Some(message) = update.message else {
                return Err(UpdateError::Invalid("a message update needs a message"));
            };
            let message = agent_message(message, Some(&task.id), &task.context_id, deps);
            if task.status.state == TaskState::Submitted {
                task.status.state = TaskState::Working;
            }
            task.history.push(message.clone());
            task.status.message = Some(message);
            task.status.timestamp = Some(deps.clock.now());
            merge_metadata(task, update.metadata.as_ref());
            Ok(status_event(task, update.metadata))
        }
        Change::Artifact { artifact, chunk } => {
            let event = TaskArtifactUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                artifact,
                append: chunk.append(),
                last_chunk: chunk.last_chunk(),
                metadata: None,
            };
            fold_artifact_update(task, &event);
            Ok(StreamResponse::ArtifactUpdate(event))
        }
    }
}
