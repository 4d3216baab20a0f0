//! A2A v0.3 and v1.0 on the JSON-RPC route: which version a caller speaks (its method
//! names), which versions an agent serves (its registered card), and the translation of
//! requests, answers and stream events when they differ.
//!
//! A v0.3 caller (`message/send`, `tasks/get`, …) reaching an agent that serves only
//! v1.0 has its request translated to v1.0 (`SendMessage` with `A2A-Version: 1.0`) and the
//! answer translated back; a v1.0 caller reaching an agent that serves only v0.3 the other
//! way round. When both speak the same version, or the agent's versions are unknown (a
//! KubeMQ record), the request is forwarded untouched, as it always was. The gateway's own
//! errors keep their codes whatever the version; the agent's errors are given the other
//! version's codes ([`v03::ErrorCode::from_kind`]).
//!
//! An agent reached over gRPC (it offers no JSON-RPC) speaks v1.0: a v0.3 caller's request
//! is translated before it is carried over gRPC, and the answer after.
//!
//! A v0.3 message without `messageId` or `role`, as hand-written calls send them
//! (`{"parts": [{"text": "Hello?"}]}`), gets a fresh id and the user role on its way to a
//! v1.0 agent, which requires both.

use a2a_types::A2aError;
use a2a_types::jsonrpc::{self, JsonRpcPayload, JsonRpcRequest, JsonRpcResponse, RequestId};
use a2a_types::v03::{self, translate};
use bytes::{Bytes, BytesMut};
use http::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use super::error::GatewayError;
use super::headers::VERSION_HEADER;
use super::spoken::Spoken;

/// How one JSON-RPC request goes to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plan<'a> {
    /// Forwarded untouched to this URL.
    Pass(&'a str),
    /// A v0.3 request translated for the agent's v1.0 interface at `url`.
    ToV1 { url: &'a str, method: v03::Method },
    /// A v1.0 request translated for the agent's v0.3 interface at `url`.
    ToV03 { url: &'a str, method: v03::Method },
}

/// The plan for `method` to an agent whose JSON-RPC URL is `jsonrpc_url` and whose card
/// declares `spoken`.
///
/// # Errors
/// Method not found for `ListTasks` to an agent that serves only v0.3, which lacks it.
pub(crate) fn plan<'a>(
    method: &str,
    jsonrpc_url: &'a str,
    spoken: impl FnOnce() -> &'a Spoken,
) -> Result<Plan<'a>, GatewayError> {
    // Every v0.3 method name has a slash; no v1.0 name has one.
    if method.contains('/') {
        let Some(method) = v03::Method::parse(method) else {
            return Ok(Plan::Pass(jsonrpc_url));
        };
        let spoken = spoken();
        return Ok(match (&spoken.v03, &spoken.v1) {
            (Some(url), _) => Plan::Pass(url),
            (None, Some(url)) => Plan::ToV1 { url, method },
            (None, None) => Plan::Pass(jsonrpc_url),
        });
    }
    let spoken = spoken();
    let (None, Some(url)) = (&spoken.v1, &spoken.v03) else {
        return Ok(Plan::Pass(jsonrpc_url));
    };
    let Some(v1_method) = jsonrpc::Method::from_name(method) else {
        return Ok(Plan::Pass(jsonrpc_url));
    };
    match v03::Method::from_v1(v1_method) {
        Some(method) => Ok(Plan::ToV03 { url, method }),
        None => Err(GatewayError::MethodNotFound {
            reason: format!("{method} has no A2A 0.3 form, and the agent serves only A2A 0.3"),
        }),
    }
}

/// Which way a call is translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The caller speaks v0.3, the agent v1.0.
    ToV1,
    /// The caller speaks v1.0, the agent v0.3.
    ToV03,
}

/// A translated call: its direction and the caller's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Translation {
    pub(crate) direction: Direction,
    pub(crate) method: v03::Method,
}

impl Translation {
    pub(crate) const fn new(direction: Direction, method: v03::Method) -> Self {
        Self { direction, method }
    }

