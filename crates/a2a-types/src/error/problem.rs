//! The alternative HTTP+JSON error bodies: RFC 9457 problem details (sent when `Accept`
//! prefers `application/problem+json`, as a2a-java's REST transport does) and the legacy
//! `{"error": "…", "message": "…"}` body clients still meet.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::details::lenient_metadata;
use super::kind::PROBLEM_TYPE_BASE;
use super::{A2aError, ErrorInfo, ErrorKind, FieldViolation, RestStatusProfile};

/// Longest non-JSON body text [`A2aError::from_http_body`] repeats in a message.
pub(super) const MAX_ECHOED_BODY_CHARS: usize = 200;

/// Media type of an RFC 9457 problem body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An RFC 9457 problem body, as A2A peers send it.
///
/// Shape produced by [`A2aError::to_problem`]:
///
/// ```json
/// {"type": "https://a2a-protocol.org/errors/task-not-found",
///  "title": "Task not found", "status": 404,
///  "detail": "Task not found", "details": "Task not found",
///  "instance": "/tasks/t-9",
///  "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org",
///  "metadata": {"taskId": "t-9"},
///  "errors": [{"field": "…", "description": "…"}]}
/// ```
///
/// `title` is the kind's default message (the same for every occurrence, as RFC 9457 asks);
/// `detail` is the error's message, repeated in `details` for the a2a-java fork, which reads
/// that member. `reason`, `domain`, `metadata` (omitted when empty) and
/// `errors` (field violations, omitted when empty) are extension members carrying what
/// `ErrorInfo` and `BadRequest` carry in the other formats. Unknown members are kept in
/// `extensions` so a problem round-trips.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProblemDetails {
    /// Problem type URI; absent means `about:blank`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub problem_type: Option<String>,
    /// Short summary of the problem type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The HTTP status, repeated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Explanation of this occurrence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Same text as `detail`; the a2a-java fork's spelling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// URI reference of this occurrence, typically the request path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// `ErrorInfo.reason`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `ErrorInfo.domain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// `ErrorInfo.metadata`.
    #[serde(
        default,
        deserialize_with = "lenient_metadata",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub metadata: BTreeMap<String, String>,
    /// `BadRequest.fieldViolations`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldViolation>,
    /// Any other members, kept verbatim.
    #[serde(flatten)]
    pub extensions: Map<String, Value>,
}

impl ProblemDetails {
    /// Recovers the error, using `fallback` when the problem names no kind.
    pub(super) fn recover(&self, fallback: ErrorKind) -> A2aError {
        let domain = self.domain.clone().unwrap_or_default();
        let info = ErrorInfo {
            reason: self.reason.clone().unwrap_or_default(),
            domain,
            metadata: self.metadata.clone(),
        };
        let kind = Some(&info.reason)
            .filter(|_| info.is_a2a_domain())
            .and_then(|reason| ErrorKind::from_reason(reason))
            .or_else(|| {
                self.problem_type
                    .as_deref()
                    .and_then(ErrorKind::from_problem_type)
            })
            .or_else(|| self.status.and_then(ErrorKind::from_http_status))
            .unwrap_or(fallback);
        let message = [&self.detail, &self.details, &self.title]
            .into_iter()
            .flatten()
            .find(|text| !text.trim().is_empty())
            .map_or("", String::as_str);
        A2aError::from_parts(kind, message, Some(info), self.errors.clone())
    }
}

/// The legacy REST error body `{"error": "<label>", "message": "<text>"}`, which clients
/// still decode.
///
/// [`A2aError::to_legacy`] puts the reason in `error`. When parsing, `error` may be a
/// reason, a problem slug, or any label in another case (`task_not_found`); other members
/// (Spring's `status`, `path`, `timestamp`) are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LegacyErrorBody {
    /// A short label naming the error.
    pub error: String,
    /// The caller-safe message.
    #[serde(default)]
    pub message: String,
}

impl A2aError {
    /// The RFC 9457 problem body for this error under `profile`; `instance` is usually the
    /// request path. Serve it as [`PROBLEM_JSON`].
    pub fn to_problem(&self, profile: RestStatusProfile, instance: Option<&str>) -> ProblemDetails {
        let kind = self.kind();
        ProblemDetails {
            problem_type: Some(format!("{PROBLEM_TYPE_BASE}{}", kind.problem_slug())),
            title: Some(kind.default_message().to_owned()),
            status: Some(kind.http_status(profile)),
            detail: Some(self.message().to_owned()),
            details: Some(self.message().to_owned()),
            instance: instance.map(str::to_owned),
            reason: Some(kind.reason().to_owned()),
            domain: Some(self.domain().to_owned()),
            metadata: self.metadata().clone(),
            errors: self.field_violations().to_vec(),
            extensions: Map::new(),
        }
    }

    /// Recovers an error from a problem body: by `reason` (A2A domain or none), then by the
    /// `type` slug, then by `status`, then `Internal`. The message is the first non-empty of
    /// `detail`, `details` and `title`.
    pub fn from_problem(problem: &ProblemDetails) -> Self {
        problem.recover(ErrorKind::Internal)
    }

    /// The legacy body: the reason as `error`, and the message.
    pub fn to_legacy(&self) -> LegacyErrorBody {
        LegacyErrorBody {
            error: self.kind().reason().to_owned(),
            message: self.message().to_owned(),
        }
    }

    /// Recovers an error from a legacy body received with HTTP `status`: the kind from the
    /// `error` label, else from the status ([`ErrorKind::from_http_status`]), else
    /// `Internal`. When `message` is empty, an `error` that named no kind serves as the
    /// message (some servers put the sentence there).
    pub fn from_legacy(body: &LegacyErrorBody, status: u16) -> Self {
        let by_label = kind_from_label(&body.error);
        let kind = by_label
            .or_else(|| ErrorKind::from_http_status(status))
            .unwrap_or(ErrorKind::Internal);
        let message = if !body.message.trim().is_empty() {
            body.message.as_str()
        } else if by_label.is_none() && body.error.chars().count() <= MAX_ECHOED_BODY_CHARS {
            body.error.as_str()
        } else {
            ""
        };
        Self::from_parts(kind, message, None, Vec::new())
    }
}

/// A reason or slug in any case and with `-`, `_` or space separators.
fn kind_from_label(label: &str) -> Option<ErrorKind> {
    let normalized: String = label
        .trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            other => other.to_ascii_uppercase(),
        })
        .collect();
    ErrorKind::from_reason(&normalized).or_else(|| {
        ErrorKind::ALL.into_iter().find(|kind| {
            kind.problem_slug()
                .replace('-', "_")
                .eq_ignore_ascii_case(&normalized)
        })
    })
}
