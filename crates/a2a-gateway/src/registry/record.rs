//! The register body shapes the registry accepts (see the [module docs](super)), read
//! into one [`Registration`].

use a2a_types::ProtocolBinding;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

use super::validate::{AgentIdError, absolute_http_url, validate_agent_id};
use crate::agent::RegisteredAgent;

/// Members of a register body that belong to the registration, not to the card.
const REGISTRATION_MEMBERS: [&str; 3] = ["agent_id", "registered_at", "last_seen"];

/// Why a register body is refused (HTTP 400 at the API); the message is the client's to read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The body is not a JSON object.
    #[error("the body must be a JSON object")]
    NotAnObject,
    /// No `agent_id`, or not a string.
    #[error("agent_id is required")]
    MissingAgentId,
    /// `agent_id` is not lowercase letters, digits and hyphens of at least two characters.
    #[error(transparent)]
    AgentId(#[from] AgentIdError),
    /// No `name`, or an empty one.
    #[error("name is required")]
    MissingName,
    /// A KubeMQ record without `url`.
    #[error("url is required: the absolute http(s) URL of the agent's JSON-RPC endpoint")]
    MissingUrl,
    /// A v1.0 card without a `JSONRPC`, `HTTP+JSON` or gRPC 1.x interface (and no top-level
    /// `url`).
    #[error("the card names no JSONRPC, HTTP+JSON or GRPC 1.x interface")]
    NoInterface,
    /// A URL the proxy cannot call: relative, or not http(s).
    #[error("{field} {url:?} is not an absolute http(s) URL")]
    InvalidUrl {
        /// Where the URL is, e.g. `url` or `supportedInterfaces[0].url`.
        field: String,
        /// The URL as given.
        url: String,
    },
    /// A member of the wrong JSON type.
    #[error("{field} must be {expected}")]
    InvalidField {
        /// The member, e.g. `skills`.
        field: String,
        /// What it must be, e.g. `an array`.
        expected: &'static str,
    },
}

/// A register body, checked and split into what the registry stores.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Registration {
    /// The id: lowercase letters, digits and hyphens, at least two characters.
    pub(crate) agent_id: String,
    /// The card's `name`.
    pub(crate) name: String,
    /// Where JSON-RPC calls go.
    pub(crate) jsonrpc_url: Option<String>,
    /// The HTTP+JSON base URL.
    pub(crate) rest_url: Option<String>,
    /// The card without the registration members.
    pub(crate) card: Map<String, Value>,
}

/// Reads a register body in any of the three shapes.
pub(crate) fn read(body: Value) -> Result<Registration, RecordError> {
    let Value::Object(mut body) = body else {
        return Err(RecordError::NotAnObject);
    };
    let agent_id = match body.get("agent_id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) | None => return Err(RecordError::MissingAgentId),
    };
    validate_agent_id(&agent_id)?;
    let mut card = match body.remove("card") {
        Some(Value::Object(card)) if !body.contains_key("name") => card,
        Some(other) => {
            // A member of the card itself, not an envelope.
            body.insert("card".to_owned(), other);
            body
        }
        None => body,
    };
    for member in REGISTRATION_MEMBERS {
        card.remove(member);
    }
    let name = match card.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
        Some(_) | None => return Err(RecordError::MissingName),
    };
    check_types(&card)?;
    let (jsonrpc_url, rest_url) = match card.get("supportedInterfaces") {
        Some(interfaces) if !interfaces.is_null() => card_urls(interfaces, &card)?,
        Some(_) | None => (Some(record_url(&card)?), None),
    };
    Ok(Registration {
        agent_id,
        name,
        jsonrpc_url,
        rest_url,
        card,
    })
}

/// The JSON type of the optional members the registry reads or fills with defaults.
fn check_types(card: &Map<String, Value>) -> Result<(), RecordError> {
    let expect = |field: &str, expected: &'static str, ok: fn(&Value) -> bool| match card.get(field)
    {
        Some(value) if !value.is_null() && !ok(value) => Err(RecordError::InvalidField {
            field: field.to_owned(),
            expected,
        }),
        Some(_) | None => Ok(()),
    };
    expect("description", "a string", Value::is_string)?;
    expect("version", "a string", Value::is_string)?;
    expect("skills", "an array", Value::is_array)?;
    expect("defaultInputModes", "an array", Value::is_array)?;
    expect("defaultOutputModes", "an array", Value::is_array)?;
    expect("protocolVersions", "an array", Value::is_array)?;
    expect("supportedInterfaces", "an array", Value::is_array)?;
    expect("signatures", "an array", Value::is_array)
}

/// The `url` of a KubeMQ record.
fn record_url(card: &Map<String, Value>) -> Result<String, RecordError> {
    match card.get("url") {
        Some(Value::String(url)) if !url.trim().is_empty() => checked_url("url", url),
        Some(_) | None => Err(RecordError::MissingUrl),
    }
}

