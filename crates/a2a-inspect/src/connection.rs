//! Connections: an agent's card fetched and checked, and clients for it built with the
//! credentials the page gave, which stay in this process.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use a2a_client::transport::{ResponseBody, Transport};
use a2a_client::{
    A2aClient, ApiKeyPlacement, CardFetchOptions, CardVerifier, ClientError, Credentials,
    OAuth2ClientCredentials,
};
use a2a_types::{AgentCard, ProtocolBinding};
use axum::Json;
use axum::extract::State;
use bytes::Bytes;
use futures::StreamExt as _;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::{AppState, Shared, normalise};
use crate::credentials::CredentialCheck;
use crate::error::ApiError;
use crate::wire::{AuthShape, GrpcCall, RecordContext, RecordingTransport, WireLog};

/// The header an API key goes in when neither the page nor the card names one.
const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";

/// Largest gateway agent list read.
const MAX_LIST_BYTES: usize = 4 * 1024 * 1024;

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

/// The `auth` member of `POST /api/connect`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuthBody {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    header: Option<String>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    token_url: Option<String>,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

impl AuthBody {
    fn into_auth(self) -> Result<Auth, ApiError> {
        let non_empty = |value: Option<String>| value.filter(|value| !value.trim().is_empty());
        let missing = |what: &str| ApiError::bad_request(format!("The {what} is missing."));
        match self.kind.as_deref().unwrap_or("none") {
            "none" | "" => Ok(Auth::None),
            "api_key" => Ok(Auth::ApiKey {
                header: non_empty(self.header),
                value: non_empty(self.value).ok_or_else(|| missing("API key"))?,
            }),
            "bearer" => Ok(Auth::Bearer(
                non_empty(self.value).ok_or_else(|| missing("bearer token"))?,
            )),
            "oauth2" => Ok(Auth::OAuth2 {
                token_url: non_empty(self.token_url),
                client_id: non_empty(self.client_id).ok_or_else(|| missing("OAuth client id"))?,
                client_secret: non_empty(self.client_secret)
                    .ok_or_else(|| missing("OAuth client secret"))?,
                scopes: self.scopes,
            }),
            other => Err(ApiError::bad_request(format!(
                "Unknown credential kind {other:?}: use none, api_key, bearer or oauth2."
            ))),
        }
    }
}

