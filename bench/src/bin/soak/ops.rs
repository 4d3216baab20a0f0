//! The soak's operations, JSON-RPC calls to `a2a serve --agent conformance`, which picks
//! what a task does from the prefix of its message id:
//!
//! - `send`: a blocking `SendMessage` (`tck-artifact-text-…`: COMPLETED with an artifact);
//! - `stream`: a `SendStreamingMessage` (`tck-stream-001-…`: WORKING, an artifact,
//!   COMPLETED) read to its end;
//! - `subscribe`: a `SendMessage` with `returnImmediately` of a task that works 4 s
//!   (`test-resubscribe-message-id-…`), then a `SubscribeToTask` stream to it, read to
//!   COMPLETED; its latency is up to the stream's first event, the rest is read in the
//!   background;
//! - `list`: `ListTasks` of the context the sends of a hundred operations a thousand
//!   operations back used (an empty page is not an error);
//! - `push`: a blocking `SendMessage` whose configuration registers the soak's webhook,
//!   with the operation's number as the token; the delivery naming COMPLETED is awaited by
//!   [`crate::webhook::Pushes`].
//!
//! Operations are numbered; the number picks the kind (see [`Op::of`]) and makes the
//! message ids unique.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_bench::jsonrpc;
use a2a_bench::sse::{self, EventCounter};
use anyhow::{Context as _, bail};
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

use crate::tally::Tally;
use crate::webhook::Pushes;

/// The kinds of operation, and their shares of every hundred operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Send,
    Stream,
    Subscribe,
    List,
    Push,
}

/// The mix: shares out of 100.
pub(crate) const MIX: [(Op, usize); 5] = [
    (Op::Send, 45),
    (Op::Stream, 20),
    (Op::Subscribe, 5),
    (Op::List, 20),
    (Op::Push, 10),
];

/// Operations that share a context: the sends of one hundred.
const PER_CONTEXT: usize = 100;
/// A list names the context of the operation this many before it: sent a while ago, so
/// usually all there.
const LISTED_BACK: usize = 1000;

impl Op {
    /// The kind of operation `number`: a fixed shuffle of each hundred (37 is prime to 100),
    /// so the kinds interleave.
    pub(crate) fn of(number: usize) -> Self {
        let mut slot = (number % 100) * 37 % 100;
        for (op, share) in MIX {
            if slot < share {
                return op;
            }
            slot -= share;
        }
        Self::Send
    }

    /// Its name in the errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Send => "send",
            Self::Stream => "stream",
            Self::Subscribe => "subscribe",
            Self::List => "list",
            Self::Push => "push",
        }
    }
}

/// What every operation shares.
#[derive(Debug)]
pub(crate) struct Soak {
    pub(crate) client: reqwest::Client,
    /// The JSON-RPC endpoint.
    pub(crate) url: String,
    /// The webhook's URL.
    pub(crate) hook: String,
    /// Makes message and context ids unique across runs against one database.
    pub(crate) run_id: String,
    pub(crate) timeout: Duration,
    pub(crate) tally: Arc<Tally>,
    pub(crate) pushes: Arc<Pushes>,
    /// Subscriptions still being read in the background.
    pub(crate) background: AtomicUsize,
}

impl Soak {
    fn context(&self, number: usize) -> String {
        format!("soak-{}-{}", self.run_id, number / PER_CONTEXT)
    }

    /// A blocking SendMessage of operation `number` with the message id prefix `prefix`,
    /// in its context, with `configuration` when there is one; the answer read whole.
    async fn send(
        &self,
        number: usize,
        prefix: &str,
        configuration: Option<Value>,
    ) -> anyhow::Result<Vec<u8>> {
        let mut params = json!({"message": {
            "messageId": format!("{prefix}-soak-{}-{number}", self.run_id),
            "contextId": self.context(number),
            "role": "ROLE_USER",
            "parts": [{"text": "hi"}],
        }});
        if let Some(configuration) = configuration {
            params["configuration"] = configuration;
        }
        self.call(number, "SendMessage", params).await
    }

    /// One JSON-RPC call; the answer's bytes when the status is a success.
    async fn call(&self, id: usize, method: &str, params: Value) -> anyhow::Result<Vec<u8>> {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self
            .client
            .post(&self.url)
            .header(a2a_bench::VERSION_HEADER.0, a2a_bench::VERSION_HEADER.1)
            .header(CONTENT_TYPE, "application/json")
            .timeout(self.timeout)
            .body(body.to_string())
            .send()
            .await?;
        let response = a2a_bench::successful(response).await?;
        Ok(response.bytes().await?.to_vec())
    }
}

/// Runs operation `number` and counts it in the tally.
pub(crate) async fn run(soak: Arc<Soak>, number: usize) {
    let op = Op::of(number);
    let start = Instant::now();
    let result = match op {
        Op::Send => send(&soak, number).await,
        Op::Stream => stream(&soak, number).await,
        Op::Subscribe => subscribe(&soak, number).await,
        Op::List => list(&soak, number).await,
        Op::Push => push(&soak, number).await,
    };
    soak.tally.finished(op.name(), start.elapsed(), result);
}

