//! The v0.3 counterpart of a v1.0 call: its method, or the client error when its request or
//! answer has none.

use a2a_types::A2aError;
use a2a_types::jsonrpc::Method as V1Method;
use a2a_types::v03::Method;

/// The v0.3 method of a v1.0 operation.
pub(super) fn method(v1: V1Method) -> Result<Method, crate::ClientError> {
    Method::from_v1(v1).ok_or_else(|| {
        crate::ClientError::Agent(A2aError::unsupported_operation(format!(
            "{v1} is not part of A2A v0.3"
        )))
    })
}

/// A v1.0 request that has no v0.3 form.
pub(super) fn request_error(method: Method, error: &A2aError) -> crate::ClientError {
    crate::ClientError::config(format!(
        "the {} request cannot be written in A2A v0.3: {}",
        method.as_str(),
        error.message()
    ))
}

/// A v0.3 answer that does not read as its v1.0 counterpart.
pub(super) fn answer_error(method: Method, error: &A2aError) -> crate::ClientError {
    crate::ClientError::invalid_response(format!(
        "the {} answer is not valid A2A v0.3: {}",
        method.as_str(),
        error.message()
    ))
}
