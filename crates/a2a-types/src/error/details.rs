//! The typed error details every binding carries (`google.rpc.ErrorInfo`,
//! `google.rpc.BadRequest`) and their ProtoJSON `Any` form with an `@type` member.

use std::collections::BTreeMap;

/// The `ErrorInfo.domain` of every error in the A2A catalogue.
pub const A2A_DOMAIN: &str = "a2a-protocol.org";

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// One `google.rpc.BadRequest.FieldViolation`: which request field failed and why.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct FieldViolation {
    /// Path of the field, e.g. `message.parts[0].mediaType`.
    #[serde(default)]
    pub field: String,
    /// Why the value was rejected; safe to show to the caller.
    #[serde(default)]
    pub description: String,
}

impl FieldViolation {
    /// A violation of `field` described by `description`.
    pub fn new(field: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            description: description.into(),
        }
    }
}

/// `google.rpc.ErrorInfo`: the machine-readable identity of an error.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ErrorInfo {
    /// UPPER_SNAKE_CASE reason, e.g. `TASK_NOT_FOUND`.
    pub reason: String,
    /// Who defines `reason`; `a2a-protocol.org` for the A2A catalogue.
    pub domain: String,
    /// Context such as `taskId`; values are strings in the proto.
    pub metadata: BTreeMap<String, String>,
}

impl ErrorInfo {
    /// The ProtoJSON `@type` of an `ErrorInfo` detail.
    pub const TYPE_URL: &'static str = "type.googleapis.com/google.rpc.ErrorInfo";

    /// The `Any` JSON form: `{"@type", "reason", "domain", "metadata"}`, `metadata` always
    /// present (`{}` when empty) as in the spec's examples.
    pub fn to_any(&self) -> Value {
        let metadata = self
            .metadata
            .iter()
            .map(|(key, value)| (key.clone(), Value::String(value.clone())))
            .collect();
        let mut object = Map::new();
        object.insert("@type".into(), Self::TYPE_URL.into());
        object.insert("reason".into(), self.reason.clone().into());
        object.insert("domain".into(), self.domain.clone().into());
        object.insert("metadata".into(), Value::Object(metadata));
        Value::Object(object)
    }

    /// Reads an `Any` whose `@type` names `google.rpc.ErrorInfo`. Lenient: missing members
    /// are empty, non-string metadata values are kept as their JSON text.
    pub fn from_any(value: &Value) -> Option<Self> {
        let object = typed_object(value, "google.rpc.ErrorInfo")?;
        Some(Self {
            reason: string_member(object, "reason"),
            domain: string_member(object, "domain"),
            metadata: object
                .get("metadata")
                .map(metadata_from_value)
                .unwrap_or_default(),
        })
    }

    /// Whether `reason` belongs to the A2A catalogue: the domain is `a2a-protocol.org` or
    /// absent. Reasons of other domains (a gateway's, say) are not interpreted.
    pub fn is_a2a_domain(&self) -> bool {
        self.domain.is_empty() || self.domain == A2A_DOMAIN
    }
}

/// `google.rpc.BadRequest`: the field violations of a rejected request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BadRequest {
    /// The violations, in the order they were found.
    pub field_violations: Vec<FieldViolation>,
}

impl BadRequest {
    /// The ProtoJSON `@type` of a `BadRequest` detail.
    pub const TYPE_URL: &'static str = "type.googleapis.com/google.rpc.BadRequest";

    /// The `Any` JSON form: `{"@type", "fieldViolations": [{"field", "description"}]}`.
    pub fn to_any(&self) -> Value {
        let violations = self
            .field_violations
            .iter()
            .map(|violation| {
                let mut object = Map::new();
                object.insert("field".into(), violation.field.clone().into());
                object.insert("description".into(), violation.description.clone().into());
                Value::Object(object)
            })
            .collect();
        let mut object = Map::new();
        object.insert("@type".into(), Self::TYPE_URL.into());
        object.insert("fieldViolations".into(), Value::Array(violations));
        Value::Object(object)
    }

    /// Reads an `Any` whose `@type` names `google.rpc.BadRequest`; entries that are not
    /// objects are skipped.
    pub fn from_any(value: &Value) -> Option<Self> {
        let object = typed_object(value, "google.rpc.BadRequest")?;
        let field_violations = object
            .get("fieldViolations")
            .and_then(Value::as_array)
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(Value::as_object)
                    .map(|entry| FieldViolation {
                        field: string_member(entry, "field"),
                        description: string_member(entry, "description"),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self { field_violations })
    }
}

/// What the typed details of one error body said: the first `ErrorInfo` and every
/// `BadRequest` violation. Other detail types are ignored.
#[derive(Debug, Default)]
pub(super) struct ParsedDetails {
    pub(super) info: Option<ErrorInfo>,
    pub(super) violations: Vec<FieldViolation>,
}

impl ParsedDetails {
    pub(super) fn from_values<'a>(values: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut parsed = Self::default();
        for value in values {
            if let Some(info) = ErrorInfo::from_any(value) {
                parsed.info.get_or_insert(info);
            } else if let Some(bad_request) = BadRequest::from_any(value) {
                parsed.violations.extend(bad_request.field_violations);
            }
        }
        parsed
    }

    /// The reason, when it may be read against the A2A catalogue.
    pub(super) fn a2a_reason(&self) -> Option<&str> {
        self.info
            .as_ref()
            .filter(|info| info.is_a2a_domain())
            .map(|info| info.reason.as_str())
    }
}

/// An object whose `@type` is `name`, either bare or after a type-URL prefix.
fn typed_object<'a>(value: &'a Value, name: &str) -> Option<&'a Map<String, Value>> {
    let object = value.as_object()?;
    let type_url = object.get("@type")?.as_str()?;
    let matches = type_url == name
        || type_url
            .strip_suffix(name)
            .is_some_and(|prefix| prefix.ends_with('/'));
    matches.then_some(object)
}

fn string_member(object: &Map<String, Value>, name: &str) -> String {
    object
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// `ErrorInfo.metadata` is `map<string, string>`, but peers put numbers and booleans in it;
/// those keep their JSON text rather than failing the whole error. `null` entries are dropped.
pub(super) fn metadata_from_value(value: &Value) -> BTreeMap<String, String> {
    let Some(object) = value.as_object() else {
        return BTreeMap::new();
    };
    object
        .iter()
        .filter_map(|(key, value)| {
            let text = match value {
                Value::Null => return None,
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Some((key.clone(), text))
        })
        .collect()
}

/// `deserialize_with` form of [`metadata_from_value`].
pub(super) fn lenient_metadata<'de, D>(
    deserializer: D,
) -> Result<BTreeMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    Value::deserialize(deserializer).map(|value| metadata_from_value(&value))
}
