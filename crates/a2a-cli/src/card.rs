//! The card `a2a serve` publishes: a card file, URL or inline JSON, or one built from
//! parameters (without security schemes), with `--name`/`--description`/`--version` over
//! either (parameters override only those three). A card that names no interface gets a JSONRPC and an
//! HTTP+JSON interface, both at the server's public URL: JSON-RPC is `POST /`, the REST
//! routes are `/message:send` and the like beside it.

use std::path::{Path, PathBuf};

use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill, ProtocolBinding};

use crate::config::{AgentSetup, Settings};
use crate::error::UsageError;

/// A card file that cannot be used (exit code 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CardError {
    /// The file cannot be read.
    #[error("cannot read card file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The card at `--card-url` cannot be fetched.
    #[error("cannot fetch the card at {url}: {message}")]
    Fetch {
        /// Where it was fetched, without credentials.
        url: String,
        /// Why.
        message: String,
    },
    /// The text is not an agent card.
    #[error("{origin}: {source}")]
    Decode {
        /// Where the text came from: `card file PATH`, `card at URL`, `--card-json`.
        origin: String,
        /// What is wrong, and where.
        source: a2a_types::json::DecodeError,
    },
}

/// The largest card `--card-url` reads.
const MAX_FETCHED_CARD_BYTES: usize = 10 * 1024 * 1024;

/// How long `--card-url` waits for the card.
const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl From<CardError> for UsageError {
    fn from(error: CardError) -> Self {
        Self::from_error(error)
    }
}

/// The card to serve and how its interfaces map to routes.
#[derive(Debug)]
pub(crate) struct ServedCard {
    /// The card.
    pub(crate) card: AgentCard,
    /// True when this module added the interfaces: their URLs already carry the base path,
    /// so the server must not add it again.
    pub(crate) interfaces_added: bool,
}

/// The card from its sources: the file, the URL, the inline JSON or the agent's preview
/// card, then the parameters over it. Read before the listener is bound, so a bad card fails
/// fast.
pub(crate) async fn load(settings: &Settings) -> Result<AgentCard, CardError> {
    let source = &settings.card;
    let mut card = match (&source.file, &source.url, &source.inline) {
        (Some(path), _, _) => read(path)?,
        (None, Some(url), _) => fetch(url).await?,
        (None, None, Some(json)) => decode(json, "--card-json")?,
        (None, None, None) => preview(&settings.agent),
    };
    if let Some(name) = &source.name {
        card.name.clone_from(name);
    }
    if let Some(description) = &source.description {
        card.description.clone_from(description);
    }
    if let Some(version) = &source.version {
        card.version.clone_from(version);
    }
    Ok(card)
}

/// Completes `card` for serving: both HTTP interfaces at `public_url` (the server's root URL
/// as clients see it) plus the base path when it names none, a GRPC interface at `grpc_url`
/// when gRPC is served, then only the interfaces of `--protocol-binding`, when given.
pub(crate) fn serve(
    mut card: AgentCard,
    settings: &Settings,
    public_url: &str,
    grpc_url: Option<&str>,
) -> ServedCard {
    let interfaces_added = card.supported_interfaces.is_empty();
    if interfaces_added {
        let url = format!("{public_url}{}", settings.base_path);
        card.supported_interfaces = vec![
            AgentInterface::new(url.clone(), ProtocolBinding::JsonRpc),
            AgentInterface::new(url, ProtocolBinding::HttpJson),
        ];
    }
    // The gRPC listener is this command's, so its interface is added to any card that does
    // not name one already.
    if let Some(url) = grpc_url
        && !card
            .supported_interfaces
            .iter()
            .any(|interface| interface.protocol_binding == ProtocolBinding::Grpc)
    {
        card.supported_interfaces
            .push(AgentInterface::new(url, ProtocolBinding::Grpc));
    }
    if let Some(only) = &settings.protocol_binding {
        card.supported_interfaces
            .retain(|interface| interface.protocol_binding == *only);
    }
    ServedCard {
        card,
        interfaces_added,
    }
}

/// The `--extended-card` file, read before the listener is bound so a bad file fails fast;
/// `None` when none is given.
pub(crate) fn load_extended(settings: &Settings) -> Result<Option<AgentCard>, CardError> {
    settings.card.extended.as_deref().map(read).transpose()
}

