//! The gateway's series, recorded through the [`metrics`] facade. The library only records;
//! whoever runs it installs a recorder and serves its page (`a2a gateway` serves Prometheus
//! text at `GET /metrics`, see [`Gateway::metrics`](crate::Gateway::metrics)). With no
//! recorder installed, recording costs next to nothing.
//!
//! | series | type | labels |
//! |---|---|---|
//! | `kubemq_a2a_requests_total` | counter | `agent_id`, `method`, `outcome` |
//! | `kubemq_a2a_request_duration_seconds` | histogram ([`LATENCY_BUCKETS`]) | `agent_id` |
//! | `kubemq_a2a_sse_streams_active` | gauge | `agent_id` |
//! | `kubemq_a2a_registered_agents` | gauge | — |
//!
//! `method` is a known A2A method name (v1.0, v0.3, and `tasks/send`), `rest` for HTTP+JSON
//! calls, or `unknown`; `agent_id` is [`UNKNOWN_AGENT`] for ids that name no registered
//! agent, so a caller cannot grow the label space at will.
//!
//! # Series of agents that are gone
//!
//! The facade records but cannot remove a series, and the Prometheus exporter offers no call
//! that drops one label set: its only removal is an idle timeout, which would also drop the
//! counters of a registered agent that is merely quiet (and cannot keep a quiet agent's
//! histogram alive without recording fake samples). So removal is the exporter's job, asked
//! for through [`AgentSeries`]: at each scrape the gateway lists the live agents and calls
//! [`AgentSeries::retain_agents`], and the exporter drops every series whose `agent_id` names
//! an agent that was deregistered or expired, on this instance or on another one over the
//! same database. `a2a gateway` keeps each agent's series in a recorder of its own behind a
//! thin recorder layer, so forgetting an agent frees its series as well as hiding them.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use a2a_gateway::metrics::{LATENCY_BUCKETS, Metrics, Outcome, REQUEST_DURATION_SECONDS};
//! use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
//!
//! // What a host does once: a recorder (here a local one, for the example).
//! let recorder = PrometheusBuilder::new()
//!     .set_buckets_for_metric(Matcher::Full(REQUEST_DURATION_SECONDS.into()), &LATENCY_BUCKETS)
//!     .unwrap()
//!     .build_recorder();
//! let page = recorder.handle();
//!
//! // What the gateway does on each call.
//! metrics::with_local_recorder(&recorder, || {
//!     let metrics = Arc::new(Metrics::new());
//!     metrics.record_request("echo", "message/send", Outcome::Success, Duration::from_millis(12));
//!     let stream = metrics.stream_opened("echo");
//!     drop(stream);
//! });
//! assert!(page.render().contains(
//!     r#"kubemq_a2a_requests_total{agent_id="echo",method="message/send",outcome="success"} 1"#
//! ));
//! ```

use std::sync::Arc;
use std::time::Duration;

use a2a_types::jsonrpc::{methods, v0_3};

/// Requests through the proxy, by agent, method and outcome.
pub const REQUESTS_TOTAL: &str = "kubemq_a2a_requests_total";
/// Time from a request's arrival to its answer (a stream's first byte), by agent.
pub const REQUEST_DURATION_SECONDS: &str = "kubemq_a2a_request_duration_seconds";
/// Streams open through the proxy, by agent.
pub const SSE_STREAMS_ACTIVE: &str = "kubemq_a2a_sse_streams_active";
/// Live agents in the registry.
pub const REGISTERED_AGENTS: &str = "kubemq_a2a_registered_agents";

/// The label naming the agent of a series; the one [`AgentSeries`] filters on.
pub const AGENT_ID_LABEL: &str = "agent_id";

/// The `agent_id` label of requests for an id no registered agent has.
pub const UNKNOWN_AGENT: &str = "_unknown";

/// The `method` label of HTTP+JSON calls.
pub(crate) const REST_METHOD: &str = "rest";

/// The Prometheus text format's media type.
pub(crate) const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds of the latency histogram, in seconds: from a fast local call to the longest
/// per-call deadline (`MaxTimeoutSeconds`, 3600 s). An exporter sets them for
/// [`REQUEST_DURATION_SECONDS`].
pub const LATENCY_BUCKETS: [f64; 15] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0,
];

