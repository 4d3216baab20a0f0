//! What the registry tests share: a database per test (SQLite in memory, or a PostgreSQL
//! schema of its own that is dropped afterwards, even by a panic), the HTTP API called
//! without a socket, a clock the test moves, and card signing.
//!
//! PostgreSQL comes from `A2A_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`). When it cannot be reached the PostgreSQL
//! tests print a notice and pass, unless `CI=true`: then they fail.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_gateway::registry::{Clock, Registry, RegistryOptions, router, signed_payload};
use a2a_test_support::postgres::Schema;
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt as _;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
};
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// Where the registries of one test keep their agents.
pub enum Backend {
    /// `sqlite::memory:`: each registry has its own database.
    Sqlite,
    /// A schema of the test PostgreSQL database, shared by every registry of the test.
    Postgres(Schema),
}

impl Backend {
    /// A new schema of the test PostgreSQL database; `None` (after a notice) when there is
    /// none outside CI.
    pub async fn postgres() -> Option<Self> {
        Schema::reachable("a2a_gw_test_").await.map(Self::Postgres)
    }

    /// A registry over this backend.
    pub async fn registry(&self, options: RegistryOptions) -> Arc<Registry> {
        let (url, options) = match self {
            Self::Sqlite => ("sqlite::memory:", options),
            Self::Postgres(schema) => (schema.url(), options.postgres_schema(schema.name())),
        };
        match Registry::connect(url, options).await {
            Ok(registry) => Arc::new(registry),
            Err(error) => panic!("connecting to {url}: {error:?}"),
        }
    }

    /// Drops the PostgreSQL schema; registries over it should be closed first.
    pub async fn finish(self) {
        if let Self::Postgres(schema) = self {
            schema.finish().await;
        }
    }
}

/// Runs one backend test on SQLite, or on PostgreSQL when there is one.
#[macro_export]
macro_rules! on_both_backends {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $test() {
                    super::$test(&$crate::support::Backend::Sqlite).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $test() {
                    if let Some(backend) = $crate::support::Backend::postgres().await {
                        super::$test(&backend).await;
                        backend.finish().await;
                    }
                }
            )*
        }
    };
}

/// A clock the test moves by hand.
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    /// A clock at a fixed, millisecond-aligned instant.
    pub fn new() -> Arc<Self> {
        let start = DateTime::from_timestamp_millis(1_767_225_600_000).unwrap();
        Arc::new(Self(Mutex::new(start)))
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap();
        *now += chrono::Duration::from_std(by).unwrap();
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

/// The registry's HTTP API, called in-process.
#[derive(Clone)]
pub struct Api {
    router: Router,
    pub registry: Arc<Registry>,
}

impl Api {
    pub fn new(registry: Arc<Registry>) -> Self {
        Self {
            router: router(Arc::clone(&registry)),
            registry,
        }
    }

    /// One request; the status and the JSON body (`Value::Null` when empty).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&[u8]>,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder().method(method).uri(path);
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request
            .body(body.map_or_else(Body::empty, |body| Body::from(body.to_vec())))
            .unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes)))
        };
        (status, body)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body.to_string().as_bytes()))
            .await
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    pub async fn delete(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None).await
    }

    pub async fn register(&self, body: &Value) -> (StatusCode, Value) {
        self.post("/agents/register", body).await
    }

    pub async fn heartbeat(&self, agent_id: &str) -> (StatusCode, Value) {
        self.post("/agents/heartbeat", &json!({"agent_id": agent_id}))
            .await
    }
}

/// A KubeMQ-style register body.
pub fn record(agent_id: &str) -> Value {
    json!({
        "agent_id": agent_id,
        "name": format!("Agent {agent_id}"),
        "url": format!("http://127.0.0.1:9000/{agent_id}"),
    })
}

/// A KubeMQ record with skills tagged `tags`.
pub fn tagged(agent_id: &str, tags: &[&str]) -> Value {
    let mut body = record(agent_id);
    body["skills"] = json!([{"id": "s", "name": "S", "description": "", "tags": tags}]);
    body
}

/// An A2A v1.0 card.
pub fn v1_card(name: &str) -> Value {
    json!({
        "name": name,
        "description": "Finds and adapts recipes.",
        "supportedInterfaces": [
            {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "https://agent.example.com/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ],
        "version": "2.3.0",
        "capabilities": {"streaming": true, "extensions": []},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "find", "name": "Find recipe", "description": "Search recipes",
                    "tags": ["cooking"], "examples": []}],
    })
}

/// A JWS signer of agent cards.
pub enum Signer {
    Es256(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

impl Signer {
    pub fn es256() -> Self {
        let random = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).unwrap();
        Self::Es256(
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &random)
                .unwrap(),
        )
    }

    pub fn ed25519() -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        Self::Ed25519(Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap())
    }

    /// The public JWK, with `kid`.
    pub fn jwk(&self, kid: &str) -> Value {
        match self {
            Self::Es256(pair) => {
                let point = pair.public_key().as_ref();
                json!({"kty": "EC", "crv": "P-256", "kid": kid,
                       "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                       "y": URL_SAFE_NO_PAD.encode(&point[33..])})
            }
            Self::Ed25519(pair) => json!({"kty": "OKP", "crv": "Ed25519", "kid": kid,
                "x": URL_SAFE_NO_PAD.encode(pair.public_key().as_ref())}),
        }
    }

    pub fn alg(&self) -> &'static str {
        match self {
            Self::Es256(_) => "ES256",
            Self::Ed25519(_) => "EdDSA",
        }
    }

    /// A signature object over `card` (spec §11.5) with `header` as the protected header.
    pub fn signature_with(&self, card: &Value, header: &Value) -> Value {
        let protected = URL_SAFE_NO_PAD.encode(header.to_string());
        let payload = URL_SAFE_NO_PAD.encode(signed_payload(card.as_object().unwrap()));
        let input = format!("{protected}.{payload}");
        let signature = match self {
            Self::Es256(pair) => pair
                .sign(&SystemRandom::new(), input.as_bytes())
                .unwrap()
                .as_ref()
                .to_vec(),
            Self::Ed25519(pair) => pair.sign(input.as_bytes()).as_ref().to_vec(),
        };
        json!({"protected": protected, "signature": URL_SAFE_NO_PAD.encode(signature)})
    }

    /// `card` with a signature whose protected header embeds the public key.
    pub fn sign_embedded(&self, card: &Value) -> Value {
        let header = json!({"alg": self.alg(), "typ": "JOSE", "kid": "k1", "jwk": self.jwk("k1")});
        let mut signed = card.clone();
        signed["signatures"] = json!([self.signature_with(card, &header)]);
        signed
    }
}