/// The extended card to serve beside `public` (the card as served): the given file's, or,
/// for the conformance agent, the public card with one more skill, so the conformance kit
/// finds an extended card to fetch; `None` for the other agents without a file.
///
/// What the file leaves out is the public card's: its interfaces (so a client that switches
/// to the extended card still reaches the agent) and its security schemes and requirements.
/// It always declares the extended card itself.
pub(crate) fn extended(
    file: Option<AgentCard>,
    public: &AgentCard,
    agent: &AgentSetup,
) -> Option<AgentCard> {
    let mut card = match (file, agent) {
        (Some(card), _) => card,
        (None, AgentSetup::Conformance) => public.clone().with_skill(AgentSkill::new(
            "tck-extended",
            "Extended TCK skill",
            "Shown only in the extended card, to authenticated callers",
        )),
        (None, AgentSetup::Echo | AgentSetup::Exec(_) | AgentSetup::Llm(_)) => return None,
    };
    if card.supported_interfaces.is_empty() {
        card.supported_interfaces
            .clone_from(&public.supported_interfaces);
    }
    if card.security_schemes.is_empty() {
        card.security_schemes.clone_from(&public.security_schemes);
        card.security_requirements
            .clone_from(&public.security_requirements);
    }
    card.capabilities.extended_agent_card = Some(true);
    Some(card)
}

fn read(path: &Path) -> Result<AgentCard, CardError> {
    let text = std::fs::read_to_string(path).map_err(|source| CardError::Read {
        path: path.to_owned(),
        source,
    })?;
    decode(&text, &format!("card file {}", path.display()))
}

