//! [`Secret`]: a credential the server holds, which no `Debug`, log or error shows.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

/// A secret value (API key, static token, client secret). Its `Debug` and `Display` print
/// `[redacted]`, so it never reaches a log; comparisons with presented credentials take the
/// same time wherever they differ.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the one place that must send it (e.g. a token request).
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when `presented` equals the secret. Both sides are hashed first, so the time
    /// taken says nothing about how long a prefix matched, nor about the secret's length.
    #[must_use]
    pub fn matches(&self, presented: &[u8]) -> bool {
        same_digest(&self.digest(), &digest(presented))
    }

    /// The SHA-256 of the secret, which the server keeps to compare presented credentials
    /// with (see [`digest`] and [`same_digest`]) without hashing the secret again.
    pub(crate) fn digest(&self) -> Digest {
        digest(self.0.as_bytes())
    }

    /// True when the secret is empty (refused as a credential).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A SHA-256 digest.
pub(crate) type Digest = [u8; 32];

/// The SHA-256 of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// True when two digests are equal, in a time that does not depend on where they differ.
pub(crate) fn same_digest(a: &Digest, b: &Digest) -> bool {
    let difference = a
        .iter()
        .zip(b)
        .fold(0u8, |difference, (a, b)| difference | (a ^ b));
    // Kept opaque, so the compiler cannot turn the fold into an early exit.
    std::hint::black_box(difference) == 0
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(Self::new(value))
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_prints_and_matches_only_itself() {
        let secret = Secret::new("s3cr3t");
        assert_eq!(format!("{secret:?} {secret}"), "[redacted] [redacted]");
        assert!(secret.matches(b"s3cr3t"));
        assert!(!secret.matches(b"s3cr3"));
        assert!(!secret.matches(b"s3cr3t "));
        assert!(!secret.matches(b""));
    }
}
