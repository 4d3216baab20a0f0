//! An agent card as a short summary: who, where, what it can do, how to authenticate.

use std::fmt::Write as _;

use a2a_types::card::{ApiKeyLocation, OAuthFlows, SecurityScheme, SecuritySchemeKind};
use a2a_types::{AgentCapabilities, AgentCard};

use super::Style;

/// The summary of `card`.
pub(crate) fn card(style: Style, card: &AgentCard) -> String {
    let mut out = format!(
        "{} {}\n",
        style.bold(&card.name),
        style.dim(&format!("v{}", card.version))
    );
    if !card.description.is_empty() {
        let _ = writeln!(out, "{}", card.description);
    }
    if let Some(provider) = &card.provider {
        let _ = writeln!(
            out,
            "{} {} ({})",
            style.dim("provider"),
            provider.organization,
            provider.url
        );
    }
    if let Some(url) = &card.documentation_url {
        let _ = writeln!(out, "{} {url}", style.dim("docs"));
    }

    let _ = writeln!(out, "\n{}", style.bold("Interfaces"));
    if card.supported_interfaces.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    let width = card
        .supported_interfaces
        .iter()
        .map(|interface| interface.protocol_binding.as_str().len())
        .max()
        .unwrap_or(0);
    for interface in &card.supported_interfaces {
        let _ = write!(
            out,
            "  {:width$}  {}  {}",
            interface.protocol_binding.as_str(),
            interface.url,
            style.dim(&format!("v{}", interface.protocol_version)),
        );
        if !interface.tenant.is_empty() {
            let _ = write!(out, "  {} {}", style.dim("tenant"), interface.tenant);
        }
        out.push('\n');
    }

    let _ = writeln!(out, "\n{}", style.bold("Capabilities"));
    let _ = writeln!(out, "  {}", capabilities(&card.capabilities));
    for extension in &card.capabilities.extensions {
        let required = if extension.required {
            " (required)"
        } else {
            ""
        };
        let _ = writeln!(out, "  extension {}{required}", extension.uri);
    }
    if !card.default_input_modes.is_empty() || !card.default_output_modes.is_empty() {
        let _ = writeln!(
            out,
            "  {} {}  {} {}",
            style.dim("input"),
            modes(&card.default_input_modes),
            style.dim("output"),
            modes(&card.default_output_modes)
        );
    }

    let _ = writeln!(out, "\n{}", style.bold("Skills"));
    if card.skills.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for skill in &card.skills {
        let _ = writeln!(
            out,
            "  {} {}  {}",
            skill.name,
            style.dim(&format!("({})", skill.id)),
            skill.description
        );
        if !skill.tags.is_empty() {
            let _ = writeln!(out, "    {} {}", style.dim("tags"), skill.tags.join(", "));
        }
        for example in &skill.examples {
            let _ = writeln!(out, "    {} {example}", style.dim("e.g."));
        }
    }

    let _ = writeln!(out, "\n{}", style.bold("Security"));
    if card.security_schemes.is_empty() {
        let _ = writeln!(out, "  none required");
    }
    for (name, scheme) in &card.security_schemes {
        let _ = writeln!(out, "  {name}: {}", security_scheme(scheme));
    }
    for requirement in &card.security_requirements {
        let names: Vec<&str> = requirement.schemes.keys().map(String::as_str).collect();
        let _ = writeln!(out, "  {} {}", style.dim("requires"), names.join(" + "));
    }
    out
}

fn yes_no(value: bool) -> &'static str {
    if value { "yes" } else { "no" }
}

fn capabilities(capabilities: &AgentCapabilities) -> String {
    format!(
        "streaming: {}  push notifications: {}  extended card: {}",
        yes_no(capabilities.supports_streaming()),
        yes_no(capabilities.supports_push_notifications()),
        yes_no(capabilities.supports_extended_agent_card()),
    )
}

fn modes(modes: &[String]) -> String {
    if modes.is_empty() {
        "-".to_owned()
    } else {
        modes.join(", ")
    }
}

/// One scheme in a few words: `API key in header X-API-Key`, `HTTP Bearer`, …
fn security_scheme(scheme: &SecurityScheme) -> String {
    match &scheme.scheme {
        SecuritySchemeKind::ApiKey(key) => {
            let location = match key.location {
                ApiKeyLocation::Header => "header",
                ApiKeyLocation::Query => "query parameter",
                ApiKeyLocation::Cookie => "cookie",
                // `#[non_exhaustive]`: a location this version does not know.
                _ => "location",
            };
            format!("API key in {location} {}", key.name)
        }
        SecuritySchemeKind::HttpAuth(http) => {
            if http.bearer_format.is_empty() {
                format!("HTTP {}", http.scheme)
            } else {
                format!("HTTP {} ({})", http.scheme, http.bearer_format)
            }
        }
        SecuritySchemeKind::OAuth2(oauth) => match &oauth.flows {
            OAuthFlows::ClientCredentials(flow) => {
                format!("OAuth 2.0 client credentials, token URL {}", flow.token_url)
            }
            OAuthFlows::AuthorizationCode(flow) => format!(
                "OAuth 2.0 authorization code, authorize at {}",
                flow.authorization_url
            ),
            OAuthFlows::DeviceCode(flow) => format!(
                "OAuth 2.0 device code, authorize at {}",
                flow.device_authorization_url
            ),
            OAuthFlows::Implicit(_) => "OAuth 2.0 implicit (deprecated)".to_owned(),
            OAuthFlows::Password(_) => "OAuth 2.0 password (deprecated)".to_owned(),
        },
        SecuritySchemeKind::OpenIdConnect(oidc) => {
            format!("OpenID Connect, {}", oidc.open_id_connect_url)
        }
        SecuritySchemeKind::MutualTls(_) => "mutual TLS".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use a2a_types::{AgentInterface, AgentSkill, ProtocolBinding};
    use serde_json::json;

    use super::*;

    #[test]
    fn a_card_summary_names_interfaces_capabilities_skills_and_security() {
        let mut card = AgentCard::new("Echo", "Repeats", "1.2.3")
            .with_interface(AgentInterface::new(
                "http://h/rpc",
                ProtocolBinding::JsonRpc,
            ))
            .with_interface(AgentInterface::new("http://h", ProtocolBinding::HttpJson))
            .with_skill(AgentSkill::new("echo", "Echo", "Repeats the text"));
        card.capabilities.streaming = Some(true);
        card.security_schemes.insert(
            "key".into(),
            serde_json::from_value(
                json!({"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}}),
            )
            .unwrap(),
        );
        let text = super::card(Style::plain(), &card);
        for expected in [
            "Echo v1.2.3\nRepeats\n",
            "  JSONRPC    http://h/rpc  v1.0\n",
            "  HTTP+JSON  http://h  v1.0\n",
            "streaming: yes  push notifications: no",
            "  Echo (echo)  Repeats the text\n",
            "  key: API key in header X-API-Key\n",
        ] {
            assert!(
                text.contains(expected),
                "{expected:?} missing from:\n{text}"
            );
        }
    }
}
