//! Making a [`RequestHandler`] and what it exposes besides the operations.

use std::sync::Arc;

use a2a_types::{A2aError, AgentCard, TaskId};

use super::{Inner, RequestHandler};
use crate::auth::Authenticator;
use crate::store::TaskScope;
use crate::turn::Engine;

impl RequestHandler {
    pub(crate) fn new(
        engine: Arc<Engine>,
        card: Arc<AgentCard>,
        extended_card: Option<Arc<AgentCard>>,
        authenticator: Authenticator,
    ) -> Self {
        let credential_names =
            super::CredentialNames::of(std::iter::once(&*card).chain(extended_card.as_deref()));
        Self {
            inner: Arc::new(Inner {
                engine,
                card,
                extended_card,
                credential_names,
                page_tokens: tokio::sync::OnceCell::new(),
                authenticator,
                owner: None,
                authorizer: None,
                return_immediately: None,
                stream_hooks: None,
                streams: super::stream_registry::StreamRegistry::default(),
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

    /// The headers and cookies that carry the cards' credentials.
    pub(crate) fn credential_names(&self) -> &super::CredentialNames {
        &self.inner.credential_names
    }

    /// The public agent card this handler serves.
    #[must_use]
    pub fn card(&self) -> &AgentCard {
        &self.inner.card
    }

    /// Whether the server should get traffic: not while it drains at shutdown, nor while
    /// its task store does not answer. What `/readyz` answers.
    pub async fn readiness(&self) -> crate::health::Readiness {
        self.inner.engine.readiness().await
    }

    /// The server's switches and limits.
    pub(crate) fn config(&self) -> &crate::config::ServerConfig {
        self.inner.engine.config()
    }
}