/// Describes every series to the installed recorder (help texts and units); call once
/// after installing it.
pub fn describe() {
    metrics::describe_counter!(
        REQUESTS_TOTAL,
        "Requests through the proxy, by agent, method and outcome."
    );
    metrics::describe_histogram!(
        REQUEST_DURATION_SECONDS,
        metrics::Unit::Seconds,
        "Time from a request's arrival to its answer (a stream's first byte), by agent."
    );
    metrics::describe_gauge!(
        SSE_STREAMS_ACTIVE,
        "Streams open through the proxy, by agent."
    );
    metrics::describe_gauge!(REGISTERED_AGENTS, "Live agents in the registry.");
}

/// An exporter's hook for forgetting the series of agents that are gone.
///
/// Implementations must drop, from the exposition and from memory, every series whose
/// [`AGENT_ID_LABEL`] value `keep` refuses, and leave every other series alone. A series
/// recorded later for a dropped id starts again from zero.
pub trait AgentSeries: Send + Sync + std::fmt::Debug {
    /// Keeps the series of the agents `keep` accepts; drops the other agents' series.
    fn retain_agents(&self, keep: &dyn Fn(&str) -> bool);
}

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

/// Records the gateway's series through the facade. It holds no state (the recorder does);
/// it is shared behind an [`Arc`] between the proxy and the registry's scrape.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Metrics {}

impl Metrics {
    /// A recorder of the gateway's series.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one request to `agent_id` (or [`UNKNOWN_AGENT`]) with JSON-RPC `method` and
    /// observes its latency. Unknown method names are counted as `unknown`.
    #[allow(clippy::unused_self)] // a method, so that recording stays a call on the gateway's handle
    pub fn record_request(
        &self,
        agent_id: &str,
        method: &str,
        outcome: Outcome,
        latency: Duration,
    ) {
        metrics::counter!(
            REQUESTS_TOTAL,
            AGENT_ID_LABEL => agent_id.to_owned(),
            "method" => method_label(method),
            "outcome" => outcome.as_str(),
        )
        .increment(1);
        metrics::histogram!(REQUEST_DURATION_SECONDS, AGENT_ID_LABEL => agent_id.to_owned())
            .record(latency.as_secs_f64());
    }

    /// Counts an open stream to `agent_id` until the returned guard is dropped.
    #[must_use = "the stream counts as open only while the guard lives"]
    #[allow(clippy::unused_self)]
    pub fn stream_opened(self: &Arc<Self>, agent_id: &str) -> ActiveStream {
        let gauge = metrics::gauge!(SSE_STREAMS_ACTIVE, AGENT_ID_LABEL => agent_id.to_owned());
        gauge.increment(1.0);
        ActiveStream { gauge }
    }

    /// Sets the registry-size gauge.
    #[allow(clippy::unused_self)]
    pub fn set_registered_agents(&self, count: usize) {
        #[allow(clippy::cast_precision_loss)] // a registry is far below 2^52 agents
        metrics::gauge!(REGISTERED_AGENTS).set(count as f64);
    }
}

/// An open stream, counted in `kubemq_a2a_sse_streams_active` until dropped.
#[derive(Debug)]
pub struct ActiveStream {
    /// The series the stream was counted in: a stream that outlives its agent's series
    /// leaves that old series, instead of starting a new one at -1.
    gauge: metrics::Gauge,
}

impl Drop for ActiveStream {
    fn drop(&mut self) {
        self.gauge.decrement(1.0);
    }
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
    fn the_stream_gauge_follows_its_guards_and_latency_uses_the_buckets() {
        use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(
                Matcher::Full(REQUEST_DURATION_SECONDS.to_owned()),
                &LATENCY_BUCKETS,
            )
            .unwrap()
            .build_recorder();
        let page = recorder.handle();
        let metrics = Arc::new(Metrics::new());
        let guard = metrics::with_local_recorder(&recorder, || {
            metrics.record_request("a1", "GetTask", Outcome::Success, Duration::from_millis(3));
            metrics.record_request("a1", "GetTask", Outcome::Timeout, Duration::from_secs(2));
            metrics.stream_opened("a1")
        });
        let text = page.render();
        for line in [
            r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="a1",le="0.005"} 1"#,
            r#"kubemq_a2a_request_duration_seconds_bucket{agent_id="a1",le="2.5"} 2"#,
            r#"kubemq_a2a_request_duration_seconds_count{agent_id="a1"} 2"#,
            r#"kubemq_a2a_sse_streams_active{agent_id="a1"} 1"#,
        ] {
            assert!(
                text.lines().any(|candidate| candidate == line),
                "{line}\n{text}"
            );
        }
        // The guard keeps its series: dropped outside the recorder's scope, it still counts.
        drop(guard);
        assert!(
            page.render()
                .contains(r#"kubemq_a2a_sse_streams_active{agent_id="a1"} 0"#)
        );
    }
}
