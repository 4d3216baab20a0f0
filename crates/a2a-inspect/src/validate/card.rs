//! The card as a whole: its top-level members, provider, capabilities and extensions, and
//! the note for a card that is v0.3 throughout; each other area is checked from here.

use std::collections::HashMap;

use serde_json::{Map, Value};
use url::Url;

use super::checker::Checker;
use super::checker::{field, member};
use super::finding::Finding;

use super::members::{
    CAPABILITY_MEMBERS, CARD_MEMBERS, EXTENSION_MEMBERS, LEGACY_CAPABILITY_MEMBERS,
    LEGACY_CARD_MEMBERS, PROVIDER_MEMBERS,
};
/// Everything found in `card`, in the order the card is read (top-level members first,
/// then each part in turn). An empty list means a clean card.
#[must_use]
pub fn card_findings(card: &Value) -> Vec<Finding> {
    let mut checker = Checker::default();
    checker.card(card);
    checker.findings
}

impl Checker {
    pub(super) fn card(&mut self, card: &Value) {
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

    pub(super) fn provider(&mut self, provider: &Value) {
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
    pub(super) fn capabilities(&mut self, card: &Map<String, Value>) -> bool {
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

    pub(super) fn extensions(&mut self, extensions: &Value) {
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

    /// One finding for a card that is v0.3 through and through.
    pub(super) fn v03_card(&mut self, card: &Map<String, Value>) {
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
