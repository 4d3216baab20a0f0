use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

use super::*;
use crate::auth::token::{JwksOptions, TokenConfigError, TokenError, TokenVerifier};

fn segment(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

fn claims(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("test claims are objects"),
    }
}

fn now() -> i64 {
    i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap()
}

#[test]
fn headers_are_read_strictly() {
    let payload = segment(&json!({ "exp": now() + 60 }));
    let signature = URL_SAFE_NO_PAD.encode([7; 64]);
    let with_header = |header: Value| format!("{}.{payload}.{signature}", segment(&header));
    let cases = [
        (json!({ "alg": "none" }), "algorithm"),
        (json!({ "alg": "NONE" }), "algorithm"),
        (json!({ "alg": "HS256" }), "algorithm"),
        (json!({ "alg": "ES512" }), "algorithm"),
        (json!({ "alg": 256 }), "malformed"),
        (json!({ "typ": "JWT" }), "malformed"),
        (json!({ "alg": "RS256", "crit": ["exp"] }), "malformed"),
        (json!({ "alg": "RS256", "kid": 7 }), "malformed"),
        (json!(["RS256"]), "malformed"),
    ];
    for (header, expected) in cases {
        let error = Token::parse(&with_header(header.clone()), 16 * 1024)
            .err()
            .unwrap();
        let kind = match error {
            TokenError::Algorithm(_) => "algorithm",
            TokenError::Malformed(_) => "malformed",
            _ => "other",
        };
        assert_eq!(kind, expected, "{header}");
    }
    let token = with_header(json!({ "alg": "ES256", "kid": "k" }));
    let good = Token::parse(&token, 16 * 1024).ok().unwrap();
    assert_eq!(good.alg, Algorithm::ES256);
    assert_eq!(good.kid.as_deref(), Some("k"));
    assert_eq!(good.signature, signature);
    assert!(good.signing_input.ends_with(&payload));
}

#[test]
fn segments_and_sizes_are_bounded() {
    let header = segment(&json!({ "alg": "RS256" }));
    let payload = segment(&json!({ "exp": now() + 60 }));
    let cases = [
        String::new(),
        "a.b".into(),
        format!("{header}.{payload}"),
        format!("{header}.{payload}."),
        format!("{header}.{payload}.sig=="),
        format!("{header}.{payload}.c2ln.extra"),
        format!("{header}..c2ln"),
        format!("{header}.{}.c2ln", URL_SAFE_NO_PAD.encode("[1]")),
        format!("{header}.{payload}.{}", "A".repeat(20_000)),
    ];
    for token in cases {
        assert!(
            matches!(
                Token::parse(&token, 16 * 1024),
                Err(TokenError::Malformed(_))
            ),
            "{token:.60}"
        );
    }
}

#[test]
fn errors_never_repeat_the_token() {
    let secretish = "c2VjcmV0LXRva2VuLXRleHQ";
    let token = format!(
        "{}.{secretish}.{secretish}",
        segment(&json!({ "alg": secretish }))
    );
    let error = Token::parse(&token, 16 * 1024).err().unwrap();
    assert!(!error.to_string().contains(secretish));
}

#[test]
fn time_claims() {
    let leeway = Duration::from_secs(60);
    let now = now();
    let cases = [
        (json!({ "exp": now + 10 }), Ok(())),
        (json!({ "exp": now - 30 }), Ok(())),
        (json!({ "exp": (now + 10) as f64 + 0.5 }), Ok(())),
        (json!({ "exp": now - 61 }), Err(TokenError::Expired)),
        (json!({}), Err(TokenError::Claim("exp".into()))),
        (
            json!({ "exp": "tomorrow" }),
            Err(TokenError::Claim("exp".into())),
        ),
        (json!({ "exp": now + 10, "nbf": now + 30 }), Ok(())),
        (
            json!({ "exp": now + 900, "nbf": now + 120 }),
            Err(TokenError::NotYetValid),
        ),
        (
            json!({ "exp": now + 900, "iat": now + 120 }),
            Err(TokenError::NotYetValid),
        ),
        (json!({ "exp": now + 900, "iat": now - 120 }), Ok(())),
        (
            json!({ "exp": now + 900, "nbf": "soon" }),
            Err(TokenError::Claim("nbf".into())),
        ),
        (json!({ "exp": -1 }), Err(TokenError::Expired)),
        (json!({ "exp": 1e300 }), Ok(())),
    ];
    for (value, expected) in cases {
        assert_eq!(
            check_times(&claims(value.clone()), leeway, true),
            expected,
            "{value}"
        );
    }
    assert_eq!(check_times(&claims(json!({})), leeway, false), Ok(()));
}

