//! The gateway's Prometheus metrics, kept in memory and written in the text
//! exposition format at `GET /metrics`.
//!
//! | series | type | labels |
//! |---|---|---|
//! | `kubemq_a2a_requests_total` | counter | `agent_id`, `method`, `outcome` |
//! | `kubemq_a2a_request_duration_seconds` | histogram | `agent_id` |
//! | `kubemq_a2a_sse_streams_active` | gauge | `agent_id` |
//! | `kubemq_a2a_registered_agents` | gauge | — |
//!
//! `method` is a known A2A method name (v1.0, v0.3, and `tasks/send`), `rest` for HTTP+JSON
//! calls, or `unknown`; `agent_id` is [`UNKNOWN_AGENT`] for ids that name no registered
//! agent, so a caller cannot grow the label space at will.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use a2a_gateway::metrics::{Metrics, Outcome};
//!
//! let metrics = Arc::new(Metrics::new());
//! metrics.record_request("echo", "message/send", Outcome::Success, Duration::from_millis(12));
//! metrics.set_registered_agents(1);
//! let text = metrics.render();
//! assert!(text.contains(
//!     r#"kubemq_a2a_requests_total{agent_id="echo",method="message/send",outcome="success"} 1"#
//! ));
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use a2a_types::jsonrpc::{methods, v0_3};
use axum::response::IntoResponse as _;
use http::header::{CONTENT_TYPE, HeaderValue};

/// The `agent_id` label of requests for an id no registered agent has.
pub const UNKNOWN_AGENT: &str = "_unknown";

/// The `method` label of HTTP+JSON calls.
pub(crate) const REST_METHOD: &str = "rest";

/// The Prometheus text format's media type.
pub(crate) const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds of the latency histogram, in seconds: from a fast local call to the longest
/// per-call deadline (`MaxTimeoutSeconds`, 3600 s).
const LATENCY_BUCKETS: [f64; 15] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0,
];

/// How a proxied request ended: the `outcome` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Outcome {
    /// The agent answered with a result, or a stream was opened.
    Success,
    /// The agent answered with its own error (executed: true, relayed as it came).
    AgentError,
    /// The deadline passed (-32001).
    Timeout,
    /// No live agent has the id (-32002).
    AgentNotFound,
    /// The agent could not be reached (-32003).
    Unreachable,
    /// The agent answered 502, 503 or 504 (-32003).
    Unavailable,
    /// The agent's concurrency limit was reached (-32003).
    Busy,
    /// The agent's reply exceeded the size limit (-32003).
    ResponseTooLarge,
    /// The agent's reply was not valid JSON-RPC (-32004).
    InvalidResponse,
    /// The request was refused before routing (base codes).
    InvalidRequest,
    /// The caller's token was missing or refused (-32010).
    Unauthenticated,
    /// The gateway itself failed (-32603).
    Internal,
}

impl Outcome {
    /// The label value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::AgentError => "agent_error",
            Self::Timeout => "timeout",
            Self::AgentNotFound => "agent_not_found",
            Self::Unreachable => "unreachable",
            Self::Unavailable => "unavailable",
            Self::Busy => "busy",
            Self::ResponseTooLarge => "response_too_large",
            Self::InvalidResponse => "invalid_response",
            Self::InvalidRequest => "invalid_request",
            Self::Unauthenticated => "unauthenticated",
            Self::Internal => "internal",
        }
    }
}

