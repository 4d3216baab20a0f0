//! Where an agent's gRPC interface is, and one lazily connected [`Channel`] per agent,
//! kept and reused for every call the gateway translates to it.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use a2a_types::ProtocolBinding;
use serde_json::Value;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

use super::super::error::GatewayError;
use super::insecure::InsecureTls;

/// The URL of the card's gRPC interface (see [`grpc_interface`]), as written there:
/// `host:port` or `http(s)://host:port`.
pub(crate) fn grpc_url(card: &Value) -> Option<&str> {
    grpc_interface(card)?.get("url")?.as_str().map(str::trim)
}

/// The first gRPC 1.x interface of a v1.0 card that has a URL.
pub(crate) fn grpc_interface(card: &Value) -> Option<&Value> {
    card.get("supportedInterfaces")?
        .as_array()?
        .iter()
        .find(|interface| {
            let binding = interface.get("protocolBinding").and_then(Value::as_str);
            let is_grpc = match binding.map(ProtocolBinding::parse) {
                Some(ProtocolBinding::Grpc) => true,
                Some(
                    ProtocolBinding::JsonRpc
                    | ProtocolBinding::HttpJson
                    | ProtocolBinding::Other(_),
                )
                | None => false,
            };
            let is_1x = interface
                .get("protocolVersion")
                .and_then(Value::as_str)
                .is_some_and(|version| version.split('.').next() == Some("1"));
            let has_url = interface
                .get("url")
                .and_then(Value::as_str)
                .is_some_and(|url| !url.trim().is_empty());
            is_grpc && is_1x && has_url
        })
}

/// The channel of each agent, with the URL it was made for: a re-registered agent with a
/// new address gets a new channel, and its old one is dropped.
#[derive(Debug, Default)]
pub(crate) struct Channels {
    by_agent: Mutex<HashMap<String, (String, Channel)>>,
    /// Set when agents' certificates are not verified: `https://` agents are reached
    /// through it.
    insecure: Option<InsecureTls>,
}

impl Channels {
    /// Channels whose TLS verifies agents' certificates unless `skip_verify`.
    pub(crate) fn new(skip_verify: bool) -> Self {
        let insecure = skip_verify
            .then(|| {
                InsecureTls::new()
                    .inspect_err(|error| {
                        tracing::error!(error = %error, "the unverified TLS connector cannot be built; gRPC agents over TLS are verified");
                    })
                    .ok()
            })
            .flatten();
        Self {
            by_agent: Mutex::default(),
            insecure,
        }
    }

    /// The channel to `agent_id` at `url`, made on first use. Connecting happens on the first
    /// call and again after the connection is lost, so a call is where an agent that cannot
    /// be reached shows.
    ///
    /// # Errors
    /// [`GatewayError::Unreachable`] when `url` is not an address a channel can be made for.
    pub(crate) fn channel(&self, agent_id: &str, url: &str) -> Result<Channel, GatewayError> {
        // A poisoned map still holds whole entries: each is inserted in one step.
        let mut by_agent = self.by_agent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((known_url, channel)) = by_agent.get(agent_id)
            && known_url == url
        {
            return Ok(channel.clone());
        }
        let unusable = |error: &dyn std::fmt::Display| {
            tracing::warn!(agent_id, url, error = %error, "agent's gRPC URL is unusable");
            GatewayError::Unreachable {
                agent_id: agent_id.to_owned(),
            }
        };
        let channel = match (&self.insecure, unverified_endpoint(url)) {
            (Some(insecure), Some(endpoint)) => {
                let endpoint = endpoint.map_err(|error| unusable(&error))?;
                let insecure = insecure.clone();
                endpoint.connect_with_connector_lazy(tower::service_fn(move |uri| {
                    insecure.clone().connect(uri)
                }))
            }
            (None, _) | (Some(_), None) => endpoint(url)
                .map_err(|error| unusable(&error))?
                .connect_lazy(),
        };
        by_agent.insert(agent_id.to_owned(), (url.to_owned(), channel.clone()));
        Ok(channel)
    }
}

/// For an `https://` URL, the endpoint to reach it through [`InsecureTls`]: the same host,
/// path and port (443 when none), named `http://` so the channel adds no TLS of its own;
/// `None` for other URLs, which are plaintext anyway.
fn unverified_endpoint(url: &str) -> Option<Result<Endpoint, tonic::transport::Error>> {
    let uri: http::Uri = url.parse().ok()?;
    if !uri.scheme_str()?.eq_ignore_ascii_case("https") {
        return None;
    }
    let host = uri.host()?;
    let port = uri.port_u16().unwrap_or(443);
    let path = uri.path_and_query().map_or("", |path| path.as_str());
    Some(Endpoint::from_shared(format!("http://{host}:{port}{path}")))
}

/// The endpoint of `url`: `https://` with TLS and the web PKI roots; `http://` and a bare
/// `host:port` (what `a2a serve --grpc-bind` announces) over plaintext HTTP/2.
fn endpoint(url: &str) -> Result<Endpoint, tonic::transport::Error> {
    let lowercase = url.to_ascii_lowercase();
    if lowercase.starts_with("https://") {
        Endpoint::from_shared(url.to_owned())?
            .tls_config(ClientTlsConfig::new().with_webpki_roots())
    } else if lowercase.starts_with("http://") {
        Endpoint::from_shared(url.to_owned())
    } else {
        Endpoint::from_shared(format!("http://{url}"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_first_grpc_1x_interface_is_the_agents_grpc_url() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "old:1", "protocolBinding": "GRPC", "protocolVersion": "0.3"},
            {"url": "new:2", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "newer:3", "protocolBinding": "GRPC", "protocolVersion": "1.1"},
        ]});
        assert_eq!(grpc_url(&card), Some("new:2"));
        let none = json!({"supportedInterfaces": [
            {"url": "http://a/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ]});
        assert_eq!(grpc_url(&none), None);
        assert_eq!(grpc_url(&json!({"url": "http://a"})), None);
    }

    #[test]
    fn bare_addresses_and_both_schemes_make_endpoints() {
        for url in [
            "127.0.0.1:50051",
            "http://127.0.0.1:50051",
            "https://grpc.example:443",
        ] {
            assert!(endpoint(url).is_ok(), "{url}");
        }
        assert!(endpoint("not a url").is_err());
    }
}
