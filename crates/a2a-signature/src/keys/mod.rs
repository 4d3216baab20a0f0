//! Keys: a private signing key read from PEM, public keys read from JSON Web Keys
//! (RFC 7517) on `jsonwebtoken`'s [`Jwk`](jsonwebtoken::jwk::Jwk) type, RFC 7638 thumbprints,
//! and the checks of one JWS signature (RFC 7515) against one key.

mod algorithm;
mod jwk;
mod signing;
mod verifying;

pub use self::algorithm::{algorithm, algorithm_name};
pub use self::jwk::{jwk_set, thumbprint};
pub use self::signing::{KeyError, SigningKey};
pub use self::verifying::{VerifyError, VerifyingKey};

#[cfg(test)]
mod tests;
