//! A connection to an agent or a gateway: its card, its credentials (which stay in this
//! process), and a client per binding built from them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use a2a_client::transport::{ResponseBody, Transport};
use a2a_client::{A2aClient, ApiKeyPlacement, ClientError, Credentials, OAuth2ClientCredentials};
use a2a_types::{AgentCard, ProtocolBinding};
use bytes::Bytes;
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::schemes::card_api_key_header;
use crate::wire::{GrpcCall, RecordContext, WireLog};

/// The header an API key goes in when neither the page nor the card names one.
pub(crate) const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";

/// Credentials for an agent.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Auth {
    /// None.
    #[default]
    None,
    /// An API key, in `header` (default: the card's API-key scheme's, else `X-API-Key`).
    ApiKey {
        /// The header, when given.
        header: Option<String>,
        /// The key.
        value: String,
    },
    /// A bearer token.
    Bearer(String),
    /// OAuth 2.0 client credentials.
    OAuth2 {
        /// The token endpoint (default: the card's client-credentials flow's).
        token_url: Option<String>,
        /// The client id.
        client_id: String,
        /// The client secret.
        client_secret: String,
        /// Scopes to ask for.
        scopes: Vec<String>,
    },
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secrets.
        f.write_str(match self {
            Self::None => "Auth::None",
            Self::ApiKey { .. } => "Auth::ApiKey(<redacted>)",
            Self::Bearer(_) => "Auth::Bearer(<redacted>)",
            Self::OAuth2 { .. } => "Auth::OAuth2(<redacted>)",
        })
    }
}

/// One connection to an agent or a gateway.
#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) number: u64,
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) card_url: Option<String>,
    pub(crate) card_json: Option<Value>,
    pub(crate) card: Option<AgentCard>,
    /// Whether the URL is a gateway's: no usable card, and an agent list at `/agents`.
    pub(crate) gateway: bool,
    pub(crate) binding: Option<String>,
    pub(crate) bindings: Vec<String>,
    /// What the card's security asks for, in words, for the message of a 401.
    pub(crate) schemes: String,
    pub(crate) auth: Auth,
    pub(crate) transport: Arc<dyn Transport>,
    /// What the wire log knows of this connection, and the log: for the calls recorded
    /// outside the transport (gRPC).
    pub(crate) record: Arc<RecordContext>,
    pub(crate) wire: Arc<WireLog>,
    /// The answer to the connect that made this connection, for a page reloaded later.
    pub(crate) info: Value,
    /// A client per binding, made when first used.
    pub(crate) clients: Mutex<HashMap<String, A2aClient>>,
    pub(crate) request_timeout: std::time::Duration,
}

impl Connection {
    /// The connect's answer with `"cardName"`: what a reloaded page shows of the connection.
    pub(crate) fn summary(&self) -> Value {
        let mut summary = self.info.clone();
        if let Value::Object(members) = &mut summary {
            members.insert(
                "cardName".to_owned(),
                json!(self.card.as_ref().map(|card| card.name.clone())),
            );
        }
        summary
    }

    /// Makes `call`, `operation` with `request` through `client`. Over HTTP the recording
    /// transport logs it; over gRPC it is logged here, at the call level.
    pub(crate) async fn unary<T: serde::Serialize>(
        &self,
        client: &A2aClient,
        operation: &str,
        request: &impl serde::Serialize,
        call: impl Future<Output = Result<T, ClientError>>,
    ) -> Result<T, ClientError> {
        if client.binding() != ProtocolBinding::Grpc {
            return call.await;
        }
        let recorded = self.grpc_call(client, operation, request);
        let answer = call.await;
        match &answer {
            Ok(value) => {
                recorded.answer(&serde_json::to_value(value).unwrap_or(Value::Null));
                recorded.end(None);
            }
            Err(error) => recorded.end(Some(error)),
        }
        answer
    }

    /// Starts the wire-log entry of a gRPC call.
    pub(crate) fn grpc_call(
        &self,
        client: &A2aClient,
        operation: &str,
        request: &impl serde::Serialize,
    ) -> GrpcCall {
        let request = serde_json::to_value(request).unwrap_or(Value::Null);
        GrpcCall::start(&self.wire, &self.record, operation, client.url(), &request)
    }

