//! The checker every card area uses: where findings are collected, and the checks of
//! JSON shapes (members, strings, lists, URLs, media types) the areas are built from.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};
use url::Url;

use super::finding::{Finding, Level};
use super::members::SECRET_NAMES;

/// Walks a card, collecting findings.
#[derive(Default)]
pub(super) struct Checker {
    pub(super) findings: Vec<Finding>,
    /// Declared security schemes: name → the OAuth scopes it declares (`None` for schemes
    /// other than OAuth 2.0, whose scopes are not listed in the card).
    pub(super) schemes: HashMap<String, Option<BTreeSet<String>>>,
    /// The card lists a v0.3 interface beside its 1.0 ones, so its v0.3 members are there
    /// on purpose, for v0.3 clients.
    pub(super) serves_v03: bool,
}

impl Checker {
    pub(super) fn push(&mut self, level: Level, path: &str, message: impl Into<String>) {
        self.findings.push(Finding {
            level,
            path: path.to_owned(),
            message: message.into(),
        });
    }

    pub(super) fn error(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Error, path, message);
    }

    pub(super) fn warning(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Warning, path, message);
    }

    pub(super) fn info(&mut self, path: &str, message: impl Into<String>) {
        self.push(Level::Info, path, message);
    }

    /// Reports members the part does not have: v0.3 leftovers as warnings, snake_case
    /// spellings of real members as errors, anything else as a note.
    pub(super) fn members(
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
    pub(super) fn secrets(&mut self, object: &Map<String, Value>, path: &str) {
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
    pub(super) fn required_string<'a>(
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

    pub(super) fn optional_string<'a>(
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

    pub(super) fn optional_bool(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        name: &str,
    ) -> bool {
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

    pub(super) fn object<'a>(
        &mut self,
        value: &'a Value,
        path: &str,
    ) -> Option<&'a Map<String, Value>> {
        let object = value.as_object();
        if object.is_none() {
            self.error(
                path,
                format!("This must be a JSON object, not {}.", kind(value)),
            );
        }
        object
    }

    pub(super) fn array<'a>(&mut self, value: &'a Value, path: &str) -> Option<&'a Vec<Value>> {
        let array = value.as_array();
        if array.is_none() {
            self.error(
                path,
                format!("This must be a JSON array, not {}.", kind(value)),
            );
        }
        array
    }

    pub(super) fn string_list(&mut self, value: &Value, path: &str) -> Vec<String> {
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
    pub(super) fn link(&mut self, path: &str, text: &str) {
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

    pub(super) fn media_types(&mut self, value: &Value, path: &str) {
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
}

/// The value of member `name`, also under its snake_case spelling (which ProtoJSON parsers
/// accept); `null` counts as absent.
pub(super) fn field<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .get(name)
        .or_else(|| object.get(&snake_case(name)))
        .filter(|value| !value.is_null())
}

/// `path.key`, or `path["key"]` when the key is not a plain name.
pub(super) fn member(path: &str, key: &str) -> String {
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

pub(super) fn camel_case(name: &str) -> String {
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

pub(super) fn snake_case(name: &str) -> String {
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
pub(super) fn kind(value: &Value) -> &'static str {
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
pub(super) fn is_media_type(text: &str) -> bool {
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
pub(super) fn host_port(text: &str) -> bool {
    text.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty() && !host.contains('/') && !port.is_empty() && port.parse::<u16>().is_ok()
    })
}

pub(super) fn is_local(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => {
            domain.eq_ignore_ascii_case("localhost") || domain.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    }
}
