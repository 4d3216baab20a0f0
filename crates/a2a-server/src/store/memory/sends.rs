//! The send keys of the in-memory store (see `TaskStore::claim_send`): each key with its
//! digest and task, and the keys of each task, so that they go with it.

use std::collections::HashMap;

use a2a_types::TaskId;

use super::super::{KeptSend, TaskScope};

/// The claimed send keys, behind the store's lock.
#[derive(Debug, Default)]
pub(super) struct Sends {
    by_key: HashMap<(TaskScope, String), KeptSend>,
    /// The keys naming each task: a task keeps one per message it was sent.
    by_task: HashMap<String, Vec<(TaskScope, String)>>,
}

impl Sends {
    /// The task the key `key` of `scope` names, if it is claimed.
    pub(super) fn held(&self, scope: &TaskScope, key: &str) -> Option<TaskId> {
        if self.by_key.is_empty() {
            return None;
        }
        self.by_key
            .get(&(scope.clone(), key.to_owned()))
            .map(|kept| kept.task_id.clone())
    }

    /// Claims `key` in `scope` for `task_id`: `None` when it was free, else who holds it.
    pub(super) fn claim(
        &mut self,
        scope: &TaskScope,
        key: &str,
        digest: &str,
        task_id: &TaskId,
    ) -> Option<KeptSend> {
        let slot = (scope.clone(), key.to_owned());
        if let Some(kept) = self.by_key.get(&slot) {
            return Some(kept.clone());
        }
        self.by_task
            .entry(task_id.as_str().to_owned())
            .or_default()
            .push(slot.clone());
        self.by_key.insert(
            slot,
            KeptSend {
                task_id: task_id.clone(),
                digest: digest.to_owned(),
            },
        );
        None
    }

    /// Forgets `key` in `scope` if it names `task_id`.
    pub(super) fn release(&mut self, scope: &TaskScope, key: &str, task_id: &TaskId) {
        let slot = (scope.clone(), key.to_owned());
        if self
            .by_key
            .get(&slot)
            .is_none_or(|kept| &kept.task_id != task_id)
        {
            return;
        }
        self.by_key.remove(&slot);
        if let Some(keys) = self.by_task.get_mut(task_id.as_str()) {
            keys.retain(|held| held != &slot);
            if keys.is_empty() {
                self.by_task.remove(task_id.as_str());
            }
        }
    }

    /// Forgets every key naming the task `id` (it was removed).
    pub(super) fn forget_task(&mut self, id: &str) {
        if self.by_task.is_empty() {
            return;
        }
        if let Some(keys) = self.by_task.remove(id) {
            for slot in keys {
                self.by_key.remove(&slot);
            }
        }
    }
}
