//! Golden tests of the v0.3 wire model. Every fixture under `tests/fixtures/v03/hand/` (written
//! from the spec digest) and `tests/fixtures/v03/sdk/` (written by the Python SDK 0.3.26, see
//! `generate.py`) must decode as the type its directory names, re-encode to an equal JSON
//! value, and convert to v1.0 and back to an equal value, up to the losses
//! [`after_round_trip`] names; `what_does_not_survive_a_round_trip` spells those out.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use a2a_types::v03;
use a2a_types::{A2aError, ErrorKind};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v03")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// Every `*.json` under `dir`, as (type directory, file name, value).
fn load(dir: &str) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for type_dir in std::fs::read_dir(fixtures().join(dir)).unwrap() {
        let type_dir = type_dir.unwrap().path();
        if !type_dir.is_dir() {
            continue;
        }
        let type_name = type_dir.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&type_dir).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|ext| ext == "json") {
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                out.push((type_name.clone(), name, read(&file)));
            }
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// Decodes `value` as the v0.3 type, checks it re-encodes unchanged, converts it to the
/// v1.0 type and back, and returns the JSON after the round trip.
fn round<V03, V1>(value: &Value) -> Result<Value, String>
where
    V03: DeserializeOwned + Serialize + Clone + From<V1>,
    V1: TryFrom<V03> + Serialize,
    <V1 as TryFrom<V03>>::Error: std::fmt::Display,
{
    let decoded: V03 =
        serde_json::from_value(value.clone()).map_err(|err| format!("decode: {err}"))?;
    let encoded = serde_json::to_value(&decoded).unwrap();
    if &encoded != value {
        return Err(format!("re-encoded differently:\n{encoded:#}"));
    }
    let v1 = V1::try_from(decoded).map_err(|err| format!("to v1.0: {err}"))?;
    serde_json::to_value(&v1).map_err(|err| format!("v1.0 encode: {err}"))?;
    Ok(serde_json::to_value(V03::from(v1)).unwrap())
}

/// Like [`round`] for the agent card, whose v1.0 → v0.3 conversion borrows.
fn round_card(value: &Value) -> Result<Value, String> {
    let decoded: v03::AgentCard =
        serde_json::from_value(value.clone()).map_err(|err| format!("decode: {err}"))?;
    let encoded = serde_json::to_value(&decoded).unwrap();
    if &encoded != value {
        return Err(format!("re-encoded differently:\n{encoded:#}"));
    }
    let v1 = a2a_types::AgentCard::try_from(decoded).map_err(|err| format!("to v1.0: {err}"))?;
    // The v1.0 card must itself be a valid v1.0 document.
    let v1_json = serde_json::to_value(&v1).unwrap();
    a2a_types::json::from_value::<a2a_types::AgentCard>(v1_json).map_err(|err| err.to_string())?;
    Ok(serde_json::to_value(v03::AgentCard::from(&v1)).unwrap())
}

/// Errors keep code and message; `data` becomes the v1.0 detail array.
fn round_error(value: &Value) -> Result<Value, String> {
    let decoded: v03::JsonRpcError =
        serde_json::from_value(value.clone()).map_err(|err| format!("decode: {err}"))?;
    let encoded = serde_json::to_value(&decoded).unwrap();
    if &encoded != value {
        return Err(format!("re-encoded differently:\n{encoded:#}"));
    }
    let error = A2aError::from(&decoded);
    let back = v03::JsonRpcError::from(&error);
    Ok(serde_json::to_value(back).unwrap())
}

/// The list result: a bare array of nested configs.
fn round_list(value: &Value) -> Result<Value, String> {
    let decoded: Vec<v03::TaskPushNotificationConfig> =
        serde_json::from_value(value.clone()).map_err(|err| format!("decode: {err}"))?;
    let v1 = v03::list_result_to_v1(decoded).map_err(|err| err.to_string())?;
    Ok(serde_json::to_value(Vec::<v03::TaskPushNotificationConfig>::from(v1)).unwrap())
}

type RoundTrip = fn(&Value) -> Result<Value, String>;

/// The round trip for the type a fixture directory names.
fn round_trip_for(type_name: &str) -> RoundTrip {
    match type_name {
        "Message" => round::<v03::Message, a2a_types::Message>,
        "Task" => round::<v03::Task, a2a_types::Task>,
        "StreamEvent" => round::<v03::StreamEvent, a2a_types::StreamResponse>,
        "SendMessageResult" => round::<v03::SendMessageResult, a2a_types::SendMessageResponse>,
        "MessageSendParams" => round::<v03::MessageSendParams, a2a_types::SendMessageRequest>,
        "TaskQueryParams" => round::<v03::TaskQueryParams, a2a_types::GetTaskRequest>,
        "TaskIdParams" => round::<v03::TaskIdParams, a2a_types::CancelTaskRequest>,
        "TaskPushNotificationConfig" => {
            round::<v03::TaskPushNotificationConfig, a2a_types::TaskPushNotificationConfig>
        }
        "GetTaskPushNotificationConfigParams" => {
            round::<
                v03::GetTaskPushNotificationConfigParams,
                a2a_types::GetTaskPushNotificationConfigRequest,
            >
        }
        "ListTaskPushNotificationConfigParams" => {
            round::<
                v03::ListTaskPushNotificationConfigParams,
                a2a_types::ListTaskPushNotificationConfigsRequest,
            >
        }
        "DeleteTaskPushNotificationConfigParams" => {
            round::<
                v03::DeleteTaskPushNotificationConfigParams,
                a2a_types::DeleteTaskPushNotificationConfigRequest,
            >
        }
        "AgentCard" => round_card,
        "JsonRpcError" => round_error,
        "PushConfigList" => round_list,
        other => panic!("no round trip for fixture type {other}"),
    }
}

