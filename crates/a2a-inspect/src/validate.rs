//! Findings about an agent card: what is missing or wrong, in the spec's words.
//!
//! [`card_findings`] reads the card exactly as it was served (a JSON value, not a parsed
//! struct, so nothing the agent sent is lost or mended on the way) and checks it against the
//! A2A 1.0 `AgentCard`: its REQUIRED members, member names and types, interfaces (binding
//! names, `Major.Minor` versions, URLs), capabilities, security schemes and the requirements
//! that name them, skills, media types and signatures, plus members left over from v0.3.
//!
//! ```
//! use a2a_inspect::validate::{Level, card_findings};
//! use serde_json::json;
//!
//! let card = json!({"name": "Echo", "version": "1.0.0"});
//! let findings = card_findings(&card);
//! let missing = findings
//!     .iter()
//!     .find(|finding| finding.path == "description")
//!     .map(|finding| finding.level);
//! assert_eq!(missing, Some(Level::Error));
//! ```

use std::collections::{BTreeSet, HashMap};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value};
use url::Url;

/// One thing found in a card.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    /// How much it matters.
    pub level: Level,
    /// Where: a JSON path such as `supportedInterfaces[0].url` (empty for the card as a
    /// whole; map keys that are not plain names are quoted: `securitySchemes["my key"]`).
    pub path: String,
    /// What the spec says, applied to this card.
    pub message: String,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Level {
    /// A MUST of the spec is violated: clients may refuse the card or fail to call the agent.
    Error,
    /// A SHOULD is not followed, or it is likely a mistake.
    Warning,
    /// A note: worth knowing, nothing wrong.
    Info,
}

/// Everything found in `card`, in the order the card is read (top-level members first,
/// then each part in turn). An empty list means a clean card.
#[must_use]
pub fn card_findings(card: &Value) -> Vec<Finding> {
    let mut checker = Checker::default();
    checker.card(card);
    checker.findings
}

/// The binding names of A2A 1.0.
const BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/// The members of each part of a 1.0 card, in the proto's order.
const CARD_MEMBERS: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "provider",
    "version",
    "documentationUrl",
    "capabilities",
    "securitySchemes",
    "securityRequirements",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "signatures",
    "iconUrl",
];
const INTERFACE_MEMBERS: &[&str] = &["url", "protocolBinding", "tenant", "protocolVersion"];
const PROVIDER_MEMBERS: &[&str] = &["url", "organization"];
const CAPABILITY_MEMBERS: &[&str] = &[
    "streaming",
    "pushNotifications",
    "extensions",
    "extendedAgentCard",
];
const EXTENSION_MEMBERS: &[&str] = &["uri", "description", "required", "params"];
const SKILL_MEMBERS: &[&str] = &[
    "id",
    "name",
    "description",
    "tags",
    "examples",
    "inputModes",
    "outputModes",
    "securityRequirements",
];
const SIGNATURE_MEMBERS: &[&str] = &["protected", "signature", "header"];
const SCHEME_KINDS: &[&str] = &[
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];
const FLOW_KINDS: &[&str] = &[
    "authorizationCode",
    "clientCredentials",
    "implicit",
    "password",
    "deviceCode",
];

/// Card members of v0.3 that 1.0 removed, with what replaced them.
const LEGACY_CARD_MEMBERS: &[(&str, &str)] = &[
    (
        "url",
        "url was removed in A2A 1.0: the agent's endpoints are listed in supportedInterfaces, each with its url.",
    ),
    (
        "protocolVersion",
        "protocolVersion was removed from the card in A2A 1.0: each entry of supportedInterfaces states its own protocolVersion.",
    ),
    (
        "preferredTransport",
        "preferredTransport was removed in A2A 1.0: the first entry of supportedInterfaces is the preferred one.",
    ),
    (
        "additionalInterfaces",
        "additionalInterfaces was removed in A2A 1.0: every interface goes in supportedInterfaces, in preference order.",
    ),
    (
        "supportsAuthenticatedExtendedCard",
        "supportsAuthenticatedExtendedCard was removed in A2A 1.0: declare capabilities.extendedAgentCard instead.",
    ),
    (
        "security",
        "security was renamed securityRequirements in A2A 1.0, with a new shape: [{\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}].",
    ),
];
const LEGACY_CAPABILITY_MEMBERS: &[(&str, &str)] = &[(
    "stateTransitionHistory",
    "capabilities.stateTransitionHistory was removed in A2A 1.0.",
)];
const LEGACY_SCHEME_MEMBERS: &[(&str, &str)] = &[(
    "type",
    "type is the v0.3 shape of a security scheme; in A2A 1.0 the scheme's kind is the name of its one member (apiKeySecurityScheme, httpAuthSecurityScheme, …).",
)];
const LEGACY_API_KEY_MEMBERS: &[(&str, &str)] = &[(
    "in",
    "in was renamed location in A2A 1.0 (query, header or cookie).",
)];

