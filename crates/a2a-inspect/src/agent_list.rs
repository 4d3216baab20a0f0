//! A gateway's agent list, read from its `GET {url}/agents`.

use a2a_client::ClientError;
use a2a_client::transport::{ResponseBody, Transport};
use bytes::Bytes;
use futures::StreamExt as _;
use serde_json::Value;

use crate::state::normalise;

/// Largest gateway agent list read.
const MAX_LIST_BYTES: usize = 4 * 1024 * 1024;

/// Whether `GET {url}/agents` answers a gateway's agent list.
pub(crate) async fn is_gateway(transport: &dyn Transport, url: &str) -> bool {
    matches!(gateway_agents(transport, url).await, Ok(Some(_)))
}

/// The records of a gateway's `GET {url}/agents`: `None` when the answer is not an agent
/// list.
pub(crate) async fn gateway_agents(
    transport: &dyn Transport,
    url: &str,
) -> Result<Option<Vec<Value>>, ClientError> {
    let list_url = format!("{}/agents", normalise(url));
    let request = http::Request::get(&list_url)
        .header(http::header::ACCEPT, "application/json")
        .body(Bytes::new())
        .map_err(|error| ClientError::Config {
            reason: error.to_string(),
        });
    let request = match request {
        Ok(request) => request,
        Err(error) => return Err(error),
    };
    let response = transport.send(request).await?;
    if !response.status().is_success() {
        return Ok(None);
    }
    let body = read_limited(response.into_body(), MAX_LIST_BYTES).await?;
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(_) => return Ok(None),
    };
    let records = match value {
        Value::Array(records) => records,
        Value::Object(mut object) => match object.remove("agents") {
            Some(Value::Array(records)) => records,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    // A registry record always names its agent.
    let is_list = records
        .iter()
        .all(|record| record.get("agent_id").is_some_and(Value::is_string));
    Ok(is_list.then_some(records))
}

async fn read_limited(mut body: ResponseBody, limit: usize) -> Result<Vec<u8>, ClientError> {
    let mut collected = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        if collected.len() + chunk.len() > limit {
            return Err(ClientError::PayloadTooLarge { limit });
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(collected)
}
