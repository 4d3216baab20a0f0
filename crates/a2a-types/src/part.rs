//! [`Part`]: one piece of content in a message or artifact.

use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::Metadata;
use crate::oneof;
use crate::wire::base64_bytes;

/// The content of a part: exactly one of text, inline bytes, a URL or structured data
/// (proto oneof `content`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PartContent {
    /// Text content (`text`).
    Text(String),
    /// Inline file bytes (`raw`, base64 on the wire).
    Raw(Vec<u8>),
    /// The URL of file content (`url`).
    Url(String),
    /// Any JSON value, `null` included (`data`).
    Data(Value),
}

impl PartContent {
    /// The wire names of the oneof's members.
    pub const MEMBERS: &'static [&'static str] = &["text", "raw", "url", "data"];

    /// The wire name of the member this content uses.
    #[must_use]
    pub const fn member_name(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Raw(_) => "raw",
            Self::Url(_) => "url",
            Self::Data(_) => "data",
        }
    }
}

/// A part of a message or artifact (proto `Part`): content plus optional metadata,
/// file name and media type, which may accompany any kind of content.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The content.
    pub content: PartContent,
    /// Part metadata.
    pub metadata: Option<Metadata>,
    /// A file name such as `document.pdf`; empty when unset.
    pub filename: String,
    /// A MIME type such as `text/plain`; empty when unset.
    pub media_type: String,
}

impl Part {
    /// A part holding `content` and nothing else.
    #[must_use]
    pub fn new(content: PartContent) -> Self {
        Self {
            content,
            metadata: None,
            filename: String::new(),
            media_type: String::new(),
        }
    }

    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(PartContent::Text(text.into()))
    }

    /// A structured-data part.
    #[must_use]
    pub fn data(data: Value) -> Self {
        Self::new(PartContent::Data(data))
    }

    /// A part pointing at file content by URL.
    pub fn url(url: impl Into<String>) -> Self {
        Self::new(PartContent::Url(url.into()))
    }

    /// A part with inline bytes.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        Self::new(PartContent::Raw(bytes.into()))
    }

    /// Sets the media type.
    #[must_use]
    pub fn with_media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = media_type.into();
        self
    }

    /// Sets the file name.
    #[must_use]
    pub fn with_filename(mut self, filename: impl Into<String>) -> Self {
        self.filename = filename.into();
        self
    }

    /// The text, when this is a text part.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(text) => Some(text),
            PartContent::Raw(_) | PartContent::Url(_) | PartContent::Data(_) => None,
        }
    }
}

/// Joins the text parts of `parts` with newlines.
pub(crate) fn join_text(parts: &[Part]) -> String {
    let mut joined = String::new();
    for text in parts.iter().filter_map(Part::as_text) {
        if !joined.is_empty() {
            joined.push('\n');
        }
        joined.push_str(text);
    }
    joined
}

struct RawBytes<'a>(&'a [u8]);

impl Serialize for RawBytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        base64_bytes::serialize(self.0, serializer)
    }
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.content {
            PartContent::Text(text) => map.serialize_entry("text", text)?,
            PartContent::Raw(bytes) => map.serialize_entry("raw", &RawBytes(bytes))?,
            PartContent::Url(url) => map.serialize_entry("url", url)?,
            PartContent::Data(data) => map.serialize_entry("data", data)?,
        }
        if let Some(metadata) = &self.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        if !self.filename.is_empty() {
            map.serialize_entry("filename", &self.filename)?;
        }
        if !self.media_type.is_empty() {
            map.serialize_entry("mediaType", &self.media_type)?;
        }
        map.end()
    }
}

struct Base64Field(Vec<u8>);

impl<'de> Deserialize<'de> for Base64Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        base64_bytes::deserialize(deserializer).map(Base64Field)
    }
}

/// Wraps `Value` so that a present `null` reads as `Some(Value::Null)`: `data` is a
/// `google.protobuf.Value`, for which `null` is a value, not "unset".
struct PresentValue(Value);

impl<'de> Deserialize<'de> for PresentValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(PresentValue)
    }
}

// Hand-written: the oneof shares the object with plain fields, and `data: null` is set.
impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;
        impl<'de> Visitor<'de> for PartVisitor {
            type Value = Part;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Part object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
                let mut content: Option<PartContent> = None;
                let mut metadata = None;
                let mut filename = String::new();
                let mut media_type = String::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let member = match key.as_ref() {
                        "text" => map.next_value::<Option<String>>()?.map(PartContent::Text),
                        "raw" => map
                            .next_value::<Option<Base64Field>>()?
                            .map(|bytes| PartContent::Raw(bytes.0)),
                        "url" => map.next_value::<Option<String>>()?.map(PartContent::Url),
                        "data" => Some(PartContent::Data(map.next_value::<PresentValue>()?.0)),
                        "metadata" => {
                            metadata = map.next_value()?;
                            None
                        }
                        "filename" => {
                            filename = map.next_value::<Option<String>>()?.unwrap_or_default();
                            None
                        }
                        "mediaType" | "media_type" => {
                            media_type = map.next_value::<Option<String>>()?.unwrap_or_default();
                            None
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            None
                        }
                    };
                    if let Some(member) = member {
                        if let Some(previous) = &content {
                            return Err(oneof::two_set(
                                "Part",
                                previous.member_name(),
                                member.member_name(),
                            ));
                        }
                        content = Some(member);
                    }
                }
                let content =
                    content.ok_or_else(|| oneof::none_set("Part", PartContent::MEMBERS))?;
                Ok(Part {
                    content,
                    metadata,
                    filename,
                    media_type,
                })
            }
        }
        deserializer.deserialize_map(PartVisitor)
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.content {
            PartContent::Text(text) => f.write_str(text),
            PartContent::Raw(bytes) => write!(f, "<{} bytes>", bytes.len()),
            PartContent::Url(url) => f.write_str(url),
            PartContent::Data(data) => write!(f, "{data}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_content_kind_round_trips() {
        for value in [
            json!({"text": "hi"}),
            json!({"url": "https://x/doc.pdf", "filename": "doc.pdf", "mediaType": "application/pdf"}),
            json!({"raw": "aGVsbG8=", "mediaType": "image/png"}),
            json!({"data": {"k": 1}, "mediaType": "application/json"}),
            json!({"data": [1, 2, 3]}),
            json!({"data": null}),
            json!({"text": "x", "metadata": {}}),
        ] {
            let part: Part = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&part).unwrap(), value);
        }
    }

    #[test]
    fn raw_accepts_url_safe_and_unpadded_base64() {
        let part: Part = serde_json::from_value(json!({"raw": "_-8"})).unwrap();
        assert_eq!(part.content, PartContent::Raw(vec![0xff, 0xef]));
        assert_eq!(serde_json::to_value(&part).unwrap(), json!({"raw": "/+8="}));
    }

    #[test]
    fn two_members_are_refused_naming_both() {
        let err = serde_json::from_value::<Part>(json!({"text": "a", "url": "b"})).unwrap_err();
        assert!(err.to_string().contains("`text` and `url`"), "{err}");
    }

    #[test]
    fn no_member_is_refused_naming_the_members() {
        let err = serde_json::from_value::<Part>(json!({"mediaType": "text/plain"})).unwrap_err();
        assert!(err.to_string().contains("text, raw, url, data"), "{err}");
    }

    #[test]
    fn null_text_counts_as_unset() {
        let part: Part = serde_json::from_value(json!({"text": null, "url": "u"})).unwrap();
        assert_eq!(part.content, PartContent::Url("u".into()));
    }
}
