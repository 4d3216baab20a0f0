//! Every valid golden fixture of a2a-types (`valid/` and `python-sdk/`) read as its type,
//! converted to protobuf, encoded, decoded, converted back, and compared with the original.
//!
//! Numbers are first put in the form a `google.protobuf.Value` gives back (a whole double
//! within ±2^53 is a JSON integer: the Python SDK's `1.0` reads back as `1`). What protobuf
//! drops is listed in [`EXPECTED_DROPS`], what it refuses in [`EXPECTED_REFUSALS`], both
//! strictly: an unlisted case fails, and so does a listed one that no longer happens.

use std::path::{Path, PathBuf};

use a2a_test_support::fixtures::json_files_by_type;
use a2a_types::card::{
    AgentCardSignature, AgentExtension, AgentProvider, OAuthFlows, SecurityRequirement,
    SecurityScheme,
};
use a2a_types::*;
use serde_json::{Number, Value};

use crate::wire::{Wire, round_trip};

/// Whether protobuf carried the fixture whole, or dropped something `carried` removes.
#[derive(Debug, PartialEq)]
enum Outcome {
    Whole,
    Dropped,
}

type Check = fn(Value) -> Result<Outcome, String>;

fn check<T: Wire>(json: Value) -> Result<Outcome, String> {
    let original: T =
        json::from_value(canonical_numbers(json)).map_err(|err| format!("a2a-types: {err}"))?;
    let expected = original.clone().carried();
    let outcome = if expected == original {
        Outcome::Whole
    } else {
        Outcome::Dropped
    };
    let back = round_trip(original).map_err(|err| format!("refused: {err}"))?;
    if back != expected {
        return Err(format!(
            "differs after the round trip\n  expected {expected:?}\n  got      {back:?}"
        ));
    }
    Ok(outcome)
}

/// Each fixture directory with a protobuf counterpart.
const TYPES: &[(&str, Check)] = crate::fixture_types::fixture_types!(check);

/// Fixture directories with no protobuf counterpart: error bodies of the JSON bindings.
/// (`JsonRpcRequest` and `JsonRpcResponse` are not here: their params and results are
/// checked as the operation's message.)
const NO_PROTO_COUNTERPART: &[&str] = &[
    "JsonRpcErrorResponse",
    "RpcStatusBody",
    "ProblemDetails",
    "LegacyErrorBody",
    "RestResponseBody",
];

/// Fixtures protobuf carries only in part: `carried` drops something, and the rest must
/// come back equal. Each names what is lost; `losses.rs` shows each kind of loss.
const EXPECTED_DROPS: &[(&str, &str)] = &[(
    "python-sdk/AgentCard/dual-protocol-v1-v03--well-known.json",
    "the v0.3 members the SDK merges into a hybrid card (top-level url, preferredTransport, \
     protocolVersion, security, supportsAuthenticatedExtendedCard; flat v0.3 keys in each \
     security scheme; security on skills): a2a-types keeps them in `extra`, proto has no field",
)];

/// Fixtures a2a-types reads from JSON whose protobuf form it refuses, and why.
const EXPECTED_REFUSALS: &[(&str, &str)] = &[(
    "valid/AgentCard/extra-minimal-empty-arrays.json",
    "`\"description\": \"\"` is present in JSON, but proto3 cannot tell an empty required \
     string from an absent one, and a2a-types refuses a card without a description",
)];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../a2a-types/tests/fixtures")
}

/// Every number as a `google.protobuf.Value` gives it back.
fn canonical_numbers(value: Value) -> Value {
    match value {
        Value::Number(number) => {
            let double = number.as_f64().unwrap();
            if double.fract() == 0.0 && double.abs() <= 9_007_199_254_740_992.0 {
                Value::Number(Number::from(double as i64))
            } else {
                Value::Number(Number::from_f64(double).unwrap())
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical_numbers).collect()),
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, member)| (key, canonical_numbers(member)))
                .collect(),
        ),
        other => other,
    }
}

/// The check for the type a fixture directory names, with the part of the document it
/// applies to; `None` for a document with nothing to convert (an error body, an empty result).
fn checks_for(type_name: &str, path: &Path, document: Value) -> Option<(Check, Value)> {
    if let Some((_, check)) = TYPES.iter().find(|(name, _)| *name == type_name) {
        return Some((*check, document));
    }
    if NO_PROTO_COUNTERPART.contains(&type_name) {
        return None;
    }
    let (method, payload, operation_type) = match type_name {
        "JsonRpcRequest" => {
            let method = document["method"].as_str().unwrap().to_owned();
            (
                method.clone(),
                document["params"].clone(),
                request_type(&method),
            )
        }
        "JsonRpcResponse" => {
            let stem = path.file_stem().unwrap().to_string_lossy();
            let method = stem.split("--").next().unwrap().to_owned();
            (
                method.clone(),
                document["result"].clone(),
                result_type(&method),
            )
        }
        other => panic!("{}: no type named {other}", path.display()),
    };
    let operation_type =
        operation_type.unwrap_or_else(|| panic!("{}: unknown method {method}", path.display()));
    if payload.is_null() {
        return None; // DeleteTaskPushNotificationConfig answers google.protobuf.Empty.
    }
    let (_, check) = TYPES.iter().find(|(name, _)| *name == operation_type)?;
    Some((*check, payload))
}

