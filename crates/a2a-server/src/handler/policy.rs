//! The owner and authorization hooks ([`crate::hooks`]) on the request path: the owner is
//! settled where a call is negotiated, and each operation asks the authorizer about the task
//! it touches before touching it.

use std::sync::Arc;

use a2a_types::{A2aError, Message, TaskId};

use super::{CallContext, Inner, RequestHandler};
use crate::hooks::{Access, Authorizer, OwnerHook};
use crate::store::TaskScope;

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("engine", &self.engine)
            .field("card", &self.card.name)
            .field("authenticator", &self.authenticator)
            .field("owner_hook", &self.owner.is_some())
            .field("authorizer", &self.authorizer.is_some())
            .field("stream_hooks", &self.stream_hooks.is_some())
            .finish_non_exhaustive()
    }
}

impl RequestHandler {
    /// Sets the owner hook and the authorizer (the builder's, before the handler is shared).
    pub(crate) fn with_policy(
        mut self,
        owner: Option<Arc<dyn OwnerHook>>,
        authorizer: Option<Arc<dyn Authorizer>>,
    ) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.owner = owner;
            inner.authorizer = authorizer;
        }
        self
    }

    /// Sets the hook that settles SendMessage calls leaving `returnImmediately` open.
    pub(crate) fn with_return_immediately(
        mut self,
        hook: Option<Arc<dyn crate::hooks::ReturnImmediatelyHook>>,
    ) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.return_immediately = hook;
        }
        self
    }

    /// Whether `request` answers at once: the request's own choice, else the hook's, else
    /// the server's default.
    pub(crate) fn returns_immediately(
        &self,
        call: &CallContext,
        request: &a2a_types::SendMessageRequest,
    ) -> bool {
        request
            .return_immediately()
            .or_else(|| {
                self.inner
                    .return_immediately
                    .as_ref()
                    .and_then(|hook| hook.return_immediately(call, request))
            })
            .unwrap_or(self.inner.engine.config().default_return_immediately)
    }

    /// Settles the owner of `call` with the owner hook, when one is set (without one, the
    /// owner stays the authenticated caller's identity).
    pub fn settle_owner(&self, call: &mut CallContext) {
        if let Some(hook) = &self.inner.owner {
            call.owner = hook.owner(call);
        }
    }

    /// Asks the authorizer whether `call` may have `access` to the task `task_id` of
    /// `scope`. A task that is not there is left for the operation to report.
    ///
    /// # Errors
    /// The error of a task the caller cannot see, when refused.
    pub(crate) async fn authorize(
        &self,
        call: &CallContext,
        scope: &TaskScope,
        task_id: &TaskId,
        access: Access,
    ) -> Result<(), A2aError> {
        let Some(authorizer) = &self.inner.authorizer else {
            return Ok(());
        };
        let Some(stored) = self.inner.engine.load(scope, task_id).await? else {
            return Ok(());
        };
        if access
            .allowed(authorizer.as_ref(), call, &stored.task)
            .await
        {
            Ok(())
        } else {
            Err(self.refused(task_id))
        }
    }

    /// Whether `call` may read `task` (true without an authorizer).
    pub(crate) async fn may_read(&self, call: &CallContext, task: &a2a_types::Task) -> bool {
        match &self.inner.authorizer {
            Some(authorizer) => authorizer.check_read(call, task).await,
            None => true,
        }
    }

    /// Whether `call` may change `task` (true without an authorizer).
    pub(crate) async fn may_write(&self, call: &CallContext, task: &a2a_types::Task) -> bool {
        match &self.inner.authorizer {
            Some(authorizer) => authorizer.check_write(call, task).await,
            None => true,
        }
    }

    /// Asks the authorizer whether `call` may start a task with `message`.
    ///
    /// # Errors
    /// Authorization, when refused.
    pub(crate) async fn authorize_create(
        &self,
        call: &CallContext,
        message: &Message,
    ) -> Result<(), A2aError> {
        match &self.inner.authorizer {
            Some(authorizer) if !authorizer.check_create(call, message).await => {
                Err(crate::hooks::create_refused())
            }
            _ => Ok(()),
        }
    }

    /// A refused access to an existing task, answered as the cross-owner policy answers a
    /// task of another owner.
    pub(super) fn refused(&self, task_id: &TaskId) -> A2aError {
        match self.inner.engine.config().cross_owner {
            crate::config::CrossOwner::Forbidden => A2aError::new(
                a2a_types::ErrorKind::Authorization,
                format!("access to task {task_id} is not allowed"),
            ),
            crate::config::CrossOwner::NotFound => A2aError::task_not_found(task_id.as_str()),
        }
    }
}
