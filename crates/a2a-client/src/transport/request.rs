//! What every transport reads from a request before sending it.

use bytes::Bytes;

use crate::ClientError;

/// The absolute URL of `request`, for naming the agent in transport errors.
pub(super) fn request_url(request: &http::Request<Bytes>) -> Result<url::Url, ClientError> {
    url::Url::parse(&request.uri().to_string())
        .map_err(|error| ClientError::config(format!("invalid request url: {error}")))
}
