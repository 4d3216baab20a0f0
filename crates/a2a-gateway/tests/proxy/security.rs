//! What crosses the gateway, who may call it, and from which pages.

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use a2a_gateway::proxy::{CALLER_ID_HEADER, ProxyConfig};
use a2a_server::auth::token::{JwkSet, JwksSource, JwtConfig, JwtVerifier};
use axum::http::HeaderMap;
use axum::routing::post;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::Value;

use crate::support::{Gateway, a2a_agent, error_info, send_message, serve};

/// An agent that records the headers of each call and answers with a result.
async fn recording_agent() -> (String, Arc<Mutex<Vec<HeaderMap>>>) {
    let seen: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
    let recorded = Arc::clone(&seen);
    let app = axum::Router::new().route(
        "/",
        post(move |headers: HeaderMap| {
            let recorded = Arc::clone(&recorded);
            async move {
                recorded.lock().unwrap().push(headers);
                (
                    [
                        ("content-type", "application/json"),
                        ("x-agent-trace", "t-1"),
                        ("set-cookie", "agent=1"),
                    ],
                    r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
                )
            }
        }),
    );
    (format!("http://{}/", serve(app).await), seen)
}

#[tokio::test]
async fn credentials_stay_at_the_gateway_and_custom_headers_pass() {
    let gateway = Gateway::start().await;
    let (url, seen) = recording_agent().await;
    gateway.directory.register("headers-01", Some(url), None);
    let response = gateway
        .http
        .post(gateway.url("/a2a/headers-01"))
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("a2a-version", "1.0")
        .header("a2a-extensions", "urn:example:ext")
        .header("x-request-id", "req-42")
        .header("authorization", "Bearer for-the-gateway")
        .header("cookie", "session=secret")
        .header("proxy-authorization", "Basic cHJveHk=")
        .header("x-forwarded-for", "203.0.113.9")
        .header(CALLER_ID_HEADER, "mallory")
        .body(send_message("SendMessage", "x").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-agent-trace"], "t-1");
    assert!(response.headers().get("set-cookie").is_none());

    let headers = seen.lock().unwrap().pop().unwrap();
    for (name, value) in [
        ("content-type", "application/json"),
        ("accept", "application/json"),
        ("a2a-version", "1.0"),
        ("a2a-extensions", "urn:example:ext"),
        ("x-request-id", "req-42"),
        (CALLER_ID_HEADER, "anonymous"),
    ] {
        assert_eq!(
            headers.get(name).map(|v| v.to_str().unwrap()),
            Some(value),
            "{name}"
        );
    }
    for name in [
        "authorization",
        "cookie",
        "proxy-authorization",
        "x-forwarded-for",
    ] {
        assert!(
            headers.get(name).is_none(),
            "{name} must not reach the agent"
        );
    }
    assert_eq!(headers.get_all(CALLER_ID_HEADER).iter().count(), 1);
}

/// An ES256 key: the JWK Set with its public half, and a token for `sub` signed with it.
fn es256() -> (JwkSet, impl Fn(&str) -> String) {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref();
    let jwks: JwkSet = serde_json::from_value(serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig",
        "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65])
    }]}))
    .unwrap();
    let der = pkcs8.as_ref().to_vec();
    let sign = move |subject: &str| {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let header = jsonwebtoken::Header {
            kid: Some("k1".into()),
            ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256)
        };
        let claims = serde_json::json!({
            "iss": "https://issuer.test", "aud": "a2a-gateway", "sub": subject,
            "exp": now + 600, "iat": now
        });
        jsonwebtoken::encode(
            &header,
            &claims,
            &jsonwebtoken::EncodingKey::from_ec_der(&der),
        )
        .unwrap()
    };
    (jwks, sign)
}

