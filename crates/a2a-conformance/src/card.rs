//! Rules on the Agent Card.
//!
//! Rules on the Agent Card: served at the well-known URI, its required members and their
//! types, its interfaces and security schemes, and caching headers. Its signatures have a
//! module of their own, `signatures`.

use std::sync::Arc;

use serde_json::Value;

use crate::context::Context;
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    SERVED,
    REQUIRED_FIELDS,
    FIELD_TYPES,
    INTERFACES,
    SECURITY,
    CACHING,
];

rule!(SERVED, "card.served", Must, "8.2", Card, false,
    "GET /.well-known/agent-card.json answers 200 with a JSON object." => served);
rule!(REQUIRED_FIELDS, "card.required-fields", Must, "5.7", Card, false,
    "The card has every REQUIRED member: name, description, supportedInterfaces (at least one), version, capabilities, defaultInputModes, defaultOutputModes, skills." => required_fields);
rule!(FIELD_TYPES, "card.field-types", Must, "4.4.1", Card, false,
    "Every card member has its proto type: strings, booleans, arrays of strings, skills with id, name, description and tags." => field_types);
rule!(INTERFACES, "card.interfaces", Must, "8.3.1", Card, false,
    "Every interface states a URL, a binding and a Major.Minor protocolVersion; HTTP bindings use absolute http(s) URLs." => interfaces);
rule!(SECURITY, "card.security-schemes", Must, "4.5", Card, false,
    "Every security scheme sets exactly one scheme kind with its required members, and every security requirement names a declared scheme." => security);
rule!(CACHING, "card.caching", Should, "8.6.1", Card, false,
    "The card response carries Cache-Control with max-age, and an ETag." => caching);

pub(crate) fn card_json(context: &Context) -> Result<&serde_json::Map<String, Value>, Outcome> {
    context
        .card
        .json
        .as_ref()
        .and_then(Value::as_object)
        .ok_or_else(|| Outcome::skip("the agent card is not a JSON object"))
}

pub(crate) fn card_failure(context: &Context, reason: String, expected: &str) -> Outcome {
    Outcome::fail(reason)
        .with_text(
            &format!("GET {}", context.card.url),
            &format!("HTTP {} {}", context.card.status, context.card.body),
        )
        .expected(expected)
}

async fn served(context: Arc<Context>) -> Checked {
    if context.card.status != 200 {
        return Err(card_failure(
            &context,
            format!("the well-known URI answered HTTP {}", context.card.status),
            "HTTP 200 with the agent card",
        ));
    }
    if !context.card.json.as_ref().is_some_and(Value::is_object) {
        return Err(card_failure(
            &context,
            "the body is not a JSON object".to_owned(),
            "an AgentCard JSON object",
        ));
    }
    Ok(Outcome::pass())
}

const REQUIRED: [&str; 8] = [
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
];

async fn required_fields(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let missing: Vec<_> = REQUIRED
        .iter()
        .filter(|name| card.get(**name).is_none_or(Value::is_null))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(card_failure(
            &context,
            format!("the card lacks {}", missing.join(", ")),
            "every REQUIRED AgentCard member present",
        ));
    }
    if card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        return Err(card_failure(
            &context,
            "supportedInterfaces is empty".to_owned(),
            "at least one interface",
        ));
    }
    Ok(Outcome::pass())
}

/// The problems of `value` as a list of strings at `path`.
fn strings(value: Option<&Value>, path: &str, required: bool, problems: &mut Vec<String>) {
    match value {
        None | Some(Value::Null) if !required => {}
        Some(Value::Array(items)) => {
            if items.iter().any(|item| !item.is_string()) {
                problems.push(format!("{path} holds a non-string"));
            }
        }
        Some(other) => problems.push(format!(
            "{path} is {}, not an array of strings",
            kind(other)
        )),
        None => problems.push(format!("{path} is missing")),
    }
}

fn string(value: Option<&Value>, path: &str, required: bool, problems: &mut Vec<String>) {
    match value {
        None | Some(Value::Null) if !required => {}
        Some(Value::String(_)) => {}
        Some(other) => problems.push(format!("{path} is {}, not a string", kind(other))),
        None => problems.push(format!("{path} is missing")),
    }
}

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