async fn send(soak: &Soak, number: usize) -> anyhow::Result<()> {
    let answer = soak.send(number, "tck-artifact-text", None).await?;
    jsonrpc::check_send_message_answer(&answer)
}

async fn stream(soak: &Soak, number: usize) -> anyhow::Result<()> {
    let message_id = format!("tck-stream-001-soak-{}-{number}", soak.run_id);
    let outcome = tokio::time::timeout(
        soak.timeout,
        sse::send_streaming_message(&soak.client, &soak.url, &message_id),
    )
    .await
    .context("the stream timed out")?;
    match outcome.error {
        Some(error) => bail!(error),
        None => Ok(()),
    }
}

async fn list(soak: &Soak, number: usize) -> anyhow::Result<()> {
    let earlier = number.saturating_sub(LISTED_BACK);
    let params = json!({"contextId": soak.context(earlier), "pageSize": 20});
    let answer = soak.call(number, "ListTasks", params).await?;
    let answer: Value = serde_json::from_slice(&answer).context("the answer is not JSON")?;
    if let Some(error) = answer.get("error") {
        bail!("JSON-RPC error: {error}");
    }
    // An empty page is not an error: under an open loop the sends of that context may
    // still be waiting for their turn.
    if answer
        .pointer("/result/tasks")
        .is_none_or(|tasks| !tasks.is_array())
    {
        bail!("the result has no tasks: {answer}");
    }
    Ok(())
}

async fn push(soak: &Soak, number: usize) -> anyhow::Result<()> {
    let token = number as u64;
    soak.pushes.expect(token);
    let configuration = json!({"taskPushNotificationConfig": {
        "url": soak.hook,
        "token": token.to_string(),
    }});
    let result = match soak
        .send(number, "tck-artifact-text", Some(configuration))
        .await
    {
        Ok(answer) => jsonrpc::check_send_message_answer(&answer),
        Err(error) => Err(error),
    };
    if result.is_err() {
        soak.pushes.forget(token);
    }
    result
}

/// Starts the slow task, subscribes to it and waits for the stream's first event; the
/// rest of the stream is read in the background, and counted there if it fails.
async fn subscribe(soak: &Arc<Soak>, number: usize) -> anyhow::Result<()> {
    let configuration = json!({"returnImmediately": true});
    let answer = soak
        .send(number, "test-resubscribe-message-id", Some(configuration))
        .await?;
    let answer: Value = serde_json::from_slice(&answer).context("the answer is not JSON")?;
    let task = answer.pointer("/result/task");
    let (Some(id), Some("TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING")) = (
        task.and_then(|task| task["id"].as_str()),
        task.and_then(|task| task["status"]["state"].as_str()),
    ) else {
        bail!("expected a running task, got {answer}");
    };
    let body = json!({"jsonrpc": "2.0", "id": number, "method": "SubscribeToTask",
        "params": {"id": id}});
    let response = soak
        .client
        .post(&soak.url)
        .header(a2a_bench::VERSION_HEADER.0, a2a_bench::VERSION_HEADER.1)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "text/event-stream")
        .body(body.to_string())
        .send();
    let mut response = tokio::time::timeout(soak.timeout, response)
        .await
        .context("subscribing timed out")??;
    response = a2a_bench::successful(response).await?;
    let mut counter = EventCounter::new();
    while counter.events() == 0 {
        let chunk = tokio::time::timeout(soak.timeout, response.chunk())
            .await
            .context("no first event in time")??;
        let Some(chunk) = chunk else {
            bail!("the subscription ended before its first event");
        };
        counter.feed(&chunk);
    }
    soak.background.fetch_add(1, Ordering::SeqCst);
    let soak = Arc::clone(soak);
    tokio::spawn(async move {
        let rest = read_to_end(&soak, response, counter).await;
        if let Err(error) = rest {
            soak.tally.error(Op::Subscribe.name(), &error);
        }
        soak.background.fetch_sub(1, Ordering::SeqCst);
    });
    Ok(())
}

/// Reads the rest of a subscription; `Ok` when an event said COMPLETED.
async fn read_to_end(
    soak: &Soak,
    mut response: reqwest::Response,
    mut counter: EventCounter,
) -> anyhow::Result<()> {
    let read = async {
        while counter.terminal().is_none() {
            let Some(chunk) = response.chunk().await? else {
                break;
            };
            counter.feed(&chunk);
        }
        anyhow::Ok(())
    };
    tokio::time::timeout(soak.timeout, read)
        .await
        .context("the subscription did not end in time")??;
    match counter.terminal() {
        Some("TASK_STATE_COMPLETED") => Ok(()),
        Some(other) => bail!("the subscribed task ended {other}"),
        None => bail!(
            "the subscription ended after {} events without a final state",
            counter.events()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hundred_has_the_mix() {
        for start in [0, 100, 4200] {
            for (op, share) in MIX {
                let count = (start..start + 100).filter(|&n| Op::of(n) == op).count();
                assert_eq!(count, share, "{op:?}");
            }
        }
        assert_eq!(MIX.iter().map(|(_, share)| share).sum::<usize>(), 100);
    }

    #[test]
    fn kinds_interleave() {
        let first: Vec<Op> = (0..10).map(Op::of).collect();
        assert!(first.iter().any(|op| *op != Op::Send), "{first:?}");
    }
}