fn checked_url(field: &str, url: &str) -> Result<String, RecordError> {
    match absolute_http_url(url) {
        Some(_) => Ok(url.trim().to_owned()),
        None => Err(RecordError::InvalidUrl {
            field: field.to_owned(),
            url: url.to_owned(),
        }),
    }
}

/// The JSON-RPC and REST URLs of a v1.0 card.
fn card_urls(
    interfaces: &Value,
    card: &Map<String, Value>,
) -> Result<(Option<String>, Option<String>), RecordError> {
    let Some(interfaces) = interfaces.as_array() else {
        return Err(RecordError::InvalidField {
            field: "supportedInterfaces".to_owned(),
            expected: "an array",
        });
    };
    // (url, is v1) of each interface per binding, in card order.
    let mut jsonrpc = Vec::new();
    let mut rest = Vec::new();
    for (index, interface) in interfaces.iter().enumerate() {
        let field = format!("supportedInterfaces[{index}]");
        let Some(interface) = interface.as_object() else {
            return Err(RecordError::InvalidField {
                field,
                expected: "an object",
            });
        };
        let binding = interface
            .get("protocolBinding")
            .and_then(Value::as_str)
            .map(ProtocolBinding::parse);
        let list = match binding {
            Some(ProtocolBinding::JsonRpc) => &mut jsonrpc,
            Some(ProtocolBinding::HttpJson) => &mut rest,
            // gRPC URLs may be a bare `host:port`; the gateway does not call them.
            Some(ProtocolBinding::Grpc | ProtocolBinding::Other(_)) | None => continue,
        };
        let url = match interface.get("url") {
            Some(Value::String(url)) => checked_url(&format!("{field}.url"), url)?,
            Some(_) | None => {
                return Err(RecordError::InvalidField {
                    field: format!("{field}.url"),
                    expected: "a string",
                });
            }
        };
        let v1 = interface
            .get("protocolVersion")
            .and_then(Value::as_str)
            .is_some_and(|version| version.split('.').next() == Some("1"));
        list.push((url, v1));
    }
    let legacy = match card.get("url") {
        Some(Value::String(url)) => Some(checked_url("url", url)?),
        Some(_) | None => None,
    };
    let jsonrpc = preferred(jsonrpc).or(legacy);
    let rest = preferred(rest);
    // A gRPC-only agent is reachable too: the proxy translates both bindings to gRPC.
    let has_grpc = interfaces.iter().any(|interface| {
        let binding = interface.get("protocolBinding").and_then(Value::as_str);
        let version = interface.get("protocolVersion").and_then(Value::as_str);
        binding.map(ProtocolBinding::parse) == Some(ProtocolBinding::Grpc)
            && version.is_some_and(|version| version.split('.').next() == Some("1"))
            && interface
                .get("url")
                .and_then(Value::as_str)
                .is_some_and(|url| !url.trim().is_empty())
    });
    if jsonrpc.is_none() && rest.is_none() && !has_grpc {
        return Err(RecordError::NoInterface);
    }
    Ok((jsonrpc, rest))
}

/// The first v1 URL, else the first URL.
fn preferred(urls: Vec<(String, bool)>) -> Option<String> {
    let first_v1 = urls.iter().position(|(_, v1)| *v1).unwrap_or(0);
    urls.into_iter().nth(first_v1).map(|(url, _)| url)
}

/// The registry record of `agent`, as registration, `GET /agents/{id}` and a KubeMQ agent's
/// card through the gateway return it: `agent_id` first, then the card's members, then
/// `registered_at` and `last_seen` (RFC 3339, UTC, milliseconds, `Z`). A KubeMQ record gets
/// defaults for the optional members it lacks (empty `description`, `version` and `skills`,
/// `text` modes, protocol `1.0`); a v1.0 card is shown as registered.
///
/// To check a signed card from a record, remove `agent_id`, `registered_at` and
/// `last_seen` first.
#[must_use]
pub fn enriched(agent: &RegisteredAgent) -> Value {
    let mut record = Map::new();
    record.insert("agent_id".to_owned(), Value::from(agent.agent_id.clone()));
    if let Some(card) = agent.card.as_object() {
        for (member, value) in card {
            if !REGISTRATION_MEMBERS.contains(&member.as_str()) {
                record.insert(member.clone(), value.clone());
            }
        }
        if card.get("supportedInterfaces").is_none_or(Value::is_null) {
            for (member, default) in record_defaults() {
                if record.get(member).is_none_or(Value::is_null) {
                    record.insert(member.to_owned(), default);
                }
            }
        }
    }
    record.insert(
        "registered_at".to_owned(),
        Value::from(format_time(agent.registered_at)),
    );
    record.insert(
        "last_seen".to_owned(),
        Value::from(format_time(agent.last_seen)),
    );
    Value::Object(record)
}

