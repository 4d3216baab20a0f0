//! Every body format, both directions: build, serialise to text, parse back.

use serde_json::{Value, json};

use super::body::JsonRpcError;
use super::{
    A2aError, ErrorKind, LegacyErrorBody, ProblemDetails, RestStatusProfile, RpcStatusBody,
};

/// An error of `kind` using every field the formats must carry.
fn full(kind: ErrorKind) -> A2aError {
    A2aError::new(kind, format!("sample message for {}", kind.reason()))
        .with_metadata("taskId", "t-1")
        .with_metadata("attempt", "2")
        .with_field_violation("message.parts[0]", "must not be empty")
        .with_field_violation("configuration.historyLength", "must not be negative")
}

fn samples(kind: ErrorKind) -> [A2aError; 2] {
    [full(kind), A2aError::from(kind)]
}

fn assert_same(recovered: &A2aError, original: &A2aError, context: &str) {
    assert_eq!(recovered.kind(), original.kind(), "kind, {context}");
    assert_eq!(
        recovered.message(),
        original.message(),
        "message, {context}"
    );
    assert_eq!(
        recovered.metadata(),
        original.metadata(),
        "metadata, {context}"
    );
    assert_eq!(
        recovered.field_violations(),
        original.field_violations(),
        "violations, {context}"
    );
    assert_eq!(recovered.domain(), original.domain(), "domain, {context}");
    assert_eq!(recovered, original, "{context}");
}

#[test]
fn every_kind_survives_a_jsonrpc_error_round_trip_in_every_profile() {
    for profile in RestStatusProfile::ALL {
        for original in ErrorKind::ALL.into_iter().flat_map(samples) {
            let text = serde_json::to_string(&original.to_jsonrpc_error()).unwrap();
            let parsed: JsonRpcError = serde_json::from_str(&text).unwrap();
            let context = format!("{:?} {profile}: {text}", original.kind());
            assert_same(&A2aError::from_jsonrpc_error(&parsed), &original, &context);
        }
    }
}

#[test]
fn every_kind_survives_a_status_body_round_trip_in_every_profile() {
    for profile in RestStatusProfile::ALL {
        for original in ErrorKind::ALL.into_iter().flat_map(samples) {
            let status = original.kind().http_status(profile);
            let text = serde_json::to_string(&original.to_status_body(profile)).unwrap();
            let context = format!("{:?} {profile}: {text}", original.kind());
            let typed: RpcStatusBody = serde_json::from_str(&text).unwrap();
            assert_eq!(typed.error.code, status, "{context}");
            assert_same(&A2aError::from_status_body(&typed), &original, &context);
            assert_same(
                &A2aError::from_http_body(status, text.as_bytes()),
                &original,
                &context,
            );
        }
    }
}

#[test]
fn every_kind_survives_a_problem_round_trip_in_every_profile() {
    for profile in RestStatusProfile::ALL {
        for original in ErrorKind::ALL.into_iter().flat_map(samples) {
            let status = original.kind().http_status(profile);
            let problem = original.to_problem(profile, Some("/tasks/t-1"));
            let text = serde_json::to_string(&problem).unwrap();
            let context = format!("{:?} {profile}: {text}", original.kind());
            let typed: ProblemDetails = serde_json::from_str(&text).unwrap();
            assert_eq!(typed, problem, "{context}");
            assert_same(&A2aError::from_problem(&typed), &original, &context);
            assert_same(
                &A2aError::from_http_body(status, text.as_bytes()),
                &original,
                &context,
            );
        }
    }
}

#[test]
fn every_kind_survives_a_legacy_body_round_trip_in_every_profile() {
    for profile in RestStatusProfile::ALL {
        for kind in ErrorKind::ALL {
            let original = A2aError::new(kind, "legacy text");
            let text = serde_json::to_string(&original.to_legacy()).unwrap();
            let recovered = A2aError::from_http_body(kind.http_status(profile), text.as_bytes());
            assert_same(
                &recovered,
                &original,
                &format!("{kind:?} {profile}: {text}"),
            );
        }
    }
}

