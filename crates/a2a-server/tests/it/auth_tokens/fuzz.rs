//! Ten thousand random and mangled tokens through both verifiers: none panics, none is
//! accepted, no error repeats the token, and the JWKS endpoint is not hammered.

use std::collections::BTreeMap;
use std::time::Instant;

use a2a_server::auth::token::{
    Algorithm, IntrospectionConfig, Introspector, JwksSource, JwtConfig, JwtVerifier, TokenError,
    TokenVerifier,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures::StreamExt as _;
use serde_json::json;

use super::idp::{CLIENT_ID, CLIENT_SECRET, Idp};
use super::keys::{self, jwks};
use super::{AUDIENCE, claims};

const ROUNDS: usize = 10_000;

/// SplitMix64: small, deterministic, and good enough to pick mutations.
struct Prng(u64);

impl Prng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        usize::try_from(self.next() % bound as u64).unwrap()
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const ODD: [&str; 14] = [
    "é", "日本", "\u{0}", " ", "=", "+", "/", ".", "\u{202e}", "🙂", "\n", "%", "&token=", "\"",
];
const ALGS: [&str; 12] = [
    "none", "nOnE", "HS256", "RS256", "PS512", "ES256", "ES384", "ES512", "EdDSA", "RS1", "", "A",
];
const KIDS: [&str; 5] = ["rsa", "p256", "ed", "", "garbage"];

fn random_text(prng: &mut Prng) -> String {
    let len = prng.below(200);
    (0..len)
        .map(|_| match prng.below(4) {
            0 => (*prng.pick(&ODD)).to_owned(),
            _ => char::from(*prng.pick(BASE64URL)).to_string(),
        })
        .collect()
}

fn random_segment(prng: &mut Prng, max: usize) -> String {
    let len = prng.below(max);
    (0..len)
        .map(|_| char::from(*prng.pick(BASE64URL)))
        .collect()
}

/// One random or mangled token, made from `originals` (valid, ASCII tokens).
fn mangle(prng: &mut Prng, originals: &[String]) -> String {
    let base = prng.pick(originals).clone();
    let segments: Vec<&str> = base.split('.').collect();
    match prng.below(10) {
        0 => random_text(prng),
        1 => {
            let count = 1 + prng.below(6);
            (0..count)
                .map(|_| random_segment(prng, 120))
                .collect::<Vec<_>>()
                .join(".")
        }
        2 => {
            let mut bytes = base.into_bytes();
            for _ in 0..=prng.below(3) {
                let at = prng.below(bytes.len());
                let mut replacement = *prng.pick(BASE64URL);
                while replacement == bytes[at] {
                    replacement = *prng.pick(BASE64URL);
                }
                bytes[at] = replacement;
            }
            String::from_utf8(bytes).unwrap()
        }
        3 => base[..prng.below(base.len())].to_owned(),
        4 => {
            // Two segments swapped, or one taken from another token.
            let other: Vec<&str> = prng.pick(originals).split('.').collect();
            let mut mixed = segments.clone();
            let (a, b) = (prng.below(mixed.len()), prng.below(mixed.len()));
            if a != b {
                mixed.swap(a, b);
            } else if let Some(segment) = other.get(a) {
                mixed[a] = segment;
            }
            let mixed = mixed.join(".");
            if mixed == base {
                format!("{}.{base}", segments[0])
            } else {
                mixed
            }
        }
        5 => {
            let size = 16 * 1024 + prng.below(32 * 1024);
            match prng.below(3) {
                0 => base.repeat(size / base.len() + 1),
                1 => format!("{base}{}", "A".repeat(size)),
                _ => format!(
                    "{}.{}.{}",
                    segments[0],
                    "A".repeat(size),
                    segments.last().unwrap()
                ),
            }
        }
        6 => {
            let at = prng.below(base.len() + 1);
            format!("{}{}{}", &base[..at], prng.pick(&ODD), &base[at..])
        }
        7 => {
            let mut header = json!({ "alg": prng.pick(&ALGS), "kid": prng.pick(&KIDS) });
            if prng.below(4) == 0 {
                header["crit"] = json!(["exp"]);
            }
            let signature = random_segment(prng, 400);
            format!(
                "{}.{}.{signature}",
                URL_SAFE_NO_PAD.encode(header.to_string()),
                segments.get(1).unwrap_or(&"")
            )
        }
        8 => {
            let at = prng.below(base.len() + 1);
            let junk = *prng.pick(&["=", "==", "+", "/", " ", "\t", "..", "%3D"]);
            format!("{}{junk}{}", &base[..at], &base[at..])
        }
        _ => {
            // A flipped bit inside the decoded payload: still base64url, often still JSON.
            let Some(payload) = segments.get(1) else {
                return random_text(prng);
            };
            let Ok(mut bytes) = URL_SAFE_NO_PAD.decode(payload) else {
                return random_text(prng);
            };
            if bytes.is_empty() {
                return random_text(prng);
            }
            let at = prng.below(bytes.len());
            bytes[at] ^= 1 << prng.below(8);
            let mut parts: Vec<String> = segments.iter().map(|s| (*s).to_owned()).collect();
            parts[1] = URL_SAFE_NO_PAD.encode(bytes);
            parts.join(".")
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mangled_tokens_never_panic_and_are_never_accepted() {
    let signers = [
        keys::rsa(0, "rsa", Algorithm::RS256),
        keys::ec("p256", Algorithm::ES256),
        keys::ed25519("ed"),
    ];
    let idp = Idp::start(jwks(&signers.iter().collect::<Vec<_>>())).await;
    let mut originals: Vec<String> = signers
        .iter()
        .map(|signer| signer.sign(&claims(&idp.issuer())))
        .collect();
    originals.push("opaque-Zm9vYmFyYmF6cXV4LTAxMjM0NTY3ODk".into());
    for token in &originals {
        idp.activate(token, json!({ "sub": "fuzz", "aud": AUDIENCE }));
    }
    let jwt = JwtVerifier::new(
        JwtConfig::new(JwksSource::Url(idp.url("/jwks")))
            .with_issuer(idp.issuer())
            .with_audience(AUDIENCE),
    )
    .unwrap();
    let introspector = Introspector::new(IntrospectionConfig::new(
        idp.url("/introspect"),
        CLIENT_ID,
        CLIENT_SECRET,
    ))
    .unwrap();
    for token in &originals[..3] {
        assert!(jwt.verify(token).await.is_ok());
    }
    for token in &originals {
        assert!(introspector.verify(token).await.is_ok());
    }

    let mut prng = Prng(0x0A2A_2025_5EED);
    let tokens: Vec<String> = (0..ROUNDS)
        .map(|_| mangle(&mut prng, &originals))
        .filter(|token| !originals.contains(token))
        .collect();
    assert!(tokens.len() > ROUNDS * 99 / 100);

    let started = Instant::now();
    let mut refusals = BTreeMap::<&str, usize>::new();
    for token in &tokens {
        let error = jwt
            .verify(token)
            .await
            .expect_err("a mangled token was accepted");
        if token.len() >= 12 {
            assert!(!error.to_string().contains(token.as_str()));
        }
        *refusals.entry(kind(&error)).or_default() += 1;
    }
    let jwt_time = started.elapsed();
    assert!(
        idp.jwks_fetches() <= 2,
        "garbage kids fetched the JWKS {} times",
        idp.jwks_fetches()
    );

    let started = Instant::now();
    let introspected: Vec<_> = futures::stream::iter(&tokens)
        .map(|token| {
            let introspector = &introspector;
            async move { (token, introspector.verify(token).await) }
        })
        .buffer_unordered(32)
        .collect()
        .await;
    for (token, result) in introspected {
        let error = result.expect_err("a mangled token was accepted");
        if token.len() >= 12 {
            let shown = error.to_string();
            assert!(!shown.contains(token.as_str()));
            assert!(!shown.contains(CLIENT_SECRET));
        }
    }
    let introspection_time = started.elapsed();
    eprintln!(
        "{} tokens: JWT {jwt_time:?} {refusals:?}; introspection {introspection_time:?}, {} requests",
        tokens.len(),
        idp.introspections()
    );
}

fn kind(error: &TokenError) -> &'static str {
    match error {
        TokenError::Malformed(_) => "malformed",
        TokenError::Algorithm(_) => "algorithm",
        TokenError::UnknownKey => "unknown key",
        TokenError::Signature => "signature",
        TokenError::Expired => "expired",
        TokenError::NotYetValid => "not yet valid",
        TokenError::Issuer => "issuer",
        TokenError::Audience => "audience",
        TokenError::Claim(_) => "claim",
        TokenError::Inactive => "inactive",
        TokenError::Unavailable(_) => "unavailable",
        _ => "other",
    }
}