    /// `A2A-Version: 1.0` on a request translated to v1.0; none on one translated to v0.3,
    /// which has no such header.
    pub(crate) fn set_version_header(&self, headers: &mut HeaderMap) {
        match self.direction {
            Direction::ToV1 => {
                headers.insert(VERSION_HEADER, HeaderValue::from_static("1.0"));
            }
            Direction::ToV03 => {
                headers.remove(VERSION_HEADER);
            }
        }
    }

    /// The request body for the agent: `request` with its method and params in the
    /// agent's version.
    ///
    /// # Errors
    /// Invalid params (-32602) when the params are not a valid request of the caller's
    /// version.
    pub(crate) fn request(&self, request: JsonRpcRequest) -> Result<Bytes, GatewayError> {
        let translated = self.translated_request(request)?;
        serde_json::to_vec(&translated)
            .map(Bytes::from)
            .map_err(|_| GatewayError::Internal)
    }

    /// `request` with its method and params in the agent's version.
    ///
    /// # Errors
    /// As [`Translation::request`].
    pub(crate) fn translated_request(
        &self,
        request: JsonRpcRequest,
    ) -> Result<JsonRpcRequest, GatewayError> {
        let params = request.params.unwrap_or(Value::Null);
        let (method, params) = match self.direction {
            Direction::ToV1 => {
                let mut params = translate::params_to_v1(self.method, params)
                    .map_err(|error| invalid_params(&error))?;
                complete_message(self.method, &mut params);
                (self.method.to_v1().as_str(), Some(params))
            }
            Direction::ToV03 => {
                let params = translate::params_from_v1(self.method, params)
                    .map_err(|error| invalid_params(&error))?;
                (self.method.as_str(), (!params.is_null()).then_some(params))
            }
        };
        Ok(JsonRpcRequest {
            method: method.to_owned(),
            params,
            ..request
        })
    }

