//! The public URLs and route paths of the served interfaces.

use a2a_types::ProtocolBinding;

use super::checks::invalid;
use crate::config::ConfigError;

/// `http(s)://host[:port][/path]`, without a trailing `/`.
pub(super) fn public_url(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    let host = trimmed
        .strip_prefix("http://")
        .or_else(|| trimmed.strip_prefix("https://"));
    match host {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(trimmed.to_owned()),
        Some(_) | None => Err(invalid(
            "public-url",
            format!("`{url}` is not an http:// or https:// URL"),
        )),
    }
}

/// `a//b/` → `/a/b`; `/` and `""` → `""` (no prefix).
pub(super) fn route_path(path: &str) -> String {
    path.split('/')
        .filter(|segment| !segment.is_empty())
        .fold(String::new(), |joined, segment| {
            format!("{joined}/{segment}")
        })
}

/// The bindings `a2a serve` serves: the two HTTP ones, and gRPC when it has a listener.
pub(super) fn binding(name: &str, grpc_bound: bool) -> Result<ProtocolBinding, ConfigError> {
    match ProtocolBinding::parse(name) {
        binding @ (ProtocolBinding::JsonRpc | ProtocolBinding::HttpJson) => Ok(binding),
        ProtocolBinding::Grpc if grpc_bound => Ok(ProtocolBinding::Grpc),
        ProtocolBinding::Grpc => Err(invalid(
            "protocol-binding",
            format!("cannot serve `{name}` without --grpc-bind, the address gRPC listens on"),
        )),
        ProtocolBinding::Other(_) => Err(invalid(
            "protocol-binding",
            format!(
                "cannot serve `{name}`; expected JSONRPC, HTTP+JSON or GRPC (aliases jsonrpc, rest, grpc)"
            ),
        )),
    }
}

/// `host:port` (an `http://` or `https://` prefix is accepted and kept), without a path.
pub(super) fn grpc_public_url(url: &str) -> Result<String, ConfigError> {
    let trimmed = url.trim().trim_end_matches('/');
    let authority = trimmed
        .strip_prefix("http://")
        .or_else(|| trimmed.strip_prefix("https://"))
        .unwrap_or(trimmed);
    let valid = authority
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
        && !authority.contains('/');
    if valid {
        Ok(trimmed.to_owned())
    } else {
        Err(invalid(
            "grpc-public-url",
            format!("`{url}` is not host:port"),
        ))
    }
}