#[test]
fn issuer_and_audience_claims() {
    let token = claims(json!({ "iss": "https://idp", "aud": ["a", "b"] }));
    assert_eq!(check_issuer(&token, "https://idp"), Ok(()));
    assert_eq!(
        check_issuer(&token, "https://idp/"),
        Err(TokenError::Issuer)
    );
    assert_eq!(
        check_issuer(&claims(json!({})), "https://idp"),
        Err(TokenError::Issuer)
    );
    assert_eq!(check_audience(&token, &["b".into()]), Ok(()));
    assert_eq!(
        check_audience(&token, &["c".into()]),
        Err(TokenError::Audience)
    );
    assert_eq!(
        check_audience(&claims(json!({ "aud": "c" })), &["c".into()]),
        Ok(())
    );
    assert_eq!(
        check_audience(&claims(json!({})), &["c".into()]),
        Err(TokenError::Audience)
    );
    assert_eq!(check_audience(&claims(json!({})), &[]), Ok(()));
}

#[test]
fn configuration_must_say_who_issues_and_for_whom() {
    let keys = || JwksSource::Keys(JwkSet { keys: Vec::new() });
    let error = |config: JwtConfig| JwtVerifier::new(config).err();
    assert_eq!(
        error(JwtConfig::new(keys()).with_audience("a")),
        Some(TokenConfigError::MissingIssuer)
    );
    assert_eq!(
        error(JwtConfig::new(keys()).with_issuer("i")),
        Some(TokenConfigError::MissingAudience)
    );
    assert_eq!(
        error(
            JwtConfig::new(keys())
                .with_issuer("i")
                .with_audience("a")
                .with_algorithms([Algorithm::RS256, Algorithm::HS256])
        ),
        Some(TokenConfigError::SymmetricAlgorithm(Algorithm::HS256))
    );
    assert_eq!(
        error(
            JwtConfig::new(keys())
                .with_issuer("i")
                .with_audience("a")
                .with_algorithms([])
        ),
        Some(TokenConfigError::NoAlgorithm)
    );
    assert!(JwtVerifier::new(JwtConfig::new(keys()).with_any_issuer().with_any_audience()).is_ok());
    let discovered = JwtConfig::new(JwksSource::OidcIssuer(
        Url::parse("https://idp.example").unwrap(),
    ))
    .with_audience("a");
    assert!(JwtVerifier::new(discovered).is_ok());
    assert_eq!(
        JwtVerifier::from_openid_connect_url("not a url", ["a"]).err(),
        Some(TokenConfigError::InvalidUrl {
            what: "the OpenID Connect discovery url"
        })
    );
    assert!(
        JwtVerifier::from_openid_connect_url(
            "https://idp.example/.well-known/openid-configuration",
            ["a"]
        )
        .is_ok()
    );
}

