//! The series the server records, through the [`metrics`] facade: the library only records;
//! whoever runs it installs a recorder and exports them (`a2a serve` serves Prometheus text at
//! `/metrics`, see [`A2aServerBuilder::metrics`](crate::A2aServerBuilder::metrics)). With no
//! recorder installed, recording costs next to nothing.
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

use std::time::Duration;

use a2a_types::TaskState;

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
    metrics::counter!(TASK_STATES, "state" => state_label(state)).increment(1);
}

pub(crate) fn turns_queued(queued: usize) {
    #[allow(clippy::cast_precision_loss)] // a queue is far below 2^52
    metrics::gauge!(TURNS_QUEUED).set(queued as f64);
}

pub(crate) fn admission_refused(reason: &'static str) {
    metrics::counter!(ADMISSION_REFUSALS, "reason" => reason).increment(1);
}

pub(crate) fn events_published(count: u64) {
    metrics::counter!(EVENTS_PUBLISHED).increment(count);
}

pub(crate) fn push_delivery(outcome: &'static str) {
    metrics::counter!(PUSH_DELIVERIES, "outcome" => outcome).increment(1);
}

pub(crate) fn store_operation(operation: &'static str, elapsed: Duration) {
    metrics::histogram!(STORE_OPERATION_SECONDS, "operation" => operation)
        .record(elapsed.as_secs_f64());
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
pub(crate) struct Live(&'static str);

impl Live {
    pub(crate) fn new(gauge: &'static str) -> Self {
        metrics::gauge!(gauge).increment(1.0);
        Self(gauge)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        metrics::gauge!(self.0).decrement(1.0);
    }
}
