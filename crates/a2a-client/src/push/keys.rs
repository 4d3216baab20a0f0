//! The agent's public keys: a JWK Set read from a value or fetched, with the keys this
//! verifier can use (ES256, ES384, EdDSA) and their RFC 7638 thumbprints.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http::header::{ACCEPT, HeaderValue};
use ring::signature;
use serde_json::Value;
use url::Url;

use super::{FETCH_TIMEOUT, JWKS_PATH, MAX_JWKS_BYTES, PushVerifyError};
use crate::error::{ClientError, TimeoutKind};
use crate::transport::{Transport, read_body};

#[derive(Debug)]
pub(super) struct JwksSource {
    pub(super) url: Url,
    pub(super) transport: Arc<dyn Transport>,
}

/// One public key of the set.
#[derive(Debug, Clone)]
pub(super) struct VerifyingKey {
    pub(super) kid: String,
    pub(super) algorithm: Algorithm,
    /// An uncompressed EC point (`0x04 || x || y`) or an Ed25519 public key.
    pub(super) public: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Algorithm {
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    pub(super) fn from_name(name: &str) -> Option<Self> {
        match name {
            "ES256" => Some(Self::Es256),
            "ES384" => Some(Self::Es384),
            "EdDSA" => Some(Self::EdDsa),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Es384 => "ES384",
            Self::EdDsa => "EdDSA",
        }
    }

    pub(super) fn ring(self) -> &'static dyn signature::VerificationAlgorithm {
        match self {
            Self::Es256 => &signature::ECDSA_P256_SHA256_FIXED,
            Self::Es384 => &signature::ECDSA_P384_SHA384_FIXED,
            Self::EdDsa => &signature::ED25519,
        }
    }
}

impl JwksSource {
    pub(super) async fn fetch(&self) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
        let mut shown = self.url.clone();
        shown.set_query(None);
        let failed = |source| PushVerifyError::Fetch {
            url: shown.to_string(),
            source: Box::new(source),
        };
        let body = tokio::time::timeout(FETCH_TIMEOUT, self.fetch_body())
            .await
            .unwrap_or(Err(ClientError::Timeout(TimeoutKind::Request)))
            .map_err(failed)?;
        let jwks: Value =
            serde_json::from_slice(&body).map_err(|error| PushVerifyError::InvalidJwks {
                reason: format!("not JSON ({error})"),
            })?;
        parse_jwks(&jwks)
    }

    async fn fetch_body(&self) -> Result<Bytes, ClientError> {
        let mut request = http::Request::get(self.url.as_str())
            .body(Bytes::new())
            .map_err(|error| ClientError::Config {
                reason: format!("invalid JWK Set url: {error}"),
            })?;
        request.headers_mut().insert(
            ACCEPT,
            HeaderValue::from_static("application/jwk-set+json, application/json"),
        );
        let response = self.transport.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            return Err(ClientError::Http {
                status: status.as_u16(),
                body: String::new(),
            });
        }
        read_body(response.into_body(), MAX_JWKS_BYTES).await
    }
}

/// The usable keys of a JWK Set.
pub(super) fn parse_jwks(jwks: &Value) -> Result<Arc<[VerifyingKey]>, PushVerifyError> {
    let keys =
        jwks.get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| PushVerifyError::InvalidJwks {
                reason: "no \"keys\" array".into(),
            })?;
    let usable: Vec<VerifyingKey> = keys.iter().filter_map(parse_jwk).collect();
    if usable.is_empty() {
        return Err(PushVerifyError::NoUsableKeys);
    }
    Ok(usable.into())
}