async fn field_types(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let mut problems = Vec::new();
    for name in ["name", "description", "version"] {
        string(card.get(name), name, false, &mut problems);
    }
    for name in ["documentationUrl", "iconUrl"] {
        string(card.get(name), name, false, &mut problems);
    }
    strings(
        card.get("defaultInputModes"),
        "defaultInputModes",
        false,
        &mut problems,
    );
    strings(
        card.get("defaultOutputModes"),
        "defaultOutputModes",
        false,
        &mut problems,
    );
    match card.get("capabilities") {
        Some(Value::Object(capabilities)) => {
            for flag in ["streaming", "pushNotifications", "extendedAgentCard"] {
                if let Some(value) = capabilities.get(flag)
                    && !value.is_boolean()
                    && !value.is_null()
                {
                    problems.push(format!(
                        "capabilities.{flag} is {}, not a boolean",
                        kind(value)
                    ));
                }
            }
            match capabilities.get("extensions") {
                None | Some(Value::Null) => {}
                Some(Value::Array(extensions)) => {
                    for (index, extension) in extensions.iter().enumerate() {
                        string(
                            extension.get("uri"),
                            &format!("capabilities.extensions[{index}].uri"),
                            true,
                            &mut problems,
                        );
                    }
                }
                Some(other) => problems.push(format!(
                    "capabilities.extensions is {}, not an array",
                    kind(other)
                )),
            }
        }
        None => {}
        Some(other) => problems.push(format!("capabilities is {}, not an object", kind(other))),
    }
    match card.get("skills") {
        None => {}
        Some(Value::Array(skills)) => {
            for (index, skill) in skills.iter().enumerate() {
                for member in ["id", "name", "description"] {
                    string(
                        skill.get(member),
                        &format!("skills[{index}].{member}"),
                        true,
                        &mut problems,
                    );
                }
                strings(
                    skill.get("tags"),
                    &format!("skills[{index}].tags"),
                    true,
                    &mut problems,
                );
                for member in ["examples", "inputModes", "outputModes"] {
                    strings(
                        skill.get(member),
                        &format!("skills[{index}].{member}"),
                        false,
                        &mut problems,
                    );
                }
            }
        }
        Some(other) => problems.push(format!("skills is {}, not an array", kind(other))),
    }
    if let Some(provider) = card.get("provider") {
        for member in ["url", "organization"] {
            string(
                provider.get(member),
                &format!("provider.{member}"),
                true,
                &mut problems,
            );
        }
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(card_failure(
            &context,
            problems.join("; "),
            "the member types of the proto AgentCard",
        ))
    }
}

/// Whether `version` is `Major.Minor` (no patch number).
pub(crate) fn is_major_minor(version: &str) -> bool {
    let mut parts = version.split('.');
    let numeric = |part: Option<&str>| {
        part.is_some_and(|part| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit()))
    };
    numeric(parts.next()) && numeric(parts.next()) && parts.next().is_none()
}

async fn interfaces(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let Some(interfaces) = card.get("supportedInterfaces").and_then(Value::as_array) else {
        return Err(Outcome::skip("the card has no supportedInterfaces array"));
    };
    let mut problems = Vec::new();
    for (index, interface) in interfaces.iter().enumerate() {
        let at = format!("supportedInterfaces[{index}]");
        let binding = interface.get("protocolBinding").and_then(Value::as_str);
        let url = interface.get("url").and_then(Value::as_str);
        match binding {
            None | Some("") => problems.push(format!("{at}.protocolBinding is missing")),
            Some(_) => {}
        }
        match interface.get("protocolVersion").and_then(Value::as_str) {
            None => problems.push(format!("{at}.protocolVersion is missing")),
            Some(version) if !is_major_minor(version) => problems.push(format!(
                "{at}.protocolVersion {version:?} is not Major.Minor"
            )),
            Some(_) => {}
        }
        match (url, binding) {
            (None | Some(""), _) => problems.push(format!("{at}.url is missing")),
            (Some(url), Some("JSONRPC" | "HTTP+JSON")) => {
                if !url::Url::parse(url).is_ok_and(|url| matches!(url.scheme(), "http" | "https")) {
                    problems.push(format!("{at}.url {url:?} is not an absolute http(s) URL"));
                }
            }
            (Some(url), Some("GRPC")) => {
                let parses = if url.contains("://") {
                    url::Url::parse(url).is_ok_and(|url| url.host().is_some())
                } else {
                    url.rsplit_once(':')
                        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
                };
                if !parses {
                    problems.push(format!("{at}.url {url:?} is neither host:port nor a URL"));
                }
            }
            (Some(_), _) => {}
        }
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(card_failure(
            &context,
            problems.join("; "),
            "a url, protocolBinding and Major.Minor protocolVersion on every interface",
        ))
    }
}

