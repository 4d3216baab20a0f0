//! Reading the http(s) URLs a caller gives the client.

use crate::error::ClientError;

/// An absolute http(s) URL.
pub(crate) fn parse_http_url(text: &str) -> Result<url::Url, ClientError> {
    let url = url::Url::parse(text.trim())
        .map_err(|error| ClientError::config(format!("invalid url: {error}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ClientError::config(
            "the url must be an absolute http(s) url",
        ));
    }
    Ok(url)
}
