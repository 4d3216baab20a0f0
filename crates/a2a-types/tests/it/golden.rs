//! Golden wire tests. Every fixture under `tests/fixtures/valid/<Type>/` and
//! `tests/fixtures/python-sdk/<Type>/` must parse as `<Type>` and re-serialise to an equal
//! JSON value; every fixture under `tests/fixtures/invalid/<Type>/` must fail with an error
//! that contains its `error` text (the field at fault).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use a2a_test_support::fixtures::json_files_by_type;
use a2a_types::card::{
    AgentCardSignature, AgentExtension, AgentProvider, OAuthFlows, SecurityRequirement,
    SecurityScheme,
};
use a2a_types::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Parses `value` as `T` and writes it back.
fn through<T: DeserializeOwned + Serialize>(value: Value) -> Result<Value, String> {
    let typed: T = json::from_value(value).map_err(|err| err.to_string())?;
    Ok(serde_json::to_value(&typed).expect("serialise"))
}

/// Parses a JSON value as one type and writes it back.
type RoundTrip = fn(Value) -> Result<Value, String>;

/// Every data-model type a fixture directory may name, with its round trip.
const DATA_MODEL: &[(&str, RoundTrip)] =
    crate::fixture_types::fixture_types!(through, ("Empty", through::<Empty>));

/// The result type of each method's success response, for `JsonRpcResponse/<Method>--*`.
fn method_result(method: &str) -> Option<RoundTrip> {
    let parse: RoundTrip = match method {
        "SendMessage" => through::<SendMessageResponse>,
        "SendStreamingMessage" | "SubscribeToTask" => through::<StreamResponse>,
        "GetTask" | "CancelTask" => through::<Task>,
        "ListTasks" => through::<ListTasksResponse>,
        "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => {
            through::<TaskPushNotificationConfig>
        }
        "ListTaskPushNotificationConfigs" => through::<ListTaskPushNotificationConfigsResponse>,
        "DeleteTaskPushNotificationConfig" => through::<Empty>,
        "GetExtendedAgentCard" => through::<AgentCard>,
        _ => return None,
    };
    Some(parse)
}

/// The request type of each method, for `JsonRpcRequest` params.
fn method_params(method: &str) -> Option<RoundTrip> {
    let parse: RoundTrip = match method {
        "SendMessage" | "SendStreamingMessage" => through::<SendMessageRequest>,
        "GetTask" => through::<GetTaskRequest>,
        "ListTasks" => through::<ListTasksRequest>,
        "CancelTask" => through::<CancelTaskRequest>,
        "SubscribeToTask" => through::<SubscribeToTaskRequest>,
        "CreateTaskPushNotificationConfig" => through::<TaskPushNotificationConfig>,
        "GetTaskPushNotificationConfig" => through::<GetTaskPushNotificationConfigRequest>,
        "ListTaskPushNotificationConfigs" => through::<ListTaskPushNotificationConfigsRequest>,
        "DeleteTaskPushNotificationConfig" => through::<DeleteTaskPushNotificationConfigRequest>,
        "GetExtendedAgentCard" => through::<GetExtendedAgentCardRequest>,
        _ => return None,
    };
    Some(parse)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// Parses a fixture as its type and writes it back; `Err` when parsing fails.
fn round_trip(type_name: &str, path: &Path, value: Value) -> Result<Value, String> {
    if let Some((_, parse)) = DATA_MODEL.iter().find(|(name, _)| *name == type_name) {
        return parse(value);
    }
    let stem = path.file_stem().unwrap().to_string_lossy();
    match type_name {
        "JsonRpcRequest" => {
            let mut request: jsonrpc::JsonRpcRequest =
                json::from_value(value).map_err(|err| err.to_string())?;
            let parse = method_params(&request.method)
                .ok_or_else(|| format!("unknown method {}", request.method))?;
            // The envelope is written back with the params as our types wrote them, so the
            // comparison covers both.
            request.params = Some(parse(request.params.take().unwrap_or(Value::Null))?);
            Ok(serde_json::to_value(&request).unwrap())
        }
        "JsonRpcResponse" => {
            let mut response: jsonrpc::JsonRpcResponse =
                json::from_value(value).map_err(|err| err.to_string())?;
            let method = stem.split("--").next().unwrap();
            let parse = method_result(method)
                .unwrap_or_else(|| panic!("{}: name must start with a method", path.display()));
            let jsonrpc::JsonRpcPayload::Result(result) = &mut response.payload else {
                return Err("expected a success response".into());
            };
            let typed = parse(result.clone())?;
            // `null` and `{}` both read as Empty; we write `{}`, the SDK writes `null`.
            if !result.is_null() {
                *result = typed;
            }
            Ok(serde_json::to_value(&response).unwrap())
        }
        "JsonRpcErrorResponse" => {
            let response: jsonrpc::JsonRpcResponse =
                json::from_value(value).map_err(|err| err.to_string())?;
            let jsonrpc::JsonRpcPayload::Error(error) = &response.payload else {
                return Err("expected an error response".into());
            };
            let recovered = A2aError::from_jsonrpc_error(error);
            assert_eq!(
                recovered.kind().jsonrpc_code(),
                error.code,
                "{}",
                path.display()
            );
            Ok(serde_json::to_value(&response).unwrap())
        }
        "RpcStatusBody" => {
            let body: error::RpcStatusBody =
                json::from_value(value).map_err(|err| err.to_string())?;
            let recovered = A2aError::from_status_body(&body);
            assert_eq!(
                recovered.message(),
                body.error.message,
                "{}",
                path.display()
            );
            Ok(serde_json::to_value(&body).unwrap())
        }
        "ProblemDetails" => {
            let body: error::ProblemDetails =
                json::from_value(value).map_err(|err| err.to_string())?;
            let _ = A2aError::from_problem(&body);
            Ok(serde_json::to_value(&body).unwrap())
        }
        "LegacyErrorBody" => {
            let body: error::LegacyErrorBody =
                json::from_value(value).map_err(|err| err.to_string())?;
            let _ = A2aError::from_legacy(&body, 400);
            Ok(serde_json::to_value(&body).unwrap())
        }
        "RestResponseBody" => through::<Empty>(value),
        other => panic!("{}: no type named {other}", path.display()),
    }
}

/// Removes members holding `""` or `[]`, at every depth: the implicit-presence defaults that
/// ProtoJSON omits and an encoder may still print.
fn without_empty_defaults(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .filter(|(_, member)| {
                    !(member.as_str() == Some("") || member.as_array().is_some_and(Vec::is_empty))
                })
                .map(|(key, member)| (key.clone(), without_empty_defaults(member)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty_defaults).collect()),
        other => other.clone(),
    }
}