/// The card at `url` (its origin's well-known card unless the path ends in `.json`), fetched
/// once; redirects are not followed. Errors name the URL without its credentials.
async fn fetch(url: &str) -> Result<AgentCard, CardError> {
    let address = a2a_client::card_url(url, None).map_err(|error| CardError::Fetch {
        url: "the --card-url value".to_owned(),
        message: error.to_string(),
    })?;
    let mut shown = address.clone();
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    let failed = |message: String| CardError::Fetch {
        url: shown.to_string(),
        message,
    };
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|error| failed(error.without_url().to_string()))?;
    let mut response = client
        .get(address.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|error| failed(error.without_url().to_string()))?;
    if !response.status().is_success() {
        return Err(failed(format!("HTTP {}", response.status())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| failed(error.without_url().to_string()))?
    {
        if body.len() + chunk.len() > MAX_FETCHED_CARD_BYTES {
            return Err(failed(format!(
                "the card is larger than {MAX_FETCHED_CARD_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    let text = String::from_utf8(body).map_err(|_| failed("the card is not UTF-8".to_owned()))?;
    decode(&text, &format!("card at {shown}"))
}

/// The card in `text`, from `origin` (named in errors and warnings), with the pre-1.0
/// spellings [`accept_legacy`] knows rewritten.
fn decode(text: &str, origin: &str) -> Result<AgentCard, CardError> {
    let decode_error = |source| CardError::Decode {
        origin: origin.to_owned(),
        source,
    };
    let mut value: serde_json::Value = a2a_types::json::from_str(text).map_err(decode_error)?;
    for warning in accept_legacy(&mut value) {
        tracing::warn!("{origin}: {warning}");
    }
    a2a_types::json::from_value(value).map_err(decode_error)
}

/// Rewrites the pre-1.0 spellings a card may still use into their 1.0 members, returning a
/// warning for each: `provider.name` (the spelling of Camel's example card) is
/// `provider.organization`. The other legacy members (`url`, `protocolVersion`,
/// `supportsAuthenticatedExtendedCard`, `security`) the card type reads and keeps itself.
fn accept_legacy(card: &mut serde_json::Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(provider) = card
        .get_mut("provider")
        .and_then(serde_json::Value::as_object_mut)
        && !provider.contains_key("organization")
        && let Some(name) = provider.remove("name")
    {
        provider.insert("organization".to_owned(), name);
        warnings.push(
            "provider.name is not an A2A 1.0 member; read as provider.organization".to_owned(),
        );
    }
    warnings
}

/// The card's interfaces this server does not serve, each with why: a custom binding, a
/// GRPC interface without `--grpc-bind`, or a protocol version other than 1.x and 0.3.
/// Clients that pick one of them would not reach the agent there, so `a2a serve` refuses to
/// start with any.
pub(crate) fn unserved_interfaces(card: &AgentCard, grpc_served: bool) -> Vec<String> {
    card.supported_interfaces
        .iter()
        .filter_map(|interface| {
            let binding = interface.protocol_binding.as_str();
            let why = match &interface.protocol_binding {
                ProtocolBinding::Other(_) => "a binding this server does not serve",
                ProtocolBinding::Grpc if !grpc_served => "gRPC is not served (see --grpc-bind)",
                ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson | ProtocolBinding::Grpc => {
                    let version = interface.protocol_version.as_str();
                    if interface.is_v1() || version == "0.3" || version.starts_with("0.3.") {
                        return None;
                    }
                    "a protocol version this server does not serve"
                }
            };
            Some(format!(
                "the card's {binding} interface at {} (version {:?}) is not served: {why}",
                interface.url, interface.protocol_version
            ))
        })
        .collect()
}

/// The card of a built-in agent when no file is given: its "preview defaults",
/// declaring what the agent does. Every built-in agent streams.
fn preview(agent: &AgentSetup) -> AgentCard {
    let (name, description, skill) = match agent {
        AgentSetup::Echo => (
            "Echo",
            "Answers every message with an artifact holding its text.",
            AgentSkill::new("echo", "Echo", "Repeats the message text as an artifact"),
        ),
        AgentSetup::Exec(command) => (
            command.program.as_str(),
            "Runs a command for every message: the text on its standard input, its output as the answer.",
            AgentSkill::new(
                "exec",
                "Run a command",
                "Streams the command's output, line by line",
            ),
        ),
        AgentSetup::Llm(setup) => (
            "LLM agent",
            "A language model with tools; a tool call may wait for your approval.",
            AgentSkill::new(
                "chat",
                "Chat",
                format!("Answers with the model {} and its tools", setup.model),
            ),
        ),
        AgentSetup::Conformance => (
            "A2A conformance agent",
            "Behaves by messageId prefix so the A2A conformance kit (TCK) can drive every path.",
            AgentSkill::new(
                "tck",
                "TCK conformance",
                "Handles TCK conformance test messages",
            ),
        ),
    };
    let mut card = AgentCard::new(name, description, env!("CARGO_PKG_VERSION")).with_skill(skill);
    card.capabilities = AgentCapabilities {
        streaming: Some(true),
        ..AgentCapabilities::default()
    };
    card.default_input_modes = vec!["text/plain".to_owned()];
    card.default_output_modes = vec!["text/plain".to_owned()];
    card
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ServeOptions, Settings};

    fn build(settings: &Settings, public_url: &str) -> ServedCard {
        let card = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(load(settings))
            .unwrap();
        serve(card, settings, public_url, None)
    }

    fn settings(options: ServeOptions) -> Settings {
        Settings::resolve(options).unwrap()
    }

    #[test]
    fn a_card_without_interfaces_gets_both_at_the_public_url_and_base_path() {
        let built = build(
            &settings(ServeOptions {
                base_path: Some("/agents/echo".into()),
                ..ServeOptions::default()
            }),
            "http://127.0.0.1:8080",
        );
        assert!(built.interfaces_added);
        let interfaces: Vec<(&str, &ProtocolBinding)> = built
            .card
            .supported_interfaces
            .iter()
            .map(|interface| (interface.url.as_str(), &interface.protocol_binding))
            .collect();
        assert_eq!(
            interfaces,
            [
                (
                    "http://127.0.0.1:8080/agents/echo",
                    &ProtocolBinding::JsonRpc
                ),
                (
                    "http://127.0.0.1:8080/agents/echo",
                    &ProtocolBinding::HttpJson
                ),
            ]
        );
        assert!(built.card.capabilities.supports_streaming());
        assert!(built.card.security_schemes.is_empty());
    }

    #[test]
    fn parameters_override_name_description_and_version_only() {
        let built = build(
            &settings(ServeOptions {
                name: Some("Named".into()),
                version: Some("9.9.9".into()),
                protocol_binding: Some("jsonrpc".into()),
                ..ServeOptions::default()
            }),
            "http://h",
        );
        assert_eq!(built.card.name, "Named");
        assert_eq!(built.card.version, "9.9.9");
        assert_eq!(
            built.card.description,
            preview(&AgentSetup::Echo).description
        );
        assert_eq!(built.card.supported_interfaces.len(), 1);
        assert_eq!(
            built.card.supported_interfaces[0].protocol_binding,
            ProtocolBinding::JsonRpc
        );
    }
}
