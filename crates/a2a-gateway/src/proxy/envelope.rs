//! The few members of a JSON-RPC request or reply the proxy reads, picked out in one pass
//! over the body. The body itself is forwarded (relayed) byte for byte, so building the
//! whole document as a [`Value`] only to read its id, method and deadline was waste: it
//! was a quarter of the gateway's instructions per call, in allocations and key hashing.
//!
//! The pass accepts exactly the JSON that `serde_json::from_slice::<Value>` accepts (every
//! string, number and nesting level is parsed as that parse does, then dropped), and the
//! members it keeps go through [`JsonRpcRequest::from_value`] and
//! [`JsonRpcResponse::from_value`], so the envelope rules and their messages are those of
//! `a2a-types`, not a copy. A member given twice counts by its last value, as in a
//! [`Value`].

use std::fmt;

#[cfg(test)]
use a2a_types::jsonrpc::JsonRpcPayload;
use a2a_types::jsonrpc::{EnvelopeError, JsonRpcRequest, JsonRpcResponse, RequestId};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// A request body that is JSON, reduced to what the proxy reads of it.
#[derive(Debug)]
pub(crate) struct ScannedRequest(Value);

/// What the proxy reads of a valid JSON-RPC request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestHead {
    /// `None` for a notification.
    pub(crate) id: Option<RequestId>,
    pub(crate) method: String,
    /// `params` with only `configuration.timeout` kept, for
    /// [`deadline`](super::upstream::deadline).
    pub(crate) deadline_params: Option<Value>,
}

impl ScannedRequest {
    /// Reads `body`; `None` when it is not JSON.
    pub(crate) fn read(body: &[u8]) -> Option<Self> {
        scan(body, Kind::Request).map(Self)
    }

    /// The id to answer with, even when the envelope is refused: its `id` when that is a
    /// valid id, otherwise `Null` ([`RequestId::of_request`]).
    pub(crate) fn id(&self) -> RequestId {
        RequestId::of_request(&self.0)
    }

    /// The request, checked as [`JsonRpcRequest::from_value`] checks it.
    ///
    /// # Errors
    /// The envelope's fault.
    pub(crate) fn head(self) -> Result<RequestHead, EnvelopeError> {
        let request = JsonRpcRequest::from_value(self.0)?;
        Ok(RequestHead {
            id: request.id,
            method: request.method,
            deadline_params: request.params,
        })
    }
}

/// `configuration.timeout` of a JSON object `body` (an HTTP+JSON request), in an object
/// of that one member, for [`deadline`](super::upstream::deadline); `None` when `body` is
/// not JSON.
pub(crate) fn deadline_params(body: &[u8]) -> Option<Value> {
    let mut reader = serde_json::Deserializer::from_str(std::str::from_utf8(body).ok()?);
    let params = Params.deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(params)
}

/// The agent's reply as far as the proxy reads it: a JSON-RPC response whose `result`, if
/// any, is replaced by `null` (only its presence counts); `None` when `body` is not JSON
/// or not a JSON-RPC response ([`JsonRpcResponse::from_value`]).
pub(crate) fn response_head(body: &[u8]) -> Option<JsonRpcResponse> {
    let reduced = scan(body, Kind::Response)?;
    JsonRpcResponse::from_value(reduced).ok()
}

/// Which members a pass keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Request,
    Response,
}

/// The whole of `body` as one JSON value, reduced as `kind` says: an object keeps its
/// envelope members; an array becomes `[]` and any other value `null`, which the envelope
/// checks refuse as they refuse the originals. `None` when `body` is not JSON.
fn scan(body: &[u8], kind: Kind) -> Option<Value> {
    // JSON text is UTF-8 throughout (outside strings, anything else is a syntax error), so
    // the body is checked in one pass, and then read as text: read as bytes, each string
    // is checked on its own, at a fifth of the whole pass's cost.
    let text = std::str::from_utf8(body).ok()?;
    let mut reader = serde_json::Deserializer::from_str(text);
    let reduced = Top(kind).deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(reduced)
}

/// A member name the passes look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Configuration,
    Timeout,
    Other,
}