    /// The agent's whole answer `body` in the caller's version, when it is a JSON-RPC
    /// response; `Ok(None)` when it is not (the caller relays it as it would any other).
    ///
    /// # Errors
    /// Invalid agent response (-32004) when its result has no form in the caller's
    /// version.
    pub(crate) fn answer(
        &self,
        agent_id: &str,
        body: &[u8],
    ) -> Result<Option<Bytes>, GatewayError> {
        let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
            return Ok(None);
        };
        // A v0.3 agent may answer `…/delete` with neither `result` nor `error`.
        if let Some(object) = value.as_object_mut()
            && self.direction == Direction::ToV03
            && self.method == v03::Method::PushConfigDelete
            && !object.contains_key("result")
            && !object.contains_key("error")
        {
            object.insert("result".to_owned(), Value::Null);
        }
        let Ok(response) = JsonRpcResponse::from_value(value) else {
            return Ok(None);
        };
        let translated = self.response(agent_id, response, false)?;
        serde_json::to_vec(&translated)
            .map(|body| Some(Bytes::from(body)))
            .map_err(|_| GatewayError::Internal)
    }

    /// One JSON-RPC response in the caller's version; `stream` for an event of a stream.
    fn response(
        &self,
        agent_id: &str,
        response: JsonRpcResponse,
        stream: bool,
    ) -> Result<JsonRpcResponse, GatewayError> {
        let payload = match response.payload {
            JsonRpcPayload::Result(result) => {
                JsonRpcPayload::Result(self.result(agent_id, result, stream)?)
            }
            JsonRpcPayload::Error(error) => JsonRpcPayload::Error(match self.direction {
                Direction::ToV1 => self.error(&A2aError::from_jsonrpc_error(&error)),
                Direction::ToV03 => v03::JsonRpcError::from(error).to_a2a().to_jsonrpc_error(),
            }),
        };
        Ok(JsonRpcResponse {
            id: response.id,
            payload,
        })
    }

    /// The agent's `result` (of the whole call, or one stream element when `stream`) in
    /// the caller's version.
    ///
    /// # Errors
    /// Invalid agent response (-32004) when it has no form in the caller's version.
    pub(crate) fn result(
        &self,
        agent_id: &str,
        result: Value,
        stream: bool,
    ) -> Result<Value, GatewayError> {
        let translated = match (self.direction, stream) {
            (Direction::ToV1, true) => {
                let is_final = ends_v1_stream(&result).then_some(true);
                translate::stream_event_from_v1(result, is_final)
            }
            (Direction::ToV1, false) => translate::result_from_v1(self.method, result),
            (Direction::ToV03, true) => translate::stream_event_to_v1(result),
            (Direction::ToV03, false) => translate::result_to_v1(self.method, result),
        };
        translated.map_err(|error| {
            GatewayError::invalid_response(
                agent_id,
                format!("no {} form: {}", self.caller_version(), error.message()),
            )
        })
    }

    /// The agent's error (read as v1.0) as the caller's version writes it.
    pub(crate) fn error(&self, error: &A2aError) -> jsonrpc::JsonRpcError {
        match self.direction {
            Direction::ToV1 => v03::JsonRpcError::from(error).into(),
            Direction::ToV03 => error.to_jsonrpc_error(),
        }
    }

    const fn caller_version(&self) -> &'static str {
        match self.direction {
            Direction::ToV1 => "A2A 0.3",
            Direction::ToV03 => "A2A 1.0",
        }
    }

    /// A block of whole SSE events (as the relay cuts them) with each event's data in the
    /// caller's version. An event that does not translate becomes the gateway's error
    /// event for the request `id`.
    pub(crate) fn events(&self, agent_id: &str, id: &RequestId, block: &[u8]) -> Bytes {
        let mut out = BytesMut::with_capacity(block.len() + block.len() / 4);
        for event in split_events(block) {
            let data = event_data(event);
            let Some(data) = data else {
                out.extend_from_slice(event);
                continue;
            };
            let translated = serde_json::from_str::<Value>(&data)
                .ok()
                .and_then(|value| JsonRpcResponse::from_value(value).ok())
                .ok_or_else(|| {
                    GatewayError::invalid_response(agent_id, "a stream event is not JSON-RPC")
                })
                .and_then(|response| self.response(agent_id, response, true));
            match translated.and_then(|response| {
                serde_json::to_string(&response).map_err(|_| GatewayError::Internal)
            }) {
                Ok(json) => {
                    for line in other_fields(event) {
                        out.extend_from_slice(line);
                        out.extend_from_slice(b"\n");
                    }
                    out.extend_from_slice(b"data: ");
                    out.extend_from_slice(json.as_bytes());
                    out.extend_from_slice(b"\n\n");
                }
                Err(error) => out.extend_from_slice(&super::stream::error_frame(
                    &super::stream::Framing::JsonRpc(id.clone()),
                    &error,
                )),
            }
        }
        out.freeze()
    }
}

/// Whether a v1.0 stream element ends the stream though its state is not terminal
/// (`input-required`, `auth-required`): v0.3 clients wait for `final` on it.
fn ends_v1_stream(result: &Value) -> bool {
    result
        .pointer("/statusUpdate/status/state")
        .and_then(Value::as_str)
        .is_some_and(|state| {
            matches!(
                state,
                "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED"
            )
        })
}

fn invalid_params(error: &A2aError) -> GatewayError {
    let mut reason = error.message().to_owned();
    for violation in error.field_violations() {
        reason = format!("{reason} ({}: {})", violation.field, violation.description);
    }
    GatewayError::InvalidParams { reason }
}

/// The v1.0 `SendMessage` params given the `messageId` and `role` v1.0 requires, when the
/// v0.3 caller left them out.
fn complete_message(method: v03::Method, params: &mut Value) {
    if matches!(
        method,
        v03::Method::MessageSend | v03::Method::MessageStream
    ) {
        translate::complete_message(params);
    }
}

