//! The bytes an agent card signature covers (spec §11.5): the card without `signatures`,
//! default values dropped, in RFC 8785 (JCS) form.
//!
//! The presence rules apply to the members the v1.0 schema defines; members it does not
//! know are kept as they are, since the signature covers them too. A schema member that is
//! neither REQUIRED nor declared `optional` is dropped when it holds its default: `null`,
//! `""`, `false`, `0`, `[]` or, for maps, `{}`. Message-typed members (`provider`,
//! `params`, a scheme's `flows` …) have presence in proto3 and are kept.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

/// The signed payload of `card`: without `signatures`, defaults dropped, JCS.
///
/// Signer and verifier both build it this way; a signer signs
/// `BASE64URL(protected header) || "." || BASE64URL(this)`.
///
/// ```
/// use a2a_gateway::registry::signed_payload;
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
    to_jcs(&Value::Object(card))
}

/// `value` in RFC 8785 form: members sorted by their UTF-16 code units, numbers as
/// ECMAScript writes them, minimal string escapes, no whitespace.
#[must_use]
pub fn to_jcs(value: &Value) -> String {
    let mut out = String::new();
    write_jcs(value, &mut out);
    out
}

fn write_jcs(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => out.push_str(&number_text(number)),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_jcs(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<(&String, &Value)> = members.iter().collect();
            sorted.sort_by(|(a, _), (b, _)| utf16_order(a, b));
            out.push('{');
            for (index, (name, member)) in sorted.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_jcs(member, out);
            }
            out.push('}');
        }
    }
}

fn utf16_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// RFC 8785 §3.2.2.2: `"` and `\` escaped, control characters as `\b \t \n \f \r` or
/// `\u00xx` (lowercase hex), everything else as is.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Integers exactly representable as doubles are written as integers; everything else
/// goes through the double, as ECMAScript's `Number.prototype.toString` writes it.
fn number_text(number: &Number) -> String {
    const EXACT: u64 = 1 << 53;
    if let Some(integer) = number.as_i64()
        && integer.unsigned_abs() <= EXACT
    {
        return integer.to_string();
    }
    if let Some(integer) = number.as_u64()
        && integer <= EXACT
    {
        return integer.to_string();
    }
    number
        .as_f64()
        .map_or_else(|| "null".to_owned(), ecmascript)
}

/// ECMAScript `Number::toString(x)` (ECMA-262 §6.1.6.1.20) for a finite double.
fn ecmascript(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    // Rust's `{:e}` gives the shortest digits that read back as `x`, as ECMAScript needs.
    let shortest = format!("{:e}", x.abs());
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let k = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    // x = digits × 10^(n − k)
    let n = exponent + 1;
    let sign = if x < 0.0 { "-" } else { "" };
    let zeros = |count: i32| "0".repeat(usize::try_from(count).unwrap_or(0));
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", zeros(n - k))
    } else if 0 < n && n <= 21 {
        let (whole, fraction) = digits.split_at(usize::try_from(n).unwrap_or(0));
        format!("{whole}.{fraction}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", zeros(-n))
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exponent = n - 1;
        let exponent_sign = if exponent < 0 { "-" } else { "+" };
        format!("{first}{point}{rest}e{exponent_sign}{}", exponent.abs())
    };
    format!("{sign}{body}")
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
    fn numbers_are_written_as_ecmascript_does() {
        // RFC 8785 Appendix B, as doubles.
        let cases: [(f64, &str); 14] = [
            (0.0, "0"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (-5e-324, "-5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
            (9_007_199_254_740_992.0, "9007199254740992"),
            (295_147_905_179_352_830_000.0, "295147905179352830000"),
            (1e21, "1e+21"),
            (9.999_999_999_999_997e22, "9.999999999999997e+22"),
            (1e23, "1e+23"),
            (0.000_001, "0.000001"),
            (1e-7, "1e-7"),
            (333_333_333.333_333_3, "333333333.3333333"),
            (-1.5, "-1.5"),
        ];
        for (x, text) in cases {
            assert_eq!(ecmascript(x), text, "{x:e}");
        }
    }

    #[test]
    fn members_sort_by_utf16_code_units_and_strings_escape_minimally() {
        // RFC 8785 §3.2.3's sorting example, and its string escapes.
        let value = json!({
            "\u{20ac}": "Euro Sign",
            "\r": "Carriage Return",
            "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\u{1f600}": "Emoji: Grinning Face",
            "\u{80}": "Control",
            "\u{f6}": "Latin Small Letter O With Diaeresis",
        });
        let keys: Vec<String> = match serde_json::from_str::<Value>(&to_jcs(&value)).unwrap() {
            Value::Object(members) => members.keys().cloned().collect(),
            _ => unreachable!(),
        };
        assert_eq!(
            keys,
            [
                "\r",
                "1",
                "\u{80}",
                "\u{f6}",
                "\u{20ac}",
                "\u{1f600}",
                "\u{fb33}"
            ]
        );
        assert_eq!(
            to_jcs(&json!({"b": [1, 2.5, "a\u{1}\"\\/\u{7f}é"], "a": null})),
            "{\"a\":null,\"b\":[1,2.5,\"a\\u0001\\\"\\\\/\u{7f}é\"]}"
        );
    }

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
            to_jcs(&json!({
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