impl Member {
    fn of(name: &str) -> Self {
        match name {
            "jsonrpc" => Self::Jsonrpc,
            "id" => Self::Id,
            "method" => Self::Method,
            "params" => Self::Params,
            "result" => Self::Result,
            "error" => Self::Error,
            "configuration" => Self::Configuration,
            "timeout" => Self::Timeout,
            _ => Self::Other,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Self::Jsonrpc => "jsonrpc",
            Self::Id => "id",
            Self::Method => "method",
            Self::Params => "params",
            Self::Result => "result",
            Self::Error => "error",
            Self::Configuration => "configuration",
            Self::Timeout => "timeout",
            Self::Other => "",
        }
    }
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Member;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Member, E> {
                Ok(Member::of(name))
            }
        }
        deserializer.deserialize_str(Name)
    }
}

/// The top-level value of a body.
struct Top(Kind);

impl<'de> DeserializeSeed<'de> for Top {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = Map::new();
        while let Some(member) = map.next_key::<Member>()? {
            let value = match (self.0, member) {
                (_, Member::Jsonrpc | Member::Id)
                | (Kind::Request, Member::Method)
                | (Kind::Response, Member::Error) => map.next_value::<Value>()?,
                (Kind::Request, Member::Params) => map.next_value_seed(Params)?,
                (Kind::Response, Member::Result) => {
                    map.next_value::<Skip>()?;
                    Value::Null
                }
                (Kind::Request, Member::Result | Member::Error)
                | (Kind::Response, Member::Method | Member::Params)
                | (_, Member::Configuration | Member::Timeout | Member::Other) => {
                    map.next_value::<Skip>()?;
                    continue;
                }
            };
            kept.insert(member.name().to_owned(), value);
        }
        Ok(Value::Object(kept))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        Skip.visit_seq(seq)?;
        Ok(Value::Array(Vec::new()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// `params`, kept as its kind (object, array, `null`, or `false` for any other value, all
/// that the envelope checks look at) with only `configuration.timeout` inside.
struct Params;

impl<'de> DeserializeSeed<'de> for Params {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Params {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut timeout = None;
        while let Some(member) = map.next_key::<Member>()? {
            if member == Member::Configuration {
                timeout = map.next_value_seed(Configuration)?;
            } else {
                map.next_value::<Skip>()?;
            }
        }
        let mut params = Map::new();
        if let Some(timeout) = timeout {
            let mut configuration = Map::new();
            configuration.insert(Member::Timeout.name().to_owned(), timeout);
            params.insert(
                Member::Configuration.name().to_owned(),
                Value::Object(configuration),
            );
        }
        Ok(Value::Object(params))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        Skip.visit_seq(seq)?;
        Ok(Value::Array(Vec::new()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Bool(false))
    }
}

/// `params.configuration`: its `timeout` member when it is an object that has one.
struct Configuration;

impl<'de> DeserializeSeed<'de> for Configuration {
    type Value = Option<Value>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Configuration {
    type Value = Option<Value>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut timeout = None;
        while let Some(member) = map.next_key::<Member>()? {
            if member == Member::Timeout {
                timeout = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(timeout)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skip.visit_seq(seq)?;
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Any JSON value, parsed and dropped. Unlike [`serde::de::IgnoredAny`], which serde_json
/// skips without decoding strings or numbers or counting depth, this parses everything as
/// a [`Value`] would (UTF-8, escapes, number range, nesting limit), without keeping it.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::ProxyConfig;
    use crate::proxy::upstream::deadline;

    /// Bodies on both sides of every rule: JSON or not, each envelope fault, and the
    /// shapes `params.configuration.timeout` may take.
    fn request_bodies() -> Vec<Vec<u8>> {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let mut bodies: Vec<Vec<u8>> = [
            r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"text":"hi"}]}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"configuration":{"timeout":5}}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m","params":{"configuration":{"timeout":2.5,"x":[1,{"y":null}]}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":"9"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":{"a":1}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":[{"timeout":3}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":3},"configuration":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":3,"timeout":7}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":1e300}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"configuration":{"timeout":-4}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":true}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":2,"id":1,"method":"m"}"#,
            r#"{"id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b","id":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":"x"}"#,
            r#"{"jsonrpc":"2.0","\u0069d":"esc","m\u0065thod":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":1,"error":2}"#,
            "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\n ",
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            "[]",
            "{}",
            "null",
            "17",
            r#""text""#,
            "",
            "{",
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1e400}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\ud800"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":tru}}"#,
            r#"{"jsonrpc":"2.0","id":"é","method":"m","params":{"a":"héllo 😀","b":"\ud83d\ude00"}}"#,
        ]
        .iter()
        .map(|body| body.as_bytes().to_vec())
        .collect();
        bodies.push(deep.into_bytes());
        // Not UTF-8 inside a string that is otherwise skipped.
        let mut invalid_utf8 = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":""#.to_vec();
        invalid_utf8.extend_from_slice(&[0xff, 0xfe]);
        invalid_utf8.extend_from_slice(br#""}}"#);
        bodies.push(invalid_utf8);
        // Not UTF-8 outside any string.
        let mut stray = br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#.to_vec();
        stray.push(0xff);
        bodies.push(stray);
        bodies
    }

