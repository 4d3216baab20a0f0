//! The register call's body: the card file's members, then the flags over them.

use serde_json::{Map, Value};

use super::args::RegisterArgs;
use crate::error::UsageError;

/// The register body: the card file's members (if any), then the flags over them, with a
/// top-level `url` (the JSON-RPC interface's) for gateways that read KubeMQ records.
pub(super) fn register_body(args: &RegisterArgs) -> anyhow::Result<Value> {
    let mut body = match &args.card {
        Some(path) => read_card(path)?,
        None => Map::new(),
    };
    if let Some(agent_id) = &args.agent_id {
        body.insert("agent_id".to_owned(), Value::from(agent_id.clone()));
    }
    for (member, value) in [
        ("name", &args.name),
        ("url", &args.url),
        ("description", &args.description),
    ] {
        if let Some(value) = value {
            body.insert(member.to_owned(), Value::from(value.clone()));
        }
    }
    if !body.get("agent_id").is_some_and(Value::is_string) {
        return Err(UsageError::new("give --agent-id: the card names no agent_id").into());
    }
    if !body.contains_key("url")
        && let Some(url) = jsonrpc_interface(&body)
    {
        body.insert("url".to_owned(), Value::from(url));
    }
    Ok(Value::Object(body))
}

/// The JSON object of the card file `path` (`-`: stdin).
pub(super) fn read_card(path: &std::path::Path) -> anyhow::Result<Map<String, Value>> {
    let shown = path.display();
    let text = if path.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|error| UsageError::new(format!("--card -: {error}")))?
    } else {
        std::fs::read_to_string(path)
            .map_err(|error| UsageError::new(format!("--card {shown}: {error}")))?
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(card)) => Ok(card),
        Ok(_) => Err(UsageError::new(format!("--card {shown}: not a JSON object")).into()),
        Err(error) => Err(UsageError::new(format!("--card {shown}: not JSON: {error}")).into()),
    }
}

/// The URL of the card's first JSON-RPC interface.
pub(super) fn jsonrpc_interface(card: &Map<String, Value>) -> Option<String> {
    card.get("supportedInterfaces")?
        .as_array()?
        .iter()
        .find(|interface| {
            interface
                .get("protocolBinding")
                .and_then(Value::as_str)
                .is_some_and(|binding| {
                    a2a_types::ProtocolBinding::parse(binding)
                        == a2a_types::ProtocolBinding::JsonRpc
                })
        })
        .and_then(|interface| interface.get("url"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}
