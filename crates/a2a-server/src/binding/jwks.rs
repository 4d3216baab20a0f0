//! The public JWK Set (`GET /.well-known/jwks.json`): the push signer's key and the card
//! signing key, public like the card, so webhook receivers can check delivery signatures
//! (see [`crate::push::signing`]) and clients the card's.

use a2a_types::A2aError;
use axum::extract::Request;
use axum::response::Response;
use http::header::{CACHE_CONTROL, HeaderValue};
use http::{Method, StatusCode};

use super::card::is_read;
use super::media;
use super::response::{self, RestErrors};
use crate::push::signing::{JWKS_MEDIA_TYPE, PushSigner};

/// Short, so receivers pick up a rotated key soon; they also refetch on an unknown `kid`.
const CACHE_FOR: &str = "max-age=300";

/// The key set, serialised once when the router is built.
#[derive(Debug)]
pub(super) struct JwksRoute {
    /// The full path, under the server's base path.
    pub(super) path: String,
    body: Vec<u8>,
}

impl JwksRoute {
    /// The route when there is a key to serve.
    pub(super) fn new(
        path: String,
        signer: Option<&PushSigner>,
        card_key: Option<&a2a_signature::Jwk>,
    ) -> Option<Self> {
        let mut keys: Vec<serde_json::Value> = signer
            .map(|signer| signer.jwk().clone())
            .into_iter()
            .collect();
        if let Some(jwk) = card_key.and_then(|jwk| serde_json::to_value(jwk).ok())
            && !keys.iter().any(|key| key.get("kid") == jwk.get("kid"))
        {
            keys.push(jwk);
        }
        if keys.is_empty() {
            return None;
        }
        Some(Self {
            path,
            body: serde_json::json!({ "keys": keys }).to_string().into_bytes(),
        })
    }

    /// Serves a request for the key set's path: reads get the set, anything else 405.
    pub(super) fn serve(&self, request: &Request) -> Response {
        if !is_read(request.method()) {
            let errors = RestErrors {
                negotiated: media::negotiate(request.headers()),
                profile: a2a_types::error::RestStatusProfile::Spec,
                instance: request.uri().path(),
            };
            let error = A2aError::method_not_found(request.method().as_str())
                .with_metadata("path", request.uri().path());
            let response =
                errors.response_with_status(&error, StatusCode::METHOD_NOT_ALLOWED.as_u16());
            return response::with_allow(response, &[Method::GET, Method::HEAD]);
        }
        let mut response = response::bytes(StatusCode::OK, JWKS_MEDIA_TYPE, self.body.clone());
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static(CACHE_FOR));
        response
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};
    use axum::body::Body;
    use tower::ServiceExt as _;

    use crate::auth::Authentication;
    use crate::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
    use crate::push::signing::PushSigner;
    use crate::{A2aServer, A2aServerBuilder};

    struct Idle;

    #[async_trait::async_trait]
    impl AgentExecutor for Idle {
        async fn execute(&self, _: RequestContext, _: TaskUpdater) -> Result<(), ExecutorError> {
            Ok(())
        }
    }

    /// Authentication stays on (and refuses everything): the key set must not need it.
    fn builder() -> A2aServerBuilder {
        let card = AgentCard::new("Signer", "Signs its deliveries.", "1.0.0").with_interface(
            AgentInterface::new("http://localhost/a2a", ProtocolBinding::JsonRpc),
        );
        A2aServer::builder(card, Idle).authentication(Authentication::required())
    }

    async fn request(server: &A2aServer, method: &str, path: &str) -> http::Response<Body> {
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        server.router().oneshot(request).await.unwrap()
    }

    async fn body_json(response: http::Response<Body>) -> serde_json::Value {
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn the_key_set_is_public_and_cacheable_for_five_minutes() {
        let signer = PushSigner::generate().unwrap();
        let server = builder().push_signer(signer.clone()).build().unwrap();
        assert_eq!(
            server.push_signer().map(PushSigner::kid),
            Some(signer.kid())
        );
        let response = request(&server, "GET", "/.well-known/jwks.json").await;
        assert_eq!(response.status(), 200);
        let headers = response.headers();
        assert_eq!(headers["content-type"], "application/jwk-set+json");
        assert_eq!(headers["cache-control"], "max-age=300");
        assert_eq!(body_json(response).await, signer.jwks());

        let head = request(&server, "HEAD", "/.well-known/jwks.json").await;
        assert_eq!(head.status(), 200);
        let post = request(&server, "POST", "/.well-known/jwks.json").await;
        assert_eq!(post.status(), 405);
        assert_eq!(post.headers()["allow"], "GET, HEAD");
    }

    #[tokio::test]
    async fn without_a_signer_there_is_no_key_set() {
        let server = builder().build().unwrap();
        assert!(server.push_signer().is_none());
        let response = request(&server, "GET", "/.well-known/jwks.json").await;
        assert_eq!(response.status(), 404);
    }

    #[tokio::test]
    async fn the_key_set_moves_with_the_base_path() {
        let signer = PushSigner::generate().unwrap();
        let server = builder()
            .base_path("/agents/signer")
            .push_signer(signer.clone())
            .build()
            .unwrap();
        let response = request(&server, "GET", "/agents/signer/.well-known/jwks.json").await;
        assert_eq!(response.status(), 200);
        assert_eq!(body_json(response).await, signer.jwks());
        let root = request(&server, "GET", "/.well-known/jwks.json").await;
        assert_eq!(root.status(), 404);
    }
}