/// The members each scheme kind requires.
const SCHEME_KINDS: [(&str, &[&str]); 5] = [
    ("apiKeySecurityScheme", &["location", "name"]),
    ("httpAuthSecurityScheme", &["scheme"]),
    ("oauth2SecurityScheme", &["flows"]),
    ("openIdConnectSecurityScheme", &["openIdConnectUrl"]),
    ("mtlsSecurityScheme", &[]),
];

async fn security(context: Arc<Context>) -> Checked {
    let card = card_json(&context)?;
    let schemes = card.get("securitySchemes").and_then(Value::as_object);
    let requirements = card.get("securityRequirements").and_then(Value::as_array);
    if schemes.is_none() && requirements.is_none() {
        return Err(Outcome::skip("the card declares no security schemes"));
    }
    let mut problems = Vec::new();
    for (name, scheme) in schemes.into_iter().flatten() {
        let set: Vec<_> = SCHEME_KINDS
            .iter()
            .filter(|(kind, _)| scheme.get(*kind).is_some())
            .collect();
        match set.as_slice() {
            [(kind, required)] => {
                for member in *required {
                    if scheme
                        .get(*kind)
                        .and_then(|inner| inner.get(*member))
                        .is_none()
                    {
                        problems.push(format!("securitySchemes.{name}.{kind} lacks {member}"));
                    }
                }
                if *kind == "oauth2SecurityScheme"
                    && let Some(flows) = scheme
                        .pointer("/oauth2SecurityScheme/flows")
                        .and_then(Value::as_object)
                    && flows.len() != 1
                {
                    problems.push(format!(
                        "securitySchemes.{name} sets {} OAuth flows; OAuthFlows is a oneof",
                        flows.len()
                    ));
                }
            }
            [] => problems.push(format!("securitySchemes.{name} sets no known scheme kind")),
            _ => problems.push(format!(
                "securitySchemes.{name} sets more than one scheme kind"
            )),
        }
    }
    for (index, requirement) in requirements.into_iter().flatten().enumerate() {
        let Some(names) = requirement.get("schemes").and_then(Value::as_object) else {
            problems.push(format!(
                "securityRequirements[{index}] has no schemes object"
            ));
            continue;
        };
        for name in names.keys() {
            if !schemes.is_some_and(|schemes| schemes.contains_key(name)) {
                problems.push(format!(
                    "securityRequirements[{index}] names {name}, which securitySchemes does not declare"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(Outcome::pass())
    } else {
        Err(card_failure(
            &context,
            problems.join("; "),
            "well-formed security schemes and requirements",
        ))
    }
}

async fn caching(context: Arc<Context>) -> Checked {
    let headers = &context.card.headers;
    let cache_control = headers
        .get("cache-control")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let mut missing = Vec::new();
    if !cache_control.to_ascii_lowercase().contains("max-age") {
        missing.push("Cache-Control with max-age");
    }
    if headers.get("etag").is_none() {
        missing.push("ETag");
    }
    if missing.is_empty() {
        Ok(Outcome::pass())
    } else {
        let shown: Vec<_> = headers
            .iter()
            .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("…")))
            .collect();
        Err(
            Outcome::fail(format!("the card response lacks {}", missing.join(" and ")))
                .with_text(&format!("GET {}", context.card.url), &shown.join("\n"))
                .expected("Cache-Control: max-age=… and ETag"),
        )
    }
}
