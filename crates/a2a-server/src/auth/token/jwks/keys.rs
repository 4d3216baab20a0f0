//! Which keys of a JWKS may verify signatures, and picking the key for a token's `kid` and
//! algorithm.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::super::TokenError;
use super::{KeyKind, KeyMiss, KeySet, VerificationKey};

impl KeyKind {
    pub(super) fn fits(self, alg: Algorithm) -> bool {
        use Algorithm::{ES256, ES384, EdDSA, PS256, PS384, PS512, RS256, RS384, RS512};
        match self {
            Self::Rsa => matches!(alg, RS256 | RS384 | RS512 | PS256 | PS384 | PS512),
            Self::P256 => alg == ES256,
            Self::P384 => alg == ES384,
            Self::Ed25519 => alg == EdDSA,
        }
    }
}

impl std::fmt::Debug for VerificationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerificationKey")
            .field("kid", &self.kid)
            .field("kind", &self.kind)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

impl VerificationKey {
    /// The key, if it is a public signature key of a supported kind; symmetric (`oct`) keys,
    /// encryption keys and unknown curves are dropped.
    pub(super) fn from_jwk(jwk: &Jwk) -> Option<Self> {
        if jwk
            .common
            .public_key_use
            .as_ref()
            .is_some_and(|usage| *usage != PublicKeyUse::Signature)
        {
            return None;
        }
        if jwk
            .common
            .key_operations
            .as_ref()
            .is_some_and(|operations| !operations.contains(&KeyOperations::Verify))
        {
            return None;
        }
        let alg = match jwk.common.key_algorithm {
            None => None,
            Some(named) => Some(signature_algorithm(named)?),
        };
        let (kind, key) = match &jwk.algorithm {
            AlgorithmParameters::RSA(rsa) => (
                KeyKind::Rsa,
                DecodingKey::from_rsa_components(&rsa.n, &rsa.e).ok()?,
            ),
            AlgorithmParameters::EllipticCurve(ec) => {
                let (kind, size) = match ec.curve {
                    EllipticCurve::P256 => (KeyKind::P256, 32),
                    EllipticCurve::P384 => (KeyKind::P384, 48),
                    EllipticCurve::P521 | EllipticCurve::Ed25519 => return None,
                };
                if decoded_len(&ec.x)? != size || decoded_len(&ec.y)? != size {
                    return None;
                }
                (kind, DecodingKey::from_ec_components(&ec.x, &ec.y).ok()?)
            }
            AlgorithmParameters::OctetKeyPair(okp) => {
                if okp.curve != EllipticCurve::Ed25519 || decoded_len(&okp.x)? != 32 {
                    return None;
                }
                (
                    KeyKind::Ed25519,
                    DecodingKey::from_ed_components(&okp.x).ok()?,
                )
            }
            // A JWKS is public: an HMAC key in it would let anyone sign.
            AlgorithmParameters::OctetKey(_) => return None,
        };
        if alg.is_some_and(|alg| !kind.fits(alg)) {
            return None;
        }
        Some(Self {
            kid: jwk.common.key_id.clone(),
            kind,
            alg,
            key,
        })
    }

    pub(super) fn fits(&self, alg: Algorithm) -> bool {
        self.kind.fits(alg) && self.alg.is_none_or(|own| own == alg)
    }
}

/// The algorithm a JWK's `alg` names, if it is an asymmetric signature algorithm.
fn signature_algorithm(named: KeyAlgorithm) -> Option<Algorithm> {
    Some(match named {
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        KeyAlgorithm::HS256
        | KeyAlgorithm::HS384
        | KeyAlgorithm::HS512
        | KeyAlgorithm::RSA1_5
        | KeyAlgorithm::RSA_OAEP
        | KeyAlgorithm::RSA_OAEP_256 => return None,
    })
}

fn decoded_len(base64url: &str) -> Option<usize> {
    URL_SAFE_NO_PAD
        .decode(base64url)
        .ok()
        .map(|bytes| bytes.len())
}

impl KeySet {
    /// At most this many keys are tried for one token.
    const MAX_CANDIDATES: usize = 4;

    pub(in crate::auth::token) fn from_jwk_set(set: &JwkSet) -> Self {
        Self {
            keys: set
                .keys
                .iter()
                .filter_map(VerificationKey::from_jwk)
                .collect(),
        }
    }

    /// Reads a JWKS document; keys this verifier cannot use are skipped one by one, so an
    /// unfamiliar key next to ours does not make the whole set unreadable.
    pub(super) fn parse(body: &[u8]) -> Result<Self, TokenError> {
        #[derive(serde::Deserialize)]
        struct RawSet {
            keys: Vec<Value>,
        }
        let raw: RawSet = serde_json::from_slice(body)
            .map_err(|_| TokenError::Unavailable("the JWKS document is invalid".into()))?;
        let keys = raw
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(|jwk| VerificationKey::from_jwk(&jwk))
            .collect();
        Ok(Self { keys })
    }

    pub(in crate::auth::token) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The keys that may have signed a token with this `kid` and algorithm.
    pub(in crate::auth::token) fn select(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<&VerificationKey>, KeyMiss> {
        let mut named = self
            .keys
            .iter()
            .filter(|key| key.kid.as_deref() == kid)
            .peekable();
        if named.peek().is_none() {
            return Err(KeyMiss::Unknown);
        }
        let fitting: Vec<_> = named
            .filter(|key| key.fits(alg))
            .take(Self::MAX_CANDIDATES)
            .collect();
        match (fitting.is_empty(), kid) {
            (false, _) => Ok(fitting),
            (true, Some(_)) => Err(KeyMiss::WrongType),
            // Keys without a kid are interchangeable; a later JWKS may hold one that fits.
            (true, None) => Err(KeyMiss::Unknown),
        }
    }
}