/// One JWK, when it is a signature key of an accepted algorithm.
fn parse_jwk(jwk: &Value) -> Option<VerifyingKey> {
    let text = |name: &str| jwk.get(name).and_then(Value::as_str);
    if text("use").is_some_and(|usage| usage != "sig") {
        return None;
    }
    if let Some(operations) = jwk.get("key_ops").and_then(Value::as_array)
        && !operations.iter().any(|operation| operation == "verify")
    {
        return None;
    }
    let coordinate = |name: &str, length: usize| {
        URL_SAFE_NO_PAD
            .decode(text(name)?)
            .ok()
            .filter(|bytes| bytes.len() == length)
    };
    let (algorithm, public, thumbprint_input) = match (text("kty")?, text("crv")?) {
        ("EC", curve @ ("P-256" | "P-384")) => {
            let (algorithm, length) = if curve == "P-256" {
                (Algorithm::Es256, 32)
            } else {
                (Algorithm::Es384, 48)
            };
            let mut point = vec![0x04];
            point.extend(coordinate("x", length)?);
            point.extend(coordinate("y", length)?);
            // RFC 7638 §3.2: the required members in lexicographic order.
            let canonical = format!(
                r#"{{"crv":"{curve}","kty":"EC","x":"{}","y":"{}"}}"#,
                text("x")?,
                text("y")?
            );
            (algorithm, point, canonical)
        }
        ("OKP", "Ed25519") => {
            let public = coordinate("x", 32)?;
            // RFC 8037 §2.
            let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, text("x")?);
            (Algorithm::EdDsa, public, canonical)
        }
        _ => return None,
    };
    if let Some(alg) = text("alg")
        && Algorithm::from_name(alg) != Some(algorithm)
    {
        return None;
    }
    let kid = match text("kid") {
        Some(kid) => kid.to_owned(),
        None => thumbprint(&thumbprint_input),
    };
    Some(VerifyingKey {
        kid,
        algorithm,
        public,
    })
}

/// RFC 7638: SHA-256 of the canonical JSON, base64url.
fn thumbprint(canonical: &str) -> String {
    URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        canonical.as_bytes(),
    ))
}

/// The JWK Set URL for `origin_or_jwks_url`: the URL itself when its path ends in `.json`,
/// else [`JWKS_PATH`] under its path (`https://agent.example.com` →
/// `https://agent.example.com/.well-known/jwks.json`, `http://host/agents/echo` →
/// `http://host/agents/echo/.well-known/jwks.json`).
///
/// # Errors
/// [`PushVerifyError::Fetch`] with [`ClientError::Config`] when it is not an http(s) URL.
pub fn jwks_url(origin_or_jwks_url: &str) -> Result<Url, PushVerifyError> {
    let invalid = || PushVerifyError::Fetch {
        url: origin_or_jwks_url.to_owned(),
        source: Box::new(ClientError::Config {
            reason: "not an absolute http(s) url".into(),
        }),
    };
    let mut url = Url::parse(origin_or_jwks_url.trim()).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid());
    }
    url.set_fragment(None);
    if !url.path().ends_with(".json") {
        let path = format!("{}{JWKS_PATH}", url.path().trim_end_matches('/'));
        url.set_path(&path);
        url.set_query(None);
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::PushVerifier;
    use super::*;

    #[test]
    fn a_key_without_kid_is_named_by_its_thumbprint() {
        // RFC 8037 Appendix A.3.
        let jwks = json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
        }]});
        let verifier = PushVerifier::from_jwks(&jwks).unwrap();
        assert_eq!(
            verifier.key_ids(),
            ["kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"]
        );
    }

    #[test]
    fn unusable_keys_are_skipped() {
        let ec = json!({
            "kty": "EC", "crv": "P-256", "kid": "ok",
            "x": "0qnx6ykVf1n1eABwciRscVccHLcGHIB9DBlCoaW0Ids",
            "y": "krCI6IHkjFuWlHt2Q0T2DzpKm4KGvaaHrNUmGCXMgvQ",
        });
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        encryption["kid"] = json!("enc");
        let mut wrong_alg = ec.clone();
        wrong_alg["alg"] = json!("ES384");
        wrong_alg["kid"] = json!("wrong-alg");
        let rsa = json!({"kty": "RSA", "kid": "rsa", "n": "AQAB", "e": "AQAB"});
        let jwks = json!({"keys": [rsa, encryption, wrong_alg, ec]});
        assert_eq!(PushVerifier::from_jwks(&jwks).unwrap().key_ids(), ["ok"]);
        assert!(matches!(
            PushVerifier::from_jwks(&json!({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})),
            Err(PushVerifyError::NoUsableKeys)
        ));
        assert!(matches!(
            PushVerifier::from_jwks(&json!([])),
            Err(PushVerifyError::InvalidJwks { .. })
        ));
    }

    #[test]
    fn jwks_urls_default_to_the_well_known_path() {
        let cases = [
            (
                "https://agent.example.com",
                "https://agent.example.com/.well-known/jwks.json",
            ),
            (
                "http://h:8080/agents/echo/",
                "http://h:8080/agents/echo/.well-known/jwks.json",
            ),
            ("http://h/keys.json?v=2", "http://h/keys.json?v=2"),
        ];
        for (given, expected) in cases {
            assert_eq!(jwks_url(given).unwrap().as_str(), expected, "{given}");
        }
        assert!(jwks_url("ftp://h/").is_err());
        assert!(jwks_url("/relative").is_err());
    }
}
