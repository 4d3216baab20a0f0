//! The JSON-RPC 2.0 binding's wire.
//!
//! The JSON-RPC 2.0 binding: every operation a `POST` of one request object to the interface
//! URL; streams as SSE whose every `data` is a JSON-RPC response with the request's id.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use tokio::time::Instant;

use super::Wire;
use super::exchange::{CallOptions, ErrorCode, Exchange, Op, StreamRecord, WireError};
use super::peer::{HttpPeer, decoded, shown_parameters, unreachable};
use super::sse::{self, Frame};

/// One JSON-RPC interface.
#[derive(Debug)]
pub(crate) struct JsonRpcWire {
    url: url::Url,
    peer: HttpPeer,
    next_id: AtomicU64,
}

impl JsonRpcWire {
    pub(crate) fn new(url: url::Url, peer: HttpPeer) -> Self {
        Self {
            url,
            peer,
            next_id: AtomicU64::new(1),
        }
    }

    /// Sends `method` with `params` (or the raw body of `options`) and decodes the answer.
    pub(crate) async fn rpc(&self, method: &str, params: Value, options: &CallOptions) -> Exchange {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = options.raw_body.clone().unwrap_or_else(|| {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
        });
        let sent = format!("POST {} ({}) {body}", self.url, shown_parameters(options));
        let request = match self
            .peer
            .request(reqwest::Method::POST, &self.url, options)
            .await
        {
            Ok(request) => request,
            Err(error) => return failed(sent, error),
        };
        let response = match request
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
        {
            Ok(response) => response,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        let status = response.status().as_u16();
        let text = match response.text().await {
            Ok(text) => text,
            Err(error) => return failed(sent, unreachable(&error)),
        };
        let received = format!("HTTP {status} {text}");
        let result = match serde_json::from_str::<Value>(&text) {
            Ok(answer) => answer_of(&answer),
            Err(_) => Err(WireError::broken(format!(
                "HTTP {status} with a body that is not JSON"
            ))),
        };
        Exchange {
            sent,
            received,
            result,
        }
    }
}

fn failed(sent: String, error: WireError) -> Exchange {
    Exchange {
        sent,
        received: error.describe(),
        result: Err(error),
    }
}

/// The `result`, or the error, of one JSON-RPC response object.
pub(crate) fn answer_of(answer: &Value) -> Result<Value, WireError> {
    if let Some(error) = answer.get("error") {
        let Some(code) = error.get("code").and_then(Value::as_i64) else {
            return Err(WireError::broken("an error object without an integer code"));
        };
        return Err(decoded(ErrorCode::JsonRpc(code), error.get("data")));
    }
    match answer.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(WireError::broken(
            "a JSON-RPC response with neither result nor error",
        )),
    }
}

#[async_trait::async_trait]
impl Wire for JsonRpcWire {
    fn jsonrpc(&self) -> Option<&JsonRpcWire> {
        Some(self)
    }

    async fn call(&self, op: Op, params: Value, options: &CallOptions) -> Exchange {
        self.rpc(op.method(), params, options).await
    }

    async fn stream(&self, op: Op, params: Value, options: &CallOptions) -> StreamRecord {
        self.stream_method(op.method(), params, options).await
    }
}

impl JsonRpcWire {
    /// Opens the stream of `method` (also a v0.3 name) and reads it.
    pub(crate) async fn stream_method(
        &self,
        method: &str,
        params: Value,
        options: &CallOptions,
    ) -> StreamRecord {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let sent = format!("POST {} ({}) {body}", self.url, shown_parameters(options));
        let deadline = Instant::now() + options.timeout;
        let request = match self
            .peer
            .request(reqwest::Method::POST, &self.url, options)
            .await
        {
            Ok(request) => request,
            Err(error) => return StreamRecord::refused(sent, error.describe(), error),
        };
        let response = match request
            .header("content-type", "application/json")
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
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if !content_type
            .as_deref()
            .is_some_and(|media| media.starts_with("text/event-stream"))
        {
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            let error = match serde_json::from_str::<Value>(&text) {
                Ok(answer) => answer_of(&answer).err().unwrap_or_else(|| {
                    WireError::broken("a plain JSON-RPC result where a stream was expected")
                }),
                Err(_) => WireError::broken(format!("HTTP {status} that is neither SSE nor JSON")),
            };
            return StreamRecord::refused(sent, format!("HTTP {status} {text}"), error);
        }
        let mut record = StreamRecord {
            sent,
            content_type,
            ..StreamRecord::default()
        };
        sse::read(response, &mut record, deadline, |data| {
            let Ok(answer) = serde_json::from_str::<Value>(data) else {
                return Frame::Bad(format!("an event whose data is not JSON: {data}"));
            };
            if answer.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
                || answer.get("id") != Some(&json!(id))
            {
                return Frame::Bad(format!(
                    "an event that is not a JSON-RPC response to request id {id}: {data}"
                ));
            }
            match answer_of(&answer) {
                Ok(event) => Frame::Event(event),
                Err(error) => Frame::Error(error),
            }
        })
        .await;
        record
    }
}
