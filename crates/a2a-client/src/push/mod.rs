//! Checking push deliveries at a webhook (spec §10.5: receivers must validate authenticity):
//! the detached JWS an agent signs each delivery with, its notification token, and the
//! `StreamResponse` body.
//!
//! An agent built with `a2a-server` and a push signer sends [`SIGNATURE_HEADER`] with
//! `BASE64URL(header) + ".." + BASE64URL(signature)` (RFC 7515 Appendix F), the signature
//! covering `BASE64URL(header) + "." + BASE64URL(body)`. The protected header names the
//! algorithm (`alg`), the key (`kid`), the type ([`SIGNATURE_TYPE`]) and when it was signed
//! (`iat`, unix seconds); the agent's public keys are a JWK Set at [`JWKS_PATH`]. The token
//! of the push config, when it has one, comes in [`TOKEN_HEADER`] and [`LEGACY_TOKEN_HEADER`].
//!
//! ```no_run
//! use a2a_client::push::PushVerifier;
//!
//! # async fn webhook(headers: http::HeaderMap, body: bytes::Bytes) -> Result<(), Box<dyn std::error::Error>> {
//! let verifier = PushVerifier::fetch("https://agent.example.com")
//!     .await?
//!     .expect_token("the token given to CreateTaskPushNotificationConfig");
//! let delivery = verifier.verify(&headers, &body)?;
//! println!("task {:?} from key {}", delivery.event.task_id(), delivery.signature.kid);
//! # Ok(()) }
//! ```
//!
//! Accepted algorithms: ES256 (what `a2a-server` signs with), ES384 and EdDSA (Ed25519).
//! `none`, the HMAC algorithms and anything else are refused.

mod error;
mod header;
mod keys;
mod token;
mod verifier;
mod wire;

use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use a2a_types::StreamResponse;

pub use self::error::PushVerifyError;
use self::keys::{JwksSource, VerifyingKey};
pub use self::keys::{agent_jwks_url, jwks_url};
pub use self::token::check_token;
pub use self::verifier::decode_body;
pub use self::wire::{
    JWKS_PATH, LEGACY_TOKEN_HEADER, SIGNATURE_HEADER, SIGNATURE_TYPE, TOKEN_HEADER,
};
use crate::Secret;

/// How old a signature may be by default.
pub const DEFAULT_MAX_AGE: Duration = Duration::from_secs(5 * 60);
/// How far in the future `iat` may be by default (clock skew).
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);

/// Longer header values are refused before decoding.
const MAX_SIGNATURE_CHARS: usize = 8 * 1024;

/// Checks deliveries against a set of public keys, and optionally their token.
///
/// Clones share the keys, so a [`refresh`](Self::refresh) through one is seen by all.
#[derive(Clone)]
pub struct PushVerifier {
    keys: Arc<RwLock<Arc<[VerifyingKey]>>>,
    source: Option<Arc<JwksSource>>,
    max_age: Duration,
    leeway: Duration,
    token: Option<Secret>,
}

/// What a valid signature said.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedSignature {
    /// The key that signed.
    pub kid: String,
    /// The algorithm: `ES256`, `ES384` or `EdDSA`.
    pub algorithm: &'static str,
    /// When the delivery was signed (`iat`).
    pub issued_at: SystemTime,
}

/// A delivery that passed every check.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VerifiedDelivery {
    /// The body.
    pub event: StreamResponse,
    /// Its signature.
    pub signature: VerifiedSignature,
}
