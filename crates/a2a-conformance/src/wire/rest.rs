//! The HTTP+JSON binding's wire.
//!
//! The HTTP+JSON binding: each operation its verb and path under the interface URL (and the
//! interface's `/{tenant}`), path-bound fields in the path, the rest in the query (GET,
//! DELETE) or the JSON body (POST); streams as SSE of bare `StreamResponse`s.

use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::Wire;
use super::exchange::{CallOptions, ErrorCode, Exchange, Op, StreamRecord, WireError};
use super::peer::{HttpPeer, decoded, shown_parameters, unreachable};
use super::sse::{self, Frame};

/// The media type requests are sent in (spec §11.1 SHOULD).
const MEDIA: &str = "application/a2a+json";

/// One HTTP+JSON interface.
#[derive(Debug)]
pub(crate) struct RestWire {
    base: String,
    tenant: Option<String>,
    peer: HttpPeer,
}

/// Verb, path, query and body of one operation.
struct Route {
    method: reqwest::Method,
    path: String,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

impl RestWire {
    pub(crate) fn new(url: &url::Url, tenant: Option<String>, peer: HttpPeer) -> Self {
        Self {
            base: url.as_str().trim_end_matches('/').to_owned(),
            tenant,
            peer,
        }
    }

    /// Sends `method path` with `body` as it is: for checks of the binding itself.
    pub(crate) async fn raw(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(&str, &str)>,
        options: &CallOptions,
    ) -> Exchange {
        let url = format!("{}{}", self.base, path);
        let shown_body = body.map(|(_, text)| text).unwrap_or_default();
        let sent = format!(
            "{method} {url} ({}) {shown_body}",
            shown_parameters(options)
        );
        let Ok(address) = url::Url::parse(&url) else {
            return failed(
                sent,
                WireError::broken("the interface URL cannot take this path"),
            );
        };
        let mut request = match self.peer.request(method, &address, options).await {
            Ok(request) => request.header("accept", format!("{MEDIA}, application/json")),
            Err(error) => return failed(sent, error),
        };
        if let Some((media, text)) = body {
            request = request.header("content-type", media).body(text.to_owned());
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        let status = response.status().as_u16();
        let text = match response.text().await {
            Ok(text) => text,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        let received = format!("HTTP {status} {text}");
        let result = answer_of(status, &text);
        Exchange {
            sent,
            received,
            result,
        }
    }

    fn route(&self, op: Op, params: &Value) -> Route {
        let mut fields = params.as_object().cloned().unwrap_or_default();
        let tenant = fields
            .remove("tenant")
            .and_then(|tenant| tenant.as_str().map(str::to_owned))
            .filter(|tenant| !tenant.is_empty())
            .or_else(|| self.tenant.clone());
        let mut take = |name: &str| {
            fields
                .remove(name)
                .map(|value| match value {
                    Value::String(text) => text,
                    other => other.to_string(),
                })
                .unwrap_or_default()
        };
        let (method, path) = match op {
            Op::SendMessage => (reqwest::Method::POST, "/message:send".to_owned()),
            Op::SendStreamingMessage => (reqwest::Method::POST, "/message:stream".to_owned()),
            Op::GetTask => (
                reqwest::Method::GET,
                format!("/tasks/{}", segment(&take("id"))),
            ),
            Op::ListTasks => (reqwest::Method::GET, "/tasks".to_owned()),
            Op::CancelTask => (
                reqwest::Method::POST,
                format!("/tasks/{}:cancel", segment(&take("id"))),
            ),
            Op::SubscribeToTask => (
                reqwest::Method::POST,
                format!("/tasks/{}:subscribe", segment(&take("id"))),
            ),
            Op::CreatePushConfig => (
                reqwest::Method::POST,
                format!(
                    "/tasks/{}/pushNotificationConfigs",
                    segment(&take("taskId"))
                ),
            ),
            Op::GetPushConfig | Op::DeletePushConfig => {
                let task = segment(&take("taskId"));
                let id = segment(&take("id"));
                let method = if op == Op::GetPushConfig {
                    reqwest::Method::GET
                } else {
                    reqwest::Method::DELETE
                };
                (
                    method,
                    format!("/tasks/{task}/pushNotificationConfigs/{id}"),
                )
            }
            Op::ListPushConfigs => (
                reqwest::Method::GET,
                format!(
                    "/tasks/{}/pushNotificationConfigs",
                    segment(&take("taskId"))
                ),
            ),
            Op::GetExtendedAgentCard => (reqwest::Method::GET, "/extendedAgentCard".to_owned()),
        };
        let path = match tenant {
            Some(tenant) => format!("/{}{path}", segment(&tenant)),
            None => path,
        };
        let (query, body) = if method == reqwest::Method::POST {
            (Vec::new(), Some(Value::Object(fields)))
        } else {
            (query_of(&fields), None)
        };
        Route {
            method,
            path,
            query,
            body,
        }
    }

    fn address(&self, route: &Route) -> Result<url::Url, WireError> {
        let mut url = url::Url::parse(&format!("{}{}", self.base, route.path))
            .map_err(|_| WireError::broken("the interface URL cannot take this path"))?;
        if !route.query.is_empty() {
            url.query_pairs_mut().extend_pairs(&route.query);
        }
        Ok(url)
    }
}

/// Query parameters from scalar members (repeated values comma-separated).
fn query_of(fields: &Map<String, Value>) -> Vec<(String, String)> {
    fields
        .iter()
        .filter_map(|(name, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Number(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
                Value::Array(items) => items
                    .iter()
                    .map(|item| {
                        item.as_str()
                            .map_or_else(|| item.to_string(), str::to_owned)
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                Value::Null | Value::Object(_) => return None,
            };
            Some((name.clone(), text))
        })
        .collect()
}

/// `text` as one path segment, percent-encoded (RFC 3986 unreserved characters kept).
fn segment(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

fn failed(sent: String, error: WireError) -> Exchange {
    Exchange {
        sent,
        received: error.describe(),
        result: Err(error),
    }
}

/// The body of a success, or the error of an error status (`google.rpc.Status` envelope).
pub(crate) fn answer_of(status: u16, text: &str) -> Result<Value, WireError> {
    let body = serde_json::from_str::<Value>(text);
    if (200..300).contains(&status) {
        return match body {
            Ok(value) => Ok(value),
            Err(_) if text.trim().is_empty() => Ok(json!({})),
            Err(_) => Err(WireError::broken(format!(
                "HTTP {status} with a body that is not JSON"
            ))),
        };
    }
    let details = body
        .as_ref()
        .ok()
        .and_then(|body| body.pointer("/error/details"))
        .cloned();
    Err(decoded(ErrorCode::Http(status), details.as_ref()))
}

#[async_trait::async_trait]
impl Wire for RestWire {
    fn rest(&self) -> Option<&RestWire> {
        Some(self)
    }

    async fn call(&self, op: Op, params: Value, options: &CallOptions) -> Exchange {
        let route = self.route(op, &params);
        let address = match self.address(&route) {
            Ok(address) => address,
            Err(error) => return failed(format!("{} {}", route.method, route.path), error),
        };
        let body = route.body.as_ref().map(Value::to_string);
        self.raw_url(route.method, &address, body.as_deref(), options)
            .await
    }

    async fn stream(&self, op: Op, params: Value, options: &CallOptions) -> StreamRecord {
        let route = self.route(op, &params);
        let body = route
            .body
            .as_ref()
            .map_or_else(|| "{}".to_owned(), Value::to_string);
        let sent = format!(
            "{} {}{} ({}) {body}",
            route.method,
            self.base,
            route.path,
            shown_parameters(options)
        );
        let deadline = Instant::now() + options.timeout;
        let address = match self.address(&route) {
            Ok(address) => address,
            Err(error) => return StreamRecord::refused(sent, error.describe(), error),
        };
        let request = match self.peer.request(route.method, &address, options).await {
            Ok(request) => request,
            Err(error) => return StreamRecord::refused(sent, error.describe(), error),
        };
        let response = match request
            .header("content-type", MEDIA)
            .header("accept", "text/event-stream")
            .body(body)
            .send()
            .await
        {
            Ok(response) => response,
            Err(error) => {
                let error = unreachable(&error);
                return StreamRecord::refused(sent, error.describe(), error);
            }
        };
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if !(200..300).contains(&status)
            || !content_type
                .as_deref()
                .is_some_and(|media| media.starts_with("text/event-stream"))
        {
            let text = response.text().await.unwrap_or_default();
            let error = answer_of(status, &text).err().unwrap_or_else(|| {
                WireError::broken(format!("HTTP {status} that is not an event stream"))
            });
            return StreamRecord::refused(sent, format!("HTTP {status} {text}"), error);
        }
        let mut record = StreamRecord {
            sent,
            content_type,
            ..StreamRecord::default()
        };
        sse::read(response, &mut record, deadline, |data| {
            let Ok(event) = serde_json::from_str::<Value>(data) else {
                return Frame::Bad(format!("an event whose data is not JSON: {data}"));
            };
            if let Some(error) = event.get("error") {
                let code = error.get("code").and_then(Value::as_u64).unwrap_or(500);
                return Frame::Error(decoded(
                    ErrorCode::Http(u16::try_from(code).unwrap_or(500)),
                    error.get("details"),
                ));
            }
            Frame::Event(event)
        })
        .await;
        record
    }
}

impl RestWire {
    async fn raw_url(
        &self,
        method: reqwest::Method,
        address: &url::Url,
        body: Option<&str>,
        options: &CallOptions,
    ) -> Exchange {
        let sent = format!(
            "{method} {address} ({}) {}",
            shown_parameters(options),
            body.unwrap_or_default()
        );
        let mut request = match self.peer.request(method, address, options).await {
            Ok(request) => request.header("accept", format!("{MEDIA}, application/json")),
            Err(error) => return failed(sent, error),
        };
        if let Some(text) = body {
            request = request.header("content-type", MEDIA).body(text.to_owned());
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        let status = response.status().as_u16();
        let text = match response.text().await {
            Ok(text) => text,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        Exchange {
            sent,
            received: format!("HTTP {status} {text}"),
            result: answer_of(status, &text),
        }
    }
}