#[test]
fn the_jsonrpc_error_matches_the_spec_example() {
    let error = A2aError::task_not_found("t-9").to_jsonrpc_error();
    let expected = json!({"code": -32001, "message": "Task not found", "data": [{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org", "metadata": {"taskId": "t-9"}}]});
    assert_eq!(serde_json::to_value(&error).unwrap(), expected);
}

#[test]
fn the_status_body_matches_the_spec_example_and_its_typed_form() {
    let error = A2aError::task_not_found("task-123");
    let body = error.to_status_body(RestStatusProfile::Spec);
    let expected = json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
                     "domain": "a2a-protocol.org", "metadata": {"taskId": "task-123"}}]}});
    assert_eq!(body, expected);
    let typed = error.to_rpc_status(RestStatusProfile::Spec);
    assert_eq!(serde_json::to_value(&typed).unwrap(), body);
    assert_eq!(
        body.to_string(),
        serde_json::to_string(&typed).unwrap(),
        "member order"
    );
}

#[test]
fn a_bad_request_detail_follows_the_error_info_when_there_are_violations() {
    let error = A2aError::invalid_field("message.messageId", "is required");
    let data = error.to_jsonrpc_error().data.unwrap();
    assert_eq!(data[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(data[0]["reason"], "INVALID_PARAMS");
    assert_eq!(
        data[1],
        json!({"@type": "type.googleapis.com/google.rpc.BadRequest",
               "fieldViolations": [{"field": "message.messageId", "description": "is required"}]})
    );
    let body = error.to_status_body(RestStatusProfile::Spec);
    assert_eq!(body["error"]["details"], data);
}

#[test]
fn the_problem_body_has_the_documented_shape() {
    let error = A2aError::task_not_cancelable("t-9");
    let problem = error.to_problem(RestStatusProfile::Rfc7807Java, Some("/tasks/t-9:cancel"));
    let expected = json!({
        "type": "https://a2a-protocol.org/errors/task-not-cancelable",
        "title": "Task cannot be canceled", "status": 409,
        "detail": "Task cannot be canceled", "details": "Task cannot be canceled",
        "instance": "/tasks/t-9:cancel",
        "reason": "TASK_NOT_CANCELABLE", "domain": "a2a-protocol.org",
        "metadata": {"taskId": "t-9"}});
    assert_eq!(serde_json::to_value(&problem).unwrap(), expected);
    let bare = A2aError::internal().to_problem(RestStatusProfile::Spec, None);
    let value = serde_json::to_value(&bare).unwrap();
    for absent in ["instance", "metadata", "errors"] {
        assert!(value.get(absent).is_none(), "{absent} in {value}");
    }
}

fn status_body(code: u16, status: &str) -> Vec<u8> {
    json!({"error": {"code": code, "status": status, "message": "m"}})
        .to_string()
        .into_bytes()
}

#[test]
fn v1_0_0_statuses_without_error_info_are_classified_sensibly() {
    use ErrorKind::*;
    let cases = [
        (409, "FAILED_PRECONDITION", TaskNotCancelable),
        (415, "INVALID_ARGUMENT", ContentTypeNotSupported),
        (502, "INTERNAL", InvalidAgentResponse),
        (400, "UNIMPLEMENTED", UnsupportedOperation),
        (400, "FAILED_PRECONDITION", UnsupportedOperation),
        (400, "INVALID_ARGUMENT", InvalidParams),
        (404, "NOT_FOUND", TaskNotFound),
        (405, "FAILED_PRECONDITION", UnsupportedOperation),
        (500, "UNAVAILABLE", Unavailable),
        (418, "", InvalidRequest),
        (5, "NOT_FOUND", TaskNotFound),
    ];
    for (code, status, expected) in cases {
        let error = A2aError::from_http_body(code, &status_body(code, status));
        assert_eq!(error.kind(), expected, "{code} {status}");
        assert_eq!(error.message(), "m");
    }
}

fn jsonrpc_error(value: Value) -> A2aError {
    A2aError::from_jsonrpc_error(&serde_json::from_value(value).unwrap())
}

#[test]
fn jsonrpc_minus_32000_errors_are_told_apart_by_their_error_info_reason() {
    for kind in ErrorKind::ALL
        .into_iter()
        .filter(|k| k.jsonrpc_code() == -32000)
    {
        let error = jsonrpc_error(json!({"code": -32000, "message": "x", "data": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": kind.reason()}]}));
        assert_eq!(error.kind(), kind);
    }
    let without_reason = jsonrpc_error(json!({"code": -32000, "message": "Server error"}));
    assert_eq!(without_reason.kind(), ErrorKind::Internal);
    assert_eq!(without_reason.message(), "Server error");
}

#[test]
fn a_jsonrpc_error_with_v0_3_free_form_data_keeps_the_kind_of_its_code() {
    let cases = [
        json!("task t-1 is gone"),
        json!({"taskId": "t-1"}),
        json!(null),
        json!([1, "two", {"three": 3}]),
        json!({"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": "x"}),
    ];
    for data in cases {
        let error =
            jsonrpc_error(json!({"code": -32001, "message": "Task not found", "data": data}));
        assert_eq!(error.kind(), ErrorKind::TaskNotFound, "{data}");
        assert!(error.metadata().is_empty());
    }
    let no_message = jsonrpc_error(json!({"code": -32002}));
    assert_eq!(no_message.kind(), ErrorKind::TaskNotCancelable);
    assert_eq!(no_message.message(), "Task cannot be canceled");
}

#[test]
fn a_single_detail_object_in_place_of_the_array_is_understood() {
    let error = jsonrpc_error(json!({"code": -32000, "message": "slow down", "data":
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVER_BUSY",
         "domain": "a2a-protocol.org", "metadata": {"retryAfter": 5, "hint": null}}}));
    assert_eq!(error.kind(), ErrorKind::ServerBusy);
    assert_eq!(
        error.metadata().len(),
        1,
        "null metadata values are dropped"
    );
    assert_eq!(
        error.metadata()["retryAfter"],
        "5",
        "non-string values keep their JSON text"
    );
}

#[test]
fn an_unknown_jsonrpc_code_falls_back_to_the_reason_then_to_internal() {
    let info =
        json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND"});
    let by_reason = jsonrpc_error(json!({"code": -32050, "message": "x", "data": [info]}));
    assert_eq!(by_reason.kind(), ErrorKind::TaskNotFound);
    let nothing = jsonrpc_error(json!({"code": -32050, "message": "x"}));
    assert_eq!(nothing.kind(), ErrorKind::Internal);
}

#[test]
fn reasons_from_another_domain_are_not_interpreted_but_the_domain_is_kept() {
    let body = json!({"error": {"code": 503, "status": "UNAVAILABLE", "message": "agent down",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
                     "domain": "gateway.example", "metadata": {"executed": "false"}}]}});
    let error = A2aError::from_http_body(503, body.to_string().as_bytes());
    assert_eq!(error.kind(), ErrorKind::Unavailable);
    assert_eq!(error.domain(), "gateway.example");
    assert_eq!(error.metadata()["executed"], "false");
}

#[test]
fn legacy_bodies_are_classified_by_their_label_then_by_status() {
    use ErrorKind::*;
    let cases = [
        (
            json!({"error": "TASK_NOT_FOUND", "message": "no such task"}),
            404,
            TaskNotFound,
            "no such task",
        ),
        (
            json!({"error": "task-not-cancelable", "message": "done"}),
            400,
            TaskNotCancelable,
            "done",
        ),
        (
            json!({"error": "invalid_params", "message": "bad"}),
            400,
            InvalidParams,
            "bad",
        ),
        (
            json!({"error": "Not Found", "message": "nope", "status": 404, "path": "/x"}),
            404,
            TaskNotFound,
            "nope",
        ),
        (
            json!({"error": "Too Many Requests"}),
            429,
            ServerBusy,
            "Too Many Requests",
        ),
        (
            json!({"error": "UNSUPPORTED_OPERATION"}),
            400,
            UnsupportedOperation,
            "This operation is not supported",
        ),
    ];
    for (body, status, kind, message) in cases {
        let error = A2aError::from_http_body(status, body.to_string().as_bytes());
        assert_eq!((error.kind(), error.message()), (kind, message), "{body}");
    }
    let typed = LegacyErrorBody {
        error: "SERVER_BUSY".into(),
        message: "later".into(),
    };
    assert_eq!(A2aError::from_legacy(&typed, 500).kind(), ServerBusy);
}

#[test]
fn a_garbage_body_falls_back_to_the_http_status_without_echoing_it() {
    let long = "x".repeat(201);
    let cases: [(u16, &[u8], ErrorKind, &str); 8] = [
        (
            503,
            b"<html><body>Service Unavailable</body></html>",
            ErrorKind::Unavailable,
            "HTTP 503",
        ),
        (
            502,
            b"Bad Gateway",
            ErrorKind::InvalidAgentResponse,
            "HTTP 502: Bad Gateway",
        ),
        (500, long.as_bytes(), ErrorKind::Internal, "HTTP 500"),
        (500, b"line one\nline two", ErrorKind::Internal, "HTTP 500"),
        (
            404,
            b"\xff\xfe\x00garbage",
            ErrorKind::TaskNotFound,
            "HTTP 404",
        ),
        (400, b"", ErrorKind::InvalidRequest, "HTTP 400"),
        (
            500,
            b"{\"unexpected\": true}",
            ErrorKind::Internal,
            "HTTP 500",
        ),
        (200, b"[1, 2]", ErrorKind::Internal, "HTTP 200"),
    ];
    for (status, body, kind, message) in cases {
        let error = A2aError::from_http_body(status, body);
        assert_eq!((error.kind(), error.message()), (kind, message), "{status}");
    }
}

#[test]
fn a_jsonrpc_error_response_in_an_http_body_is_understood() {
    let body = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "who are you",
        "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "AUTHENTICATION",
                  "domain": "a2a-protocol.org"}]}});
    let error = A2aError::from_http_body(401, body.to_string().as_bytes());
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::Authentication, "who are you")
    );
}