    /// The failure of a call, as the page reads it.
    pub(crate) fn error(&self, error: &ClientError) -> ApiError {
        ApiError::from_client(error, &self.url, &self.schemes)
    }

    /// The client for `binding` (the connection's own when `None`).
    pub(crate) fn client(&self, binding: Option<&str>) -> Result<A2aClient, ApiError> {
        let Some(card) = &self.card else {
            return Err(ApiError::bad_request(
                "This connection is a gateway without an agent card of its own; open one of its agents.",
            ));
        };
        let wanted = match binding.filter(|binding| !binding.is_empty()) {
            Some(binding) => ProtocolBinding::parse(binding).as_str().to_owned(),
            None => self.binding.clone().unwrap_or_default(),
        };
        if !self.bindings.contains(&wanted) {
            return Err(ApiError::bad_request(format!(
                "The agent's card offers no {wanted} interface the inspector can use (it offers {}).",
                self.bindings.join(", ")
            )));
        }
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(client) = clients.get(&wanted) {
            return Ok(client.clone());
        }
        let client = build_client(
            card,
            self.card_url.as_deref(),
            &self.auth,
            card_api_key_header(self.card_json.as_ref()),
            Arc::clone(&self.transport),
            ProtocolBinding::parse(&wanted),
            self.request_timeout,
        )
        .map_err(|error| self.error(&error))?;
        clients.insert(wanted, client.clone());
        Ok(client)
    }
}

fn credentials(auth: &Auth, card_header: Option<String>) -> Option<Credentials> {
    match auth {
        Auth::None => None,
        Auth::ApiKey { header, value } => {
            let header = header
                .clone()
                .or(card_header)
                .unwrap_or_else(|| DEFAULT_API_KEY_HEADER.to_owned());
            Some(Credentials::api_key_in(
                value.clone(),
                ApiKeyPlacement::Header(header),
            ))
        }
        Auth::Bearer(token) => Some(Credentials::bearer(token.clone())),
        Auth::OAuth2 {
            token_url,
            client_id,
            client_secret,
            scopes,
        } => {
            let mut grant = OAuth2ClientCredentials::new(client_id.clone(), client_secret.clone())
                .scopes(scopes.clone());
            if let Some(url) = token_url {
                grant = grant.token_url(url.clone());
            }
            Some(Credentials::oauth2(grant))
        }
    }
}

pub(crate) fn build_client(
    card: &AgentCard,
    card_url: Option<&str>,
    auth: &Auth,
    card_header: Option<String>,
    transport: Arc<dyn Transport>,
    binding: ProtocolBinding,
    timeout: std::time::Duration,
) -> Result<A2aClient, ClientError> {
    let mut builder = A2aClient::builder()
        .card(card.clone())
        .shared_transport(transport)
        .prefer_bindings([binding])
        .request_timeout(timeout);
    if let Some(url) = card_url {
        builder = builder.card_source(url);
    }
    if let Some(credentials) = credentials(auth, card_header) {
        builder = builder.credentials(credentials);
    }
    builder.build()
}

pub(crate) fn build_client_default(
    connection: &Connection,
    timeout: std::time::Duration,
) -> Result<A2aClient, ClientError> {
    let Some(card) = &connection.card else {
        return Err(ClientError::InvalidCard {
            reason: "no card".to_owned(),
        });
    };
    let mut builder = A2aClient::builder()
        .card(card.clone())
        .shared_transport(Arc::clone(&connection.transport))
        .request_timeout(timeout);
    if let Some(url) = &connection.card_url {
        builder = builder.card_source(url.clone());
    }
    if let Some(credentials) = credentials(
        &connection.auth,
        card_api_key_header(connection.card_json.as_ref()),
    ) {
        builder = builder.credentials(credentials);
    }
    builder.build()
}

/// Lets an `Arc<dyn Transport>` be given where a `Transport` value is wanted.
#[derive(Debug, Clone)]
pub(crate) struct SharedTransport(pub(crate) Arc<dyn Transport>);

#[async_trait::async_trait]
impl Transport for SharedTransport {
    async fn send(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        self.0.send(request).await
    }
}