#[tokio::test]
async fn with_jwt_on_only_valid_tokens_pass_and_the_agent_sees_the_caller_id() {
    let (jwks, sign) = es256();
    let (other_jwks, sign_with_other_key) = es256();
    drop(other_jwks);
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwks))
            .with_issuer("https://issuer.test")
            .with_audience("a2a-gateway"),
    )
    .unwrap();
    let mut config = ProxyConfig::default();
    config.token_verifier = Some(Arc::new(verifier));
    let gateway = Gateway::start_with(config).await;
    let (url, seen) = recording_agent().await;
    gateway.directory.register("secure-01", Some(url), None);

    let call = |authorization: Option<String>| {
        let mut request = gateway
            .http
            .post(gateway.url("/a2a/secure-01"))
            .header("content-type", "application/json")
            .body(send_message("SendMessage", "x").to_string());
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        async move {
            let response = request.send().await.unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let refusals = [
        None,
        Some("Bearer not-a-jwt".to_owned()),
        Some(format!("Bearer {}", sign_with_other_key("alice"))),
        Some(format!("Basic {}", sign("alice"))),
    ];
    for authorization in refusals {
        let (status, body) = call(authorization.clone()).await;
        assert_eq!(status, 200, "{authorization:?}");
        assert_eq!(body["error"]["code"], -32010, "{authorization:?}: {body}");
        assert_eq!(error_info(&body)["reason"], "UNAUTHENTICATED");
        assert_eq!(error_info(&body)["metadata"]["executed"], "false");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "refused calls never reach the agent"
    );

    let (status, body) = call(Some(format!("Bearer {}", sign("alice")))).await;
    assert_eq!(
        (status, &body["result"]),
        (200, &serde_json::json!({})),
        "{body}"
    );
    let headers = seen.lock().unwrap().pop().unwrap();
    assert!(headers.get("authorization").is_none());
    assert_eq!(headers[CALLER_ID_HEADER], "alice");

    let rest = gateway
        .http
        .get(gateway.url("/a2a/secure-01/tasks/t-1"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        rest.status(),
        401,
        "HTTP+JSON routes answer in their own binding"
    );
}

#[tokio::test]
async fn trusted_origins_get_cors_headers_and_others_do_not() {
    let mut config = ProxyConfig::default();
    config.trusted_origins = vec!["https://console.example".to_owned()];
    let gateway = Gateway::start_with(config).await;
    let preflight = |origin: &'static str| {
        gateway
            .http
            .request(reqwest::Method::OPTIONS, gateway.url("/a2a/echo-agent-01"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, authorization, x-request-id",
            )
            .send()
    };
    let trusted = preflight("https://console.example").await.unwrap();
    assert!(trusted.status().is_success());
    assert_eq!(
        trusted.headers()["access-control-allow-origin"],
        "https://console.example"
    );
    assert_eq!(
        trusted.headers()["access-control-allow-headers"],
        "content-type, authorization, x-request-id"
    );
    let untrusted = preflight("https://evil.example").await.unwrap();
    assert!(
        untrusted
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );

    let card = gateway
        .http
        .get(gateway.url("/.well-known/agent-card.json"))
        .header("origin", "https://console.example")
        .send()
        .await
        .unwrap();
    assert_eq!(
        card.headers()["access-control-allow-origin"],
        "https://console.example"
    );
    assert_eq!(card.headers()["vary"], "Origin");
}

#[tokio::test]
async fn an_agent_behind_a_gateway_with_jwt_reads_the_caller_the_gateway_forwards() {
    let (jwks, sign) = es256();
    let verifier = JwtVerifier::new(
        JwtConfig::new(JwksSource::Keys(jwks))
            .with_issuer("https://issuer.test")
            .with_audience("a2a-gateway"),
    )
    .unwrap();
    let mut config = ProxyConfig::default();
    config.token_verifier = Some(Arc::new(verifier));
    let gateway = Gateway::start_with(config).await;
    let (jsonrpc, rest) = a2a_agent().await;
    gateway
        .directory
        .register("who-01", Some(jsonrpc), Some(rest));
    let response: Value = gateway
        .http
        .post(gateway.url("/a2a/who-01"))
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("authorization", format!("Bearer {}", sign("alice")))
        .body(send_message("SendMessage", "who am i").to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        response["result"]["task"]["artifacts"][0]["parts"][0]["text"], "alice",
        "{response}"
    );
}