/// The defaults of a KubeMQ record's optional members, shown when it lacks them.
fn record_defaults() -> [(&'static str, Value); 6] {
    let text = || Value::from(vec![Value::from("text")]);
    [
        ("description", Value::from("")),
        ("version", Value::from("")),
        ("skills", Value::Array(Vec::new())),
        ("defaultInputModes", text()),
        ("defaultOutputModes", text()),
        ("protocolVersions", Value::from(vec![Value::from("1.0")])),
    ]
}

/// True when any skill of `card` carries any of `tags`, or `tags` is empty.
pub(crate) fn has_skill_tag(card: &Value, tags: &[String]) -> bool {
    if tags.is_empty() {
        return true;
    }
    card.get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|skill| skill.get("tags").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .any(|tag| tags.iter().any(|wanted| wanted == tag))
}

/// RFC 3339, UTC, milliseconds, `Z`: the one time format the registry writes.
pub(crate) fn format_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_kubemq_record_is_called_at_its_url() {
        let registration = read(json!({
            "agent_id": "echo-agent", "name": "Echo", "url": "http://127.0.0.1:9000/",
            "registered_at": "1999-01-01T00:00:00Z", "x-custom": 1,
        }))
        .unwrap();
        assert_eq!(registration.agent_id, "echo-agent");
        assert_eq!(registration.name, "Echo");
        assert_eq!(
            registration.jsonrpc_url.as_deref(),
            Some("http://127.0.0.1:9000/")
        );
        assert_eq!(registration.rest_url, None);
        assert_eq!(
            Value::Object(registration.card),
            json!({"name": "Echo", "url": "http://127.0.0.1:9000/", "x-custom": 1})
        );
    }

    #[test]
    fn a_v1_card_prefers_its_first_v1_interface_of_each_binding() {
        let card = json!({
            "name": "Recipe Agent",
            "supportedInterfaces": [
                {"url": "http://a.example/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "grpc.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "http://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://a.example/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            ],
        });
        let mut beside = card.clone();
        beside["agent_id"] = json!("recipes");
        let envelope = json!({"agent_id": "recipes", "card": card});
        for body in [beside, envelope] {
            let registration = read(body).unwrap();
            assert_eq!(registration.agent_id, "recipes");
            assert_eq!(
                registration.jsonrpc_url.as_deref(),
                Some("http://a.example/rpc")
            );
            assert_eq!(
                registration.rest_url.as_deref(),
                Some("http://a.example/rest")
            );
            assert_eq!(Value::Object(registration.card), card);
        }
    }

    #[test]
    fn a_grpc_only_card_is_registered_without_http_urls() {
        let registration = read(json!({
            "agent_id": "grpc-only", "name": "G",
            "supportedInterfaces": [
                {"url": "10.0.0.5:50051", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
            ],
        }))
        .unwrap();
        assert_eq!(
            (registration.jsonrpc_url, registration.rest_url),
            (None, None)
        );
    }

    #[test]
    fn bodies_that_cannot_be_registered_say_why() {
        let cases = [
            (json!([]), RecordError::NotAnObject),
            (
                json!({"name": "n", "url": "http://h/"}),
                RecordError::MissingAgentId,
            ),
            (
                json!({"agent_id": 7, "name": "n", "url": "http://h/"}),
                RecordError::MissingAgentId,
            ),
            (
                json!({"agent_id": "ab", "url": "http://h/"}),
                RecordError::MissingName,
            ),
            (
                json!({"agent_id": "ab", "name": " ", "url": "http://h/"}),
                RecordError::MissingName,
            ),
            (
                json!({"agent_id": "ab", "name": "n"}),
                RecordError::MissingUrl,
            ),
            (
                json!({"agent_id": "ab", "name": "n", "url": "/a2a"}),
                RecordError::InvalidUrl {
                    field: "url".to_owned(),
                    url: "/a2a".to_owned(),
                },
            ),
            (
                json!({"agent_id": "ab", "name": "n", "url": "http://h/", "skills": {}}),
                RecordError::InvalidField {
                    field: "skills".to_owned(),
                    expected: "an array",
                },
            ),
            (
                json!({"agent_id": "ab", "name": "n", "supportedInterfaces": []}),
                RecordError::NoInterface,
            ),
            (
                json!({"agent_id": "ab", "name": "n", "supportedInterfaces": [
                    {"url": "rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]}),
                RecordError::InvalidUrl {
                    field: "supportedInterfaces[0].url".to_owned(),
                    url: "rpc".to_owned(),
                },
            ),
        ];
        for (body, error) in cases {
            assert_eq!(read(body.clone()), Err(error), "{body}");
        }
    }

    #[test]
    fn skill_tags_match_any_tag_of_any_skill() {
        let card = json!({"skills": [{"tags": ["a", "b"]}, {"tags": ["c"]}, {"id": "untagged"}]});
        let tags = |list: &[&str]| list.iter().map(|tag| (*tag).to_owned()).collect::<Vec<_>>();
        assert!(has_skill_tag(&card, &tags(&[])));
        assert!(has_skill_tag(&card, &tags(&["c"])));
        assert!(has_skill_tag(&card, &tags(&["x", "b"])));
        assert!(!has_skill_tag(&card, &tags(&["x"])));
        assert!(!has_skill_tag(&json!({"name": "n"}), &tags(&["a"])));
    }
}
