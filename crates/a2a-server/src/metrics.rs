//! The series the server records, through the [`metrics`] facade: the library only records;
//! whoever runs it installs a recorder and exports them (`a2a serve` serves Prometheus text at
//! `/metrics`, see [`A2aServerBuilder::metrics`](crate::A2aServerBuilder::metrics)). With no
//! recorder installed, recording costs next to nothing. Whoever installs the global recorder
//! calls [`bind`] then, so that the series a request records (task states, running turns, open
//! streams, events, store timings) are registered once and each recording is an atomic
//! update, not a lookup in the recorder's registry.
//!
//! | series | type | labels |
//! |---|---|---|
//! | `a2a_task_states_total` | counter | `state`: each state a task reached |
//! | `a2a_turns_running` | gauge | — |
//! | `a2a_turns_queued` | gauge | — |
//! | `a2a_admission_refusals_total` | counter | `reason`: `busy`, `shutting_down` |
//! | `a2a_streams_open` | gauge | — (SSE responses being written) |
//! | `a2a_events_published_total` | counter | — |
//! | `a2a_push_deliveries_total` | counter | `outcome`: `delivered`, `gone`, `refused`, `retry`, `given_up` |
//! | `a2a_store_operation_seconds` | histogram | `operation`: `save`, `append`, `load` |
//! | `a2a_jwks_fetches_total` | counter | `outcome`: `ok`, `error` |
//! | `a2a_authentication_failures_total` | counter | `scheme`: the type of the card's scheme that refused (`api_key`, `http_bearer`, `oauth2`, `openid_connect`, `mtls`), `none` when no credential was presented; `reason`: `missing`, `invalid`, `scope` |
//! | `a2a_subscriber_events_dropped_total` | counter | — (events an event subscriber was too far behind to get, see [`crate::hooks::EventSubscriber`]) |

use std::sync::OnceLock;
use std::time::Duration;

use a2a_types::TaskState;
use metrics::{Counter, Gauge, Histogram};

/// Each state a task reached.
pub const TASK_STATES: &str = "a2a_task_states_total";
/// Turns running now.
pub const TURNS_RUNNING: &str = "a2a_turns_running";
/// Turns waiting for a slot now.
pub const TURNS_QUEUED: &str = "a2a_turns_queued";
/// Turns refused at admission.
pub const ADMISSION_REFUSALS: &str = "a2a_admission_refusals_total";
/// SSE responses being written now.
pub const STREAMS_OPEN: &str = "a2a_streams_open";
/// Task events logged and published.
pub const EVENTS_PUBLISHED: &str = "a2a_events_published_total";
/// Push delivery attempts, by outcome.
pub const PUSH_DELIVERIES: &str = "a2a_push_deliveries_total";
/// Task store calls, by operation.
pub const STORE_OPERATION_SECONDS: &str = "a2a_store_operation_seconds";
/// JWKS and discovery fetches, by outcome.
pub const JWKS_FETCHES: &str = "a2a_jwks_fetches_total";
/// Refused authentications, by scheme and reason.
pub const AUTHENTICATION_FAILURES: &str = "a2a_authentication_failures_total";

/// Describes every series to the installed recorder (help texts and units); call once
/// after installing it.
pub fn describe() {
    metrics::describe_counter!(TASK_STATES, "Task states reached, by state");
    metrics::describe_gauge!(TURNS_RUNNING, "Turns of the executor running now");
    metrics::describe_gauge!(TURNS_QUEUED, "Turns waiting for a free slot now");
    metrics::describe_counter!(
        ADMISSION_REFUSALS,
        "Messages refused because no turn could start, by reason"
    );
    metrics::describe_gauge!(STREAMS_OPEN, "Server-sent event streams being written now");
    metrics::describe_counter!(EVENTS_PUBLISHED, "Task events logged and published");
    metrics::describe_counter!(PUSH_DELIVERIES, "Push notification attempts, by outcome");
    metrics::describe_histogram!(
        STORE_OPERATION_SECONDS,
        metrics::Unit::Seconds,
        "Task store calls, by operation"
    );
    metrics::describe_counter!(
        JWKS_FETCHES,
        "JWKS (and OIDC discovery) fetches, by outcome"
    );
    metrics::describe_counter!(
        AUTHENTICATION_FAILURES,
        "Requests refused by authentication, by scheme and reason"
    );
}

