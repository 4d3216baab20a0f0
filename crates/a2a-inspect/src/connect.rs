//! `POST /api/connect`: an agent's card fetched and checked, its signature verified, the
//! credentials tried, and the connection kept in the shared state.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};

use a2a_client::transport::Transport;
use a2a_client::{CardFetchOptions, CardVerifier, ClientError};
use a2a_types::{AgentCard, ProtocolBinding};
use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::agent_list::is_gateway;
use crate::connection::{
    Auth, Connection, DEFAULT_API_KEY_HEADER, SharedTransport, build_client, build_client_default,
};
use crate::credentials::CredentialCheck;
use crate::error::ApiError;
use crate::schemes::{card_api_key_header, describe_schemes, secret_names};
use crate::state::{AppState, Shared, normalise};
use crate::wire::{AuthShape, RecordContext, RecordingTransport};

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
