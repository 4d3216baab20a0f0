//! The bytes an agent card signature covers (spec §11.5): the card without `signatures`,
//! default values dropped, in RFC 8785 (JCS) form.
//!
//! The presence rules apply to the members the v1.0 schema defines; members it does not
//! know are kept as they are, since the signature covers them too. A schema member that is
//! neither REQUIRED nor declared `optional` is dropped when it holds its default: `null`,
//! `""`, `false`, `0`, `[]` or, for maps, `{}`. Message-typed members (`provider`,
//! `params`, a scheme's `flows` …) have presence in proto3 and are kept. The JCS form
//! itself comes from `serde_json_canonicalizer`.

use serde_json::{Map, Value};

/// `value` in RFC 8785 (JCS) form: members sorted by their UTF-16 code units, numbers as
/// ECMAScript writes them, minimal string escapes, no whitespace.
///
/// ```
/// use serde_json::json;
///
/// let value = json!({"b": [1, 2.50, "é"], "a": null});
/// assert_eq!(a2a_signature::canonical_json(&value), r#"{"a":null,"b":[1,2.5,"é"]}"#);
/// ```
#[must_use]
pub fn canonical_json(value: &Value) -> String {
    // A `Value` holds only finite numbers and string keys, the two things JCS cannot
    // write; the fallback is never taken.
    serde_json_canonicalizer::to_string(value).unwrap_or_default()
}

/// The signed payload of `card`: without `signatures`, defaults dropped, JCS.
///
/// Signer and verifier both build it this way; a signer signs
/// `BASE64URL(protected header) || "." || BASE64URL(this)`.
///
/// ```
/// use a2a_signature::signed_payload;
/// use serde_json::json;
///
/// // The spec's own example (§11.5).
/// let card = json!({"name": "Example Agent", "description": "",
///     "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []},
///     "skills": []});
/// assert_eq!(
///     signed_payload(card.as_object().unwrap()),
///     r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#,
/// );
/// ```
#[must_use]
pub fn signed_payload(card: &Map<String, Value>) -> String {
    let mut card = card.clone();
    card.remove("signatures");
    strip_card(&mut card);
    canonical_json(&Value::Object(card))
}

/// Which members of an object may be dropped when they hold a default.
struct Droppable(&'static [&'static str]);

const CARD: Droppable = Droppable(&["provider", "securitySchemes", "securityRequirements"]);
const CAPABILITIES: Droppable = Droppable(&["extensions"]);
const INTERFACE: Droppable = Droppable(&["tenant"]);
const EXTENSION: Droppable = Droppable(&["uri", "description", "required"]);
const SKILL: Droppable = Droppable(&[
    "examples",
    "inputModes",
    "outputModes",
    "securityRequirements",
]);
const REQUIREMENT: Droppable = Droppable(&["schemes"]);
const STRING_LIST: Droppable = Droppable(&["list"]);
const SCHEME: Droppable = Droppable(&["description", "bearerFormat", "oauth2MetadataUrl"]);
const FLOW: Droppable = Droppable(&["refreshUrl", "pkceRequired"]);

impl Droppable {
    fn apply(&self, object: &mut Map<String, Value>) {
        object.retain(|member, value| {
            // `provider` is a message: only an explicit null is its default.
            let message = member == "provider";
            !(self.0.contains(&member.as_str())
                && if message {
                    value.is_null()
                } else {
                    is_default(value)
                })
        });
    }
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(on) => !on,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(members) => members.is_empty(),
    }
}

fn objects_in<'a>(
    object: &'a mut Map<String, Value>,
    member: &str,
) -> impl Iterator<Item = &'a mut Map<String, Value>> {
    object
        .get_mut(member)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

fn strip_card(card: &mut Map<String, Value>) {
    CARD.apply(card);
    if let Some(capabilities) = card.get_mut("capabilities").and_then(Value::as_object_mut) {
        CAPABILITIES.apply(capabilities);
        objects_in(capabilities, "extensions").for_each(|extension| EXTENSION.apply(extension));
    }
    objects_in(card, "supportedInterfaces").for_each(|interface| INTERFACE.apply(interface));
    objects_in(card, "securityRequirements").for_each(strip_requirement);
    for skill in objects_in(card, "skills") {
        SKILL.apply(skill);
        objects_in(skill, "securityRequirements").for_each(strip_requirement);
    }
    if let Some(schemes) = card
        .get_mut("securitySchemes")
        .and_then(Value::as_object_mut)
    {
        schemes
            .values_mut()
            .filter_map(Value::as_object_mut)
            .flat_map(|wrapper| wrapper.values_mut().filter_map(Value::as_object_mut))
            .for_each(strip_scheme);
    }
}

fn strip_requirement(requirement: &mut Map<String, Value>) {
    if let Some(schemes) = requirement
        .get_mut("schemes")
        .and_then(Value::as_object_mut)
    {
        schemes
            .values_mut()
            .filter_map(Value::as_object_mut)
            .for_each(|list| STRING_LIST.apply(list));
    }
    REQUIREMENT.apply(requirement);
}

fn strip_scheme(scheme: &mut Map<String, Value>) {
    SCHEME.apply(scheme);
    if let Some(flows) = scheme.get_mut("flows").and_then(Value::as_object_mut) {
        flows
            .values_mut()
            .filter_map(Value::as_object_mut)
            .for_each(|flow| FLOW.apply(flow));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_defaults_are_dropped_and_unknown_members_kept() {
        let card = json!({
            "name": "n", "description": "", "version": "", "skills": [],
            "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC",
                                     "protocolVersion": "1.0", "tenant": ""}],
            "capabilities": {"streaming": false, "extensions": [{"uri": "x", "required": false}]},
            "securitySchemes": {},
            "securityRequirements": [{"schemes": {"bearer": {"list": []}}}],
            "documentationUrl": "",
            "signatures": [{"protected": "p", "signature": "s"}],
            "x-unknown": [], "url": "",
        });
        assert_eq!(
            signed_payload(card.as_object().unwrap()),
            canonical_json(&json!({
                "name": "n", "description": "", "version": "", "skills": [],
                "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC",
                                         "protocolVersion": "1.0"}],
                "capabilities": {"streaming": false, "extensions": [{"uri": "x"}]},
                "securityRequirements": [{"schemes": {"bearer": {}}}],
                "documentationUrl": "",
                "x-unknown": [], "url": "",
            }))
        );
    }
}