fn request_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "SendMessage" | "SendStreamingMessage" => "SendMessageRequest",
        "GetTask" => "GetTaskRequest",
        "ListTasks" => "ListTasksRequest",
        "CancelTask" => "CancelTaskRequest",
        "SubscribeToTask" => "SubscribeToTaskRequest",
        "CreateTaskPushNotificationConfig" => "TaskPushNotificationConfig",
        "GetTaskPushNotificationConfig" => "GetTaskPushNotificationConfigRequest",
        "ListTaskPushNotificationConfigs" => "ListTaskPushNotificationConfigsRequest",
        "DeleteTaskPushNotificationConfig" => "DeleteTaskPushNotificationConfigRequest",
        "GetExtendedAgentCard" => "GetExtendedAgentCardRequest",
        _ => return None,
    })
}

fn result_type(method: &str) -> Option<&'static str> {
    Some(match method {
        "SendMessage" => "SendMessageResponse",
        "SendStreamingMessage" | "SubscribeToTask" => "StreamResponse",
        "GetTask" | "CancelTask" => "Task",
        "ListTasks" => "ListTasksResponse",
        "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => {
            "TaskPushNotificationConfig"
        }
        "ListTaskPushNotificationConfigs" => "ListTaskPushNotificationConfigsResponse",
        "DeleteTaskPushNotificationConfig" => "Empty",
        "GetExtendedAgentCard" => "AgentCard",
        _ => return None,
    })
}

fn listed<'a>(list: &'a [(&str, &str)], path: &str) -> Option<&'a str> {
    list.iter()
        .find(|(fragment, _)| path.ends_with(fragment))
        .map(|(fragment, _)| *fragment)
}

/// Runs every fixture under `roots`; returns the failures and how many were checked.
fn run(roots: &[&str]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut seen_drops = Vec::new();
    let mut seen_refusals = Vec::new();
    for root in roots {
        for (type_name, path) in json_files_by_type(&fixtures().join(root)) {
            let text = std::fs::read_to_string(&path).unwrap();
            let document: Value = serde_json::from_str(&text).unwrap();
            let Some((check, payload)) = checks_for(&type_name, &path, document) else {
                continue;
            };
            checked += 1;
            let shown = format!("{root}/{type_name}/{}", path.file_name().unwrap().display());
            match (
                check(payload),
                listed(EXPECTED_DROPS, &shown),
                listed(EXPECTED_REFUSALS, &shown),
            ) {
                (Ok(Outcome::Whole), None, None) => {}
                (Ok(Outcome::Dropped), Some(fragment), None) => seen_drops.push(fragment),
                (Err(err), None, Some(fragment)) if err.starts_with("refused: ") => {
                    eprintln!("refused as expected: {shown}: {err}");
                    seen_refusals.push(fragment);
                }
                (Ok(Outcome::Dropped), None, _) => failures.push(format!(
                    "{shown}: protobuf drops part of it; list it in EXPECTED_DROPS"
                )),
                (Ok(Outcome::Whole | Outcome::Dropped), Some(_), Some(_)) => {
                    failures.push(format!("{shown}: listed both as dropping and as refused"));
                }
                (Ok(Outcome::Whole), Some(_), None) => {
                    failures.push(format!(
                        "{shown}: listed in EXPECTED_DROPS but loses nothing"
                    ));
                }
                (Ok(_), None, Some(_)) => {
                    failures.push(format!("{shown}: listed in EXPECTED_REFUSALS but accepted"));
                }
                (Err(err), _, _) => failures.push(format!("{shown}: {err}")),
            }
        }
    }
    for (fragment, _) in EXPECTED_DROPS.iter().chain(EXPECTED_REFUSALS) {
        let under_roots = roots.iter().any(|root| fragment.starts_with(root));
        if under_roots && !seen_drops.contains(fragment) && !seen_refusals.contains(fragment) {
            failures.push(format!("{fragment}: listed but not seen"));
        }
    }
    (failures, checked)
}

fn assert_no_failures((failures, checked): (Vec<String>, usize)) {
    eprintln!("{checked} fixtures checked");
    assert!(
        checked > 0,
        "no fixtures found under {}",
        fixtures().display()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spec_and_seed_fixtures_survive_protobuf() {
    assert_no_failures(run(&["valid"]));
}

#[test]
fn python_sdk_fixtures_survive_protobuf() {
    assert_no_failures(run(&["python-sdk"]));
}

#[test]
fn every_fixture_directory_is_either_converted_or_skipped_by_name() {
    for root in ["valid", "python-sdk"] {
        for (type_name, _) in json_files_by_type(&fixtures().join(root)) {
            let known = TYPES.iter().any(|(name, _)| *name == type_name)
                || NO_PROTO_COUNTERPART.contains(&type_name.as_str())
                || ["JsonRpcRequest", "JsonRpcResponse"].contains(&type_name.as_str());
            assert!(
                known,
                "{root}/{type_name}: not converted and not skipped by name"
            );
        }
    }
}
