//! The log itself: recorded calls kept newest last, followed as they change, and the ids of
//! the calls a handler's future made.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::Serialize;
use tokio::sync::broadcast;

/// How many calls the log keeps.
pub const WIRE_CAPACITY: usize = 500;

/// One recorded call, as `/api/wire` shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WireCall {
    /// Its number, from 1, in the order calls began.
    pub id: u64,
    /// The connection that made it, if any.
    pub connection: Option<String>,
    /// When it began (RFC 3339).
    pub time: String,
    /// The A2A operation (`SendMessage`, `GetAgentCard`…) or what else it is.
    pub operation: String,
    /// `JSONRPC`, `HTTP+JSON`, `GRPC`; `null` for card and registry fetches.
    pub binding: Option<String>,
    /// The HTTP method.
    pub method: String,
    /// The URL (secret query parameters redacted).
    pub url: String,
    /// Request headers, secrets redacted.
    pub request_headers: Vec<(String, String)>,
    /// The request body as text, JSON pretty-printed.
    pub request_body: String,
    /// The response status, once the head arrived.
    pub status: Option<u16>,
    /// Response headers, secrets redacted.
    pub response_headers: Vec<(String, String)>,
    /// The response body as text (JSON pretty-printed), once read; `null` for a stream.
    pub response_body: Option<String>,
    /// The SSE frames of a stream, in order.
    pub sse: Vec<SseFrame>,
    /// Milliseconds from the request to the end of the response (so far).
    pub duration_ms: u64,
    /// Why the call failed, if it did.
    pub error: Option<String>,
    /// The same request as a `curl` command, secrets as `$A2A_…` variables.
    pub curl: String,
    /// The equivalent `a2a` command, when there is one.
    pub a2a: Option<String>,
}

/// One frame of a recorded stream.
#[derive(Debug, Clone, Serialize)]
pub struct SseFrame {
    /// When it arrived (RFC 3339).
    pub time: String,
    /// The frame's text as received.
    pub frame: String,
}

/// The last [`WIRE_CAPACITY`] calls, and a broadcast of each new or updated one.
#[derive(Debug)]
pub struct WireLog {
    state: Mutex<LogState>,
    events: broadcast::Sender<WireCall>,
}

#[derive(Debug, Default)]
struct LogState {
    next_id: u64,
    calls: VecDeque<WireCall>,
}

impl Default for WireLog {
    fn default() -> Self {
        Self::new()
    }
}

impl WireLog {
    /// An empty log.
    pub fn new() -> Self {
        let (events, _) = broadcast::channel(1024);
        Self {
            state: Mutex::new(LogState::default()),
            events,
        }
    }

    /// The calls with an id above `after`, oldest first.
    pub fn calls_after(&self, after: u64) -> Vec<WireCall> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .calls
            .iter()
            .filter(|call| call.id > after)
            .cloned()
            .collect()
    }

    /// Each new or updated call from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<WireCall> {
        self.events.subscribe()
    }

    /// The calls kept, oldest first, and each new or updated call after them: nothing
    /// between the two is missed or told twice.
    pub fn follow(&self) -> (Vec<WireCall>, broadcast::Receiver<WireCall>) {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let receiver = self.events.subscribe();
        (state.calls.iter().cloned().collect(), receiver)
    }

    /// Records a new call; gives its id.
    pub fn begin(&self, mut call: WireCall) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.next_id += 1;
        call.id = state.next_id;
        if state.calls.len() >= WIRE_CAPACITY {
            state.calls.pop_front();
        }
        state.calls.push_back(call.clone());
        let id = call.id;
        // Sent under the lock, so that `follow` sees each change exactly once. Nobody
        // listening is fine.
        let _ = self.events.send(call);
        drop(state);
        id
    }

    /// Changes call `id` (if still kept) and tells the listeners.
    pub fn update(&self, id: u64, change: impl FnOnce(&mut WireCall)) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(call) = state.calls.iter_mut().rev().find(|call| call.id == id) else {
            return;
        };
        change(call);
        let call = call.clone();
        let _ = self.events.send(call);
        drop(state);
    }

    /// The id of the most recent call of `connection` for `operation`, if any.
    pub fn last_of(&self, connection: &str, operation: &str) -> Option<u64> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .calls
            .iter()
            .rev()
            .find(|call| {
                call.connection.as_deref() == Some(connection) && call.operation == operation
            })
            .map(|call| call.id)
    }
}

tokio::task_local! {
    /// The ids of the calls recorded while a handler's future runs in this scope: how a
    /// handler learns which wire entry its call to the agent became.
    pub static CALL_IDS: Arc<Mutex<Vec<u64>>>;
}

/// Runs `future`, giving the ids of the calls it recorded.
pub async fn with_call_ids<T>(future: impl Future<Output = T>) -> (T, Vec<u64>) {
    let ids = Arc::new(Mutex::new(Vec::new()));
    let output = CALL_IDS.scope(Arc::clone(&ids), future).await;
    let ids = ids.lock().unwrap_or_else(PoisonError::into_inner).clone();
    (output, ids)
}

/// RFC 3339 now, milliseconds, UTC.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

pub(super) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
