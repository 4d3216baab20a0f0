//! Where the ids the server generates come from: the [`IdSource`].

use a2a_types::TaskId;

/// Where the ids the server generates come from: a new task's id, a new conversation's
/// context id, and the message id of an agent message that has none. Ids the executor sets
/// itself (an artifact's, a message's) are its own. Each method makes a fresh random UUID by
/// default; ids must stay unique.
pub trait IdSource: Send + Sync + 'static {
    /// The id of a new task.
    fn task_id(&self) -> TaskId {
        TaskId::generate()
    }

    /// The id of a new conversation (a message that names no context).
    fn context_id(&self) -> a2a_types::ContextId {
        a2a_types::ContextId::generate()
    }

    /// The id of an agent message that has none.
    fn message_id(&self) -> a2a_types::MessageId {
        a2a_types::MessageId::generate()
    }
}