/// Whether `supportedInterfaces` lists both a 1.x and a 0.x interface.
fn serves_both_versions(card: &Map<String, Value>) -> bool {
    let Some(Value::Array(interfaces)) = card.get("supportedInterfaces") else {
        return false;
    };
    let versions = || {
        interfaces
            .iter()
            .filter_map(|interface| interface.get("protocolVersion").and_then(Value::as_str))
    };
    versions().any(|version| version.starts_with("0."))
        && versions().any(|version| version.starts_with("1."))
}

/// Member names that hold secrets; a card SHOULD NOT carry any.
const SECRET_NAMES: &[&str] = &[
    "clientsecret",
    "client_secret",
    "password",
    "secret",
    "privatekey",
    "private_key",
    "accesstoken",
    "access_token",
    "refreshtoken",
    "refresh_token",
    "apikeyvalue",
    "credentials",
];

#[derive(Default)]
struct Checker {
    findings: Vec<Finding>,
    /// Declared security schemes: name → the OAuth scopes it declares (`None` for schemes
    /// other than OAuth 2.0, whose scopes are not listed in the card).
    schemes: HashMap<String, Option<BTreeSet<String>>>,
    /// The card lists a v0.3 interface beside its 1.0 ones, so its v0.3 members are there
    /// on purpose, for v0.3 clients.
    serves_v03: bool,
}

impl Checker {
    fn push(&mut self, level: Level, path: &str, message: impl Into<String>) {
        self.findings.push(Finding {
            level,
            path: path.to_owned(),
            message: message.into(),
        });
    }