/// The events of a block, each with its terminating blank line.
fn split_events(block: &[u8]) -> Vec<&[u8]> {
    let mut events = Vec::new();
    let mut start = 0;
    let mut at_line_start = true;
    let mut index = 0;
    while index < block.len() {
        let byte = block[index];
        if byte == b'\r' || byte == b'\n' {
            let mut end = index + 1;
            if byte == b'\r' && block.get(end) == Some(&b'\n') {
                end += 1;
            }
            if at_line_start {
                events.push(&block[start..end]);
                start = end;
            }
            at_line_start = true;
            index = end;
        } else {
            at_line_start = false;
            index += 1;
        }
    }
    if start < block.len() {
        events.push(&block[start..]);
    }
    events
}

/// The lines of an event, without their ends.
fn lines(event: &[u8]) -> impl Iterator<Item = &[u8]> {
    event
        .split(|byte| *byte == b'\n' || *byte == b'\r')
        .filter(|line| !line.is_empty())
}

/// The event's `data` (its `data:` lines joined by `\n`), when it has any.
fn event_data(event: &[u8]) -> Option<String> {
    let mut data: Option<String> = None;
    for line in lines(event) {
        let Some(value) = field_value(line, b"data") else {
            continue;
        };
        let value = String::from_utf8_lossy(value);
        match &mut data {
            Some(data) => {
                data.push('\n');
                data.push_str(&value);
            }
            None => data = Some(value.into_owned()),
        }
    }
    data
}

/// The event's lines other than `data:` (`event:`, `id:`, comments), kept as they are.
fn other_fields(event: &[u8]) -> impl Iterator<Item = &[u8]> {
    lines(event).filter(|line| field_value(line, b"data").is_none())
}

