//! `supportedInterfaces`: binding names, `Major.Minor` versions and interface URLs.

use std::collections::HashMap;

use serde_json::{Map, Value};
use url::Url;

use super::checker::Checker;
use super::checker::{field, host_port, is_local, member};
use super::members::{BINDINGS, INTERFACE_MEMBERS};
impl Checker {
    pub(super) fn interfaces(&mut self, card: &Map<String, Value>) {
        let name = "supportedInterfaces";
        let Some(value) = field(card, name) else {
            self.error(
                name,
                "supportedInterfaces is REQUIRED: the agent MUST declare every protocol binding it supports, each with its URL, binding and protocol version, in preference order (first = preferred).",
            );
            return;
        };
        let Some(interfaces) = self.array(value, name) else {
            return;
        };
        if interfaces.is_empty() {
            self.error(
                name,
                "supportedInterfaces MUST declare every protocol binding the agent supports; it is empty, so clients have nothing to call.",
            );
            return;
        }
        let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
        let mut offers_1x = false;
        for (index, interface) in interfaces.iter().enumerate() {
            let path = format!("{name}[{index}]");
            let Some(interface) = self.object(interface, &path) else {
                continue;
            };
            self.members(interface, &path, "AgentInterface", INTERFACE_MEMBERS, &[]);
            let binding = self.required_string(
                interface,
                &path,
                "protocolBinding",
                "protocolBinding is REQUIRED: each interface MUST state its binding accurately (JSONRPC, HTTP+JSON or GRPC).",
            );
            if let Some(binding) = binding {
                self.binding(&member(&path, "protocolBinding"), binding);
            }
            let version = self.required_string(
                interface,
                &path,
                "protocolVersion",
                "protocolVersion is REQUIRED: the A2A version this interface speaks, as Major.Minor (for example 1.0).",
            );
            if let Some(version) = version {
                offers_1x |= self.protocol_version(&member(&path, "protocolVersion"), version);
            }
            let url = self.required_string(
                interface,
                &path,
                "url",
                "url is REQUIRED: each interface MUST state the URL where its binding is served.",
            );
            if let Some(url) = url {
                self.interface_url(&member(&path, "url"), url, binding);
            }
            self.optional_string(interface, &path, "tenant");
            if let (Some(url), Some(binding), Some(version)) = (url, binding, version) {
                let key = (url.to_owned(), binding.to_owned(), version.to_owned());
                if let Some(first) = seen.get(&key) {
                    self.warning(
                        &path,
                        format!(
                            "This interface repeats {name}[{first}] (same url, binding and version)."
                        ),
                    );
                } else {
                    seen.insert(key, index);
                }
            }
        }
        if !offers_1x {
            self.warning(
                name,
                "No interface offers protocol version 1.x, so an A2A 1.0 client finds nothing it may call.",
            );
        }
    }

    pub(super) fn binding(&mut self, path: &str, binding: &str) {
        if BINDINGS.contains(&binding) {
            return;
        }
        if let Some(standard) = BINDINGS
            .iter()
            .find(|standard| standard.eq_ignore_ascii_case(binding))
            .or(match binding.to_ascii_lowercase().as_str() {
                "rest" | "http" | "http+rest" | "http-json" | "http_json" => Some(&"HTTP+JSON"),
                "json-rpc" | "json_rpc" | "jsonrpc2" => Some(&"JSONRPC"),
                _ => None,
            })
        {
            self.error(
                path,
                format!(
                    "Binding names are exact: JSONRPC, HTTP+JSON or GRPC. Write {standard}, not {binding}; clients compare the name as written."
                ),
            );
        } else if binding.contains(':') {
            self.info(
                path,
                format!(
                    "{binding} is a custom binding; clients that do not know it skip this interface."
                ),
            );
        } else {
            self.warning(
                path,
                format!(
                    "{binding} is not a standard binding (JSONRPC, HTTP+JSON, GRPC), and custom bindings SHOULD be identified by a URI."
                ),
            );
        }
    }

    /// Checks a `Major.Minor` version; true when it is 1.x.
    pub(super) fn protocol_version(&mut self, path: &str, version: &str) -> bool {
        let parts: Vec<&str> = version.split('.').collect();
        let numeric = parts
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()));
        match (numeric, parts.len()) {
            (true, 2) => parts[0] == "1",
            (true, 3) => {
                self.error(
                    path,
                    format!(
                        "Protocol versions are Major.Minor: patch numbers MUST NOT appear in cards. Write {}.{}, not {version}.",
                        parts[0], parts[1]
                    ),
                );
                parts[0] == "1"
            }
            _ => {
                self.error(
                    path,
                    format!("protocolVersion is Major.Minor, for example 1.0; {version:?} is not."),
                );
                false
            }
        }
    }

    pub(super) fn interface_url(&mut self, path: &str, text: &str, binding: Option<&str>) {
        if binding == Some("GRPC") {
            // gRPC interfaces are written `host:port` (newest proto comment) or as an https
            // URL (the 1.0.1 text and sample card); both are accepted.
            if Url::parse(text).is_ok_and(|url| url.has_host()) || host_port(text) {
                return;
            }
            self.error(
                path,
                "A GRPC interface's url is host:port (or an https URL); this is neither.",
            );
            return;
        }
        let url = match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => url,
            Ok(_) | Err(_) => {
                self.error(
                    path,
                    "Each interface MUST state its URL accurately: an absolute http(s) URL, where clients send their requests.",
                );
                return;
            }
        };
        if url.scheme() == "http" {
            if is_local(&url) {
                self.info(
                    path,
                    "This interface is plain HTTP on this machine; fine for development, but production MUST use TLS (an https URL).",
                );
            } else {
                self.warning(
                    path,
                    "Production deployments MUST use TLS: interface URLs should be https, and this one is plain http.",
                );
            }
        }
    }
}
