//! Mapping tables and constructors. The expected values are written out here, from the spec's
//! error tables, our choices (the `-32000` server errors told apart by reason, the Camel and
//! a2a-java status tables, the problem `type` slugs), not derived from the code under test.

use super::{A2A_DOMAIN, A2aError, ErrorKind, FieldViolation, RestStatusProfile};

/// kind, JSON-RPC code, gRPC status, reason, problem slug, HTTP under spec / camel / java.
type Row = (
    ErrorKind,
    i32,
    &'static str,
    &'static str,
    &'static str,
    u16,
    u16,
    u16,
);

#[rustfmt::skip]
const EXPECTED: [Row; 19] = {
    use ErrorKind::*;
    [
        (TaskNotFound, -32001, "NOT_FOUND", "TASK_NOT_FOUND", "task-not-found", 404, 404, 404),
        (TaskNotCancelable, -32002, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE", "task-not-cancelable", 400, 409, 409),
        (PushNotificationNotSupported, -32003, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "push-notification-not-supported", 400, 405, 501),
        (UnsupportedOperation, -32004, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "unsupported-operation", 400, 405, 501),
        (ContentTypeNotSupported, -32005, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED", "content-type-not-supported", 400, 400, 415),
        (InvalidAgentResponse, -32006, "INTERNAL", "INVALID_AGENT_RESPONSE", "invalid-agent-response", 500, 500, 502),
        (ExtendedAgentCardNotConfigured, -32007, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED", "extended-agent-card-not-configured", 400, 400, 400),
        (ExtensionSupportRequired, -32008, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED", "extension-support-required", 400, 400, 400),
        (VersionNotSupported, -32009, "UNIMPLEMENTED", "VERSION_NOT_SUPPORTED", "version-not-supported", 400, 400, 400),
        (ParseError, -32700, "INVALID_ARGUMENT", "PARSE_ERROR", "parse-error", 400, 400, 400),
        (InvalidRequest, -32600, "INVALID_ARGUMENT", "INVALID_REQUEST", "invalid-request", 400, 400, 400),
        (MethodNotFound, -32601, "UNIMPLEMENTED", "METHOD_NOT_FOUND", "method-not-found", 404, 404, 404),
        (InvalidParams, -32602, "INVALID_ARGUMENT", "INVALID_PARAMS", "invalid-params", 400, 400, 422),
        (Internal, -32603, "INTERNAL", "INTERNAL_ERROR", "internal-error", 500, 500, 500),
        (Authentication, -32000, "UNAUTHENTICATED", "AUTHENTICATION", "authentication-required", 401, 401, 401),
        (Authorization, -32000, "PERMISSION_DENIED", "AUTHORIZATION", "authorization-failed", 403, 403, 403),
        (ServerBusy, -32000, "RESOURCE_EXHAUSTED", "SERVER_BUSY", "server-busy", 429, 429, 429),
        (PayloadTooLarge, -32000, "RESOURCE_EXHAUSTED", "PAYLOAD_TOO_LARGE", "payload-too-large", 413, 413, 413),
        (Unavailable, -32000, "UNAVAILABLE", "UNAVAILABLE", "unavailable", 503, 503, 503),
    ]
};

#[test]
fn every_kind_maps_to_the_code_status_reason_and_slug_of_the_expected_table() {
    for (kind, code, grpc, reason, slug, spec, camel, java) in EXPECTED {
        assert_eq!(kind.jsonrpc_code(), code, "{kind:?} JSON-RPC code");
        assert_eq!(kind.grpc_status(), grpc, "{kind:?} gRPC status");
        assert_eq!(kind.reason(), reason, "{kind:?} reason");
        assert_eq!(kind.problem_slug(), slug, "{kind:?} slug");
        let statuses = RestStatusProfile::ALL.map(|profile| kind.http_status(profile));
        assert_eq!(statuses, [spec, camel, java], "{kind:?} spec, camel, java");
    }
}

#[test]
fn the_expected_table_lists_every_kind_exactly_once() {
    assert_eq!(EXPECTED.len(), ErrorKind::ALL.len());
    for kind in ErrorKind::ALL {
        let rows = EXPECTED.iter().filter(|row| row.0 == kind).count();
        assert_eq!(rows, 1, "{kind:?}");
    }
}

#[test]
fn reasons_slugs_and_problem_types_lead_back_to_their_kind() {
    for (kind, code, _, reason, slug, ..) in EXPECTED {
        assert_eq!(ErrorKind::from_reason(reason), Some(kind));
        assert_eq!(ErrorKind::from_problem_slug(slug), Some(kind));
        let uri = format!("https://a2a-protocol.org/errors/{slug}");
        assert_eq!(ErrorKind::from_problem_type(&uri), Some(kind));
        assert_eq!(ErrorKind::from_jsonrpc_code(code, Some(reason)), Some(kind));
    }
    assert_eq!(ErrorKind::from_reason("task_not_found"), None);
    assert_eq!(ErrorKind::from_problem_type("about:blank"), None);
}

#[test]
fn the_grpc_and_v0_3_spellings_of_reasons_are_understood() {
    assert_eq!(
        ErrorKind::from_reason("INTERNAL"),
        Some(ErrorKind::Internal)
    );
    assert_eq!(
        ErrorKind::from_reason("AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED"),
        Some(ErrorKind::ExtendedAgentCardNotConfigured)
    );
}

#[test]
fn every_fixed_jsonrpc_code_names_its_kind_without_a_reason() {
    for (kind, code, ..) in EXPECTED.into_iter().filter(|row| row.1 != -32000) {
        assert_eq!(
            ErrorKind::from_jsonrpc_code(code, None),
            Some(kind),
            "{code}"
        );
    }
}

#[test]
fn code_minus_32000_is_resolved_by_each_server_defined_reason() {
    let cases = [
        ("AUTHENTICATION", Some(ErrorKind::Authentication)),
        ("AUTHORIZATION", Some(ErrorKind::Authorization)),
        ("SERVER_BUSY", Some(ErrorKind::ServerBusy)),
        ("PAYLOAD_TOO_LARGE", Some(ErrorKind::PayloadTooLarge)),
        ("UNAVAILABLE", Some(ErrorKind::Unavailable)),
        ("TASK_NOT_FOUND", None),
        ("SOMETHING_ELSE", None),
    ];
    for (reason, expected) in cases {
        assert_eq!(
            ErrorKind::from_jsonrpc_code(-32000, Some(reason)),
            expected,
            "{reason}"
        );
    }
    assert_eq!(ErrorKind::from_jsonrpc_code(-32000, None), None);
}

#[test]
fn code_minus_32603_means_internal_unless_the_reason_says_unavailable_or_busy() {
    let cases = [
        (None, ErrorKind::Internal),
        (Some("UNAVAILABLE"), ErrorKind::Unavailable),
        (Some("SERVER_BUSY"), ErrorKind::ServerBusy),
        (Some("TASK_NOT_FOUND"), ErrorKind::Internal),
    ];
    for (reason, expected) in cases {
        assert_eq!(
            ErrorKind::from_jsonrpc_code(-32603, reason),
            Some(expected),
            "{reason:?}"
        );
    }
}

#[test]
fn unknown_jsonrpc_codes_name_no_kind() {
    for code in [0, -32010, -32099, -32604, 1] {
        assert_eq!(
            ErrorKind::from_jsonrpc_code(code, Some("TASK_NOT_FOUND")),
            None,
            "{code}"
        );
    }
}

#[test]
fn jsonrpc_responses_are_http_200_except_internal_and_authentication_errors() {
    for kind in ErrorKind::ALL {
        let expected = match kind {
            ErrorKind::Internal => 500,
            ErrorKind::Authentication => 401,
            _ => 200,
        };
        assert_eq!(kind.jsonrpc_http_status(), expected, "{kind:?}");
    }
}

#[test]
fn bare_http_statuses_map_to_their_most_likely_kind() {
    use ErrorKind::*;
    let cases = [
        (400, Some(InvalidRequest)),
        (401, Some(Authentication)),
        (403, Some(Authorization)),
        (404, Some(TaskNotFound)),
        (405, Some(UnsupportedOperation)),
        (406, Some(ContentTypeNotSupported)),
        (409, Some(TaskNotCancelable)),
        (410, Some(InvalidRequest)),
        (413, Some(PayloadTooLarge)),
        (415, Some(ContentTypeNotSupported)),
        (422, Some(InvalidParams)),
        (429, Some(ServerBusy)),
        (500, Some(Internal)),
        (501, Some(UnsupportedOperation)),
        (502, Some(InvalidAgentResponse)),
        (503, Some(Unavailable)),
        (504, Some(Unavailable)),
        (599, Some(Internal)),
        (200, None),
        (302, None),
        (600, None),
    ];
    for (status, expected) in cases {
        assert_eq!(ErrorKind::from_http_status(status), expected, "{status}");
    }
}

#[test]
fn bare_grpc_statuses_map_to_their_most_likely_kind() {
    use ErrorKind::*;
    let cases = [
        ("NOT_FOUND", Some(TaskNotFound)),
        ("FAILED_PRECONDITION", Some(UnsupportedOperation)),
        ("UNIMPLEMENTED", Some(UnsupportedOperation)),
        ("INVALID_ARGUMENT", Some(InvalidParams)),
        ("OUT_OF_RANGE", Some(InvalidParams)),
        ("INTERNAL", Some(Internal)),
        ("UNKNOWN", Some(Internal)),
        ("DATA_LOSS", Some(Internal)),
        ("UNAUTHENTICATED", Some(Authentication)),
        ("PERMISSION_DENIED", Some(Authorization)),
        ("RESOURCE_EXHAUSTED", Some(ServerBusy)),
        ("UNAVAILABLE", Some(Unavailable)),
        ("DEADLINE_EXCEEDED", Some(Unavailable)),
        ("not_found", Some(TaskNotFound)),
        ("OK", None),
        ("CANCELLED", None),
        ("ABORTED", None),
        ("", None),
    ];
    for (status, expected) in cases {
        assert_eq!(ErrorKind::from_grpc_status(status), expected, "{status}");
    }
}

#[test]
fn rest_status_profiles_parse_from_their_configuration_names() {
    let cases = [
        ("spec", RestStatusProfile::Spec),
        ("camel", RestStatusProfile::Camel),
        ("rfc7807-java", RestStatusProfile::Rfc7807Java),
        ("CAMEL", RestStatusProfile::Camel),
        (" spec ", RestStatusProfile::Spec),
        ("spec-1.0.1", RestStatusProfile::Spec),
    ];
    for (name, expected) in cases {
        assert_eq!(name.parse::<RestStatusProfile>(), Ok(expected), "{name}");
    }
    for profile in RestStatusProfile::ALL {
        assert_eq!(profile.as_str().parse::<RestStatusProfile>(), Ok(profile));
        assert_eq!(profile.to_string(), profile.as_str());
    }
}

#[test]
fn an_unknown_rest_status_profile_is_rejected_naming_the_value() {
    let error = "spec-1.0.0".parse::<RestStatusProfile>().unwrap_err();
    assert_eq!(error.name(), "spec-1.0.0");
    assert_eq!(
        error.to_string(),
        "unknown rest status profile \"spec-1.0.0\", expected spec, camel or rfc7807-java"
    );
}

#[test]
fn the_default_rest_status_profile_is_the_spec_table() {
    assert_eq!(RestStatusProfile::default(), RestStatusProfile::Spec);
}

#[test]
fn only_the_nine_a2a_errors_are_a2a_specific_and_only_busy_or_unavailable_are_retryable() {
    let specific: Vec<_> = ErrorKind::ALL
        .into_iter()
        .filter(|k| k.is_a2a_specific())
        .collect();
    assert_eq!(specific, ErrorKind::ALL[..9]);
    let retryable: Vec<_> = ErrorKind::ALL
        .into_iter()
        .filter(|k| k.is_retryable())
        .collect();
    assert_eq!(retryable, [ErrorKind::ServerBusy, ErrorKind::Unavailable]);
}

#[test]
fn generic_errors_use_the_spec_suggested_messages() {
    let cases = [
        (ErrorKind::TaskNotFound, "Task not found"),
        (ErrorKind::ParseError, "Invalid JSON payload"),
        (
            ErrorKind::InvalidRequest,
            "Request payload validation error",
        ),
        (ErrorKind::MethodNotFound, "Method not found"),
        (ErrorKind::InvalidParams, "Invalid parameters"),
        (ErrorKind::Internal, "Internal error"),
    ];
    for (kind, message) in cases {
        assert_eq!(kind.default_message(), message);
        assert_eq!(A2aError::from(kind).message(), message);
    }
}

#[test]
fn task_not_found_keeps_the_spec_message_and_puts_the_task_id_in_metadata() {
    let error = A2aError::task_not_found("t-9");
    assert_eq!(error.kind(), ErrorKind::TaskNotFound);
    assert_eq!(error.message(), "Task not found");
    assert_eq!(
        error.metadata().get("taskId").map(String::as_str),
        Some("t-9")
    );
    assert_eq!(error.domain(), A2A_DOMAIN);
    assert_eq!(error.reason(), "TASK_NOT_FOUND");
}

#[test]
fn invalid_field_names_the_field_and_carries_a_violation() {
    let error = A2aError::invalid_field("message.messageId", "is required")
        .with_field_violation("message.parts", "must not be empty");
    assert_eq!(error.kind(), ErrorKind::InvalidParams);
    assert_eq!(
        error.message(),
        "Invalid parameter message.messageId: is required"
    );
    assert_eq!(
        error.field_violations(),
        [
            FieldViolation::new("message.messageId", "is required"),
            FieldViolation::new("message.parts", "must not be empty"),
        ]
    );
    assert!(error.bad_request().is_some());
    assert!(A2aError::internal().bad_request().is_none());
}

#[test]
fn an_empty_message_is_replaced_by_the_kind_default() {
    assert_eq!(
        A2aError::new(ErrorKind::ServerBusy, "  ").message(),
        "Server is busy, retry later"
    );
}

#[test]
fn internal_errors_carry_only_the_generic_message_and_display_it() {
    let error = A2aError::internal();
    assert_eq!(error.message(), "Internal error");
    assert!(error.metadata().is_empty());
    assert_eq!(error.to_string(), "Internal error");
}

#[test]
fn constructors_put_their_context_in_metadata() {
    let cases = [
        (
            A2aError::task_not_cancelable("t-1"),
            ErrorKind::TaskNotCancelable,
            "taskId",
            "t-1",
        ),
        (
            A2aError::content_type_not_supported("image/png"),
            ErrorKind::ContentTypeNotSupported,
            "mediaType",
            "image/png",
        ),
        (
            A2aError::extension_support_required("urn:x"),
            ErrorKind::ExtensionSupportRequired,
            "extension",
            "urn:x",
        ),
        (
            A2aError::version_not_supported("0.2"),
            ErrorKind::VersionNotSupported,
            "version",
            "0.2",
        ),
        (
            A2aError::method_not_found("Nope"),
            ErrorKind::MethodNotFound,
            "method",
            "Nope",
        ),
        (
            A2aError::payload_too_large(1024),
            ErrorKind::PayloadTooLarge,
            "limitBytes",
            "1024",
        ),
    ];
    for (error, kind, key, value) in cases {
        assert_eq!(error.kind(), kind);
        assert_eq!(
            error.metadata().get(key).map(String::as_str),
            Some(value),
            "{kind:?}"
        );
    }
}

#[test]
fn with_domain_marks_an_error_as_defined_elsewhere() {
    let error = A2aError::unavailable().with_domain("gateway.example");
    assert_eq!(error.domain(), "gateway.example");
    assert_eq!(error.error_info().domain, "gateway.example");
    assert!(!error.error_info().is_a2a_domain());
}

/// Every fallible call of the stack returns `Result<_, A2aError>`: a large error makes every
/// such result large, so what is rare (a foreign domain) is boxed.
#[test]
fn an_error_stays_small() {
    let size = std::mem::size_of::<A2aError>();
    assert!(size <= 96, "A2aError grew to {size} bytes");
}
