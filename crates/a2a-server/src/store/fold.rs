//! Folding an artifact-update event into the task it updates.

use a2a_types::{Task, TaskArtifactUpdateEvent};

/// Applies one artifact-update event to `task`, as the turn that made it did: a new
/// artifact id is added; with `append`, the parts (and metadata entries) of the event join
/// the artifact of the same id; without it, the event's artifact replaces it.
///
/// A store that keeps artifact chunks as events ([`TaskStore::append`](super::TaskStore::append)) folds them into the
/// last whole copy with this, in log order, when it reads the task.
pub fn fold_artifact_update(task: &mut Task, event: &TaskArtifactUpdateEvent) {
    let artifact = &event.artifact;
    let existing = task
        .artifacts
        .iter_mut()
        .find(|known| known.artifact_id == artifact.artifact_id);
    match (existing, event.append) {
        (Some(known), true) => {
            known.parts.extend(artifact.parts.iter().cloned());
            if let Some(metadata) = &artifact.metadata {
                let target = known.metadata.get_or_insert_with(a2a_types::Metadata::new);
                for (key, value) in metadata {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
        (Some(known), false) => *known = artifact.clone(),
        (None, _) => task.artifacts.push(artifact.clone()),
    }
}
