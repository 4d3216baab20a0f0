//! The transport-agnostic request handler: one method per A2A operation, request in,
//! response out. The bindings call it; so can in-process callers and tests.

mod call;
mod cancel_task;
mod extended_card;
mod get_task;
mod list_tasks;
mod page_token;
mod push_config;
mod send_message;
mod send_streaming;
mod stream;
mod subscribe;

use std::sync::Arc;

use a2a_types::{A2aError, AgentCard, ErrorKind, Task, TaskId};

pub use self::call::{CallContext, parse_extension_list};
pub use self::stream::{EventStream, StreamEvent};
use crate::auth::Authenticator;
use crate::store::TaskScope;
use crate::turn::Engine;

/// Serves the eleven A2A operations for one agent.
///
/// Every method first checks the protocol version (a request naming none is 0.3, refused
/// unless `assume_version_when_absent` says otherwise) and negotiates extensions against the
/// card; errors are [`A2aError`]s ready for any binding.
#[derive(Debug, Clone)]
pub struct RequestHandler {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    engine: Arc<Engine>,
    card: Arc<AgentCard>,
    extended_card: Option<Arc<AgentCard>>,
    /// Made at the first ListTasks: its key may come from the store (see
    /// [`RequestHandler::page_tokens`]).
    page_tokens: tokio::sync::OnceCell<page_token::PageTokens>,
    authenticator: Authenticator,
}

impl RequestHandler {
    pub(crate) fn new(
        engine: Arc<Engine>,
        card: Arc<AgentCard>,
        extended_card: Option<Arc<AgentCard>>,
        authenticator: Authenticator,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                engine,
                card,
                extended_card,
                page_tokens: tokio::sync::OnceCell::new(),
                authenticator,
            }),
        }
    }

    /// The error for a task `scope` cannot see (see [`Engine::missing_task`]).
    pub(crate) async fn missing_task(&self, scope: &TaskScope, id: &TaskId) -> A2aError {
        self.inner.engine.missing_task(scope, id).await
    }

    /// Who may call: the card's requirements paired with the configured credentials.
    pub(crate) fn authenticator(&self) -> &Authenticator {
        &self.inner.authenticator
    }

    /// The public agent card this handler serves.
    #[must_use]
    pub fn card(&self) -> &AgentCard {
        &self.inner.card
    }

    /// Negotiates a call, once, where it enters (the binding, or an in-process caller): the
    /// protocol version is one this server speaks, and the extensions the call activates are
    /// settled into [`CallContext::activated_extensions`]. Operations trust the result and
    /// check neither again.
    ///
    /// # Errors
    /// VersionNotSupported; ExtensionSupportRequired (see
    /// [`activated_extensions`](Self::activated_extensions)).
    pub fn negotiate(&self, call: &mut CallContext) -> Result<(), A2aError> {
        self.check_version(call)?;
        call.activated_extensions = self.activated_extensions(call)?;
        Ok(())
    }

    /// The server's switches and limits.
    pub(crate) fn config(&self) -> &crate::config::ServerConfig {
        self.inner.engine.config()
    }

    /// Refuses a request whose `A2A-Version` this server does not speak (spec §6): any 1.x
    /// is served; a missing version means 0.3 unless configured otherwise.
    ///
    /// # Errors
    /// VersionNotSupported.
    pub fn check_version(&self, call: &CallContext) -> Result<(), A2aError> {
        let version = call
            .version
            .as_deref()
            .map(str::trim)
            .filter(|version| !version.is_empty())
            .or(self
                .inner
                .engine
                .config()
                .assume_version_when_absent
                .as_deref())
            .unwrap_or("0.3");
        if version.split('.').next() == Some("1") {
            Ok(())
        } else {
            Err(A2aError::version_not_supported(version))
        }
    }

    /// The extensions this call activates: those it requested that the card declares.
    ///
    /// # Errors
    /// ExtensionSupportRequired when the card requires one the call did not request;
    /// ExtensionSupportRequired, naming the URI, for an undeclared one under
    /// `strict_extensions`.
    pub fn activated_extensions(&self, call: &CallContext) -> Result<Vec<String>, A2aError> {
        let declared = &self.inner.card.capabilities.extensions;
        if let Some(required) = declared.iter().find(|extension| {
            extension.required && !call.requested_extensions.contains(&extension.uri)
        }) {
            return Err(A2aError::extension_support_required(&required.uri));
        }
        let mut activated = Vec::new();
        for uri in &call.requested_extensions {
            if declared.iter().any(|extension| &extension.uri == uri) {
                activated.push(uri.clone());
            } else if self.inner.engine.config().strict_extensions {
                // The strict reading refuses what the agent cannot honour with the
                // extension error itself, so a client learns which URI to drop.
                return Err(A2aError::new(
                    ErrorKind::ExtensionSupportRequired,
                    format!("extension {uri} is not supported by this agent"),
                )
                .with_metadata("extension", uri.as_str()));
            }
        }
        Ok(activated)
    }

    /// The page-token signer, made once: with the configured key; else with the key the
    /// store shares among every instance over it (made once and kept, so a token from one
    /// instance pages on another and after a restart); else, for a store only this process
    /// sees, a random key of this process.
    ///
    /// # Errors
    /// InternalError when the store cannot give its key (tried again at the next call).
    async fn page_tokens(&self) -> Result<&page_token::PageTokens, A2aError> {
        let engine = &self.inner.engine;
        self.inner
            .page_tokens
            .get_or_try_init(|| async {
                if let Some(key) = &engine.config().page_token_key {
                    return Ok(page_token::PageTokens::new(Some(key.clone())));
                }
                let shared = engine.shared_secret(page_token::KEY_NAME).await?;
                Ok(page_token::PageTokens::new(shared))
            })
            .await
    }
}

/// The tenant of a request: the binding's (REST path) wins over the request body's.
fn tenant_of(call: &CallContext, request_tenant: &str) -> String {
    if call.tenant.is_empty() {
        request_tenant.to_owned()
    } else {
        call.tenant.clone()
    }
}

/// Checks a `historyLength` (negative is InvalidParams) and turns it into a count (`None`:
/// no limit).
fn history_length(length: Option<i32>) -> Result<Option<usize>, A2aError> {
    match length {
        None => Ok(None),
        Some(length) => usize::try_from(length)
            .map(Some)
            .map_err(|_| A2aError::invalid_field("historyLength", "must not be negative")),
    }
}

/// Applies a checked `historyLength` to a task about to be returned.
fn trim_history(mut task: Task, length: Option<usize>) -> Task {
    if let Some(length) = length {
        task.truncate_history(length);
    }
    task
}