    fn error(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Error, path, message);
    }

    fn warning(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Warning, path, message);
    }

    fn info(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Info, path, message);
    }

    fn card(&mut self, card: &Value) {
        let Some(card) = card.as_object() else {
            self.error(
                "",
                "An agent card is a JSON object (the AgentCard message in ProtoJSON).",
            );
            return;
        };
        self.serves_v03 = serves_both_versions(card);
        self.members(card, "", "AgentCard", CARD_MEMBERS, LEGACY_CARD_MEMBERS);
        self.secrets(card, "");

        self.required_string(
            card,
            "",
            "name",
            "name is REQUIRED: a human-readable name for the agent.",
        );
        self.required_string(
            card,
            "",
            "description",
            "description is REQUIRED: a human-readable description of the agent, to help people and other agents understand what it can do.",
        );
        if let Some(version) = self.required_string(
            card,
            "",
            "version",
            "version is REQUIRED: the agent's own version (for example 1.0.0), not the protocol version.",
        ) && matches!(version, "1.0" | "0.3" | "0.2")
        {
            self.info(
                "version",
                format!(
                    "version is the agent's own version, not the protocol's; \"{version}\" looks like a protocol version, which belongs in supportedInterfaces[].protocolVersion."
                ),
            );
        }

        self.interfaces(card);
        if let Some(provider) = field(card, "provider") {
            self.provider(provider);
        }
        for name in ["documentationUrl", "iconUrl"] {
            if let Some(text) = self.optional_string(card, "", name) {
                self.link(name, text);
            }
        }
        self.security_schemes(card);
        let extended_card = self.capabilities(card);
        if let Some(requirements) = field(card, "securityRequirements") {
            self.requirements(requirements, "securityRequirements");
        }
        self.security_summary(card, extended_card);
        for name in ["defaultInputModes", "defaultOutputModes"] {
            let rule = if name == "defaultInputModes" {
                "defaultInputModes is REQUIRED: the media types the agent accepts, for all skills."
            } else {
                "defaultOutputModes is REQUIRED: the media types the agent produces, for all skills."
            };
            match field(card, name) {
                None => self.error(name, rule),
                Some(modes) => {
                    if modes.as_array().is_some_and(Vec::is_empty) {
                        self.error(
                            name,
                            format!("{rule} A REQUIRED list MUST contain at least one element."),
                        );
                    }
                    self.media_types(modes, name);
                }
            }
        }
        self.skills(card);
        if let Some(signatures) = field(card, "signatures") {
            self.signatures(signatures);
        }
        self.v03_card(card);
    }

    /// Reports members the part does not have: v0.3 leftovers as warnings, snake_case
    /// spellings of real members as errors, anything else as a note.
    fn members(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        part: &str,
        known: &[&str],
        legacy: &[(&str, &str)],
    ) {
        for key in object.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let at = member(path, key);
            if let Some((_, message)) = legacy.iter().find(|(name, _)| name == key) {
                if self.serves_v03 && path.is_empty() {
                    self.info(
                        &at,
                        format!(
                            "{message} This card also lists v0.3 interfaces, so the member is kept for v0.3 clients; 1.0 clients ignore it."
                        ),
                    );
                } else {
                    self.warning(&at, *message);
                }
                continue;
            }
            let camel = camel_case(key);
            if camel != *key && known.contains(&camel.as_str()) {
                self.error(
                    &at,
                    format!(
                        "JSON member names are lowerCamelCase and emitters MUST use them: write {camel}, not {key}."
                    ),
                );
            } else {
                self.info(
                    &at,
                    format!(
                        "{key} is not a member of {part} in A2A 1.0; clients ignore members they do not recognise."
                    ),
                );
            }
        }
    }

    /// Warns about members that look like secrets anywhere under `value`.
    fn secrets(&mut self, object: &Map<String, Value>, path: &str) {
        for (key, value) in object {
            let at = member(path, key);
            match value {
                Value::String(text)
                    if !text.is_empty()
                        && SECRET_NAMES.contains(&key.to_ascii_lowercase().as_str()) =>
                {
                    self.warning(
                        &at,
                        "The agent card SHOULD NOT contain secrets, and this member looks like one: anyone can read the public card.",
                    );
                }
                Value::Object(inner) => self.secrets(inner, &at),
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        if let Value::Object(inner) = item {
                            self.secrets(inner, &format!("{at}[{index}]"));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A REQUIRED string: present, a string, and set (not empty).
    fn required_string<'a>(
        &mut self,
        object: &'a Map<String, Value>,
        path: &str,
        name: &str,
        rule: &str,
    ) -> Option<&'a str> {
        let at = member(path, name);
        match field(object, name) {
            None => {
                self.error(&at, rule);
                None
            }
            Some(Value::String(text)) if text.trim().is_empty() => {
                self.error(
                    &at,
                    format!("{rule} A REQUIRED field MUST be set; it is empty."),
                );
                None
            }
            Some(Value::String(text)) => Some(text.as_str()),
            Some(other) => {
                self.error(
                    &at,
                    format!("{name} must be a string, not {}.", kind(other)),
                );
                None
            }
        }
    }

    fn optional_string<'a>(
        &mut self,
        object: &'a Map<String, Value>,
        path: &str,
        name: &str,
    ) -> Option<&'a str> {
        match field(object, name)? {
            Value::String(text) => Some(text.as_str()),
            other => {
                self.error(
                    &member(path, name),
                    format!("{name} must be a string, not {}.", kind(other)),
                );
                None
            }
        }
    }

    fn optional_bool(&mut self, object: &Map<String, Value>, path: &str, name: &str) -> bool {
        match field(object, name) {
            None => false,
            Some(Value::Bool(value)) => *value,
            Some(other) => {
                self.error(
                    &member(path, name),
                    format!("{name} must be true or false, not {}.", kind(other)),
                );
                false
            }
        }
    }

    fn object<'a>(&mut self, value: &'a Value, path: &str) -> Option<&'a Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.error(
                path,
                format!("This must be a JSON object, not {}.", kind(value)),
            );
        }
        object
    }

    fn array<'a>(&mut self, value: &'a Value, path: &str) -> Option<&'a Vec<Value>> {
        let array = value.as_array();
        if array.is_none() {
            self.error(
                path,
                format!("This must be a JSON array, not {}.", kind(value)),
            );
        }
        array
    }

    fn string_list(&mut self, value: &Value, path: &str) -> Vec<String> {
        let Some(items) = self.array(value, path) else {
            return Vec::new();
        };
        let mut strings = Vec::new();
        for (index, item) in items.iter().enumerate() {
            match item {
                Value::String(text) => strings.push(text.clone()),
                other => self.error(
                    &format!("{path}[{index}]"),
                    format!("Each entry must be a string, not {}.", kind(other)),
                ),
            }
        }
        strings
    }

    /// A URL that should be absolute (documentation, icon, provider).
    fn link(&mut self, path: &str, text: &str) {
        match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https" | "data") => {}
            Ok(url) => self.warning(
                path,
                format!(
                    "This should be an http(s) URL; the scheme {} is unusual here.",
                    url.scheme()
                ),
            ),
            Err(_) => self.warning(path, "This should be an absolute URL."),
        }
    }

    fn interfaces(&mut self, card: &Map<String, Value>) {
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

    fn binding(&mut self, path: &str, binding: &str) {
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
    fn protocol_version(&mut self, path: &str, version: &str) -> bool {
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

    fn interface_url(&mut self, path: &str, text: &str, binding: Option<&str>) {
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

    fn provider(&mut self, provider: &Value) {
        let path = "provider";
        let Some(provider) = self.object(provider, path) else {
            return;
        };
        self.members(provider, path, "AgentProvider", PROVIDER_MEMBERS, &[]);
        self.required_string(
            provider,
            path,
            "organization",
            "provider.organization is REQUIRED when a provider is given: the name of the agent's provider.",
        );
        if let Some(url) = self.required_string(
            provider,
            path,
            "url",
            "provider.url is REQUIRED when a provider is given: a URL for the provider's website or documentation.",
        ) {
            self.link("provider.url", url);
        }
    }

    /// Checks `capabilities`; returns whether it declares the extended card.
    fn capabilities(&mut self, card: &Map<String, Value>) -> bool {
        let path = "capabilities";
        let Some(value) = field(card, path) else {
            self.error(
                path,
                "capabilities is REQUIRED: the optional features the agent supports (streaming, push notifications, extended agent card, extensions). It may be an empty object.",
            );
            return false;
        };
        let Some(capabilities) = self.object(value, path) else {
            return false;
        };
        self.members(
            capabilities,
            path,
            "AgentCapabilities",
            CAPABILITY_MEMBERS,
            LEGACY_CAPABILITY_MEMBERS,
        );
        self.optional_bool(capabilities, path, "streaming");
        self.optional_bool(capabilities, path, "pushNotifications");
        let extended_card = self.optional_bool(capabilities, path, "extendedAgentCard");
        if let Some(extensions) = field(capabilities, "extensions") {
            self.extensions(extensions);
        }
        extended_card
    }

    fn extensions(&mut self, extensions: &Value) {
        let path = "capabilities.extensions";
        let Some(extensions) = self.array(extensions, path) else {
            return;
        };
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (index, extension) in extensions.iter().enumerate() {
            let path = format!("{path}[{index}]");
            let Some(extension) = self.object(extension, &path) else {
                continue;
            };
            self.members(extension, &path, "AgentExtension", EXTENSION_MEMBERS, &[]);
            self.optional_string(extension, &path, "description");
            let required = self.optional_bool(extension, &path, "required");
            if let Some(params) = field(extension, "params") {
                self.object(params, &member(&path, "params"));
            }
            let at = member(&path, "uri");
            match self.optional_string(extension, &path, "uri") {
                None | Some("") => self.warning(
                    &at,
                    if required {
                        "An extension is identified by its uri; without one, clients cannot activate this required extension."
                    } else {
                        "An extension is identified by its uri; without one, clients cannot tell which extension this is."
                    },
                ),
                Some(uri) => {
                    if Url::parse(uri).is_err() {
                        self.warning(&at, "Extensions are identified by a URI; this is not one.");
                    } else if !uri.bytes().any(|byte| byte.is_ascii_digit()) {
                        self.warning(
                            &at,
                            "An extension's URI SHOULD include a version (for example …/v1), since a breaking change MUST get a new URI.",
                        );
                    }
                    if let Some(first) = seen.get(uri) {
                        self.warning(
                            &at,
                            format!(
                                "This extension is declared twice (see capabilities.extensions[{first}])."
                            ),
                        );
                    } else {
                        seen.insert(uri, index);
                    }
                }
            }
        }
    }

    fn security_schemes(&mut self, card: &Map<String, Value>) {
        let path = "securitySchemes";
        let Some(value) = field(card, path) else {
            return;
        };
        let Some(schemes) = self.object(value, path) else {
            return;
        };
        for (name, scheme) in schemes {
            let path = member(path, name);
            let scopes = self.security_scheme(scheme, &path);
            self.schemes.insert(name.clone(), scopes);
        }
    }

    /// Checks one scheme; returns its OAuth scopes when it is an OAuth 2.0 scheme.
    fn security_scheme(&mut self, scheme: &Value, path: &str) -> Option<BTreeSet<String>> {
        let scheme = self.object(scheme, path)?;
        self.members(
            scheme,
            path,
            "SecurityScheme",
            SCHEME_KINDS,
            LEGACY_SCHEME_MEMBERS,
        );
        let kinds: Vec<(&str, &Value)> = SCHEME_KINDS
            .iter()
            .filter_map(|kind| field(scheme, kind).map(|value| (*kind, value)))
            .collect();
        let [(kind, body)] = kinds.as_slice() else {
            if kinds.is_empty() {
                self.error(
                    path,
                    "A SecurityScheme MUST set exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme or mtlsSecurityScheme; this one sets none.",
                );
            } else {
                self.error(
                    path,
                    "A SecurityScheme MUST set exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme or mtlsSecurityScheme; this one sets several.",
                );
            }
            return None;
        };
        let path = member(path, kind);
        let body = self.object(body, &path)?;
        self.optional_string(body, &path, "description");
        match *kind {
            "apiKeySecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "APIKeySecurityScheme",
                    &["description", "location", "name"],
                    LEGACY_API_KEY_MEMBERS,
                );
                if let Some(location) = self.required_string(
                    body,
                    &path,
                    "location",
                    "location is REQUIRED: where the API key goes, query, header or cookie.",
                ) && !matches!(location, "query" | "header" | "cookie")
                {
                    self.error(
                        &member(&path, "location"),
                        format!("location is query, header or cookie, not {location:?}."),
                    );
                }
                self.required_string(
                    body,
                    &path,
                    "name",
                    "name is REQUIRED: the name of the header, query parameter or cookie that carries the API key.",
                );
                None
            }
            "httpAuthSecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "HTTPAuthSecurityScheme",
                    &["description", "scheme", "bearerFormat"],
                    &[],
                );
                self.required_string(
                    body,
                    &path,
                    "scheme",
                    "scheme is REQUIRED: the HTTP authentication scheme for the Authorization header (RFC 7235), for example Bearer or Basic.",
                );
                self.optional_string(body, &path, "bearerFormat");
                None
            }
            "oauth2SecurityScheme" => Some(self.oauth2(body, &path)),
            "openIdConnectSecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "OpenIdConnectSecurityScheme",
                    &["description", "openIdConnectUrl"],
                    &[],
                );
                if let Some(url) = self.required_string(
                    body,
                    &path,
                    "openIdConnectUrl",
                    "openIdConnectUrl is REQUIRED: the OpenID Connect discovery URL.",
                ) {
                    self.secure_url(&member(&path, "openIdConnectUrl"), url);
                }
                None
            }
            _ => {
                self.members(
                    body,
                    &path,
                    "MutualTlsSecurityScheme",
                    &["description"],
                    &[],
                );
                None
            }
        }
    }

    fn oauth2(&mut self, body: &Map<String, Value>, path: &str) -> BTreeSet<String> {
        let mut scopes = BTreeSet::new();
        self.members(
            body,
            path,
            "OAuth2SecurityScheme",
            &["description", "flows", "oauth2MetadataUrl"],
            &[],
        );
        if let Some(url) = self.optional_string(body, path, "oauth2MetadataUrl") {
            self.secure_url(&member(path, "oauth2MetadataUrl"), url);
        }
        let flows_path = member(path, "flows");
        let Some(flows) = field(body, "flows") else {
            self.error(
                &flows_path,
                "flows is REQUIRED: the OAuth 2.0 flow this scheme uses.",
            );
            return scopes;
        };
        let Some(flows) = self.object(flows, &flows_path) else {
            return scopes;
        };
        self.members(flows, &flows_path, "OAuthFlows", FLOW_KINDS, &[]);
        let present: Vec<&str> = FLOW_KINDS
            .iter()
            .copied()
            .filter(|kind| field(flows, kind).is_some())
            .collect();
        match present.len() {
            0 => self.error(
                &flows_path,
                "OAuthFlows MUST set exactly one flow: authorizationCode, clientCredentials, deviceCode (or the deprecated implicit or password).",
            ),
            1 => {}
            _ => self.error(
                &flows_path,
                "OAuthFlows holds exactly one flow: declare one OAuth 2.0 scheme per flow.",
            ),
        }
        for kind in present {
            let path = member(&flows_path, kind);
            let Some(flow) = field(flows, kind).and_then(|flow| self.object(flow, &path)) else {
                continue;
            };
            let (required, all): (&[&str], &[&str]) = match kind {
                "authorizationCode" => (
                    &["authorizationUrl", "tokenUrl", "scopes"],
                    &[
                        "authorizationUrl",
                        "tokenUrl",
                        "refreshUrl",
                        "scopes",
                        "pkceRequired",
                    ],
                ),
                "clientCredentials" => (
                    &["tokenUrl", "scopes"],
                    &["tokenUrl", "refreshUrl", "scopes"],
                ),
                "deviceCode" => (
                    &["deviceAuthorizationUrl", "tokenUrl", "scopes"],
                    &["deviceAuthorizationUrl", "tokenUrl", "refreshUrl", "scopes"],
                ),
                "implicit" => (&[], &["authorizationUrl", "refreshUrl", "scopes"]),
                _ => (&[], &["tokenUrl", "refreshUrl", "scopes"]),
            };
            if matches!(kind, "implicit" | "password") {
                self.warning(
                    &path,
                    format!(
                        "The {kind} flow is deprecated: use the authorization code flow with PKCE, or the device code flow."
                    ),
                );
            }
            self.members(flow, &path, "this OAuth flow", all, &[]);
            for name in required {
                if field(flow, name).is_none() {
                    self.error(
                        &member(&path, name),
                        format!("{name} is REQUIRED in the {kind} flow."),
                    );
                }
            }
            for name in [
                "authorizationUrl",
                "tokenUrl",
                "refreshUrl",
                "deviceAuthorizationUrl",
            ] {
                if all.contains(&name)
                    && let Some(url) = self.optional_string(flow, &path, name)
                {
                    self.secure_url(&member(&path, name), url);
                }
            }
            self.optional_bool(flow, &path, "pkceRequired");
            if let Some(declared) = field(flow, "scopes") {
                let scopes_path = member(&path, "scopes");
                if let Some(declared) = self.object(declared, &scopes_path) {
                    for (scope, description) in declared {
                        if !description.is_string() {
                            self.error(
                                &member(&scopes_path, scope),
                                "scopes maps each scope name to a description string.",
                            );
                        }
                        scopes.insert(scope.clone());
                    }
                }
            }
        }
        scopes
    }

    /// A URL of the security machinery: absolute, and https unless on this machine.
    fn secure_url(&mut self, path: &str, text: &str) {
        match Url::parse(text) {
            Ok(url) if url.scheme() == "https" || (url.scheme() == "http" && is_local(&url)) => {}
            Ok(url) if url.scheme() == "http" => self.warning(
                path,
                "This URL carries credentials or their metadata and should use TLS (https).",
            ),
            Ok(_) | Err(_) => self.error(path, "This must be an absolute https URL."),
        }
    }

    /// `securityRequirements` of the card or of a skill: an OR-list of AND-sets of schemes,
    /// each naming a declared scheme.
    fn requirements(&mut self, value: &Value, path: &str) {
        let Some(requirements) = self.array(value, path) else {
            return;
        };
        for (index, requirement) in requirements.iter().enumerate() {
            let path = format!("{path}[{index}]");
            let Some(requirement) = self.object(requirement, &path) else {
                continue;
            };
            let Some(schemes) = field(requirement, "schemes") else {
                if requirement.values().any(Value::is_array) {
                    self.error(
                        &path,
                        "This is the v0.3 shape of a security requirement ({\"NAME\": [SCOPES]}); in A2A 1.0 it is {\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}.",
                    );
                } else if requirement.is_empty() {
                    self.info(
                        &path,
                        "An empty requirement is an alternative that needs no authentication at all.",
                    );
                } else {
                    self.members(requirement, &path, "SecurityRequirement", &["schemes"], &[]);
                }
                continue;
            };
            self.members(requirement, &path, "SecurityRequirement", &["schemes"], &[]);
            let schemes_path = member(&path, "schemes");
            let Some(schemes) = self.object(schemes, &schemes_path) else {
                continue;
            };
            if schemes.is_empty() {
                self.info(
                    &schemes_path,
                    "An empty requirement is an alternative that needs no authentication at all.",
                );
            }
            for (name, scopes) in schemes {
                let at = member(&schemes_path, name);
                let wanted = match scopes {
                    Value::Array(_) => {
                        self.error(
                            &at,
                            "Scopes are written {\"list\": [SCOPES]} in A2A 1.0, not as a bare array (the v0.3 shape).",
                        );
                        self.string_list(scopes, &at)
                    }
                    Value::Object(list) => {
                        self.members(list, &at, "StringList", &["list"], &[]);
                        field(list, "list")
                            .map(|list| self.string_list(list, &member(&at, "list")))
                            .unwrap_or_default()
                    }
                    other => {
                        self.error(
                            &at,
                            format!(
                                "Each scheme maps to {{\"list\": [SCOPES]}}, not {}.",
                                kind(other)
                            ),
                        );
                        Vec::new()
                    }
                };
                match self.schemes.get(name) {
                    None => self.error(
                        &at,
                        format!(
                            "A security requirement names schemes by their key in securitySchemes, and {name} is not declared there."
                        ),
                    ),
                    Some(Some(declared)) => {
                        let unknown: Vec<&str> = wanted
                            .iter()
                            .map(String::as_str)
                            .filter(|scope| !declared.contains(*scope))
                            .collect();
                        if !unknown.is_empty() {
                            self.warning(
                                &at,
                                format!(
                                    "The scheme's OAuth flow does not declare the scope(s) {}.",
                                    unknown.join(", ")
                                ),
                            );
                        }
                    }
                    Some(None) => {}
                }
            }
        }
    }

    fn security_summary(&mut self, card: &Map<String, Value>, extended_card: bool) {
        let has_requirements = field(card, "securityRequirements")
            .and_then(Value::as_array)
            .is_some_and(|requirements| !requirements.is_empty());
        if !self.schemes.is_empty() && !has_requirements {
            self.info(
                "securityRequirements",
                "The card declares security schemes but no securityRequirements, so it does not say which of them a call needs.",
            );
        }
        if extended_card && self.schemes.is_empty() {
            self.warning(
                "capabilities.extendedAgentCard",
                "The extended agent card MUST require authentication with a scheme from the public card's securitySchemes, and this card declares none.",
            );
        }
    }

    fn media_types(&mut self, value: &Value, path: &str) {
        for (index, media_type) in self.string_list(value, path).iter().enumerate() {
            if !is_media_type(media_type) {
                self.warning(
                    &format!("{path}[{index}]"),
                    format!(
                        "Input and output modes are media types (MIME strings such as text/plain or application/json); {media_type:?} is not one."
                    ),
                );
            }
        }
    }

    fn skills(&mut self, card: &Map<String, Value>) {
        let name = "skills";
        let Some(value) = field(card, name) else {
            self.error(
                name,
                "skills is REQUIRED: the skills (distinct capabilities) the agent can perform.",
            );
            return;
        };
        let Some(skills) = self.array(value, name) else {
            return;
        };
        if skills.is_empty() {
            self.warning(
                name,
                "skills is REQUIRED, and a REQUIRED list should contain at least one element: this card declares no skill.",
            );
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (index, skill) in skills.iter().enumerate() {
            let path = format!("{name}[{index}]");
            let Some(skill) = self.object(skill, &path) else {
                continue;
            };
            self.members(skill, &path, "AgentSkill", SKILL_MEMBERS, &[]);
            if let Some(id) = self.required_string(
                skill,
                &path,
                "id",
                "id is REQUIRED: a unique identifier for the skill.",
            ) {
                if let Some(first) = ids.get(id) {
                    self.warning(
                        &member(&path, "id"),
                        format!(
                            "A skill's id is its unique identifier; skills[{first}] has it too."
                        ),
                    );
                } else {
                    ids.insert(id, index);
                }
            }
            self.required_string(
                skill,
                &path,
                "name",
                "name is REQUIRED: a human-readable name for the skill.",
            );
            self.required_string(
                skill,
                &path,
                "description",
                "description is REQUIRED: a detailed description of the skill.",
            );
            let tags_path = member(&path, "tags");
            match field(skill, "tags") {
                None => self.error(
                    &tags_path,
                    "tags is REQUIRED: keywords describing the skill's capabilities.",
                ),
                Some(tags) => {
                    if self.string_list(tags, &tags_path).is_empty() && tags.is_array() {
                        self.warning(
                            &tags_path,
                            "tags is REQUIRED and should list at least one keyword describing the skill.",
                        );
                    }
                }
            }
            if let Some(examples) = field(skill, "examples") {
                self.string_list(examples, &member(&path, "examples"));
            }
            for modes in ["inputModes", "outputModes"] {
                if let Some(value) = field(skill, modes) {
                    self.media_types(value, &member(&path, modes));
                }
            }
            if let Some(requirements) = field(skill, "securityRequirements") {
                self.requirements(requirements, &member(&path, "securityRequirements"));
            }
        }
    }

    fn signatures(&mut self, value: &Value) {
        let name = "signatures";
        let Some(signatures) = self.array(value, name) else {
            return;
        };
        for (index, signature) in signatures.iter().enumerate() {
            let path = format!("{name}[{index}]");
            let Some(signature) = self.object(signature, &path) else {
                continue;
            };
            self.members(
                signature,
                &path,
                "AgentCardSignature",
                SIGNATURE_MEMBERS,
                &[],
            );
            if let Some(protected) = self.required_string(
                signature,
                &path,
                "protected",
                "protected is REQUIRED: the base64url-encoded protected JWS header.",
            ) {
                self.protected_header(&member(&path, "protected"), protected);
            }
            if let Some(value) = self.required_string(
                signature,
                &path,
                "signature",
                "signature is REQUIRED: the base64url-encoded JWS signature.",
            ) && URL_SAFE_NO_PAD.decode(value.trim_end_matches('=')).is_err()
            {
                self.error(
                    &member(&path, "signature"),
                    "signature is the base64url encoding of the signature bytes; this is not base64url.",
                );
            }
            if let Some(header) = field(signature, "header") {
                self.object(header, &member(&path, "header"));
            }
        }
    }

    fn protected_header(&mut self, path: &str, encoded: &str) {
        let header = URL_SAFE_NO_PAD
            .decode(encoded.trim_end_matches('='))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
        let Some(Value::Object(header)) = header else {
            self.error(
                path,
                "protected is the base64url encoding of the protected JWS header, a JSON object; this does not decode to one.",
            );
            return;
        };
        match header.get("alg").and_then(Value::as_str) {
            None => self.error(
                path,
                "The protected header MUST contain alg, the signing algorithm (for example ES256 or RS256).",
            ),
            Some(alg) if alg.eq_ignore_ascii_case("none") => self.error(
                path,
                "The protected header's alg is none: an unsigned signature cannot be verified.",
            ),
            Some(_) => {}
        }
        if header.get("kid").and_then(Value::as_str).is_none() {
            self.error(
                path,
                "The protected header MUST contain kid, the id of the key that signed, so verifiers can find it.",
            );
        }
        match header.get("typ").and_then(Value::as_str) {
            None => self.warning(
                path,
                "The protected header should contain typ, and it SHOULD be JOSE.",
            ),
            Some("JOSE") => {}
            Some(typ) => self.info(path, format!("typ SHOULD be JOSE; it is {typ:?}.")),
        }
    }

    /// One finding for a card that is v0.3 through and through.
    fn v03_card(&mut self, card: &Map<String, Value>) {
        if field(card, "supportedInterfaces").is_some() {
            return;
        }
        let legacy: Vec<&str> = ["url", "protocolVersion", "preferredTransport"]
            .into_iter()
            .filter(|name| card.contains_key(*name))
            .collect();
        if !legacy.is_empty() {
            let version = card
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(|version| format!(" (protocolVersion {version})"))
                .unwrap_or_default();
            self.error(
                "",
                format!(
                    "This is a v0.3 agent card{version}: it has {} but no supportedInterfaces, so an A2A 1.0 client cannot find the agent's endpoints.",
                    legacy.join(", ")
                ),
            );
        }
    }
}