/// The type of the `params` of a v0.3 request, by method.
fn params_type(method: v03::Method) -> Option<&'static str> {
    Some(match method {
        v03::Method::MessageSend | v03::Method::MessageStream => "MessageSendParams",
        v03::Method::TasksGet => "TaskQueryParams",
        v03::Method::TasksCancel | v03::Method::TasksResubscribe => "TaskIdParams",
        v03::Method::PushConfigSet => "TaskPushNotificationConfig",
        v03::Method::PushConfigGet => "GetTaskPushNotificationConfigParams",
        v03::Method::PushConfigList => "ListTaskPushNotificationConfigParams",
        v03::Method::PushConfigDelete => "DeleteTaskPushNotificationConfigParams",
        v03::Method::GetAuthenticatedExtendedCard => return None,
    })
}

/// The type of a response fixture's `result`, by the file-name prefix (`message-send--…`).
fn result_type(file: &str) -> Option<&'static str> {
    let prefix = file.split("--").next().unwrap_or_default();
    Some(match prefix {
        "message-send" => "SendMessageResult",
        "message-stream" => "StreamEvent",
        "tasks-get" | "tasks-cancel" => "Task",
        "push-list" => "PushConfigList",
        "push-set" | "push-get" => "TaskPushNotificationConfig",
        "agent-card" => "AgentCard",
        "push-delete" | "error" => return None,
        other => panic!("unknown response fixture prefix {other}"),
    })
}

/// What a v0.3 value looks like after v0.3 → v1.0 → v0.3: the original, less what v1.0
/// cannot carry (each case is asserted in `what_does_not_survive_a_round_trip`).
fn after_round_trip(type_name: &str, value: &Value) -> Value {
    let mut expected = value.clone();
    match type_name {
        // v1.0 GetTask and the push-config requests have no metadata.
        "TaskQueryParams"
        | "GetTaskPushNotificationConfigParams"
        | "ListTaskPushNotificationConfigParams"
        | "DeleteTaskPushNotificationConfigParams" => {
            expected.as_object_mut().unwrap().remove("metadata");
        }
        // An explicit `blocking: true` is the default, and comes back absent.
        "MessageSendParams" => {
            if let Some(config) = expected
                .get_mut("configuration")
                .and_then(Value::as_object_mut)
                && config.get("blocking") == Some(&json!(true))
            {
                config.remove("blocking");
            }
        }
        // v1.0 states `Major.Minor`.
        "AgentCard" => {
            if let Some(Value::String(version)) = expected.get_mut("protocolVersion") {
                *version = version.split('.').take(2).collect::<Vec<_>>().join(".");
            }
        }
        // `final` is derived from the state.
        "StreamEvent" if expected["kind"] == "status-update" => {
            let terminal = ["completed", "canceled", "failed", "rejected"]
                .contains(&expected["status"]["state"].as_str().unwrap_or_default());
            expected["final"] = json!(terminal);
        }
        // Free-form `data` is replaced by the v1.0 detail array.
        "JsonRpcError" => {
            expected.as_object_mut().unwrap().remove("data");
        }
        _ => {}
    }
    expected
}

/// Checks one fixture of `type_name`; returns a failure text.
fn check(type_name: &str, value: &Value) -> Result<(), String> {
    let back = round_trip_for(type_name)(value)?;
    let mut back = back;
    if type_name == "JsonRpcError" {
        back.as_object_mut().unwrap().remove("data");
    }
    let expected = after_round_trip(type_name, value);
    if back == expected {
        Ok(())
    } else {
        Err(format!(
            "after v1.0 and back:\n{back:#}\nexpected:\n{expected:#}"
        ))
    }
}