/// The value of `line` when it is the field `name` (`name:value`, one leading space
/// dropped).
fn field_value<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let rest = line.strip_prefix(name)?;
    if rest.is_empty() {
        return Some(rest);
    }
    let value = rest.strip_prefix(b":")?;
    Some(value.strip_prefix(b" ").unwrap_or(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v1_card(interfaces: &Value) -> Value {
        json!({
            "name": "Echo", "description": "", "version": "1",
            "supportedInterfaces": interfaces,
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        })
    }

    fn v03_card(url: &str) -> Value {
        json!({
            "name": "Echo", "description": "", "version": "1", "url": url,
            "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
            "capabilities": {"streaming": true}, "defaultInputModes": ["text"],
            "defaultOutputModes": ["text"], "skills": []
        })
    }

    #[test]
    fn versions_come_from_the_card() {
        let v1 = v1_card(&json!([
            {"url": "http://a/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]));
        assert_eq!(
            Spoken::of(&v1),
            Spoken {
                v1: Some("http://a/".into()),
                v03: None
            }
        );
        assert_eq!(
            Spoken::of(&v03_card("http://b/")),
            Spoken {
                v1: None,
                v03: Some("http://b/".into())
            }
        );
        let mut dual = v1;
        for (key, value) in v03_card("http://a/").as_object().unwrap() {
            if key != "supportedInterfaces" {
                dual.as_object_mut()
                    .unwrap()
                    .entry(key.clone())
                    .or_insert(value.clone());
            }
        }
        assert_eq!(
            Spoken::of(&dual),
            Spoken {
                v1: Some("http://a/".into()),
                v03: Some("http://a/".into())
            }
        );
        let record = json!({"name": "Echo", "url": "http://c/"});
        assert_eq!(Spoken::of(&record), Spoken::default());
    }

    #[test]
    fn plans_follow_the_caller_and_the_agent() {
        let v1_only = Spoken {
            v1: Some("http://v1/".into()),
            v03: None,
        };
        let v03_only = Spoken {
            v1: None,
            v03: Some("http://v03/".into()),
        };
        let unknown = Spoken::default();
        let url = "http://registered/";
        let cases = [
            ("SendMessage", &v1_only, Plan::Pass(url)),
            (
                "message/send",
                &v1_only,
                Plan::ToV1 {
                    url: "http://v1/",
                    method: v03::Method::MessageSend,
                },
            ),
            ("message/send", &v03_only, Plan::Pass("http://v03/")),
            (
                "SendStreamingMessage",
                &v03_only,
                Plan::ToV03 {
                    url: "http://v03/",
                    method: v03::Method::MessageStream,
                },
            ),
            ("message/send", &unknown, Plan::Pass(url)),
            ("SendMessage", &unknown, Plan::Pass(url)),
            ("custom/method", &v1_only, Plan::Pass(url)),
            ("Custom", &v03_only, Plan::Pass(url)),
        ];
        for (method, spoken, expected) in cases {
            assert_eq!(plan(method, url, || spoken).unwrap(), expected, "{method}");
        }
        let error = plan("ListTasks", url, || &v03_only).unwrap_err();
        assert_eq!(error.code(), -32601);
    }

    #[test]
    fn a_hand_written_v03_send_becomes_a_valid_v1_request() {
        let translation = Translation {
            direction: Direction::ToV1,
            method: v03::Method::MessageSend,
        };
        let request = JsonRpcRequest::new(
            1_i64,
            "message/send",
            Some(
                json!({"message": {"parts": [{"text": "Hello?"}]}, "configuration": {"timeout": 1}}),
            ),
        );
        let body: Value = serde_json::from_slice(&translation.request(request).unwrap()).unwrap();
        assert_eq!(body["method"], "SendMessage");
        assert_eq!(body["id"], 1);
        let message = &body["params"]["message"];
        assert_eq!(message["role"], "ROLE_USER");
        assert!(!message["messageId"].as_str().unwrap().is_empty());
        assert_eq!(message["parts"], json!([{"text": "Hello?"}]));
    }

    #[test]
    fn answers_and_errors_take_the_callers_version() {
        let to_v1 = Translation {
            direction: Direction::ToV1,
            method: v03::Method::TasksGet,
        };
        let answer = to_v1
            .answer(
                "echo",
                br#"{"jsonrpc":"2.0","id":1,"result":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}"#,
            )
            .unwrap()
            .unwrap();
        let answer: Value = serde_json::from_slice(&answer).unwrap();
        assert_eq!(answer["result"]["kind"], "task");
        assert_eq!(answer["result"]["status"]["state"], "completed");
        // v1.0's VersionNotSupported has no v0.3 code: the nearest one.
        let error = to_v1
            .answer(
                "echo",
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"no"}}"#,
            )
            .unwrap()
            .unwrap();
        let error: Value = serde_json::from_slice(&error).unwrap();
        assert_eq!(error["error"]["code"], -32004);
        assert!(to_v1.answer("echo", b"<html>").unwrap().is_none());

        let to_v03 = Translation {
            direction: Direction::ToV03,
            method: v03::Method::PushConfigDelete,
        };
        let answer = to_v03
            .answer("echo", br#"{"jsonrpc":"2.0","id":"x"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&answer).unwrap(),
            json!({"jsonrpc": "2.0", "id": "x", "result": {}})
        );
    }

    #[test]
    fn stream_events_are_translated_one_by_one() {
        let to_v1 = Translation {
            direction: Direction::ToV1,
            method: v03::Method::MessageStream,
        };
        let block = concat!(
            ": keepalive\n\n",
            "event: x\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":",
            "{\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\"}}}}\r\n\r\n",
            "data: not json\n\n"
        );
        let out = to_v1.events("echo", &RequestId::from(1_i64), block.as_bytes());
        let out = String::from_utf8(out.to_vec()).unwrap();
        let events: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(events[0], ": keepalive");
        assert!(events[1].starts_with("event: x\ndata: "), "{out}");
        let data: Value = serde_json::from_str(events[1].split("data: ").nth(1).unwrap()).unwrap();
        assert_eq!(data["result"]["kind"], "status-update");
        assert_eq!(data["result"]["final"], true);
        assert!(events[2].starts_with("event: task.error\ndata: "), "{out}");
        assert!(events[2].contains("-32004"), "{out}");
    }
}
