//! What the store keeps of a send for exactly-once SendMessage: the key a send was made
//! under, the digest of its message, and the task it made or continued.

use a2a_types::TaskId;

/// A send already recorded under a key (see [`TaskStore::claim_send`]).
///
/// [`TaskStore::claim_send`]: super::TaskStore::claim_send
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptSend {
    /// The task the send made or continued.
    pub task_id: TaskId,
    /// The digest of the message it sent, as the claim gave it.
    pub digest: String,
}
