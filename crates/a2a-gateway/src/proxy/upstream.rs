//! One call to an agent: sent and answered within the call's deadline, the answer read
//! within the size cap and sorted into what the gateway relays and what it reports.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use url::Url;

use super::ProxyConfig;
use super::error::GatewayError;
use super::limits::{ReadError, read_capped};

/// What an agent answered, once it is known to be worth relaying.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A whole body (any status but 502, 503 and 504), read within the cap.
    Complete {
        status: StatusCode,
        headers: HeaderMap,
        body: Bytes,
    },
    /// A 2xx `text/event-stream` answer, its body still to be relayed.
    Stream(reqwest::Response),
}

/// Above this many URLs, [`AgentUrls`] starts again from none.
const URLS_KEPT: usize = 4096;

/// Agents' URLs, each parsed once. Given a URL as text, reqwest parses it on every call:
/// a fifteenth of a proxied call's instructions.
#[derive(Debug, Default)]
pub(crate) struct AgentUrls(Mutex<HashMap<String, Url>>);

impl AgentUrls {
    /// `url` parsed, to be called as it is; `None` when reqwest's request builder would
    /// refuse it (not an absolute URL with a host) or change it (credentials in it become
    /// an `Authorization` header).
    pub(crate) fn get(&self, url: &str) -> Option<Url> {
        let mut urls = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(parsed) = urls.get(url) {
            return Some(parsed.clone());
        }
        let parsed = Url::parse(url).ok().filter(|parsed| {
            parsed.has_host() && parsed.username().is_empty() && parsed.password().is_none()
        })?;
        if urls.len() >= URLS_KEPT {
            urls.clear();
        }
        urls.insert(url.to_owned(), parsed.clone());
        Some(parsed)
    }
}

/// Sends `request` to `agent_id` and waits for its answer until `deadline`. Dropping the
/// call at the deadline closes the connection, so the agent sees the call cancelled. Every
/// failure is logged at `warn` with the agent's id, never with the request's URL or headers.
///
/// # Errors
/// [`GatewayError::Timeout`] at the deadline; [`GatewayError::Unreachable`] when the agent
/// cannot be connected to or the connection breaks; [`GatewayError::Unavailable`] for 502,
/// 503 and 504; [`GatewayError::ResponseTooLarge`] past `max_response_bytes`.
pub(crate) async fn call(
    request: reqwest::RequestBuilder,
    agent_id: &str,
    deadline: Duration,
    max_response_bytes: usize,
) -> Result<Reply, GatewayError> {
    let exchange = async {
        let mut response = request.send().await.map_err(|error| {
            // Without its URL: the forwarded path and query are the caller's.
            tracing::warn!(agent_id, error = %error.without_url(), "agent unreachable");
            GatewayError::Unreachable {
                agent_id: agent_id.to_owned(),
            }
        })?;
        let status = response.status();
        if matches!(status.as_u16(), 502..=504) {
            tracing::warn!(agent_id, status = status.as_u16(), "agent unavailable");
            return Err(GatewayError::Unavailable {
                agent_id: agent_id.to_owned(),
                status: status.as_u16(),
            });
        }
        if status.is_success() && is_event_stream(response.headers()) {
            return Ok(Reply::Stream(response));
        }
        // Taken, not copied: the body is read by its own length, not its headers'.
        let headers = std::mem::take(response.headers_mut());
        let body =
            read_capped(response, max_response_bytes)
                .await
                .map_err(|error| match error {
                    ReadError::TooLarge => {
                        tracing::warn!(agent_id, max_response_bytes, "agent response too large");
                        GatewayError::ResponseTooLarge {
                            agent_id: agent_id.to_owned(),
                        }
                    }
                    ReadError::Body => {
                        tracing::warn!(agent_id, "agent response broke off");
                        GatewayError::Unreachable {
                            agent_id: agent_id.to_owned(),
                        }
                    }
                })?;
        Ok(Reply::Complete {
            status,
            headers,
            body,
        })
    };
    tokio::time::timeout(deadline, exchange)
        .await
        .unwrap_or_else(|_elapsed| {
            tracing::warn!(
                agent_id,
                deadline_ms = u64::try_from(deadline.as_millis()).unwrap_or(u64::MAX),
                "agent did not answer before the deadline"
            );
            Err(GatewayError::Timeout {
                agent_id: agent_id.to_owned(),
            })
        })
}

/// The call's deadline: `configuration.timeout` of `params` in seconds when it is a positive
/// number, capped silently at `max_timeout`; `default_timeout` otherwise.
pub(crate) fn deadline(params: Option<&Value>, config: &ProxyConfig) -> Duration {
    let requested = params
        .and_then(|params| params.pointer("/configuration/timeout"))
        .and_then(Value::as_f64)
        .filter(|seconds| seconds.is_finite() && *seconds > 0.0);
    match requested {
        Some(seconds) => Duration::try_from_secs_f64(seconds).unwrap_or(config.max_timeout),
        None => config.default_timeout,
    }
    .min(config.max_timeout)
}

/// Whether `headers` declare a body of media type `essence` (`type/subtype`, any case,
/// parameters ignored).
pub(crate) fn has_media_type(headers: &HeaderMap, essence: &str) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media_type| media_type.trim().eq_ignore_ascii_case(essence))
}

fn is_event_stream(headers: &HeaderMap) -> bool {
    has_media_type(headers, "text/event-stream")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_deadline_follows_gw_09() {
        let config = ProxyConfig::default();
        let cases = [
            (None, 300.0),
            (Some(json!({})), 300.0),
            (Some(json!({"configuration": {"timeout": 1}})), 1.0),
            (Some(json!({"configuration": {"timeout": 2.5}})), 2.5),
            (Some(json!({"configuration": {"timeout": 99999}})), 3600.0),
            (Some(json!({"configuration": {"timeout": 0}})), 300.0),
            (Some(json!({"configuration": {"timeout": -4}})), 300.0),
            (Some(json!({"configuration": {"timeout": "9"}})), 300.0),
            (Some(json!({"configuration": {"timeout": 1e300}})), 3600.0),
        ];
        for (params, seconds) in cases {
            assert_eq!(
                deadline(params.as_ref(), &config),
                Duration::from_secs_f64(seconds),
                "{params:?}"
            );
        }
    }

    #[test]
    fn agent_urls_are_kept_parsed_unless_the_builder_would_change_them() {
        let urls = AgentUrls::default();
        let url = "http://127.0.0.1:8080/a2a";
        assert_eq!(urls.get(url).map(String::from), Some(url.to_owned()));
        assert_eq!(urls.get(url).map(String::from), Some(url.to_owned()));
        assert_eq!(urls.0.lock().unwrap().len(), 1);
        assert!(
            urls.get("http://user:secret@agent/").is_none(),
            "credentials"
        );
        assert!(urls.get("unix:/run/agent.sock").is_none(), "no host");
        assert!(urls.get("not a url").is_none());
    }

    #[test]
    fn media_types_ignore_case_and_parameters() {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            "Application/JSON; charset=utf-8".parse().unwrap(),
        );
        assert!(has_media_type(&headers, "application/json"));
        assert!(!has_media_type(&headers, "text/event-stream"));
        assert!(!has_media_type(&HeaderMap::new(), "application/json"));
    }
}