/// The hot series, registered once with the global recorder by [`bind`].
struct Bound {
    /// By [`state_index`].
    task_states: [Counter; 9],
    turns_running: Gauge,
    streams_open: Gauge,
    events_published: Counter,
    store_save: Histogram,
    store_append: Histogram,
}

static BOUND: OnceLock<Bound> = OnceLock::new();

/// Registers the series every request records with the global recorder, once: call it right
/// after installing that recorder (a later call changes nothing). Until then, and without it,
/// each recording looks its series up in the recorder in force, as the `metrics` macros do.
pub fn bind() {
    let states = [
        TaskState::Unspecified,
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::AuthRequired,
    ]
    .map(|state| metrics::counter!(TASK_STATES, "state" => state_label(state)));
    let _ = BOUND.set(Bound {
        task_states: states,
        turns_running: metrics::gauge!(TURNS_RUNNING),
        streams_open: metrics::gauge!(STREAMS_OPEN),
        events_published: metrics::counter!(EVENTS_PUBLISHED),
        store_save: metrics::histogram!(STORE_OPERATION_SECONDS, "operation" => "save"),
        store_append: metrics::histogram!(STORE_OPERATION_SECONDS, "operation" => "append"),
    });
}

/// The place of `state` in [`Bound::task_states`] (the order [`bind`] registers them in).
fn state_index(state: TaskState) -> usize {
    match state {
        TaskState::Unspecified => 0,
        TaskState::Submitted => 1,
        TaskState::Working => 2,
        TaskState::InputRequired => 3,
        TaskState::Completed => 4,
        TaskState::Canceled => 5,
        TaskState::Failed => 6,
        TaskState::Rejected => 7,
        TaskState::AuthRequired => 8,
    }
}

/// The `state` label of a task state.
fn state_label(state: TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input_required",
        TaskState::Completed => "completed",
        TaskState::Canceled => "canceled",
        TaskState::Failed => "failed",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth_required",
    }
}

pub(crate) fn task_state(state: TaskState) {
    match BOUND.get() {
        Some(bound) => bound.task_states[state_index(state)].increment(1),
        None => metrics::counter!(TASK_STATES, "state" => state_label(state)).increment(1),
    }
}

pub(crate) fn turns_queued(queued: usize) {
    #[allow(clippy::cast_precision_loss)] // a queue is far below 2^52
    metrics::gauge!(TURNS_QUEUED).set(queued as f64);
}

pub(crate) fn admission_refused(reason: &'static str) {
    metrics::counter!(ADMISSION_REFUSALS, "reason" => reason).increment(1);
}

pub(crate) fn events_published(count: u64) {
    match BOUND.get() {
        Some(bound) => bound.events_published.increment(count),
        None => metrics::counter!(EVENTS_PUBLISHED).increment(count),
    }
}

pub(crate) fn push_delivery(outcome: &'static str) {
    metrics::counter!(PUSH_DELIVERIES, "outcome" => outcome).increment(1);
}

pub(crate) fn store_operation(operation: &'static str, elapsed: Duration) {
    let bound = BOUND.get().and_then(|bound| match operation {
        "save" => Some(&bound.store_save),
        "append" => Some(&bound.store_append),
        _ => None,
    });
    match bound {
        Some(histogram) => histogram.record(elapsed.as_secs_f64()),
        None => metrics::histogram!(STORE_OPERATION_SECONDS, "operation" => operation)
            .record(elapsed.as_secs_f64()),
    }
}

pub(crate) fn jwks_fetch(ok: bool) {
    let outcome = if ok { "ok" } else { "error" };
    metrics::counter!(JWKS_FETCHES, "outcome" => outcome).increment(1);
}

pub(crate) fn authentication_failed(reason: &'static str, scheme: &'static str) {
    metrics::counter!(AUTHENTICATION_FAILURES, "scheme" => scheme, "reason" => reason).increment(1);
}

/// Counts one in a gauge while alive (a running turn, an open stream).
#[derive(Debug)]
pub(crate) struct Live(Gauge);

impl Live {
    pub(crate) fn new(gauge: &'static str) -> Self {
        let bound = BOUND.get().and_then(|bound| match gauge {
            TURNS_RUNNING => Some(bound.turns_running.clone()),
            STREAMS_OPEN => Some(bound.streams_open.clone()),
            _ => None,
        });
        let gauge = bound.unwrap_or_else(|| metrics::gauge!(gauge));
        gauge.increment(1.0);
        Self(gauge)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}
