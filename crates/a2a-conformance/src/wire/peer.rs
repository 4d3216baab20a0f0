//! What both HTTP bindings share.
//!
//! What both HTTP bindings share: the HTTP client, the credentials and the `--header`s added
//! to every request, and the decoding of an error's detail objects.

use a2a_client::RequestAuth;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::exchange::{CallOptions, ErrorCode, WireError};

/// How requests reach the agent over HTTP.
#[derive(Debug, Clone)]
pub(crate) struct HttpPeer {
    pub(crate) client: reqwest::Client,
    pub(crate) auth: Option<RequestAuth>,
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    /// The extra CAs and the client certificate, for the gRPC channels (the HTTP client
    /// has them already).
    pub(crate) tls: Option<a2a_client::transport::TlsOptions>,
}

impl HttpPeer {
    /// A request for `url` with the credentials, the extra headers and the service
    /// parameters of `options`.
    pub(crate) async fn request(
        &self,
        method: reqwest::Method,
        url: &url::Url,
        options: &CallOptions,
    ) -> Result<reqwest::RequestBuilder, WireError> {
        let mut url = url.clone();
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            headers.insert(name.clone(), value.clone());
        }
        if let Some(version) = &options.version
            && let Ok(value) = HeaderValue::from_str(version)
        {
            headers.insert("a2a-version", value);
        }
        if let Some(extensions) = &options.extensions
            && let Ok(value) = HeaderValue::from_str(extensions)
        {
            headers.insert("a2a-extensions", value);
        }
        if let Some(auth) = &self.auth {
            auth.apply(&mut url, &mut headers)
                .await
                .map_err(|error| WireError::broken(format!("credentials: {error}")))?;
        }
        Ok(self
            .client
            .request(method, url)
            .headers(headers)
            .timeout(options.timeout))
    }
}

/// The service parameters of `options` as the report shows them.
pub(crate) fn shown_parameters(options: &CallOptions) -> String {
    let mut shown = match &options.version {
        Some(version) => format!("A2A-Version: {version}"),
        None => "no A2A-Version".to_owned(),
    };
    if let Some(extensions) = &options.extensions {
        shown.push_str(&format!(", A2A-Extensions: {extensions}"));
    }
    shown
}

/// An error from its code and detail objects (JSON-RPC `error.data`, HTTP+JSON
/// `error.details`).
pub(crate) fn decoded(code: ErrorCode, details: Option<&Value>) -> WireError {
    let mut error = WireError {
        code,
        reason: None,
        domain: None,
        untyped_details: false,
    };
    match details {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                let kind = item.get("@type").and_then(Value::as_str);
                match kind {
                    None => error.untyped_details = true,
                    Some(kind) if kind.ends_with("google.rpc.ErrorInfo") => {
                        error.reason = item
                            .get("reason")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        error.domain = item
                            .get("domain")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                    }
                    Some(_) => {}
                }
            }
        }
        Some(_) => error.untyped_details = true,
    }
    error
}

/// The failure of a request that got no HTTP answer.
pub(crate) fn unreachable(error: &reqwest::Error) -> WireError {
    if error.is_timeout() {
        WireError::broken("no answer before the timeout")
    } else {
        WireError::broken(format!("request failed: {}", error_chain(error)))
    }
}

fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