/// The gateway's counters, histogram and gauges. Share one behind an [`Arc`] between the
/// proxy, the registry and [`metrics_route`].
#[derive(Debug, Default)]
pub struct Metrics {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// By agent, then by method and outcome: a call for a known agent allocates nothing.
    requests: BTreeMap<String, BTreeMap<(&'static str, Outcome), u64>>,
    latency: BTreeMap<String, Histogram>,
    active_streams: BTreeMap<String, u64>,
    registered_agents: u64,
}

#[derive(Debug, Default)]
struct Histogram {
    /// Observations per bucket (not cumulative), one per [`LATENCY_BUCKETS`] entry.
    buckets: [u64; LATENCY_BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Metrics {
    /// Empty metrics.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one request to `agent_id` (or [`UNKNOWN_AGENT`]) with JSON-RPC `method` and
    /// observes its latency. Unknown method names are counted as `unknown`.
    pub fn record_request(
        &self,
        agent_id: &str,
        method: &str,
        outcome: Outcome,
        latency: Duration,
    ) {
        let method = method_label(method);
        let mut state = self.lock();
        let by_agent = match state.requests.get_mut(agent_id) {
            Some(by_agent) => by_agent,
            None => state.requests.entry(agent_id.to_owned()).or_default(),
        };
        *by_agent.entry((method, outcome)).or_default() += 1;
        let histogram = match state.latency.get_mut(agent_id) {
            Some(histogram) => histogram,
            None => state.latency.entry(agent_id.to_owned()).or_default(),
        };
        let seconds = latency.as_secs_f64();
        if let Some(bucket) = LATENCY_BUCKETS.iter().position(|bound| seconds <= *bound) {
            histogram.buckets[bucket] += 1;
        }
        histogram.count += 1;
        histogram.sum += seconds;
    }

    /// Counts an open stream to `agent_id` until the returned guard is dropped.
    #[must_use = "the stream counts as open only while the guard lives"]
    pub fn stream_opened(self: &Arc<Self>, agent_id: &str) -> ActiveStream {
        *self
            .lock()
            .active_streams
            .entry(agent_id.to_owned())
            .or_default() += 1;
        ActiveStream {
            metrics: Arc::clone(self),
            agent_id: agent_id.to_owned(),
        }
    }

    /// Sets the registry-size gauge.
    pub fn set_registered_agents(&self, count: usize) {
        self.lock().registered_agents = u64::try_from(count).unwrap_or(u64::MAX);
    }

    /// Everything, in the Prometheus text exposition format (version 0.0.4).
    #[must_use]
    pub fn render(&self) -> String {
        let state = self.lock();
        let mut text = String::new();
        header(
            &mut text,
            "kubemq_a2a_requests_total",
            "counter",
            "Requests through the proxy, by agent, method and outcome.",
        );
        let requests = state.requests.iter().flat_map(|(agent_id, by_agent)| {
            by_agent
                .iter()
                .map(move |((method, outcome), count)| (agent_id, method, outcome, count))
        });
        for (agent_id, method, outcome, count) in requests {
            let _ = writeln!(
                text,
                "kubemq_a2a_requests_total{{agent_id=\"{}\",method=\"{}\",outcome=\"{}\"}} {count}",
                escape(agent_id),
                escape(method),
                outcome.as_str()
            );
        }
        header(
            &mut text,
            "kubemq_a2a_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to its answer (a stream's first byte), by agent.",
        );
        for (agent_id, histogram) in &state.latency {
            let agent_id = escape(agent_id);
            let mut cumulative = 0;
            for (bound, count) in LATENCY_BUCKETS.iter().zip(histogram.buckets) {
                cumulative += count;
                let _ = writeln!(
                    text,
                    "kubemq_a2a_request_duration_seconds_bucket{{agent_id=\"{agent_id}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                text,
                "kubemq_a2a_request_duration_seconds_bucket{{agent_id=\"{agent_id}\",le=\"+Inf\"}} {}\n\
                 kubemq_a2a_request_duration_seconds_sum{{agent_id=\"{agent_id}\"}} {}\n\
                 kubemq_a2a_request_duration_seconds_count{{agent_id=\"{agent_id}\"}} {}",
                histogram.count, histogram.sum, histogram.count
            );
        }
        header(
            &mut text,
            "kubemq_a2a_sse_streams_active",
            "gauge",
            "Streams open through the proxy, by agent.",
        );
        for (agent_id, open) in &state.active_streams {
            let _ = writeln!(
                text,
                "kubemq_a2a_sse_streams_active{{agent_id=\"{}\"}} {open}",
                escape(agent_id)
            );
        }
        header(
            &mut text,
            "kubemq_a2a_registered_agents",
            "gauge",
            "Live agents in the registry.",
        );
        let _ = writeln!(
            text,
            "kubemq_a2a_registered_agents {}",
            state.registered_agents
        );
        text
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update leaves the state consistent, so a panic elsewhere loses nothing.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An open stream, counted in `kubemq_a2a_sse_streams_active` until dropped.
#[derive(Debug)]
pub struct ActiveStream {
    metrics: Arc<Metrics>,
    agent_id: String,
}

impl Drop for ActiveStream {
    fn drop(&mut self) {
        if let Some(open) = self.metrics.lock().active_streams.get_mut(&self.agent_id) {
            *open = open.saturating_sub(1);
        }
    }
}

/// `GET /metrics`, answering with [`Metrics::render`].
pub fn metrics_route(metrics: Arc<Metrics>) -> axum::Router {
    axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let metrics = Arc::clone(&metrics);
            async move {
                (
                    [(CONTENT_TYPE, HeaderValue::from_static(TEXT_FORMAT))],
                    metrics.render(),
                )
                    .into_response()
            }
        }),
    )
}

/// The `method` label: a known method name as given, [`REST_METHOD`], or `unknown`.
pub(crate) fn method_label(method: &str) -> &'static str {
    methods::ALL
        .iter()
        .chain(v0_3::ALL.iter())
        .chain([TASKS_SEND, REST_METHOD].iter())
        .find(|known| **known == method)
        .copied()
        .unwrap_or("unknown")
}

/// `tasks/send`: an old alias of `message/send` that KubeMQ's examples still use.
const TASKS_SEND: &str = "tasks/send";

fn header(text: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value with `\`, `"` and line feeds escaped, as the text format requires.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_labels_are_known_names_or_unknown() {
        let cases = [
            ("message/send", "message/send"),
            ("message/stream", "message/stream"),
            ("tasks/send", "tasks/send"),
            ("SendMessage", "SendMessage"),
            ("rest", "rest"),
            ("custom/thing", "unknown"),
        ];
        for (method, label) in cases {
            assert_eq!(method_label(method), label, "{method}");
        }
    }

    #[test]
    fn the_histogram_is_cumulative_and_the_gauge_follows_guards() {
        let metrics = Arc::new(Metrics::new());
        metrics.record_request("a1", "GetTask", Outcome::Success, Duration::from_millis(3));
        metrics.record_request("a1", "GetTask", Outcome::Timeout, Duration::from_secs(2));
        let guard = metrics.stream_opened("a1");
        let text = metrics.render();
        assert!(
            text.contains(
                r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="a1",le="0.005"} 1"#
            )
        );
        assert!(
            text.contains(
                r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="a1",le="2.5"} 2"#
            )
        );
        assert!(text.contains(r#"kubemq_a2a_request_duration_seconds_count{agent_id="a1"} 2"#));
        assert!(text.contains(r#"kubemq_a2a_sse_streams_active{agent_id="a1"} 1"#));
        drop(guard);
        assert!(
            metrics
                .render()
                .contains(r#"kubemq_a2a_sse_streams_active{agent_id="a1"} 0"#)
        );
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
