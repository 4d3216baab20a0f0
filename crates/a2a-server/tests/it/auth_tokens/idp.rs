//! A small identity provider on 127.0.0.1:0: a JWKS (counting its fetches, keys swappable
//! for rotation), an OpenID Connect discovery document, and an RFC 7662 introspection
//! endpoint that checks the client's Basic credentials.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use url::Url;

/// The client the introspection endpoint accepts.
pub const CLIENT_ID: &str = "agent server";
/// Its secret; the characters need form-encoding in HTTP Basic (RFC 6749 §2.3.1).
pub const CLIENT_SECRET: &str = "s3cret:with/odd&chars";

#[derive(Default)]
struct Shared {
    base: String,
    jwks: Mutex<Value>,
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
    active: Mutex<HashMap<String, Value>>,
}

/// A running identity provider.
pub struct Idp {
    shared: Arc<Shared>,
}

impl Idp {
    /// Starts serving `jwks`.
    pub async fn start(jwks: Value) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            base: format!("http://127.0.0.1:{port}"),
            jwks: Mutex::new(jwks),
            ..Shared::default()
        });
        let router = Router::new()
            .route("/jwks", get(serve_jwks))
            .route("/short-lived-jwks", get(serve_short_lived_jwks))
            .route(
                "/failing-jwks",
                get(|| async { StatusCode::INTERNAL_SERVER_ERROR }),
            )
            .route("/moved-jwks", get(|| async { redirect("/jwks") }))
            .route(
                "/elsewhere-jwks",
                get(move || async move { redirect(&format!("http://localhost:{port}/jwks")) }),
            )
            .route("/.well-known/openid-configuration", get(discovery))
            .route(
                "/liar/.well-known/openid-configuration",
                get(lying_discovery),
            )
            .route("/introspect", post(introspect))
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        Self { shared }
    }

    /// `http://127.0.0.1:port`, which is also this provider's issuer.
    pub fn issuer(&self) -> String {
        self.shared.base.clone()
    }

    /// The URL of `path` here.
    pub fn url(&self, path: &str) -> Url {
        Url::parse(&format!("{}{path}", self.shared.base)).unwrap()
    }

    /// Replaces the published keys (rotation).
    pub fn publish(&self, jwks: Value) {
        *self.shared.jwks.lock().unwrap() = jwks;
    }

    /// How often the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.shared.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How often the introspection endpoint was asked.
    pub fn introspections(&self) -> usize {
        self.shared.introspections.load(Ordering::SeqCst)
    }

    /// Makes `token` active, introspecting to `answer` (plus `"active": true`).
    pub fn activate(&self, token: &str, mut answer: Value) {
        answer["active"] = json!(true);
        self.shared
            .active
            .lock()
            .unwrap()
            .insert(token.to_owned(), answer);
    }
}

fn redirect(location: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, location.to_owned())]).into_response()
}

async fn serve_jwks(State(shared): State<Arc<Shared>>) -> Response {
    shared.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let jwks = shared.jwks.lock().unwrap().clone();
    axum::Json(jwks).into_response()
}

async fn serve_short_lived_jwks(state: State<Arc<Shared>>) -> Response {
    let mut response = serve_jwks(state).await;
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("public, max-age=0"),
    );
    response
}

async fn discovery(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    axum::Json(json!({
        "issuer": shared.base,
        "jwks_uri": format!("{}/jwks", shared.base),
        "authorization_endpoint": format!("{}/authorize", shared.base),
        "response_types_supported": ["code"],
    }))
}

async fn lying_discovery(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    axum::Json(json!({
        "issuer": "https://someone-else.example",
        "jwks_uri": format!("{}/jwks", shared.base),
    }))
}

/// RFC 6749 §2.3.1 Basic credentials: form-encoded id and secret.
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let decode = |part: &str| {
        url::form_urlencoded::parse(format!("v={part}").as_bytes())
            .next()
            .map(|(_, value)| value.into_owned())
    };
    Some((decode(id)?, decode(secret)?))
}

async fn introspect(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    shared.introspections.fetch_add(1, Ordering::SeqCst);
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let client = basic_credentials(&headers).or_else(|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    });
    if client != Some((CLIENT_ID.to_owned(), CLIENT_SECRET.to_owned())) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "error": "invalid_client" })),
        )
            .into_response();
    }
    let answer = form
        .get("token")
        .and_then(|token| shared.active.lock().unwrap().get(token).cloned())
        .unwrap_or_else(|| json!({ "active": false }));
    axum::Json(answer).into_response()
}
