//! The bindings: JSON-RPC 2.0 and HTTP+JSON (REST) on axum with the agent card route, and
//! gRPC on its own routes, with A2A v0.3 beside 1.0 on the JSON-RPC and HTTP+JSON ones
//! (`v03`). Every route ends in the same [`RequestHandler`].

mod body;
mod call;
mod card;
mod decode;
mod dispatch;
pub(crate) mod grpc;
mod jsonrpc;
mod jwks;
mod media;
mod path;
mod response;
mod rest;
mod rest_query;
mod rest_route;
mod routes;
mod sse;
mod state;
mod v03;

use a2a_types::error::RestStatusProfile;

/// Where the public agent card is served by default (RFC 8615, spec §2.12).
pub use a2a_types::card::WELL_KNOWN_CARD_PATH;

/// The protocol binding of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BindingKind {
    /// JSON-RPC 2.0 over HTTP POST.
    JsonRpc,
    /// HTTP+JSON (REST).
    HttpJson,
}

/// One served interface: a binding at a path (the card's interface URL, host ignored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The binding.
    pub binding: BindingKind,
    /// The path prefix, normalised: starts with `/`, no trailing `/` (except the root `/`).
    pub path: String,
    /// The interface's tenant, when the card names one.
    pub tenant: String,
}

/// Router-wide settings.
#[derive(Debug, Clone)]
pub(crate) struct RouterOptions {
    /// Where the public card is served.
    pub(crate) card_path: String,
    /// Request bodies larger than this are refused with PayloadTooLarge, never read in full;
    /// `ServerConfig::max_payload_size`.
    pub(crate) max_body_bytes: usize,
    /// HTTP statuses of errors on HTTP+JSON: `ServerConfig::rest_status_profile`.
    pub(crate) rest_status_profile: RestStatusProfile,
    /// Signs push deliveries; when set, its public keys are served at `jwks_path`.
    pub(crate) push_signer: Option<crate::push::signing::PushSigner>,
    /// The public key of the card signature, served in the JWK Set beside the push signer's.
    pub(crate) card_jwk: Option<a2a_signature::Jwk>,
    /// Where the push signer's JWK Set is served: `/.well-known/jwks.json` under the base path.
    pub(crate) jwks_path: String,
    /// Renders `GET /metrics`, when served.
    pub(crate) metrics: Option<crate::metrics_page::MetricsRender>,
}

pub(crate) use self::path::{join_paths, normalize_path, router, url_path};
pub(crate) use self::v03::{is_marked as is_v03_push_url, push_body as v03_push_body, served_card};