/// The value of member `name`, also under its snake_case spelling (which ProtoJSON parsers
/// accept); `null` counts as absent.
fn field<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .get(name)
        .or_else(|| object.get(&snake_case(name)))
        .filter(|value| !value.is_null())
}

/// `path.key`, or `path["key"]` when the key is not a plain name.
fn member(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|character| {
            character.is_ascii_alphanumeric() || character == '_' || character == '-'
        })
        && !key.starts_with(|character: char| character.is_ascii_digit());
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", Value::String(key.to_owned())),
    }
}

fn camel_case(name: &str) -> String {
    let mut camel = String::with_capacity(name.len());
    let mut upper = false;
    for character in name.chars() {
        if character == '_' {
            upper = true;
        } else if upper {
            camel.extend(character.to_uppercase());
            upper = false;
        } else {
            camel.push(character);
        }
    }
    camel
}

fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    for character in name.chars() {
        if character.is_ascii_uppercase() {
            snake.push('_');
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

/// A JSON value's kind, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `type/subtype` with RFC 6838 name characters, optionally followed by parameters.
fn is_media_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or_default().trim();
    let token = |part: &str| {
        !part.is_empty()
            && part.chars().all(|character| {
                character.is_ascii_alphanumeric() || "!#$&-^_.+*".contains(character)
            })
    };
    essence
        .split_once('/')
        .is_some_and(|(kind, subtype)| token(kind) && token(subtype))
}

/// `host:port` with a numeric port (the gRPC interface form).
fn host_port(text: &str) -> bool {
    text.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty() && !host.contains('/') && !port.is_empty() && port.parse::<u16>().is_ok()
    })
}

fn is_local(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => {
            domain.eq_ignore_ascii_case("localhost") || domain.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests;