/// `POST /api/connect`'s body.
#[derive(Debug, Deserialize)]
struct ConnectBody {
    url: String,
    #[serde(default)]
    auth: Option<AuthBody>,
    #[serde(default)]
    binding: Option<String>,
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
    record: Arc<RecordContext>,
    wire: Arc<WireLog>,
    /// The answer to the connect that made this connection, for a page reloaded later.
    info: Value,
    /// A client per binding, made when first used.
    clients: Mutex<HashMap<String, A2aClient>>,
    request_timeout: std::time::Duration,
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

/// `POST /api/connect`.
pub(crate) async fn connect(
    State(state): AppState,
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    let body: ConnectBody = serde_json::from_slice(&body).map_err(|error| {
        ApiError::bad_request("The connect request is not valid JSON.")
            .with_detail(error.to_string())
    })?;
    let url = body.url.trim().to_owned();
    match url::Url::parse(&url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
        _ => {
            return Err(ApiError::bad_request(format!(
                "{url:?} is not an http:// or https:// address."
            )));
        }
    }
    let mut auth = body.auth.unwrap_or_default().into_auth()?;
    if matches!(auth, Auth::None)
        && let Some((_, preset)) = state
            .presets
            .iter()
            .find(|(preset, _)| *preset == normalise(&url))
    {
        auth = preset.clone();
    }
    let number = state.next_connection.fetch_add(1, Ordering::Relaxed);
    let id = format!("c{number}");
    let shape = match &auth {
        Auth::None => AuthShape::None,
        Auth::ApiKey { header, .. } => AuthShape::ApiKey(
            header
                .clone()
                .unwrap_or_else(|| DEFAULT_API_KEY_HEADER.to_owned()),
        ),
        Auth::Bearer(_) => AuthShape::Bearer,
        Auth::OAuth2 { client_id, .. } => AuthShape::OAuth2(client_id.clone()),
    };
    let context = Arc::new(RecordContext {
        connection: Some(id.clone()),
        agent_url: url.clone(),
        auth: shape,
        ..RecordContext::default()
    });
    if let Auth::ApiKey {
        header: Some(header),
        ..
    } = &auth
    {
        push_secret(&context, header);
    }
    let transport: Arc<dyn Transport> = Arc::new(RecordingTransport::new(
        Arc::clone(&state.http),
        Arc::clone(&state.wire),
        Arc::clone(&context),
    ));
    let options = CardFetchOptions::new().transport(SharedTransport(Arc::clone(&transport)));
    let fetched = a2a_client::fetch_agent_card(&url, &options).await;
    // A gateway has no agent card of its own, or only a platform card no client can use:
    // only then is its agent list looked for, so connecting to an agent makes no extra call.
    let usable_card = fetched
        .as_ref()
        .is_ok_and(|card| !usable_bindings(card).is_empty());
    let gateway = !usable_card && is_gateway(transport.as_ref(), &url).await;
    let (card, card_url, card_json) = match fetched {
        Ok(card) => {
            let (card_url, card_json) = card_as_served(&state, &id);
            (Some(card), card_url, card_json)
        }
        Err(_) if gateway => (None, None, None),
        Err(error) => return Err(ApiError::from_client(&error, &url, "")),
    };
    let schemes = describe_schemes(card_json.as_ref());
    if let Some(json) = &card_json {
        for name in secret_names(json) {
            push_secret(&context, &name);
        }
    }
    if let Auth::ApiKey { header: None, .. } = &auth {
        let header = card_api_key_header(card_json.as_ref())
            .unwrap_or_else(|| DEFAULT_API_KEY_HEADER.to_owned());
        push_secret(&context, &header);
    }
    let bindings = card.as_ref().map(usable_bindings).unwrap_or_default();
    let mut connection = Connection {
        number,
        id: id.clone(),
        url: url.clone(),
        card_url,
        card_json,
        card,
        gateway,
        binding: None,
        bindings,
        schemes,
        auth,
        transport: Arc::clone(&transport),
        record: Arc::clone(&context),
        wire: Arc::clone(&state.wire),
        info: Value::Null,
        clients: Mutex::new(HashMap::new()),
        request_timeout: state.request_timeout,
    };
    let mut credentials = CredentialCheck::NotNeeded;
    if let Some(card) = &connection.card {
        let wanted = body
            .binding
            .as_deref()
            .filter(|binding| !binding.is_empty())
            .map(ProtocolBinding::parse);
        let client = build_client(
            card,
            connection.card_url.as_deref(),
            &connection.auth,
            card_api_key_header(connection.card_json.as_ref()),
            Arc::clone(&transport),
            wanted.clone().unwrap_or(ProtocolBinding::JsonRpc),
            state.request_timeout,
        );
        let client = match (client, wanted) {
            (Ok(client), _) => client,
            // With no binding asked for, the card's own preference decides.
            (Err(_), None) => build_client_default(&connection, state.request_timeout)
                .map_err(|error| connection.error(&error))?,
            (Err(error), Some(_)) => return Err(connection.error(&error)),
        };
        credentials = crate::credentials::check(&connection, &client).await;
        let chosen = client.binding().as_str().to_owned();
        connection
            .clients
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(chosen.clone(), client);
        connection.binding = Some(chosen);
    }
    let findings = connection
        .card_json
        .as_ref()
        .map(crate::validate::card_findings)
        .unwrap_or_default();
    let signature = match &connection.card_json {
        Some(json) => {
            check_signature(json, connection.card_url.as_deref(), transport.as_ref()).await
        }
        None => json!({"status": "unsigned"}),
    };
    let extended = connection
        .card
        .as_ref()
        .is_some_and(crate::credentials::offers_extended_card);
    if let (Some(jwks), Some(_)) = (
        jwks_url(connection.card_url.as_deref().unwrap_or(&url)),
        &connection.card,
    ) {
        state.push.set_jwks_url(&id, jwks);
        // The inbox's key fetches go through the wire log like every other call.
        state.push.set_transport(&id, Arc::clone(&transport));
    }
    let answer = json!({
        "connection": id,
        "url": connection.url,
        "cardUrl": connection.card_url,
        "card": connection.card_json,
        "bindings": connection.bindings,
        "binding": connection.binding,
        "findings": findings,
        "signature": signature,
        "gateway": gateway,
        "extendedCard": extended,
        "credentials": credentials.to_json(),
    });
    connection.info = answer.clone();
    state
        .connections
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(number, Arc::new(connection));
    Ok(Json(answer))
}

fn push_secret(context: &RecordContext, name: &str) {
    let name = name.to_ascii_lowercase();
    let mut names = context
        .secret_names
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if !names.contains(&name) {
        names.push(name);
    }
}

/// The card JSON exactly as served, and where, from the wire log's last successful card
/// fetch of the connection.
fn card_as_served(state: &Shared, connection: &str) -> (Option<String>, Option<Value>) {
    let calls = state.wire.calls_after(0);
    let fetch = calls.iter().rev().find(|call| {
        call.connection.as_deref() == Some(connection)
            && call.operation == "GetAgentCard"
            && call
                .status
                .is_some_and(|status| (200..300).contains(&status))
    });
    match fetch {
        Some(call) => (
            Some(call.url.clone()),
            call.response_body
                .as_deref()
                .and_then(|body| serde_json::from_str(body).ok()),
        ),
        None => (None, None),
    }
}

/// Whether `GET {url}/agents` answers a gateway's agent list.
async fn is_gateway(transport: &dyn Transport, url: &str) -> bool {
    matches!(gateway_agents(transport, url).await, Ok(Some(_)))
}

/// The records of a gateway's `GET {url}/agents`: `None` when the answer is not an agent
/// list.
pub(crate) async fn gateway_agents(
    transport: &dyn Transport,
    url: &str,
) -> Result<Option<Vec<Value>>, ClientError> {
    let list_url = format!("{}/agents", normalise(url));
    let request = http::Request::get(&list_url)
        .header(http::header::ACCEPT, "application/json")
        .body(Bytes::new())
        .map_err(|error| ClientError::Config {
            reason: error.to_string(),
        });
    let request = match request {
        Ok(request) => request,
        Err(error) => return Err(error),
    };
    let response = transport.send(request).await?;
    if !response.status().is_success() {
        return Ok(None);
    }
    let body = read_limited(response.into_body(), MAX_LIST_BYTES).await?;
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(_) => return Ok(None),
    };
    let records = match value {
        Value::Array(records) => records,
        Value::Object(mut object) => match object.remove("agents") {
            Some(Value::Array(records)) => records,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    // A registry record always names its agent.
    let is_list = records
        .iter()
        .all(|record| record.get("agent_id").is_some_and(Value::is_string));
    Ok(is_list.then_some(records))
}

async fn read_limited(mut body: ResponseBody, limit: usize) -> Result<Vec<u8>, ClientError> {
    let mut collected = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        if collected.len() + chunk.len() > limit {
            return Err(ClientError::PayloadTooLarge { limit });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected)
}

/// The bindings of the card's interfaces that the client speaks, in the card's order.
fn usable_bindings(card: &AgentCard) -> Vec<String> {
    let mut bindings = Vec::new();
    for interface in &card.supported_interfaces {
        let name = match &interface.protocol_binding {
            ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson | ProtocolBinding::Grpc => {
                interface.protocol_binding.as_str().to_owned()
            }
            ProtocolBinding::Other(_) => continue,
        };
        if !bindings.contains(&name) {
            bindings.push(name);
        }
    }
    bindings
}

/// The security schemes of a card (v1.0 or v0.3 JSON), each as `(kind, detail)`.
fn schemes_of(card: &Value) -> Vec<(String, Value)> {
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Vec::new();
    };
    schemes
        .values()
        .filter_map(|scheme| {
            let object = scheme.as_object()?;
            if let Some(kind) = object.get("type").and_then(Value::as_str) {
                return Some((kind.to_owned(), scheme.clone()));
            }
            let (name, detail) = object.iter().next()?;
            let kind = match name.as_str() {
                "apiKeySecurityScheme" => "apiKey",
                "httpAuthSecurityScheme" => "http",
                "oauth2SecurityScheme" => "oauth2",
                "openIdConnectSecurityScheme" => "openIdConnect",
                "mtlsSecurityScheme" => "mutualTLS",
                other => other,
            };
            Some((kind.to_owned(), detail.clone()))
        })
        .collect()
}

/// The header of the card's first API-key scheme in a header.
pub(crate) fn card_api_key_header(card: Option<&Value>) -> Option<String> {
    schemes_of(card?).into_iter().find_map(|(kind, detail)| {
        let location = detail
            .get("location")
            .or_else(|| detail.get("in"))
            .and_then(Value::as_str)
            .unwrap_or("header");
        (kind == "apiKey" && location.eq_ignore_ascii_case("header"))
            .then(|| {
                detail
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .flatten()
    })
}

/// Header, query and cookie names the card's API-key schemes put secrets in.
fn secret_names(card: &Value) -> Vec<String> {
    schemes_of(card)
        .into_iter()
        .filter(|(kind, _)| kind == "apiKey")
        .filter_map(|(_, detail)| {
            detail
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// What the card's security asks for, in words: "an API key in header X-API-Key".
fn describe_schemes(card: Option<&Value>) -> String {
    let Some(card) = card else {
        return String::new();
    };
    let words: Vec<String> = schemes_of(card)
        .into_iter()
        .map(|(kind, detail)| match kind.as_str() {
            "apiKey" => format!(
                "the card asks for an API key in {} {}",
                detail
                    .get("location")
                    .or_else(|| detail.get("in"))
                    .and_then(Value::as_str)
                    .unwrap_or("header"),
                detail.get("name").and_then(Value::as_str).unwrap_or("?")
            ),
            "http" => format!(
                "the card asks for HTTP {} authentication",
                detail
                    .get("scheme")
                    .and_then(Value::as_str)
                    .unwrap_or("bearer")
            ),
            "oauth2" => "the card asks for an OAuth 2.0 token".to_owned(),
            "openIdConnect" => "the card asks for an OpenID Connect token".to_owned(),
            "mutualTLS" => "the card asks for a client certificate".to_owned(),
            other => format!("the card names a {other} scheme"),
        })
        .collect();
    words.join("; ")
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

fn build_client_default(
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

/// The agent's JWK Set: `/.well-known/jwks.json` beside the card.
fn jwks_url(card_url: &str) -> Option<String> {
    a2a_client::push::agent_jwks_url(card_url)
        .ok()
        .map(|url| url.to_string())
}

/// `{"status": "verified"|"unsigned"|"invalid"|"no_key", "keyId", "detail"}`.
async fn check_signature(card: &Value, card_url: Option<&str>, transport: &dyn Transport) -> Value {
    let signed = card
        .get("signatures")
        .and_then(Value::as_array)
        .is_some_and(|signatures| !signatures.is_empty());
    if !signed {
        return json!({"status": "unsigned"});
    }
    let Some(jwks) = card_url.and_then(jwks_url) else {
        return json!({"status": "no_key", "detail": "no place to look for the agent's keys"});
    };
    let verifier = match CardVerifier::jwks_url(&jwks) {
        Ok(verifier) => verifier,
        Err(error) => return json!({"status": "no_key", "detail": error.to_string()}),
    };
    match verifier.verify(card, transport).await {
        Ok(verified) => {
            json!({"status": "verified", "keyId": verified.kid, "detail": format!("{} signature by key {} from {jwks}", verified.alg, verified.kid)})
        }
        Err(ClientError::CardSignature(error)) => {
            let status = match &error {
                a2a_signature::CardSignatureError::NoSignature => "unsigned",
                a2a_signature::CardSignatureError::UnknownKey { .. } => "no_key",
                _ => "invalid",
            };
            json!({"status": status, "detail": error.to_string()})
        }
        Err(error) => json!({
            "status": "no_key",
            "detail": format!("cannot read the agent's keys at {jwks}: {error}"),
        }),
    }
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
