//! The inbox: deliveries checked against each connection's token and the agent's keys,
//! kept, broadcast, and received at `/webhook` and `/webhook/{connection}`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_client::ClientError;
use a2a_client::push::{
    self, LEGACY_TOKEN_HEADER, PushVerifier, PushVerifyError, SIGNATURE_HEADER, TOKEN_HEADER,
};
use a2a_client::transport::{ResponseBody, Transport};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::response::{IntoResponse as _, Response};
use axum::routing::post;
use http::{HeaderMap, StatusCode};
use tokio::sync::broadcast;

use super::body::{read_body, redacted};
use super::delivery::{Checks, Delivery, SignatureCheck, TokenCheck};

/// Deliveries larger than this are refused (413) unread.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// The agent's keys are fetched again at most this often: after a failed fetch, and when a
/// delivery names a key id the set lacks (anyone can send one).
const REFETCH_COOLDOWN: Duration = Duration::from_secs(10);
/// How many deliveries a slow subscriber may fall behind before it misses some.
const BROADCAST_CAPACITY: usize = 256;

/// The inspector's push receiver: tokens per connection, the agents' keys, and the last
/// deliveries. Cloning shares it.
#[derive(Clone)]
pub struct PushInbox {
    inner: Arc<Inner>,
}

struct Inner {
    capacity: usize,
    next_id: AtomicU64,
    deliveries: Mutex<VecDeque<Delivery>>,
    events: broadcast::Sender<Delivery>,
    connections: Mutex<HashMap<String, Expected>>,
}

/// What a connection's deliveries are checked against.
#[derive(Default)]
struct Expected {
    token: Option<String>,
    jwks_url: Option<String>,
    /// What the keys are fetched through (a plain HTTP transport when `None`).
    transport: Option<Arc<dyn Transport>>,
    /// The keys, once fetched.
    verifier: Option<PushVerifier>,
    /// When the keys were last fetched, or a fetch was last tried.
    last_fetch: Option<Instant>,
}

impl std::fmt::Debug for PushInbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens are secrets: only the connections are shown.
        let connections: Vec<String> = self.lock_connections().keys().cloned().collect();
        f.debug_struct("PushInbox")
            .field("capacity", &self.inner.capacity)
            .field("connections", &connections)
            .finish_non_exhaustive()
    }
}