    #[test]
    fn a_request_reads_as_the_whole_parse_reads_it() {
        let config = ProxyConfig::default();
        for body in request_bodies() {
            let text = String::from_utf8_lossy(&body).into_owned();
            let whole = serde_json::from_slice::<Value>(&body);
            let scanned = ScannedRequest::read(&body);
            assert_eq!(scanned.is_some(), whole.is_ok(), "JSON or not: {text}");
            let (Some(scanned), Ok(whole)) = (scanned, whole) else {
                continue;
            };
            assert_eq!(scanned.id(), RequestId::of_request(&whole), "{text}");
            match (scanned.head(), JsonRpcRequest::from_value(whole)) {
                (Ok(head), Ok(request)) => {
                    assert_eq!(head.id, request.id, "{text}");
                    assert_eq!(head.method, request.method, "{text}");
                    assert_eq!(
                        deadline(head.deadline_params.as_ref(), &config),
                        deadline(request.params.as_ref(), &config),
                        "{text}"
                    );
                }
                (Err(scanned), Err(whole)) => assert_eq!(scanned, whole, "{text}"),
                (scanned, whole) => panic!("{text}: {scanned:?} against {whole:?}"),
            }
        }
    }

    #[test]
    fn an_http_json_body_gives_the_same_deadline() {
        let config = ProxyConfig::default();
        let bodies = [
            r#"{"message":{},"configuration":{"timeout":4}}"#,
            r#"{"configuration":{"timeout":"4"}}"#,
            r#"{"configuration":{"timeout":4}} trailing"#,
            r#"[{"configuration":{"timeout":4}}]"#,
            "",
        ];
        for body in bodies {
            let whole = serde_json::from_slice::<Value>(body.as_bytes()).ok();
            assert_eq!(
                deadline(deadline_params(body.as_bytes()).as_ref(), &config),
                deadline(whole.as_ref(), &config),
                "{body}"
            );
        }
    }

    #[test]
    fn a_reply_reads_as_the_whole_parse_reads_it() {
        let replies = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","artifacts":[{"parts":[{"text":"hi"}]}]}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found","data":[{"@type":"x"}]}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"bad"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"error":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"{"jsonrpc":"2.0","id":true,"result":1}"#,
            r#"{"jsonrpc":"1.0","id":1,"result":1}"#,
            r#"{"id":1,"result":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"id":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"a":1e400}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1} x"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":1}]"#,
            "<html>busy</html>",
            r#"{"jsonrpc":"2.0","id":"é","result":{"text":"héllo 😀 \ud83d\ude00"}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\u{7f}\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"a\nb\"}",
            "",
            "null",
        ];
        for reply in replies {
            let whole = serde_json::from_slice::<Value>(reply.as_bytes())
                .ok()
                .and_then(|value| JsonRpcResponse::from_value(value).ok());
            let head = response_head(reply.as_bytes());
            match (head, whole) {
                (Some(head), Some(whole)) => {
                    assert_eq!(head.id, whole.id, "{reply}");
                    match (head.payload, whole.payload) {
                        (JsonRpcPayload::Result(_), JsonRpcPayload::Result(_)) => {}
                        (JsonRpcPayload::Error(head), JsonRpcPayload::Error(whole)) => {
                            assert_eq!(head, whole, "{reply}");
                        }
                        (head, whole) => panic!("{reply}: {head:?} against {whole:?}"),
                    }
                }
                (None, None) => {}
                (head, whole) => panic!("{reply}: {head:?} against {whole:?}"),
            }
        }
    }
}
