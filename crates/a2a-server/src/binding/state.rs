//! The state every route of the router shares.

use std::time::Duration;

use a2a_types::error::RestStatusProfile;

use super::card::CardRoute;
use super::jwks::JwksRoute;
use super::{Endpoint, RouterOptions};
use crate::handler::RequestHandler;
use crate::metrics_page::MetricsRender;

/// What every route shares.
#[derive(Debug)]
pub(super) struct Bindings {
    pub(super) handler: RequestHandler,
    pub(super) max_body_bytes: usize,
    pub(super) profile: RestStatusProfile,
    /// How often idle SSE streams get a keep-alive comment.
    pub(super) sse_keepalive: Duration,
    pub(super) card: CardRoute,
    pub(super) card_path: String,
    /// The push signer's public keys, when one is configured.
    pub(super) jwks: Option<JwksRoute>,
    pub(super) metrics: Option<MetricsRender>,
    pub(super) endpoints: Vec<Endpoint>,
}

impl Bindings {
    /// The shared state of the routes for `endpoints`, as `options` configure them.
    pub(super) fn new(
        handler: RequestHandler,
        endpoints: &[Endpoint],
        options: &RouterOptions,
    ) -> Self {
        Self {
            card: CardRoute::new(handler.card(), handler.config().card_max_age),
            sse_keepalive: handler.sse_keepalive(),
            handler,
            max_body_bytes: options.max_body_bytes,
            profile: options.rest_status_profile,
            card_path: options.card_path.clone(),
            jwks: JwksRoute::new(
                options.jwks_path.clone(),
                options.push_signer.as_ref(),
                options.card_jwk.as_ref(),
            ),
            metrics: options.metrics.clone(),
            endpoints: endpoints.to_vec(),
        }
    }
}
