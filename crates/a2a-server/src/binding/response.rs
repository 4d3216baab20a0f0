//! Response bodies of both bindings: success documents, JSON-RPC error responses,
//! `google.rpc.Status` and RFC 9457 error bodies, and the `A2A-Extensions` echo.

use a2a_types::A2aError;
use a2a_types::error::{PROBLEM_JSON, RestStatusProfile};
use a2a_types::jsonrpc::{JsonRpcResponse, RequestId};
use axum::body::Body;
use axum::response::Response;
use http::header::{ALLOW, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{Method, StatusCode};
use serde::Serialize;

use super::media::{APPLICATION_JSON, Negotiated};

/// Echoes the activated extensions: those of the request that the agent applied.
const EXTENSIONS: HeaderName = HeaderName::from_static("a2a-extensions");

/// A response with `body` as `content_type`.
pub(super) fn bytes(status: StatusCode, content_type: &'static str, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A response with no body.
pub(super) fn empty(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// Serialises a response document.
///
/// # Errors
/// InternalError when serialisation fails (a bug, or an executor's unserialisable metadata);
/// the cause is logged, never sent.
pub(super) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, A2aError> {
    serde_json::to_vec(value).map_err(|error| {
        tracing::error!(error = %error, "response could not be serialised");
        A2aError::internal()
    })
}

/// Adds `A2A-Extensions` listing `activated`, when there are any.
pub(super) fn with_extensions(mut response: Response, activated: &[String]) -> Response {
    if activated.is_empty() {
        return response;
    }
    match HeaderValue::from_str(&activated.join(", ")) {
        Ok(value) => {
            response.headers_mut().insert(EXTENSIONS, value);
        }
        // Only URIs the card declares are activated, so this means a card URI with control
        // characters; the response is still correct without the echo.
        Err(error) => tracing::warn!(error = %error, "activated extensions are not a valid header"),
    }
    response
}

/// Adds `Allow`: a 405 names the methods the route accepts.
pub(super) fn with_allow(mut response: Response, allowed: &[Method]) -> Response {
    let names: Vec<&str> = allowed.iter().map(Method::as_str).collect();
    if let Ok(value) = HeaderValue::from_str(&names.join(", ")) {
        response.headers_mut().insert(ALLOW, value);
    }
    response
}

/// A JSON-RPC success response.
pub(super) fn jsonrpc_success<T: Serialize>(id: RequestId, result: &T) -> Response {
    /// A success response, written straight from the result's own type.
    #[derive(Serialize)]
    struct Success<'a, T> {
        jsonrpc: &'static str,
        id: &'a RequestId,
        result: &'a T,
    }
    let document = Success {
        jsonrpc: a2a_types::jsonrpc::JSONRPC_VERSION,
        id: &id,
        result,
    };
    match encode(&document) {
        Ok(body) => bytes(StatusCode::OK, APPLICATION_JSON, body),
        Err(error) => jsonrpc_error(id, &error),
    }
}

/// A JSON-RPC error response: HTTP 200 except for internal errors (500), the body from
/// [`A2aError::to_jsonrpc_error`] (always with ErrorInfo).
pub(super) fn jsonrpc_error(id: RequestId, error: &A2aError) -> Response {
    jsonrpc_error_with_status(id, error, status(error.kind().jsonrpc_http_status()))
}

/// A JSON-RPC error response with a transport status of the binding's choosing (405).
pub(super) fn jsonrpc_error_with_status(
    id: RequestId,
    error: &A2aError,
    status: StatusCode,
) -> Response {
    let document = JsonRpcResponse::error(id, error.to_jsonrpc_error());
    match serde_json::to_vec(&document) {
        Ok(body) => bytes(status, APPLICATION_JSON, body),
        Err(failure) => {
            // Built from strings and numbers only; this cannot happen, but must not panic.
            tracing::error!(error = %failure, "JSON-RPC error could not be serialised");
            empty(StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

/// How HTTP+JSON errors are written for one request.
#[derive(Debug, Clone, Copy)]
pub(super) struct RestErrors<'a> {
    pub(super) negotiated: Negotiated,
    pub(super) profile: RestStatusProfile,
    /// The request path, the problem's `instance`.
    pub(super) instance: &'a str,
}

impl RestErrors<'_> {
    /// The error with the HTTP status its kind has under the configured status profile.
    pub(super) fn response(&self, error: &A2aError) -> Response {
        self.response_with_status(error, error.kind().http_status(self.profile))
    }

    /// The error with another HTTP status (405, which no error kind has), repeated in the
    /// body so the body and the status line agree.
    pub(super) fn response_with_status(&self, error: &A2aError, code: u16) -> Response {
        let encoded = if self.negotiated.problem {
            let mut problem = error.to_problem(self.profile, Some(self.instance));
            problem.status = Some(code);
            serde_json::to_vec(&problem).map(|body| (PROBLEM_JSON, body))
        } else {
            let mut body = error.to_rpc_status(self.profile);
            body.error.code = code;
            // Whatever type the request used: a `google.rpc.Status` is not an A2A document,
            // and clients and the conformance kit read it as plain JSON.
            serde_json::to_vec(&body.to_value()).map(|body| (APPLICATION_JSON, body))
        };
        match encoded {
            Ok((content_type, body)) => bytes(status(code), content_type, body),
            Err(failure) => {
                tracing::error!(error = %failure, "error body could not be serialised");
                empty(StatusCode::INTERNAL_SERVER_ERROR)
            }
        }
    }
}

/// Every status our tables produce is valid; an unknown number still must not panic.
fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