/// Python SDK fixtures whose encoder settings differ from plain ProtoJSON, and why. They must
/// still round-trip, but are compared without `""` / `[]` members on either side.
const PYTHON_EMPTY_DEFAULTS: &[(&str, &str)] = &[
    // The SDK prints every default inside ListTasksResponse (`always_print_fields_with_no_presence`);
    // we print only the four members the spec requires.
    ("ListTasksResponse", "ListTasksResponse/"),
    ("ListTasks via JSON-RPC", "JsonRpcResponse/ListTasks--"),
    // The SDK omits a card's empty required lists; we always write them (spec §4 rule 10).
    ("minimal card", "AgentCard/minimal"),
];

fn compare_leniently(path: &Path) -> bool {
    let path = path.to_string_lossy();
    PYTHON_EMPTY_DEFAULTS
        .iter()
        .any(|(_, fragment)| path.contains(&format!("python-sdk/{fragment}")))
}

fn check_valid_dir(root: &Path) -> Vec<String> {
    let mut failures = Vec::new();
    for (type_name, path) in json_files_by_type(root) {
        let value = read_json(&path);
        match round_trip(&type_name, &path, value.clone()) {
            Ok(written) if written == value => {}
            Ok(written) if compare_leniently(&path) => {
                eprintln!("compared without empty defaults: {}", path.display());
                if without_empty_defaults(&written) != without_empty_defaults(&value) {
                    failures.push(format!("{}: differs\n  wrote {written}", path.display()));
                }
            }
            Ok(written) => failures.push(format!(
                "{}: differs after a round trip\n  read  {value}\n  wrote {written}",
                path.display()
            )),
            Err(err) => failures.push(format!("{}: {err}", path.display())),
        }
    }
    failures
}

/// Fails listing every failure when there is any.
fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spec_and_seed_examples_round_trip_unchanged() {
    let failures = check_valid_dir(&fixtures().join("valid"));
    assert_no_failures(&failures);
}

#[test]
fn python_sdk_documents_round_trip_unchanged() {
    let failures = check_valid_dir(&fixtures().join("python-sdk"));
    assert_no_failures(&failures);
}

#[test]
fn malformed_documents_fail_naming_the_field() {
    let mut failures = Vec::new();
    for (type_name, path) in json_files_by_type(&fixtures().join("invalid")) {
        let case = read_json(&path);
        let expected = case["error"].as_str().expect("an `error` string");
        match round_trip(&type_name, &path, case["input"].clone()) {
            Ok(written) => failures.push(format!("{}: parsed as {written}", path.display())),
            Err(err) if err.contains(expected) => {}
            Err(err) => failures.push(format!(
                "{}: error {err:?} does not mention {expected:?}",
                path.display()
            )),
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn the_golden_suite_touches_every_type_of_the_data_model() {
    let mut seen = BTreeSet::new();
    for root in ["valid", "python-sdk"] {
        for (type_name, _) in json_files_by_type(&fixtures().join(root)) {
            seen.insert(type_name);
        }
    }
    let missing: Vec<_> = DATA_MODEL
        .iter()
        .map(|(name, _)| *name)
        .chain([
            "JsonRpcRequest",
            "JsonRpcResponse",
            "JsonRpcErrorResponse",
            "RpcStatusBody",
            "ProblemDetails",
            "LegacyErrorBody",
        ])
        .filter(|name| !seen.contains(*name) && *name != "Empty")
        .collect();
    assert!(missing.is_empty(), "no fixture for {missing:?}");
}
