//! [`PushVerifyError`]: why a delivery or a key set was refused.

use super::wire::SIGNATURE_HEADER;
use crate::error::ClientError;

/// Why a delivery, or a key set, was refused. Messages never hold the token, and values that
/// came from the sender (key ids, algorithm names) are quoted and cut short.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PushVerifyError {
    /// The delivery has no [`SIGNATURE_HEADER`].
    #[error("no {SIGNATURE_HEADER} header")]
    MissingSignature,
    /// The header is not a detached compact JWS with the expected protected header.
    #[error("malformed signature: {reason}")]
    MalformedSignature {
        /// What is wrong.
        reason: &'static str,
    },
    /// `alg` is not ES256, ES384 or EdDSA (`none` and HS* are always refused).
    #[error("algorithm {alg:?} is not accepted")]
    UnsupportedAlgorithm {
        /// The algorithm named.
        alg: String,
    },
    /// No key of the set has this id (the agent may have rotated its key: fetch the set
    /// again, see [`PushVerifier::refresh`](super::PushVerifier::refresh)).
    #[error("unknown key {kid:?}")]
    UnknownKey {
        /// The key id named.
        kid: String,
    },
    /// The key named is not a key for the algorithm named.
    #[error("key {kid:?} is not an {alg} key")]
    AlgorithmMismatch {
        /// The key id.
        kid: String,
        /// The algorithm named.
        alg: &'static str,
    },
    /// The signature does not match the body and header.
    #[error("signature does not match (key {kid:?})")]
    BadSignature {
        /// The key id named.
        kid: String,
    },
    /// `iat` is older than the maximum age: possibly a replay.
    #[error("signed {age_seconds} s ago, more than the {max_age_seconds} s allowed")]
    Stale {
        /// How long ago it was signed.
        age_seconds: u64,
        /// The maximum age.
        max_age_seconds: u64,
    },
    /// `iat` is further in the future than the leeway allows.
    #[error("signed {ahead_seconds} s in the future")]
    IssuedInFuture {
        /// How far ahead.
        ahead_seconds: u64,
    },
    /// A token was expected and none came.
    #[error("no notification token")]
    MissingToken,
    /// A token came that is not the expected one.
    #[error("wrong notification token")]
    TokenMismatch,
    /// The body is not a `StreamResponse`.
    #[error("the body is not a StreamResponse: {reason}")]
    InvalidBody {
        /// The decoder's complaint.
        reason: String,
    },
    /// The key set is not a JWK Set.
    #[error("invalid JWK Set: {reason}")]
    InvalidJwks {
        /// What is wrong.
        reason: String,
    },
    /// The key set holds no key this verifier can use.
    #[error("the JWK Set has no ES256, ES384 or EdDSA signing key")]
    NoUsableKeys,
    /// The key set could not be fetched.
    #[error("cannot fetch the JWK Set at {url}")]
    Fetch {
        /// Where it was fetched from, without its query.
        url: String,
        /// Why (boxed: a [`ClientError`] is large).
        #[source]
        source: Box<ClientError>,
    },
    /// [`PushVerifier::refresh`](super::PushVerifier::refresh) on a verifier whose keys were given, not fetched.
    #[error("the keys were given, not fetched, so they cannot be fetched again")]
    NotFetched,
}
