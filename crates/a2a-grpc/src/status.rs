//! Errors as gRPC statuses: the status code of the error's kind, its caller-safe message,
//! and in the status details (`grpc-status-details-bin`) a `google.rpc.ErrorInfo` with the
//! reason and domain (`a2a-protocol.org` for the A2A catalogue), plus a
//! `google.rpc.BadRequest` when the error names invalid fields.

use std::collections::HashMap;

use a2a_types::A2aError;
use a2a_types::error::{RpcStatus, RpcStatusBody};
use serde_json::Map;
use tonic::Code;
use tonic_types::{ErrorDetails, FieldViolation, StatusExt as _};

/// Every gRPC status code with its canonical name.
const CODES: [(Code, &str); 17] = [
    (Code::Ok, "OK"),
    (Code::Cancelled, "CANCELLED"),
    (Code::Unknown, "UNKNOWN"),
    (Code::InvalidArgument, "INVALID_ARGUMENT"),
    (Code::DeadlineExceeded, "DEADLINE_EXCEEDED"),
    (Code::NotFound, "NOT_FOUND"),
    (Code::AlreadyExists, "ALREADY_EXISTS"),
    (Code::PermissionDenied, "PERMISSION_DENIED"),
    (Code::ResourceExhausted, "RESOURCE_EXHAUSTED"),
    (Code::FailedPrecondition, "FAILED_PRECONDITION"),
    (Code::Aborted, "ABORTED"),
    (Code::OutOfRange, "OUT_OF_RANGE"),
    (Code::Unimplemented, "UNIMPLEMENTED"),
    (Code::Internal, "INTERNAL"),
    (Code::Unavailable, "UNAVAILABLE"),
    (Code::DataLoss, "DATA_LOSS"),
    (Code::Unauthenticated, "UNAUTHENTICATED"),
];

/// The canonical name of `code`, e.g. `NOT_FOUND`.
#[must_use]
pub fn code_name(code: Code) -> &'static str {
    CODES
        .iter()
        .find(|(known, _)| *known == code)
        .map_or("UNKNOWN", |(_, name)| name)
}

/// The code named `name` (canonical upper-case name); `Unknown` for any other text.
#[must_use]
pub fn code_named(name: &str) -> Code {
    CODES
        .iter()
        .find(|(_, known)| *known == name)
        .map_or(Code::Unknown, |(code, _)| *code)
}

/// The status a server sends for `error`.
#[must_use]
pub fn to_status(error: &A2aError) -> tonic::Status {
    let info = error.error_info();
    let metadata: HashMap<String, String> = info.metadata.into_iter().collect();
    let mut details = ErrorDetails::new();
    details.set_error_info(info.reason, info.domain, metadata);
    if let Some(bad_request) = error.bad_request() {
        details.set_bad_request(
            bad_request
                .field_violations
                .into_iter()
                .map(|violation| FieldViolation::new(violation.field, violation.description))
                .collect::<Vec<_>>(),
        );
    }
    tonic::Status::with_error_details(
        code_named(error.kind().grpc_status()),
        error.message(),
        details,
    )
}

/// The error a status from a peer reports: the kind named by the `ErrorInfo` reason (A2A
/// domain or none), else the kind the status code suggests, else `Internal`; the message,
/// metadata, domain and field violations as sent.
#[must_use]
pub fn from_status(status: &tonic::Status) -> A2aError {
    let details = status.get_error_details();
    let mut any = Vec::new();
    if let Some(info) = details.error_info() {
        any.push(
            a2a_types::error::ErrorInfo {
                reason: info.reason.clone(),
                domain: info.domain.clone(),
                metadata: info.metadata.clone().into_iter().collect(),
            }
            .to_any(),
        );
    }
    if let Some(bad_request) = details.bad_request() {
        any.push(
            a2a_types::error::BadRequest {
                field_violations: bad_request
                    .field_violations
                    .iter()
                    .map(|violation| {
                        a2a_types::error::FieldViolation::new(
                            violation.field.clone(),
                            violation.description.clone(),
                        )
                    })
                    .collect(),
            }
            .to_any(),
        );
    }
    let body = RpcStatusBody {
        error: RpcStatus {
            // No HTTP status: the gRPC status name alone classifies the error.
            code: 0,
            status: code_name(status.code()).to_owned(),
            message: status.message().to_owned(),
            details: any,
            extra: Map::new(),
        },
        extra: Map::new(),
    };
    A2aError::from_status_body(&body)
}

#[cfg(test)]
mod tests {
    use a2a_types::ErrorKind;

    use super::*;

    #[test]
    fn every_kind_survives_a_status() {
        for kind in ErrorKind::ALL {
            let error = A2aError::new(kind, "something went wrong")
                .with_metadata("taskId", "t-1")
                .with_field_violation("message.parts", "must not be empty");
            let status = to_status(&error);
            assert_eq!(code_name(status.code()), kind.grpc_status(), "{kind:?}");
            let back = from_status(&status);
            assert_eq!(back, error, "{kind:?}");
        }
    }

    #[test]
    fn a_bare_status_is_classified_by_its_code() {
        let back = from_status(&tonic::Status::not_found("gone"));
        assert_eq!(back.kind(), ErrorKind::TaskNotFound);
        assert_eq!(back.message(), "gone");
        let back = from_status(&tonic::Status::unauthenticated(""));
        assert_eq!(back.kind(), ErrorKind::Authentication);
        let back = from_status(&tonic::Status::cancelled("stop"));
        assert_eq!(back.kind(), ErrorKind::Internal);
    }

    #[test]
    fn another_domain_keeps_its_reason() {
        let error =
            A2aError::new(ErrorKind::TaskNotFound, "no such agent").with_domain("gateway.example");
        let back = from_status(&to_status(&error));
        assert_eq!(back.domain(), "gateway.example");
    }

    #[test]
    fn code_names_are_canonical() {
        for (code, name) in CODES {
            assert_eq!(code_name(code), name);
            assert_eq!(code_named(name), code);
        }
        assert_eq!(code_named("nope"), Code::Unknown);
    }
}
