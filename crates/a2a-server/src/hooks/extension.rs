//! Extension handlers around the executor: the [`ExtensionHandler`] and the executor it wraps.

use std::sync::Arc;

use a2a_types::Task;

/// Runs before and after the executor in each turn whose call activated its extension: the
/// card's extension with the handler's [`uri`](ExtensionHandler::uri). Each hook gets the
/// card's full declaration of the extension, `params` included.
///
/// The card must declare the extension (else the server does not build:
/// [`ConfigError::UndeclaredExtension`](crate::ConfigError::UndeclaredExtension)). Handlers
/// run in the order they were added before the executor, and in the reverse order after
/// it. An error from `before` ends the turn as if the executor had returned it (a refusal
/// refuses the request); the executor then does not run.
#[async_trait::async_trait]
pub trait ExtensionHandler: Send + Sync + 'static {
    /// The URI of the extension this handles.
    fn uri(&self) -> &str;

    /// Before the executor: may read or change its context, or update the task.
    async fn before(
        &self,
        extension: &a2a_types::card::AgentExtension,
        context: &mut crate::RequestContext,
        updater: &crate::TaskUpdater,
    ) -> Result<(), crate::ExecutorError> {
        let _ = (extension, context, updater);
        Ok(())
    }

    /// After the executor returned `outcome`: returns the outcome of the turn (by default
    /// `outcome` itself).
    async fn after(
        &self,
        extension: &a2a_types::card::AgentExtension,
        context: &crate::RequestContext,
        outcome: Result<(), crate::ExecutorError>,
    ) -> Result<(), crate::ExecutorError> {
        let _ = (extension, context);
        outcome
    }
}

/// The executor with its extension handlers around it.
struct WithExtensions {
    executor: Arc<dyn crate::AgentExecutor>,
    handlers: Vec<(a2a_types::card::AgentExtension, Arc<dyn ExtensionHandler>)>,
}

/// `executor`, wrapped in `handlers` when there are any.
///
/// # Errors
/// The URI of a handler's extension the card does not declare (the builder answers it with
/// [`ConfigError::UndeclaredExtension`](crate::ConfigError::UndeclaredExtension)).
pub(crate) fn with_extensions(
    executor: Arc<dyn crate::AgentExecutor>,
    card: &a2a_types::AgentCard,
    handlers: Vec<Arc<dyn ExtensionHandler>>,
) -> Result<Arc<dyn crate::AgentExecutor>, String> {
    if handlers.is_empty() {
        return Ok(executor);
    }
    let mut matched = Vec::with_capacity(handlers.len());
    for handler in handlers {
        let declared = card
            .capabilities
            .extensions
            .iter()
            .find(|extension| extension.uri == handler.uri())
            .ok_or_else(|| handler.uri().to_owned())?;
        matched.push((declared.clone(), handler));
    }
    Ok(Arc::new(WithExtensions {
        executor,
        handlers: matched,
    }))
}

#[async_trait::async_trait]
impl crate::AgentExecutor for WithExtensions {
    async fn execute(
        &self,
        mut context: crate::RequestContext,
        updater: crate::TaskUpdater,
    ) -> Result<(), crate::ExecutorError> {
        let active: Vec<_> = self
            .handlers
            .iter()
            .filter(|(extension, _)| context.extensions.contains(&extension.uri))
            .collect();
        if active.is_empty() {
            return self.executor.execute(context, updater).await;
        }
        let mut outcome = Ok(());
        let mut ran = 0;
        for (extension, handler) in &active {
            outcome = handler.before(extension, &mut context, &updater).await;
            if outcome.is_err() {
                break;
            }
            ran += 1;
        }
        let seen = context.clone();
        if outcome.is_ok() {
            outcome = self.executor.execute(context, updater).await;
        }
        for (extension, handler) in active[..ran].iter().rev() {
            outcome = handler.after(extension, &seen, outcome).await;
        }
        outcome
    }

    async fn cancel(
        &self,
        request: crate::executor::CancelRequest<'_>,
    ) -> Result<(), crate::ExecutorError> {
        self.executor.cancel(request).await
    }

    async fn recover(&self, task: &Task) -> crate::executor::Recovery {
        self.executor.recover(task).await
    }
}