fn check_all(dir: &str) -> usize {
    let mut failures = Vec::new();
    let mut count = 0;
    for (type_name, file, value) in load(dir) {
        count += 1;
        let outcome = match type_name.as_str() {
            "JsonRpcRequest" => check_request(&value),
            "JsonRpcResponse" => check_response(&file, &value),
            _ => check(&type_name, &value),
        };
        if let Err(err) = outcome {
            failures.push(format!("{dir}/{type_name}/{file}: {err}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    count
}

/// A whole request: the method must be a v0.3 method, and the params round-trip as its type.
fn check_request(value: &Value) -> Result<(), String> {
    assert_eq!(value["jsonrpc"], "2.0");
    let name = value["method"].as_str().ok_or("no method")?;
    let method: v03::Method = name
        .parse()
        .map_err(|err: v03::UnknownMethod| err.to_string())?;
    assert_eq!(method.as_str(), name);
    match params_type(method) {
        Some(type_name) => check(type_name, &value["params"]),
        None => Ok(()),
    }
}

/// A whole response: the result round-trips as the type its method answers with.
fn check_response(file: &str, value: &Value) -> Result<(), String> {
    assert_eq!(value["jsonrpc"], "2.0");
    if let Some(error) = value.get("error") {
        return check("JsonRpcError", error);
    }
    match result_type(file) {
        Some(type_name) => check(type_name, &value["result"]),
        // `tasks/pushNotificationConfig/delete` answers null (the SDK leaves it out).
        None => match value.get("result") {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(format!("delete result {other}")),
        },
    }
}

#[test]
fn hand_written_fixtures_decode_re_encode_and_round_trip() {
    assert!(check_all("hand") >= 10);
}

#[test]
fn python_sdk_fixtures_decode_re_encode_and_round_trip() {
    let version = std::fs::read_to_string(fixtures().join("sdk/VERSION")).unwrap();
    assert_eq!(version.trim(), "a2a-sdk==0.3.26");
    assert!(check_all("sdk") >= 60);
}

#[test]
fn every_task_state_spelling_maps_both_ways() {
    for (text, v1) in [
        ("submitted", a2a_types::TaskState::Submitted),
        ("working", a2a_types::TaskState::Working),
        ("input-required", a2a_types::TaskState::InputRequired),
        ("completed", a2a_types::TaskState::Completed),
        ("canceled", a2a_types::TaskState::Canceled),
        ("failed", a2a_types::TaskState::Failed),
        ("rejected", a2a_types::TaskState::Rejected),
        ("auth-required", a2a_types::TaskState::AuthRequired),
        ("unknown", a2a_types::TaskState::Unspecified),
    ] {
        let state: v03::TaskState = serde_json::from_value(json!(text)).unwrap();
        assert_eq!(a2a_types::TaskState::from(state), v1);
        assert_eq!(v03::TaskState::from(v1), state);
        assert_eq!(serde_json::to_value(state).unwrap(), json!(text));
        assert_eq!(v1.v0_3_name(), text);
    }
    // Only the v0.3 spellings are read.
    for other in [
        "TASK_STATE_WORKING",
        "cancelled",
        "input_required",
        "Working",
    ] {
        assert!(
            serde_json::from_value::<v03::TaskState>(json!(other)).is_err(),
            "{other}"
        );
    }
}

#[test]
fn every_method_parses_and_maps_to_its_v1_operation() {
    use a2a_types::jsonrpc::Method as V1;
    for method in v03::Method::ALL {
        assert_eq!(v03::Method::parse(method.as_str()), Some(method));
        assert_eq!(method.to_string(), method.as_str());
        assert_eq!(v03::Method::from_v1(method.to_v1()), Some(method));
        assert_eq!(method.to_v1().v0_3_name(), Some(method.as_str()));
    }
    assert_eq!(v03::Method::ALL.len(), 10);
    assert_eq!(v03::Method::from_v1(V1::ListTasks), None);
    assert!(v03::Method::MessageStream.is_streaming());
    assert!(v03::Method::TasksResubscribe.is_streaming());
    assert!(!v03::Method::TasksGet.is_streaming());
    let err = "SendMessage".parse::<v03::Method>().unwrap_err();
    assert_eq!(err.name(), "SendMessage");
    assert_eq!(v03::Method::parse("Message/Send"), None);
}

#[test]
fn every_error_kind_has_a_v03_code_and_comes_back() {
    for kind in ErrorKind::ALL {
        let code = v03::ErrorCode::from_kind(kind);
        assert_eq!(v03::ErrorCode::from_code(code.code()), Some(code));
        let error = A2aError::from(kind).with_metadata("taskId", "t-1");
        let wire = v03::JsonRpcError::from(&error);
        assert_eq!(wire.code, code.code(), "{kind:?}");
        // Through JSON, as a v0.3 client of ours would read it.
        let json = serde_json::to_string(&wire).unwrap();
        let read: v03::JsonRpcError = serde_json::from_str(&json).unwrap();
        let back = A2aError::from(read);
        assert_eq!(back.kind(), kind, "{kind:?}");
        assert_eq!(back.metadata()["taskId"], "t-1");
    }
    // The two errors v1.0 added take the documented v0.3 codes.
    let version = v03::JsonRpcError::from(A2aError::version_not_supported("0.3"));
    assert_eq!(version.code, -32004);
    let extension = v03::JsonRpcError::from(A2aError::extension_support_required("urn:x"));
    assert_eq!(extension.code, -32600);
    // The v0.3 codes keep their v0.3 names and default messages.
    let card = v03::JsonRpcError::new(v03::ErrorCode::AuthenticatedExtendedCardNotConfigured);
    assert_eq!(card.code, -32007);
    assert_eq!(
        A2aError::from(card).kind(),
        ErrorKind::ExtendedAgentCardNotConfigured
    );
}

#[test]
fn errors_from_plain_v03_peers_are_read_by_code() {
    for (code, kind) in [
        (-32001, ErrorKind::TaskNotFound),
        (-32002, ErrorKind::TaskNotCancelable),
        (-32003, ErrorKind::PushNotificationNotSupported),
        (-32004, ErrorKind::UnsupportedOperation),
        (-32005, ErrorKind::ContentTypeNotSupported),
        (-32006, ErrorKind::InvalidAgentResponse),
        (-32007, ErrorKind::ExtendedAgentCardNotConfigured),
        (-32600, ErrorKind::InvalidRequest),
        (-32602, ErrorKind::InvalidParams),
        (-32099, ErrorKind::Internal),
    ] {
        let error: v03::JsonRpcError =
            serde_json::from_value(json!({"code": code, "message": "m", "data": {"free": "form"}}))
                .unwrap();
        let error = A2aError::from(error);
        assert_eq!(error.kind(), kind, "{code}");
        assert_eq!(error.message(), "m");
    }
}

#[test]
fn a_gateway_error_keeps_its_own_code() {
    let wire = a2a_types::jsonrpc::JsonRpcError {
        code: -32002,
        message: "agent not found: x".into(),
        data: Some(json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "AGENT_NOT_FOUND",
            "domain": "gateway.example.com",
            "metadata": {}
        }])),
    };
    let error = A2aError::from_jsonrpc_error(&wire);
    assert_eq!(v03::JsonRpcError::from(&error).code, -32002);
}

#[test]
fn lenient_hand_written_requests_decode() {
    // Seed 004's examples: no kind, no messageId, no role, a gateway option.
    let params: v03::MessageSendParams = serde_json::from_value(json!({
        "message": {"parts": [{"text": "This will timeout"}]},
        "configuration": {"timeout": 1}
    }))
    .unwrap();
    let request = a2a_types::SendMessageRequest::try_from(params.clone()).unwrap();
    assert_eq!(request.message.text(), "This will timeout");
    assert_eq!(request.message.role, a2a_types::Role::Unspecified);
    assert!(request.message.message_id.is_empty());
    assert_eq!(request.configuration.unwrap().extra["timeout"], 1);
    // Written back with the part's kind, and nothing invented.
    assert_eq!(
        serde_json::to_value(&params).unwrap(),
        json!({
            "message": {"kind": "message", "parts": [{"kind": "text", "text": "This will timeout"}]},
            "configuration": {"timeout": 1}
        })
    );
    // Parts and results without `kind` are read by their members.
    let part: v03::Part = serde_json::from_value(json!({"file": {"uri": "u"}})).unwrap();
    assert!(matches!(part, v03::Part::File(_)));
    let event: v03::StreamEvent = serde_json::from_value(
        json!({"taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": false}),
    )
    .unwrap();
    assert!(matches!(event, v03::StreamEvent::StatusUpdate(_)));
}

#[test]
fn invalid_v03_values_are_refused_naming_the_member() {
    let cases = [
        (
            json!({"kind": "image", "url": "x"}),
            "unknown kind \"image\"",
        ),
        (
            json!({"kind": "file", "file": {"bytes": "aGk=", "uri": "u"}}),
            "found both",
        ),
        (json!({"kind": "file", "file": {"name": "x"}}), "found none"),
        (json!({"kind": "data", "data": [1, 2]}), "data"),
    ];
    for (value, needle) in cases {
        let err = serde_json::from_value::<v03::Part>(value.clone()).unwrap_err();
        assert!(err.to_string().contains(needle), "{value}: {err}");
    }
    assert!(serde_json::from_value::<v03::Message>(json!({"role": "robot", "parts": []})).is_err());

    let message: v03::Message = serde_json::from_value(json!({
        "kind": "message", "messageId": "m", "role": "user",
        "parts": [{"kind": "text", "text": "a"}, {"kind": "file", "file": {"bytes": "not base64!"}}]
    }))
    .unwrap();
    let params = v03::MessageSendParams {
        message,
        configuration: None,
        metadata: None,
    };
    let err = a2a_types::SendMessageRequest::try_from(params).unwrap_err();
    assert_eq!(err.field(), "message.parts[1].file.bytes");
    let error = A2aError::from(err);
    assert_eq!(error.kind(), ErrorKind::InvalidParams);
    assert_eq!(
        error.field_violations()[0].field,
        "message.parts[1].file.bytes"
    );

    let task: v03::Task = serde_json::from_value(json!({
        "id": "t", "contextId": "c", "status": {"state": "working", "timestamp": "yesterday"}
    }))
    .unwrap();
    let err = a2a_types::Task::try_from(task).unwrap_err();
    assert_eq!(err.field(), "status.timestamp");

    let push: v03::TaskPushNotificationConfig = serde_json::from_value(json!({
        "taskId": "t", "pushNotificationConfig": {"url": "u", "authentication": {"schemes": []}}
    }))
    .unwrap();
    let err = a2a_types::TaskPushNotificationConfig::try_from(push).unwrap_err();
    assert_eq!(err.field(), "pushNotificationConfig.authentication.schemes");

    let get = v03::GetTaskPushNotificationConfigParams {
        id: "t".into(),
        push_notification_config_id: None,
        metadata: None,
    };
    let err = a2a_types::GetTaskPushNotificationConfigRequest::try_from(get).unwrap_err();
    assert_eq!(err.field(), "pushNotificationConfigId");
}

#[test]
fn a_v1_card_is_served_with_its_v03_interface() {
    let card: a2a_types::AgentCard = serde_json::from_value(json!({
        "name": "Echo", "description": "Echoes.", "version": "1.0.0",
        "supportedInterfaces": [
            {"url": "https://a.example.com/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "https://a.example.com/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ],
        "capabilities": {"streaming": true, "extendedAgentCard": true},
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "securityRequirements": [{"schemes": {"bearer": {}}}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": []}]
    }))
    .unwrap();
    let legacy = serde_json::to_value(v03::AgentCard::from(&card)).unwrap();
    assert_eq!(legacy["url"], "https://a.example.com/v03");
    assert_eq!(legacy["protocolVersion"], "0.3");
    assert_eq!(legacy["preferredTransport"], "JSONRPC");
    assert!(legacy.get("additionalInterfaces").is_none());
    assert_eq!(legacy["supportsAuthenticatedExtendedCard"], true);
    assert_eq!(
        legacy["securitySchemes"]["bearer"],
        json!({"type": "http", "scheme": "Bearer"})
    );
    assert_eq!(legacy["security"], json!([{"bearer": []}]));

    // A 1.0-only card: its interfaces, served on the same URLs, stand for v0.3.
    let mut only_v1 = card;
    only_v1.supported_interfaces.truncate(1);
    only_v1
        .supported_interfaces
        .push(a2a_types::AgentInterface::new(
            "https://a.example.com/rest",
            a2a_types::ProtocolBinding::HttpJson,
        ));
    let legacy = serde_json::to_value(v03::AgentCard::from(&only_v1)).unwrap();
    assert_eq!(legacy["url"], "https://a.example.com/rpc");
    assert_eq!(legacy["protocolVersion"], v03::PROTOCOL_VERSION);
    assert_eq!(
        legacy["additionalInterfaces"],
        json!([
            {"url": "https://a.example.com/rpc", "transport": "JSONRPC"},
            {"url": "https://a.example.com/rest", "transport": "HTTP+JSON"}
        ])
    );
}

/// Everything that does not survive a trip between the versions, and what happens to it.
#[test]
fn what_does_not_survive_a_round_trip() {
    use a2a_types::{Part, PartContent, SendMessageConfiguration, SendMessageRequest, TaskState};

    // v1.0 → v0.3 → v1.0.
    // 1. `tenant` has no v0.3 counterpart: it is dropped.
    let mut request = SendMessageRequest::new(a2a_types::Message::user_text("hi"));
    request.tenant = "acme".into();
    let back = SendMessageRequest::try_from(v03::MessageSendParams::from(request)).unwrap();
    assert_eq!(back.tenant, "");

    // 2. `historyLength: 0` means "no history" in v1.0 but "all of it" in v0.3: it is left
    //    out (the caller truncates), and a v0.3 `0` reads as unset.
    let get = a2a_types::GetTaskRequest {
        tenant: String::new(),
        id: "t".into(),
        history_length: Some(0),
    };
    assert_eq!(v03::TaskQueryParams::from(get).history_length, None);
    let query = v03::TaskQueryParams {
        id: "t".into(),
        history_length: Some(0),
        metadata: Some(Default::default()),
    };
    let get = a2a_types::GetTaskRequest::from(query);
    assert_eq!(get.history_length, None);

    // 3. Filename and media type of text and data parts have no v0.3 place.
    let part = Part::text("x")
        .with_media_type("text/markdown")
        .with_filename("a.md");
    let back = Part::try_from(v03::Part::from(part)).unwrap();
    assert_eq!((back.media_type.as_str(), back.filename.as_str()), ("", ""));

    // 4. Data that is not an object is wrapped, and stays wrapped.
    let part = Part::data(json!([1, 2]));
    let legacy = v03::Part::from(part);
    assert_eq!(
        serde_json::to_value(&legacy).unwrap(),
        json!({"kind": "data", "data": {"value": [1, 2]}})
    );
    let back = Part::try_from(legacy).unwrap();
    assert_eq!(back.content, PartContent::Data(json!({"value": [1, 2]})));

    // 5. `ROLE_UNSPECIFIED` has no v0.3 spelling: the role is left out.
    let mut message = a2a_types::Message::user_text("x");
    message.role = a2a_types::Role::Unspecified;
    assert_eq!(v03::Message::from(message).role, None);

    // 6. Push authentication: v0.3 lists schemes, v1.0 keeps the first.
    let push: v03::PushNotificationConfig = serde_json::from_value(json!({
        "url": "u", "authentication": {"schemes": ["Bearer", "Basic"]}
    }))
    .unwrap();
    let flat = a2a_types::TaskPushNotificationConfig::try_from(push).unwrap();
    assert_eq!(flat.authentication.as_ref().unwrap().scheme, "Bearer");
    assert_eq!(
        v03::PushNotificationConfig::from(flat)
            .authentication
            .unwrap()
            .schemes,
        ["Bearer"]
    );

    // 7. `final`: dropped going to v1.0, derived from the state coming back (terminal);
    //    a server that ends a v0.3 stream at input-required says so with `from_v1`.
    let event: v03::TaskStatusUpdateEvent = serde_json::from_value(json!({
        "kind": "status-update", "taskId": "t", "contextId": "c",
        "status": {"state": "input-required"}, "final": true
    }))
    .unwrap();
    let v1 = a2a_types::TaskStatusUpdateEvent::try_from(event).unwrap();
    assert!(!v03::TaskStatusUpdateEvent::from(v1.clone()).is_final);
    assert!(v03::TaskStatusUpdateEvent::from_v1(v1, true).is_final);

    // 8. v0.3 `unknown` is v1.0 `TASK_STATE_UNSPECIFIED` (invalid in v1.0 task data, but
    //    carried, not refused), and comes back as `unknown`.
    let task: v03::Task = serde_json::from_value(json!({
        "kind": "task", "id": "t", "contextId": "c", "status": {"state": "unknown"}
    }))
    .unwrap();
    let v1 = a2a_types::Task::try_from(task).unwrap();
    assert_eq!(v1.status.state, TaskState::Unspecified);
    assert_eq!(v03::Task::from(v1).status.state, v03::TaskState::Unknown);

    // 9. Timestamps come back in UTC with `Z`: `+00:00` (what Python's isoformat writes)
    //    and other offsets are normalised; the instant and the digits are kept.
    let status: v03::TaskStatus = serde_json::from_value(json!({
        "state": "working", "timestamp": "2025-06-01T14:00:00.123456+02:00"
    }))
    .unwrap();
    let back = v03::TaskStatus::from(a2a_types::TaskStatus::try_from(status).unwrap());
    assert_eq!(
        back.timestamp.as_deref(),
        Some("2025-06-01T12:00:00.123456Z")
    );

    // 10. Empty lists and explicit defaults come back absent: `blocking: true`,
    //     `history: []`; and `append`/`lastChunk` come back explicit.
    let config = v03::MessageSendConfiguration {
        blocking: Some(true),
        ..Default::default()
    };
    let v1 = SendMessageConfiguration::try_from(config).unwrap();
    assert_eq!(v03::MessageSendConfiguration::from(v1).blocking, None);

    // 11. Request metadata v1.0 has no place for (`tasks/get`, `tasks/resubscribe`, the
    //     push-config params) is dropped.
    let resubscribe = v03::TaskIdParams {
        id: "t".into(),
        metadata: Some(Default::default()),
    };
    let v1 = a2a_types::SubscribeToTaskRequest::from(resubscribe);
    assert_eq!(v03::TaskIdParams::from(v1).metadata, None);

    // 12. Error data: free-form v0.3 data is dropped, the v1.0 detail array is written.
    let error: v03::JsonRpcError =
        serde_json::from_value(json!({"code": -32001, "message": "gone", "data": {"id": 1}}))
            .unwrap();
    let back = v03::JsonRpcError::from(A2aError::from(error));
    assert_eq!(back.data.unwrap()[0]["reason"], "TASK_NOT_FOUND");

    // 13. Cards: `protocolVersion` becomes `Major.Minor`; signatures (which sign the other
    //     document) are dropped; interface tenants, `pkceRequired` and device-code flows have
    //     no v0.3 form; an OAuth scheme with several flows becomes one scheme per flow.
    let legacy: v03::AgentCard = serde_json::from_value(json!({
        "protocolVersion": "0.3.0", "name": "n", "description": "d", "url": "https://x",
        "version": "1", "capabilities": {},
        "securitySchemes": {"oauth": {"type": "oauth2", "flows": {
            "authorizationCode": {"authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {}},
            "clientCredentials": {"tokenUrl": "https://t", "scopes": {}}
        }}},
        "security": [{"oauth": ["read"]}],
        "defaultInputModes": [], "defaultOutputModes": [], "skills": [],
        "signatures": [{"protected": "p", "signature": "s"}]
    }))
    .unwrap();
    let card = a2a_types::AgentCard::try_from(legacy).unwrap();
    assert_eq!(card.supported_interfaces[0].protocol_version, "0.3");
    assert!(card.signatures.is_empty());
    assert_eq!(
        card.security_schemes.keys().collect::<Vec<_>>(),
        ["oauth", "oauth-clientCredentials"]
    );
    assert_eq!(
        serde_json::to_value(&card.security_requirements).unwrap(),
        json!([
            {"schemes": {"oauth": {"list": ["read"]}}},
            {"schemes": {"oauth-clientCredentials": {"list": ["read"]}}}
        ])
    );
    let back = serde_json::to_value(v03::AgentCard::from(&card)).unwrap();
    assert_eq!(back["protocolVersion"], "0.3");
    assert_eq!(back["securitySchemes"].as_object().unwrap().len(), 2);

    let mut v1_card = card;
    v1_card.security_schemes.insert(
        "device".into(),
        serde_json::from_value(json!({"oauth2SecurityScheme": {"flows": {"deviceCode": {
            "deviceAuthorizationUrl": "https://d", "tokenUrl": "https://t", "scopes": {}
        }}}}))
        .unwrap(),
    );
    let back = serde_json::to_value(v03::AgentCard::from(&v1_card)).unwrap();
    assert_eq!(
        back["securitySchemes"]["device"],
        json!({"type": "oauth2", "flows": {}})
    );
    let err =
        a2a_types::AgentCard::try_from(serde_json::from_value::<v03::AgentCard>(back).unwrap())
            .unwrap_err();
    assert_eq!(err.field(), "securitySchemes.device.flows");
}

/// The Python SDK 1.3.0 serves a card that lists a v0.3 interface with the v0.3 members
/// merged in; `dual_protocol_card` builds the same document from the v1.0 card alone.
#[test]
fn a_dual_protocol_card_matches_the_python_sdk() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/python-sdk/AgentCard/dual-protocol-v1-v03--well-known.json");
    let served = read(&path);
    let mut card: a2a_types::AgentCard = serde_json::from_value(served.clone()).unwrap();
    // Only the v1.0 card: no legacy members anywhere.
    card.extra.clear();
    for scheme in card.security_schemes.values_mut() {
        scheme.extra.clear();
    }
    for skill in &mut card.skills {
        skill.extra.clear();
    }
    let dual = v03::dual_protocol_card(&card);
    assert_eq!(serde_json::to_value(&dual).unwrap(), served);
    // A v0.3 reader reads it as a v0.3 card, and the same again.
    let legacy: v03::AgentCard = serde_json::from_value(served).unwrap();
    assert_eq!(legacy.url, "https://agent.example.com/a2a/v03");
    assert_eq!(v03::dual_protocol_card(&dual), dual);
}

#[test]
fn a_v03_error_goes_into_the_shared_json_rpc_envelope() {
    use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
    let error = v03::JsonRpcError::from(A2aError::task_not_found("t-1"));
    let response = JsonRpcResponse::error(RequestId::from(3_i64), error.clone().into());
    let json = serde_json::to_value(&response).unwrap();
    assert_eq!(json["error"]["code"], -32001);
    let back = JsonRpcResponse::from_value(json).unwrap();
    let a2a_types::jsonrpc::JsonRpcPayload::Error(read) = back.payload else {
        panic!("not an error")
    };
    assert_eq!(v03::JsonRpcError::from(read), error);
}

/// The v0.3 method a response fixture answers, by its file-name prefix.
fn response_method(file: &str) -> Option<v03::Method> {
    let prefix = file.split("--").next().unwrap_or_default();
    Some(match prefix {
        "message-send" => v03::Method::MessageSend,
        "message-stream" => v03::Method::MessageStream,
        "tasks-get" => v03::Method::TasksGet,
        "push-list" => v03::Method::PushConfigList,
        "push-delete" => v03::Method::PushConfigDelete,
        "agent-card" => v03::Method::GetAuthenticatedExtendedCard,
        "error" => return None,
        other => panic!("unknown response fixture prefix {other}"),
    })
}

/// Checks that `value` is a valid v1.0 params document of `method`.
fn assert_v1_params(method: a2a_types::jsonrpc::Method, value: Value) {
    use a2a_types::jsonrpc::Method as M;
    let outcome = match method {
        M::SendMessage | M::SendStreamingMessage => {
            a2a_types::json::from_value::<a2a_types::SendMessageRequest>(value).map(drop)
        }
        M::GetTask => a2a_types::json::from_value::<a2a_types::GetTaskRequest>(value).map(drop),
        M::CancelTask => {
            a2a_types::json::from_value::<a2a_types::CancelTaskRequest>(value).map(drop)
        }
        M::SubscribeToTask => {
            a2a_types::json::from_value::<a2a_types::SubscribeToTaskRequest>(value).map(drop)
        }
        M::CreateTaskPushNotificationConfig => {
            a2a_types::json::from_value::<a2a_types::TaskPushNotificationConfig>(value).map(drop)
        }
        M::GetTaskPushNotificationConfig => {
            a2a_types::json::from_value::<a2a_types::GetTaskPushNotificationConfigRequest>(value)
                .map(drop)
        }
        M::ListTaskPushNotificationConfigs => {
            a2a_types::json::from_value::<a2a_types::ListTaskPushNotificationConfigsRequest>(value)
                .map(drop)
        }
        M::DeleteTaskPushNotificationConfig => {
            a2a_types::json::from_value::<a2a_types::DeleteTaskPushNotificationConfigRequest>(value)
                .map(drop)
        }
        M::GetExtendedAgentCard => {
            a2a_types::json::from_value::<a2a_types::GetExtendedAgentCardRequest>(value).map(drop)
        }
        M::ListTasks => panic!("no v0.3 method stands for ListTasks"),
    };
    outcome.unwrap_or_else(|err| panic!("{method}: {err}"));
}

#[test]
fn json_params_and_results_translate_both_ways() {
    use v03::translate;
    let mut checked = 0;
    for dir in ["hand", "sdk"] {
        for (type_name, file, value) in load(dir) {
            let context = format!("{dir}/{type_name}/{file}");
            match type_name.as_str() {
                "JsonRpcRequest" => {
                    let method = v03::Method::parse(value["method"].as_str().unwrap()).unwrap();
                    let params = value.get("params").cloned().unwrap_or(Value::Null);
                    let v1 = translate::params_to_v1(method, params.clone())
                        .unwrap_or_else(|err| panic!("{context}: {err}"));
                    assert_v1_params(method.to_v1(), v1.clone());
                    let back = translate::params_from_v1(method, v1).unwrap();
                    match params_type(method) {
                        Some(params_type) => {
                            assert_eq!(back, after_round_trip(params_type, &params), "{context}");
                        }
                        None => assert_eq!(back, Value::Null, "{context}"),
                    }
                }
                "JsonRpcResponse" => {
                    let Some(method) = response_method(&file) else {
                        continue;
                    };
                    let result = value.get("result").cloned().unwrap_or(Value::Null);
                    let v1 = translate::result_to_v1(method, result.clone())
                        .unwrap_or_else(|err| panic!("{context}: {err}"));
                    let back = translate::result_from_v1(method, v1).unwrap();
                    match result_type(&file) {
                        Some(result_type) => {
                            assert_eq!(back, after_round_trip(result_type, &result), "{context}");
                        }
                        None => assert_eq!(back, Value::Null, "{context}"),
                    }
                }
                _ => continue,
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");

    // A v0.3 caller's mistakes are invalid params naming the member.
    let err = translate::params_to_v1(
        v03::Method::MessageSend,
        json!({"message": {"parts": [{"kind": "file", "file": {"bytes": "%%"}}]}}),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParams);
    assert_eq!(
        err.field_violations()[0].field,
        "message.parts[0].file.bytes"
    );
    let err =
        translate::params_to_v1(v03::Method::TasksGet, json!({"historyLength": 2})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidParams);
    assert!(err.message().contains("id"), "{}", err.message());

    // A v0.3 agent's bad answer is an invalid agent response.
    let err = translate::result_to_v1(v03::Method::TasksGet, json!({"kind": "task"})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidAgentResponse);

    // Stream elements: `final` from the state, or as the server says.
    let working = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
        "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}});
    let event = translate::stream_event_from_v1(working.clone(), None).unwrap();
    assert_eq!(event["kind"], "status-update");
    assert_eq!(event["status"]["state"], "input-required");
    assert_eq!(event["final"], false);
    let event = translate::stream_event_from_v1(working, Some(true)).unwrap();
    assert_eq!(event["final"], true);
    let back = translate::stream_event_to_v1(event).unwrap();
    assert_eq!(
        back["statusUpdate"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
}

#[test]
fn a_fetched_card_is_read_whichever_version_wrote_it() {
    use v03::translate::card_to_v1;
    let legacy = read(&fixtures().join("sdk/AgentCard/full.json"));
    let card = card_to_v1(legacy).unwrap();
    assert!(
        card.supported_interfaces
            .iter()
            .all(|interface| !interface.is_v1())
    );
    assert_eq!(
        card.supported_interfaces[0].url,
        "https://agent.example.com/a2a/v03"
    );
    assert_eq!(card.supported_interfaces.len(), 2);

    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python-sdk/AgentCard");
    let dual = card_to_v1(read(&python.join("dual-protocol-v1-v03--well-known.json"))).unwrap();
    assert_eq!(dual.supported_interfaces.len(), 4);
    assert_eq!(dual.legacy_url(), Some("https://agent.example.com/a2a/v03"));
    let v1 = card_to_v1(read(&python.join("full.json"))).unwrap();
    assert!(
        v1.supported_interfaces
            .iter()
            .any(a2a_types::AgentInterface::is_v1)
    );

    let err = card_to_v1(json!({"name": "x"})).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidAgentResponse);
}

#[test]
fn decode_errors_name_the_path_into_parts() {
    let err = a2a_types::json::from_value::<v03::MessageSendParams>(json!({
        "message": {"kind": "message", "messageId": "m", "role": "user",
            "parts": [{"kind": "text", "text": "a"}, {"kind": "data", "data": [1]}]}
    }))
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("message.parts[1]"), "{text}");
    assert!(text.contains("data"), "{text}");
}
