//! Exactly-once sends: a send claims its key (the `Idempotency-Key` header, else the
//! message id) in the store before its turn starts, so that a retry of it (same key, same
//! caller) is answered with the task the first send made or continued, and starts no turn.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{A2aError, ErrorKind, Task, TaskId};
use tokio::sync::watch;

use super::engine::{Engine, StartedTurn, store_failure};
use super::run::Turn;
use super::view::TurnView;
use crate::store::TaskScope;

/// How long a retry waits for the task of a send that claimed its key but has stored no
/// task yet (its turn has not made its first update, on this instance or another).
const PENDING_SEND_WAIT: Duration = Duration::from_secs(10);

/// How often such a retry looks again.
const PENDING_SEND_POLL: Duration = Duration::from_millis(50);

/// What makes a send the same send: its key, and the digest of its message as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SendKey {
    /// The `Idempotency-Key` header, else the message id.
    pub(crate) key: String,
    /// SHA-256 of the message's canonical JSON, in hex.
    pub(crate) digest: String,
}

impl Engine {
    /// Claims `key` for a send making or continuing `task_id`: `None` when this send is the
    /// first and goes on; the task of the first send when this one repeats it.
    ///
    /// # Errors
    /// InvalidParams when the key was sent before with another message; Unavailable when
    /// the first send has stored no task within [`PENDING_SEND_WAIT`]; InternalError when
    /// the store fails.
    pub(super) async fn claim_send(
        &self,
        scope: &TaskScope,
        key: &SendKey,
        task_id: &TaskId,
    ) -> Result<Option<Task>, A2aError> {
        let deadline = tokio::time::Instant::now() + PENDING_SEND_WAIT;
        loop {
            let held = self
                .store
                .claim_send(scope, &key.key, &key.digest, task_id)
                .await
                .map_err(store_failure)?;
            let Some(kept) = held else {
                return Ok(None);
            };
            if kept.digest != key.digest {
                return Err(A2aError::invalid_field(
                    "message.messageId",
                    format!(
                        "{:?} was already sent with another message; a retry must send the same message, a new message needs a new id",
                        key.key
                    ),
                ));
            }
            if let Some(stored) = self.load(scope, &kept.task_id).await? {
                return Ok(Some(stored.task));
            }
            // The first send claimed the key and its turn has not stored the task yet (or
            // it ended without one, and releases the key).
            if tokio::time::Instant::now() >= deadline {
                return Err(A2aError::new(
                    ErrorKind::Unavailable,
                    format!(
                        "a send of {:?} is still being answered; retry later",
                        key.key
                    ),
                ));
            }
            tokio::time::sleep(PENDING_SEND_POLL).await;
        }
    }

    /// Forgets the claim of `key` for `task_id` (a send refused before it made or changed
    /// its task): a failure is logged, as the key then only waits for its expiry.
    pub(super) async fn release_send(&self, scope: &TaskScope, key: &str, task_id: &TaskId) {
        if let Err(error) = self.store.release_send(scope, key, task_id).await {
            tracing::warn!(%task_id, %error, "could not release the key of a refused send");
        }
    }

    /// The answer to a repeated send: `task` as stored, with no turn.
    pub(super) fn repeated_send(task: Task) -> StartedTurn {
        let (_view, receiver) = watch::channel(TurnView {
            task: Some(Arc::new(task)),
            changed: true,
            ended: true,
            ..TurnView::default()
        });
        StartedTurn {
            view: receiver,
            events: None,
            stored: None,
            repeated: true,
        }
    }
}

impl Turn {
    /// A new interaction whose turn ended without making a task (the agent replied with a
    /// message, or refused) keeps nothing a retry could be answered with: its key is
    /// released, and a retry is a new send.
    pub(super) async fn release_taskless_send(&self) {
        let Some(key) = &self.send_key else {
            return;
        };
        if !self.is_new || self.flags().created {
            return;
        }
        self.engine
            .release_send(&self.scope, key, &self.task_id)
            .await;
    }
}
