//! Senders that keep a server busy through a fault, and what each of their calls came to.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::user_message;

/// What one blocking SendMessage came to.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The server answered with a task: acknowledged.
    Acked { task_id: String, state: String },
    /// The server answered with an A2A error (a JSON-RPC error object).
    Refused { code: i64, message: String },
    /// Anything else: no answer in time, a body that is not JSON-RPC, a transport error.
    Broken(String),
}

/// One call: when it started (since the load began), how long it took, what it came to.
#[derive(Debug, Clone)]
pub struct Call {
    pub at: Duration,
    pub took: Duration,
    pub outcome: Outcome,
}

/// `senders` tasks, each sending one message after another to `url` until stopped.
pub struct Load {
    stop: Arc<AtomicBool>,
    started: Instant,
    handles: Vec<tokio::task::JoinHandle<Vec<Call>>>,
}

impl Load {
    /// Starts the senders; `limit` bounds each call (a call past it is [`Outcome::Broken`]).
    pub fn start(url: &str, senders: usize, prefix: &str, limit: Duration) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let started = Instant::now();
        let http = reqwest::Client::builder().timeout(limit).build().unwrap();
        let handles = (0..senders)
            .map(|sender| {
                let (stop, http) = (stop.clone(), http.clone());
                let url = url.to_owned();
                let prefix = format!("{prefix}-{sender}");
                tokio::spawn(async move {
                    let mut calls = Vec::new();
                    let mut n = 0_u64;
                    while !stop.load(Ordering::Relaxed) {
                        n += 1;
                        let at = started.elapsed();
                        let begun = Instant::now();
                        let outcome = send(&http, &url, &format!("{prefix}-{n}")).await;
                        let took = begun.elapsed();
                        // A refused call comes back at once while the fault lasts: pace
                        // the retries as a client would rather than spin.
                        let refused = !matches!(outcome, Outcome::Acked { .. });
                        calls.push(Call { at, took, outcome });
                        if refused {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                    calls
                })
            })
            .collect();
        Self {
            stop,
            started,
            handles,
        }
    }

    /// Time since the load began.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Stops the senders and returns every call, in no particular order.
    pub async fn finish(self) -> Vec<Call> {
        self.stop.store(true, Ordering::Relaxed);
        let mut calls = Vec::new();
        for handle in self.handles {
            calls.extend(handle.await.unwrap());
        }
        calls
    }
}

/// One blocking SendMessage of `text` (also its message id), classified.
pub async fn send(http: &reqwest::Client, url: &str, text: &str) -> Outcome {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": user_message(text, text)},
    });
    let response = match http
        .post(format!("{url}/"))
        .header("A2A-Version", "1.0")
        .json(&body)
        .send()
        .await
    {
        Ok(response) => response,
        Err(error) => return Outcome::Broken(format!("no answer: {error}")),
    };
    let status = response.status().as_u16();
    let text = match response.text().await {
        Ok(text) => text,
        Err(error) => return Outcome::Broken(format!("HTTP {status}, body cut: {error}")),
    };
    classify(status, &text)
}

/// What a JSON-RPC answer says: a task, an A2A error, or neither.
pub fn classify(status: u16, text: &str) -> Outcome {
    let Ok(answer) = serde_json::from_str::<Value>(text) else {
        return Outcome::Broken(format!("HTTP {status}, not JSON: {text:.200}"));
    };
    if let Some(error) = answer.get("error") {
        return match (error["code"].as_i64(), error["message"].as_str()) {
            (Some(code), Some(message)) if !message.is_empty() => Outcome::Refused {
                code,
                message: message.to_owned(),
            },
            _ => Outcome::Broken(format!(
                "HTTP {status}, error without code or message: {text}"
            )),
        };
    }
    match (
        answer.pointer("/result/task/id").and_then(Value::as_str),
        answer
            .pointer("/result/task/status/state")
            .and_then(Value::as_str),
    ) {
        (Some(task_id), Some(state)) => Outcome::Acked {
            task_id: task_id.to_owned(),
            state: state.to_owned(),
        },
        _ => Outcome::Broken(format!(
            "HTTP {status}, neither task nor error: {text:.300}"
        )),
    }
}

/// The calls' outcomes counted: acknowledged, refused (by error code), broken.
#[derive(Debug, Default)]
pub struct Tally {
    pub acked: Vec<(String, String)>,
    pub refused: std::collections::BTreeMap<i64, (usize, String)>,
    pub broken: Vec<String>,
    pub slowest: Duration,
}

impl Tally {
    pub fn of(calls: &[Call]) -> Self {
        let mut tally = Self::default();
        for call in calls {
            tally.slowest = tally.slowest.max(call.took);
            match &call.outcome {
                Outcome::Acked { task_id, state } => {
                    tally.acked.push((task_id.clone(), state.clone()));
                }
                Outcome::Refused { code, message } => {
                    let entry = tally.refused.entry(*code).or_insert((0, message.clone()));
                    entry.0 += 1;
                }
                Outcome::Broken(why) => tally.broken.push(why.clone()),
            }
        }
        tally
    }

    /// How many calls were refused, whatever the code.
    pub fn refused_count(&self) -> usize {
        self.refused.values().map(|(count, _)| count).sum()
    }
}