impl PushInbox {
    /// An inbox keeping the last `capacity` deliveries (at least one).
    #[must_use]
    pub fn new(capacity: usize) -> Self {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        Self {
            inner: Arc::new(Inner {
                capacity: capacity.max(1),
                next_id: AtomicU64::new(1),
                deliveries: Mutex::new(VecDeque::new()),
                events,
                connections: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The token to put in a push config for this connection (fresh per connection, remembered).
    #[must_use]
    pub fn token_for(&self, connection: &str) -> String {
        let mut connections = self.lock_connections();
        let expected = connections.entry(connection.to_owned()).or_default();
        expected
            .token
            .get_or_insert_with(|| {
                // Two version 4 UUIDs: 244 bits from the operating system's random source.
                format!(
                    "{}{}",
                    uuid::Uuid::new_v4().simple(),
                    uuid::Uuid::new_v4().simple()
                )
            })
            .clone()
    }

    /// Where signed deliveries from this connection's agent get their keys (JWKS URL).
    /// An agent's base URL works too: its `/.well-known/jwks.json` is used.
    pub fn set_jwks_url(&self, connection: &str, url: String) {
        let mut connections = self.lock_connections();
        let expected = connections.entry(connection.to_owned()).or_default();
        if expected.jwks_url.as_deref() != Some(url.as_str()) {
            expected.jwks_url = Some(url);
            expected.verifier = None;
            expected.last_fetch = None;
        }
    }

    /// Fetches this connection's keys through `transport` (for example one that records the
    /// call in the wire log) instead of a plain HTTP transport.
    pub fn set_transport(&self, connection: &str, transport: Arc<dyn Transport>) {
        let mut connections = self.lock_connections();
        connections
            .entry(connection.to_owned())
            .or_default()
            .transport = Some(transport);
    }

    /// Forgets a connection: its token stops being accepted. Its deliveries stay listed.
    pub fn forget(&self, connection: &str) {
        self.lock_connections().remove(connection);
    }

    /// POST /webhook and POST /webhook/{connection}.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/webhook", post(receive_any))
            .route("/webhook/{connection}", post(receive_for))
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
            .with_state(self.clone())
    }

    /// The deliveries kept, oldest first.
    #[must_use]
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.inner
            .deliveries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }

    /// Every delivery from now on, as it arrives.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Delivery> {
        self.inner.events.subscribe()
    }

    /// The deliveries kept, oldest first, and each one after them: nothing between the two
    /// is missed or told twice.
    #[must_use]
    pub fn follow(&self) -> (Vec<Delivery>, broadcast::Receiver<Delivery>) {
        let deliveries = self
            .inner
            .deliveries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let receiver = self.inner.events.subscribe();
        (deliveries.iter().cloned().collect(), receiver)
    }

    fn lock_connections(&self) -> std::sync::MutexGuard<'_, HashMap<String, Expected>> {
        self.inner
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Checks, records and answers one delivery.
    async fn receive(
        &self,
        path_connection: Option<String>,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Response {
        let time = chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let (connection, token, token_problem) = self.check_token(path_connection, headers);
        let (signature, key_id, signature_problem) = self
            .check_signature(connection.as_deref(), headers, body)
            .await;
        let (body, about, body_problem) = read_body(body);

        let refused = token_problem.is_some() || signature == SignatureCheck::Invalid;
        let status = if refused {
            StatusCode::UNAUTHORIZED
        } else if body_problem.is_some() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        let detail = [token_problem, signature_problem, body_problem]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>();
        let delivery = Delivery {
            id: self.inner.next_id.fetch_add(1, Ordering::Relaxed),
            time,
            connection,
            task_id: about.task_id,
            state: about.state,
            headers: redacted(headers),
            body,
            checks: Checks {
                token,
                signature,
                key_id,
            },
            accepted: status == StatusCode::OK,
            detail: (!detail.is_empty()).then(|| detail.join(" ")),
        };
        tracing::info!(
            id = delivery.id,
            connection = delivery.connection.as_deref().unwrap_or("-"),
            task = delivery.task_id.as_deref().unwrap_or("-"),
            status = status.as_u16(),
            "push delivery"
        );
        self.record(delivery);
        status.into_response()
    }

    fn record(&self, delivery: Delivery) {
        let mut deliveries = self
            .inner
            .deliveries
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        deliveries.push_back(delivery.clone());
        while deliveries.len() > self.inner.capacity {
            deliveries.pop_front();
        }
        // Sent under the lock, so that `follow` sees each delivery exactly once. No
        // subscriber is fine: the delivery is listed all the same.
        let _ = self.inner.events.send(delivery);
    }

    /// The connection the delivery is for, its token check, and why the token refuses it.
    /// On `/webhook/{c}` the token must be the one given to `c` (when one was); on `/webhook`
    /// a token names the connection it was given to.
    fn check_token(
        &self,
        path_connection: Option<String>,
        headers: &HeaderMap,
    ) -> (Option<String>, TokenCheck, Option<String>) {
        let carried =
            headers.contains_key(TOKEN_HEADER) || headers.contains_key(LEGACY_TOKEN_HEADER);
        let connections = self.lock_connections();
        match path_connection {
            Some(connection) => {
                let expected = connections
                    .get(&connection)
                    .and_then(|expected| expected.token.as_deref());
                let (check, problem) = match expected {
                    Some(token) => match push::check_token(headers, token) {
                        Ok(()) => (TokenCheck::Ok, None),
                        Err(PushVerifyError::MissingToken) => (
                            TokenCheck::Absent,
                            Some(
                                "The delivery carries no notification token, and the push config the inspector registered has one."
                                    .to_owned(),
                            ),
                        ),
                        Err(_) => (
                            TokenCheck::Mismatch,
                            Some(
                                "The notification token is not the one the inspector gave this connection."
                                    .to_owned(),
                            ),
                        ),
                    },
                    None if carried => (
                        TokenCheck::Mismatch,
                        Some(format!(
                            "The delivery carries a notification token, but the inspector gave none to connection {connection}."
                        )),
                    ),
                    None => (TokenCheck::Absent, None),
                };
                (Some(connection), check, problem)
            }
            None if carried => {
                let owner = connections.iter().find_map(|(connection, expected)| {
                    let token = expected.token.as_deref()?;
                    push::check_token(headers, token)
                        .is_ok()
                        .then(|| connection.clone())
                });
                match owner {
                    Some(connection) => (Some(connection), TokenCheck::Ok, None),
                    None => (
                        None,
                        TokenCheck::Mismatch,
                        Some(
                            "The notification token is not one the inspector gave to any connection."
                                .to_owned(),
                        ),
                    ),
                }
            }
            None => (None, TokenCheck::Absent, None),
        }
    }

    /// The signature check, the key that signed, and a sentence when it failed or could not
    /// be made. An unknown key id fetches the keys again (the agent may have rotated its
    /// key), at most once per [`REFETCH_COOLDOWN`].
    async fn check_signature(
        &self,
        connection: Option<&str>,
        headers: &HeaderMap,
        body: &[u8],
    ) -> (SignatureCheck, Option<String>, Option<String>) {
        if !headers.contains_key(SIGNATURE_HEADER) {
            return (SignatureCheck::Unsigned, None, None);
        }
        let verifier = match self.verifier(connection).await {
            Ok(verifier) => verifier,
            Err(problem) => return (SignatureCheck::NoKey, None, Some(problem)),
        };
        let mut verified = verifier.verify_signature(headers, body);
        if matches!(verified, Err(PushVerifyError::UnknownKey { .. }))
            && let Some(connection) = connection
            && self.may_fetch(connection)
        {
            match verifier.refresh().await {
                Ok(()) => verified = verifier.verify_signature(headers, body),
                Err(error) => {
                    tracing::warn!(error = %error, "cannot fetch the agent's push keys again")
                }
            }
        }
        match verified {
            Ok(signature) => (SignatureCheck::Verified, Some(signature.kid), None),
            Err(error) => (
                SignatureCheck::Invalid,
                None,
                Some(format!("The signature does not verify: {error}.")),
            ),
        }
    }

    /// The connection's key set, fetched on first use (and again after a failed fetch,
    /// at most once per [`REFETCH_COOLDOWN`]).
    async fn verifier(&self, connection: Option<&str>) -> Result<PushVerifier, String> {
        let Some(connection) = connection else {
            return Err(
                "The delivery is signed, but it names no connection, so the inspector does not know whose keys to check it with."
                    .to_owned(),
            );
        };
        let (url, transport) = {
            let connections = self.lock_connections();
            let expected = connections.get(connection);
            if let Some(verifier) = expected.and_then(|expected| expected.verifier.clone()) {
                return Ok(verifier);
            }
            (
                expected.and_then(|expected| expected.jwks_url.clone()),
                expected.and_then(|expected| expected.transport.clone()),
            )
        };
        let Some(url) = url else {
            return Err(format!(
                "The delivery is signed, but the inspector does not know where the agent of connection {connection} publishes its keys."
            ));
        };
        if !self.may_fetch(connection) {
            return Err(format!(
                "The delivery is signed, but the agent's keys could not be fetched from {url} a moment ago."
            ));
        }
        let fetched = match transport {
            Some(transport) => PushVerifier::fetch_with(&url, Shared(transport)).await,
            None => PushVerifier::fetch(&url).await,
        };
        match fetched {
            Ok(verifier) => {
                if let Some(expected) = self.lock_connections().get_mut(connection)
                    && expected.jwks_url.as_deref() == Some(url.as_str())
                {
                    expected.verifier = Some(verifier.clone());
                }
                Ok(verifier)
            }
            Err(error) => Err(format!(
                "The delivery is signed, but the agent's keys could not be fetched: {error}."
            )),
        }
    }

    /// Whether the connection's keys may be fetched now; notes the fetch when they may.
    fn may_fetch(&self, connection: &str) -> bool {
        let mut connections = self.lock_connections();
        let Some(expected) = connections.get_mut(connection) else {
            return false;
        };
        let now = Instant::now();
        if expected
            .last_fetch
            .is_some_and(|last| now.duration_since(last) < REFETCH_COOLDOWN)
        {
            return false;
        }
        expected.last_fetch = Some(now);
        true
    }
}

/// A shared transport, as the verifier takes one by value.
#[derive(Debug)]
struct Shared(Arc<dyn Transport>);

#[async_trait::async_trait]
impl Transport for Shared {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        self.0.send(request).await
    }
}

async fn receive_any(State(inbox): State<PushInbox>, headers: HeaderMap, body: Bytes) -> Response {
    inbox.receive(None, &headers, &body).await
}

async fn receive_for(
    State(inbox): State<PushInbox>,
    Path(connection): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    inbox.receive(Some(connection), &headers, &body).await
}
