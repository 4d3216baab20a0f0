//! The outbound requests of verifiers (JWKS, discovery, introspection): bounded in time
//! and size, never redirected to another origin, failing in words safe to show a caller.

use std::time::Duration;

use super::TokenConfigError;

/// The client for JWKS, discovery and introspection requests: every request is bounded by
/// `timeout`, and a redirect never leads to another origin.
pub(super) fn http_client(
    timeout: Duration,
    redirects: Redirects,
) -> Result<reqwest::Client, TokenConfigError> {
    if timeout.is_zero() {
        return Err(TokenConfigError::Zero("the request timeout"));
    }
    let policy = match redirects {
        Redirects::Never => reqwest::redirect::Policy::none(),
        Redirects::SameOrigin => reqwest::redirect::Policy::custom(|attempt| {
            let same_origin = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if same_origin && attempt.previous().len() <= 5 {
                attempt.follow()
            } else {
                attempt.stop()
            }
        }),
    };
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(policy)
        .build()
        .map_err(|_| TokenConfigError::HttpClient)
}

/// Sends `request` and keeps the response only when its status is a success; the error
/// says why in words safe to show a caller (no URL, no body).
pub(super) async fn send_checked(
    request: reqwest::RequestBuilder,
) -> Result<reqwest::Response, String> {
    let response = request
        .send()
        .await
        .map_err(|error| describe_request_error(&error).to_owned())?;
    let status = response.status();
    if status.is_success() {
        Ok(response)
    } else {
        Err(format!("the endpoint answered {}", status.as_u16()))
    }
}

/// Why an outbound request failed, in words that name no URL, header or body.
fn describe_request_error(error: &reqwest::Error) -> &'static str {
    if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "connection failed"
    } else if error.is_redirect() {
        "too many redirects"
    } else if error.is_body() || error.is_decode() {
        "the response body could not be read"
    } else {
        "the request failed"
    }
}

/// Reads a response body of at most `limit` bytes.
pub(super) async fn read_limited(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, &'static str> {
    const TOO_LARGE: &str = "the response is too large";
    if response
        .content_length()
        .is_some_and(|length| length > limit as u64)
    {
        return Err(TOO_LARGE);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| describe_request_error(&error))?
    {
        if body.len() + chunk.len() > limit {
            return Err(TOO_LARGE);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Which redirects an outbound client follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Redirects {
    /// Up to five, all to the origin of the first request.
    SameOrigin,
    /// None: the redirect response itself is the answer.
    Never,
}
