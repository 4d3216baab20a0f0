//! Which accesses to a task are allowed: the [`Authorizer`].

use a2a_types::{A2aError, Message, Task};

use crate::handler::CallContext;

/// Allows or refuses each access to a task; every method allows by default.
///
/// - `check_read`: GetTask, SubscribeToTask, Get/List push configs, and each task of a
///   ListTasks page (a refused one is left out of the page);
/// - `check_write`: CancelTask, Create/Delete push config, a message to an existing task;
/// - `check_create`: a message that starts a new task.
///
/// The task passed is the stored one, already in the caller's scope (tenant and owner): a
/// task of another scope is not found before the authorizer is asked. A refused read or
/// write is answered as a task the caller cannot see (TaskNotFound, or Authorization under
/// the `forbidden` cross-owner answer); a refused create is answered Authorization. To fail
/// closed, return `false` when your own check fails (a policy store that does not answer).
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync + 'static {
    /// May `call` read `task`?
    async fn check_read(&self, call: &CallContext, task: &Task) -> bool {
        let _ = (call, task);
        true
    }

    /// May `call` change `task` (cancel it, send it a message, manage its push configs)?
    async fn check_write(&self, call: &CallContext, task: &Task) -> bool {
        let _ = (call, task);
        true
    }

    /// May `call` start a new task with `message`?
    async fn check_create(&self, call: &CallContext, message: &Message) -> bool {
        let _ = (call, message);
        true
    }
}

/// What an access to a task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

impl Access {
    pub(crate) async fn allowed(
        self,
        authorizer: &dyn Authorizer,
        call: &CallContext,
        task: &Task,
    ) -> bool {
        match self {
            Self::Read => authorizer.check_read(call, task).await,
            Self::Write => authorizer.check_write(call, task).await,
        }
    }
}

/// The error for a create the authorizer refused.
pub(crate) fn create_refused() -> A2aError {
    A2aError::authorization_failed()
}
