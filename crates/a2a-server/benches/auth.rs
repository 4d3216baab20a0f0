//! The cost of authentication per request: SendMessage through the whole router (no socket),
//! with authentication off, an API key, a static bearer token, and an ES256 JWT checked
//! against a JWKS held in memory. One run, the same executor, so the ratios are the cost.
//!
//! Run with `cargo bench -p a2a-server --bench auth`; `A2A_BENCH_REQUESTS` sets requests per
//! variant (default 20 000).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs,
    reason = "a benchmark binary: it reports on stdout and stops at the first failure"
)]

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use a2a_server::auth::Authentication;
use a2a_server::auth::token::{JwkSet, JwksSource, JwtConfig, JwtVerifier};
use a2a_server::{A2aServer, AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};
use axum::body::Body;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::Request;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use tower::ServiceExt as _;

struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater
            .complete_with_artifacts(vec![Artifact::from_text(context.text())], ())
            .await?;
        Ok(())
    }
}

fn card(scheme: Option<(&str, SecurityScheme)>) -> AgentCard {
    let mut card = AgentCard::new("Bench", "Echo", "1.0.0").with_interface(AgentInterface::new(
        "http://localhost/a2a",
        ProtocolBinding::JsonRpc,
    ));
    if let Some((name, scheme)) = scheme {
        card.security_schemes.insert(name.to_owned(), scheme);
        card.security_requirements
            .push(SecurityRequirement::scheme(name, Vec::<String>::new()));
    }
    card
}

/// An ES256 key pair: the JWKS with its public key, and a token signed with it.
fn es256() -> (JwkSet, String) {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref();
    let (x, y) = (&point[1..33], &point[33..65]);
    let jwks: JwkSet = serde_json::from_value(serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
        "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y)
    }]}))
    .unwrap();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let header = jsonwebtoken::Header {
        kid: Some("k1".into()),
        ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256)
    };
    let claims = serde_json::json!({
        "iss": "https://issuer.bench", "aud": "https://agent.bench", "sub": "alice",
        "exp": now + 3600, "iat": now
    });
    let key = jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref());
    (jwks, jsonwebtoken::encode(&header, &claims, &key).unwrap())
}

/// A name, the card, what the server accepts, and the header a caller sends.
type Variant<'a> = (
    &'a str,
    AgentCard,
    Authentication,
    Option<(&'a str, &'a str)>,
);

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;

async fn measure(router: &axum::Router, header: Option<(&str, &str)>, requests: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..requests {
        let mut request = Request::post("/a2a")
            .header("A2A-Version", "1.0")
            .header("Content-Type", "application/json");
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        let response = router
            .clone()
            .oneshot(request.body(Body::from(BODY)).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    requests as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let requests: usize = std::env::var("A2A_BENCH_REQUESTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(20_000);
        let (jwks, token) = es256();
        let bearer_token = format!("Bearer {token}");
        let jwt = JwtVerifier::new(
            JwtConfig::new(JwksSource::Keys(jwks))
                .with_issuer("https://issuer.bench")
                .with_audience("https://agent.bench"),
        )
        .unwrap();
        let variants: Vec<Variant<'_>> = vec![
            ("off", card(None), Authentication::disabled(), None),
            (
                "api key",
                card(Some((
                    "key",
                    SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
                ))),
                Authentication::required().api_key("bench-key-0123456789"),
                Some(("X-API-Key", "bench-key-0123456789")),
            ),
            (
                "static bearer",
                card(Some(("bearer", SecurityScheme::bearer("")))),
                Authentication::required().bearer_token("bench-token-0123456789"),
                Some(("Authorization", "Bearer bench-token-0123456789")),
            ),
            (
                "JWT ES256",
                card(Some(("jwt", SecurityScheme::bearer("JWT")))),
                Authentication::required().token_verifier(jwt),
                Some(("Authorization", bearer_token.as_str())),
            ),
        ];
        println!("{requests} SendMessage requests per variant, in process (no socket)");
        println!(
            "{:<16} {:>12} {:>10} {:>14}",
            "authentication", "requests/s", "vs off", "µs/request"
        );
        let mut baseline = None;
        for (name, card, authentication, header) in variants {
            let server = A2aServer::builder(card, Echo)
                .authentication(authentication)
                .build()
                .unwrap();
            let router = server.router();
            // Warm up (and, for JWT, the key cache).
            measure(&router, header, 500).await;
            let rate = measure(&router, header, requests).await;
            let base = *baseline.get_or_insert(rate);
            println!(
                "{name:<16} {rate:>12.0} {:>10.2} {:>14.1}",
                rate / base,
                1_000_000.0 / rate
            );
        }
    });
}