#[test]
fn a_status_body_with_extra_members_and_unknown_details_round_trips() {
    let text = json!({"error": {"code": 400, "status": "FAILED_PRECONDITION", "message": "no",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "5s"},
                    {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "VERSION_NOT_SUPPORTED",
                     "domain": "a2a-protocol.org", "metadata": {}}], "localized": true},
        "type": "https://a2a-protocol.org/errors/version-not-supported", "title": "t", "status": 400})
    .to_string();
    let body: RpcStatusBody = serde_json::from_str(&text).unwrap();
    assert_eq!(body.error.details.len(), 2);
    assert_eq!(body.extra["title"], "t");
    assert_eq!(serde_json::to_string(&body).unwrap(), text);
    assert_eq!(body.to_value().to_string(), text);
    let error = A2aError::from_http_body(400, text.as_bytes());
    assert_eq!(
        error.kind(),
        ErrorKind::VersionNotSupported,
        "read as a status body, not a problem"
    );
}

#[test]
fn a_problem_keeps_unknown_members_and_falls_back_to_slug_and_status() {
    let text = json!({"type": "https://a2a-protocol.org/errors/content-type-not-supported",
        "title": "Unsupported", "status": 415, "traceId": "abc", "extra": {"nested": [1]}})
    .to_string();
    let problem: ProblemDetails = serde_json::from_str(&text).unwrap();
    assert_eq!(problem.extensions["traceId"], "abc");
    assert_eq!(serde_json::to_string(&problem).unwrap(), text);
    let error = A2aError::from_problem(&problem);
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::ContentTypeNotSupported, "Unsupported")
    );

    let blank = json!({"type": "about:blank", "title": "Conflict", "status": 409});
    let error = A2aError::from_http_body(409, blank.to_string().as_bytes());
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::TaskNotCancelable, "Conflict")
    );

    let only_details = json!({"details": "java says no"});
    let error = A2aError::from_http_body(501, only_details.to_string().as_bytes());
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::UnsupportedOperation, "java says no")
    );
}

#[test]
fn a_status_body_without_a_code_takes_its_kind_from_the_http_status() {
    let message_only = json!({"error": {"message": "no code here"}});
    let error = A2aError::from_http_body(403, message_only.to_string().as_bytes());
    assert_eq!(
        (error.kind(), error.message()),
        (ErrorKind::Authorization, "no code here")
    );
}