/// An ES256 key: its JWK (with `kid`), and tokens signed with it.
struct Signer {
    kid: String,
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl Signer {
    fn new(kid: &str) -> Self {
        use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let point = pair.public_key().as_ref();
        let jwk = json!({
            "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
            "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
        });
        Self {
            kid: kid.to_owned(),
            pkcs8: pkcs8.as_ref().to_vec(),
            jwk,
        }
    }

    /// A token for `sub` expiring at `exp` (seconds since the epoch, maybe fractional).
    fn sign(&self, sub: &str, exp: f64) -> String {
        let header = jsonwebtoken::Header {
            kid: Some(self.kid.clone()),
            ..jsonwebtoken::Header::new(Algorithm::ES256)
        };
        let claims = json!({ "iss": "https://idp", "aud": "agent", "sub": sub, "exp": exp });
        let key = jsonwebtoken::EncodingKey::from_ec_der(&self.pkcs8);
        jsonwebtoken::encode(&header, &claims, &key).unwrap()
    }
}

fn jwk_set(signers: &[&Signer]) -> JwkSet {
    let keys: Vec<Value> = signers.iter().map(|signer| signer.jwk.clone()).collect();
    serde_json::from_value(json!({ "keys": keys })).unwrap()
}

fn remembered(verifier: &JwtVerifier) -> usize {
    verifier
        .inner
        .verified
        .as_ref()
        .map_or(0, |cache| cache.len())
}

fn seconds_from_now(seconds: f64) -> f64 {
    super::claims::now() + seconds
}

#[tokio::test]
async fn a_verified_token_is_remembered_and_another_is_verified() {
    let signer = Signer::new("k1");
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwk_set(&[&signer])))
            .with_issuer("https://idp")
            .with_audience("agent"),
    )
    .unwrap();
    let token = signer.sign("alice", seconds_from_now(3600.0));
    let first = verifier.verify(&token).await.unwrap();
    assert_eq!(remembered(&verifier), 1);
    assert_eq!(verifier.verify(&token).await.unwrap(), first);
    assert_eq!(remembered(&verifier), 1);

    // The same header and claims with another signature: verified, and refused.
    let (signed, _) = token.rsplit_once('.').unwrap();
    let forged = format!("{signed}.{}", URL_SAFE_NO_PAD.encode([7; 64]));
    assert_eq!(verifier.verify(&forged).await, Err(TokenError::Signature));
    // Another caller's token is theirs, not the first one's.
    let other = signer.sign("bob", seconds_from_now(3600.0));
    let verified = verifier.verify(&other).await.unwrap();
    assert_eq!(verified.subject.as_deref(), Some("bob"));
    assert_eq!(remembered(&verifier), 2);

    // Zero remembers nothing, and verifies all the same.
    let uncached = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwk_set(&[&signer])))
            .with_issuer("https://idp")
            .with_audience("agent")
            .with_verified_tokens(0),
    )
    .unwrap();
    assert_eq!(uncached.verify(&token).await.unwrap(), first);
    assert_eq!(uncached.verify(&forged).await, Err(TokenError::Signature));
    assert_eq!(remembered(&uncached), 0);
}

#[tokio::test]
async fn a_remembered_token_still_expires() {
    let signer = Signer::new("k1");
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwk_set(&[&signer])))
            .with_issuer("https://idp")
            .with_audience("agent")
            .with_leeway(Duration::ZERO),
    )
    .unwrap();
    let token = signer.sign("alice", seconds_from_now(0.3));
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(remembered(&verifier), 1);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(verifier.verify(&token).await, Err(TokenError::Expired));
}

#[tokio::test]
async fn a_remembered_token_is_verified_again_once_the_keys_are_fetched_again() {
    use std::sync::Mutex;

    let old = Signer::new("2024");
    let new = Signer::new("2025");
    let published = Arc::new(Mutex::new(
        serde_json::to_string(&jwk_set(&[&old])).unwrap(),
    ));
    let serving = Arc::clone(&published);
    let app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            let body = serving.lock().unwrap().clone();
            async move { body }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!(
        "http://{}/jwks.json",
        listener.local_addr().unwrap()
    ))
    .unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(url))
            .with_issuer("https://idp")
            .with_audience("agent")
            .with_jwks_options(
                JwksOptions::default()
                    .with_cache_ttl(Duration::from_millis(100))
                    .with_refresh_cooldown(Duration::from_millis(10)),
            ),
    )
    .unwrap();
    let token = old.sign("alice", seconds_from_now(3600.0));
    assert!(verifier.verify(&token).await.is_ok());
    assert!(verifier.verify(&token).await.is_ok());
    assert_eq!(remembered(&verifier), 1);

    // The old key is withdrawn: once the keys are read again, its token is refused.
    *published.lock().unwrap() = serde_json::to_string(&jwk_set(&[&new])).unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(verifier.verify(&token).await, Err(TokenError::UnknownKey));
    assert!(
        verifier
            .verify(&new.sign("alice", seconds_from_now(3600.0)))
            .await
            .is_ok()
    );
    server.abort();
}
