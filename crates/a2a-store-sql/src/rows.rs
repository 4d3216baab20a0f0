//! What both backends write and read: tasks, runs, scopes and events as column values, the
//! clock, and the expiry cut-off.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_run::run::Run;
use a2a_run::store::StoredRun;
use a2a_server::TaskEvent;
use a2a_server::cluster::ExpiredLease;
use a2a_server::store::{
    ClaimedWebhook, DeliveryProgress, Saved, StoreError, StoredTask, TaskScope, Version,
};
use a2a_types::{StreamResponse, Task, TaskId, TaskPushNotificationConfig, TaskState, Timestamp};

use crate::error::json;

/// A scope as the three columns that key it. Owners are kept as a flag and a text (empty
/// when there is none) so that equality works the same in SQLite and PostgreSQL, where
/// `NULL = NULL` is not true, and an owner `Some("")` stays distinct from `None`.
#[derive(Debug, Clone)]
pub(crate) struct ScopeKey {
    pub(crate) tenant: String,
    pub(crate) has_owner: bool,
    pub(crate) owner: String,
}

impl ScopeKey {
    pub(crate) fn of(scope: &TaskScope) -> Self {
        Self {
            tenant: scope.tenant.clone(),
            has_owner: scope.owner.is_some(),
            owner: scope.owner.clone().unwrap_or_default(),
        }
    }

    /// The scope of the columns `(tenant, has_owner, owner)` as a statement returns them.
    pub(crate) fn from_columns((tenant, has_owner, owner): (String, bool, String)) -> Self {
        Self {
            tenant,
            has_owner,
            owner,
        }
    }

    pub(crate) fn into_scope(self) -> TaskScope {
        TaskScope {
            tenant: self.tenant,
            owner: self.has_owner.then_some(self.owner),
        }
    }
}

/// A task as the columns of its row.
#[derive(Debug, Clone)]
pub(crate) struct TaskRow {
    pub(crate) task_id: String,
    pub(crate) context_id: String,
    pub(crate) state: &'static str,
    /// The list-order key: status timestamp in Unix milliseconds, 0 without one.
    pub(crate) sort_millis: i64,
    /// The nanoseconds of the status timestamp past `sort_millis`; `None` without a
    /// timestamp. With `sort_millis` it gives the exact instant for `statusTimestampAfter`.
    pub(crate) sub_millis_nanos: Option<i64>,
    pub(crate) terminal: bool,
    /// Whether a turn runs in this state, so that the saving instance holds the lease.
    pub(crate) running: bool,
    /// The task as compact JSON.
    pub(crate) body: String,
}

impl TaskRow {
    pub(crate) fn of(task: &Task) -> Result<Self, StoreError> {
        let (sort_millis, sub_millis_nanos) = match &task.status.timestamp {
            Some(timestamp) => {
                let (millis, nanos) = instant_key(timestamp);
                (millis, Some(nanos))
            }
            None => (0, None),
        };
        Ok(Self {
            task_id: task.id.as_str().to_owned(),
            context_id: task.context_id.as_str().to_owned(),
            state: task.status.state.as_str(),
            sort_millis,
            sub_millis_nanos,
            terminal: task.status.state.is_terminal(),
            running: runs_a_turn(task.status.state),
            body: serde_json::to_string(task).map_err(json)?,
        })
    }
}

/// The states a save leaves a task in while its turn goes on: the saving instance takes
/// the turn lease (see `Cluster`'s "leases taken by saves").
fn runs_a_turn(state: TaskState) -> bool {
    match state {
        TaskState::Submitted | TaskState::Working | TaskState::AuthRequired => true,
        TaskState::Unspecified
        | TaskState::Completed
        | TaskState::Failed
        | TaskState::Canceled
        | TaskState::InputRequired
        | TaskState::Rejected => false,
    }
}

/// A timestamp as (Unix milliseconds, nanoseconds past them): ordered like the instants.
pub(crate) fn instant_key(timestamp: &Timestamp) -> (i64, i64) {
    let nanos = timestamp.as_datetime().timestamp_subsec_nanos() % 1_000_000;
    (timestamp.unix_millis(), i64::from(nanos))
}

/// The events of one save as compact JSON, in order.
pub(crate) fn encode_events(events: &[StreamResponse]) -> Result<Vec<String>, StoreError> {
    events
        .iter()
        .map(|event| serde_json::to_string(event).map_err(json))
        .collect()
}

pub(crate) fn decode_task(body: &str) -> Result<Task, StoreError> {
    serde_json::from_str(body).map_err(json)
}

pub(crate) fn decode_stored(
    body: &str,
    version: i64,
    last_sequence: i64,
) -> Result<StoredTask, StoreError> {
    Ok(StoredTask {
        task: decode_task(body)?,
        version: Version(to_u64(version)),
        last_sequence: to_u64(last_sequence),
    })
}

/// What a save returns from the (new version, last sequence) of its statement.
pub(crate) fn to_saved((version, last_sequence): (i64, i64)) -> Saved {
    Saved {
        version: Version(to_u64(version)),
        last_sequence: to_u64(last_sequence),
    }
}

pub(crate) fn decode_event(sequence: i64, body: &str) -> Result<TaskEvent, StoreError> {
    Ok(TaskEvent {
        sequence: to_u64(sequence),
        response: serde_json::from_str(body).map_err(json)?,
    })
}

/// The answer of `events` from the rows of [`sql::LOAD_EVENTS`](crate::sql::LOAD_EVENTS):
/// no row means no such task, NULL columns mean no event after the position.
pub(crate) fn events_from_rows(
    rows: Vec<(Option<i64>, Option<String>)>,
    limit: usize,
) -> Result<Option<Vec<TaskEvent>>, StoreError> {
    if rows.is_empty() {
        return Ok(None);
    }
    if limit == 0 {
        return Ok(Some(Vec::new()));
    }
    rows.into_iter()
        .filter_map(|(sequence, body)| Some((sequence?, body?)))
        .map(|(sequence, body)| decode_event(sequence, &body))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

pub(crate) fn decode_config(body: &str) -> Result<TaskPushNotificationConfig, StoreError> {
    serde_json::from_str(body).map_err(json)
}

/// A run as the columns of its row.
#[derive(Debug, Clone)]
pub(crate) struct RunRow {
    pub(crate) task_id: String,
    /// The `state` name of the run's status (`running`, `suspended`, …).
    pub(crate) status: String,
    /// The run as compact JSON.
    pub(crate) state: String,
}

impl RunRow {
    pub(crate) fn of(run: &Run) -> Result<Self, StoreError> {
        // The status is tagged by `state`; its name is that tag.
        let status = serde_json::to_value(&run.status).map_err(json)?;
        let status = status
            .get("state")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(Self {
            task_id: run.task_id.as_str().to_owned(),
            status,
            state: serde_json::to_string(run).map_err(json)?,
        })
    }
}

/// A stored run from its `state` and `version` columns.
pub(crate) fn decode_run(state: &str, version: i64) -> Result<StoredRun, StoreError> {
    Ok(StoredRun {
        run: serde_json::from_str(state).map_err(json)?,
        version: Version(to_u64(version)),
    })
}

/// The refusal of a push config over the per-task limit, worded as the in-memory store's.
pub(crate) fn push_limit(task_id: &str, max_per_task: usize) -> StoreError {
    StoreError::Limit {
        what: format!("task {task_id} already holds {max_per_task} push configs"),
    }
}

/// A claimed webhook as the claim statements return it: tenant, has_owner, owner, task id,
/// config body, delivered sequence, attempts.
pub(crate) type ClaimRow = (String, bool, String, String, String, i64, i32);

/// The webhooks of a claim's rows. A config whose body does not decode is left out (and
/// logged) rather than failing the claim: the others were claimed with it, and failing
/// would hold them back until their claim passed, at every poll that meets it again.
pub(crate) fn claimed_webhooks(rows: Vec<ClaimRow>) -> Vec<ClaimedWebhook> {
    rows.into_iter()
        .filter_map(
            |(tenant, has_owner, owner, task_id, body, delivered, attempts)| {
                let config = match serde_json::from_str(&body) {
                    Ok(config) => config,
                    Err(error) => {
                        tracing::warn!(%error, task_id, "stored push config does not decode");
                        return None;
                    }
                };
                Some(ClaimedWebhook::new(
                    ScopeKey::from_columns((tenant, has_owner, owner)).into_scope(),
                    TaskId::new(task_id),
                    config,
                    to_u64(delivered),
                    u32::try_from(attempts).unwrap_or(0),
                ))
            },
        )
        .collect()
}

/// The values of [`sql::RECORD_DELIVERY`](crate::sql::RECORD_DELIVERY)'s `$6…$10`:
/// delivered sequence, attempts, next attempt at, claimed by, claimed until.
pub(crate) type ProgressColumns = (i64, i32, i64, Option<String>, Option<i64>);

/// A delivery's progress as [`ProgressColumns`], for `instance`.
pub(crate) fn progress_columns(progress: &DeliveryProgress, instance: &str) -> ProgressColumns {
    (
        to_i64(progress.delivered),
        i32::try_from(progress.attempts).unwrap_or(i32::MAX),
        to_i64(progress.next_attempt_at_ms),
        progress.claimed_until_ms.map(|_| instance.to_owned()),
        progress.claimed_until_ms.map(to_i64),
    )
}

/// A lease taken over as the statements that claim expired leases return it: task id,
/// tenant, has_owner, owner, the holder whose lease expired.
pub(crate) type ExpiredRow = (String, String, bool, String, String);

pub(crate) fn expired_lease(
    (task_id, tenant, has_owner, owner, previous): ExpiredRow,
) -> ExpiredLease {
    ExpiredLease {
        scope: ScopeKey::from_columns((tenant, has_owner, owner)).into_scope(),
        task_id: TaskId::new(task_id),
        holder: previous,
    }
}

/// Columns are signed; the store only ever writes values ≥ 0 into them.
pub(crate) fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// A count or position for a signed column, saturating.
pub(crate) fn to_i64<N: TryInto<i64>>(value: N) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

/// The config id a push config is stored under: its id, or empty without one (as the
/// in-memory store does).
pub(crate) fn config_key(config: &TaskPushNotificationConfig) -> String {
    config
        .id
        .as_ref()
        .map(|id| id.as_str().to_owned())
        .unwrap_or_default()
}

/// The store's clock: Unix milliseconds from the process's system clock. Every instant
/// the store writes or compares (terminal times, lease expiries) comes from here, so
/// instances sharing a PostgreSQL database should have synchronised clocks (NTP): a skew
/// shifts lease expiry and task expiry by as much.
pub(crate) fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| to_i64(since.as_millis()))
}

/// The first version of a task created now: the time in Unix microseconds. Versions then
/// grow by one per save, so a task created again under the id of an expired one (at least
/// a TTL later) starts above every version the expired one had, unless that one was saved
/// more than once per microsecond of its life. `previous` is the expired task's version,
/// when it is known, to be safe even then.
pub(crate) fn first_version(previous: Option<i64>) -> i64 {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |since| to_i64(since.as_micros()));
    previous.map_or(micros, |previous| micros.max(previous.saturating_add(1)))
}

/// The instant `duration` after `now`, in Unix milliseconds.
pub(crate) fn millis_after(now: i64, duration: Duration) -> i64 {
    now.saturating_add(to_i64(duration.as_millis()))
}

/// How terminal tasks expire. Each task carries its expiry (`expires_at`), set by the save
/// that made it terminal from the TTL of the store that saved it; a task is visible while
/// it has none or it is still ahead. So instances with different TTLs over one database
/// never expire each other's tasks early.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expiry {
    ttl_millis: i64,
}

impl Expiry {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self {
            ttl_millis: to_i64(ttl.as_millis()),
        }
    }

    pub(crate) fn is_on(self) -> bool {
        self.ttl_millis > 0
    }

    /// The expiry of a task that becomes terminal at `now`; `None` with a zero TTL.
    pub(crate) fn expires_at(self, now: i64) -> Option<i64> {
        self.is_on().then(|| now.saturating_add(self.ttl_millis))
    }
}

/// The lease columns (holder, expiry) a save writes: `holder` until `ttl` after `now` while
/// a turn runs, nobody otherwise.
pub(crate) fn lease_columns(
    running: bool,
    holder: &str,
    ttl: Duration,
    now: i64,
) -> (Option<&str>, Option<i64>) {
    if running {
        (Some(holder), Some(millis_after(now, ttl)))
    } else {
        (None, None)
    }
}

/// What the task statement of a save binds, on both backends: `$1` task id, `$2…$4`
/// scope, `$5` version (expected by an update, first of a create), `$6…$10` the row's
/// columns, `$11` number of events, then as `Shared::bind_update` and
/// `Shared::bind_insert` say.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SaveColumns<'a> {
    pub(crate) scope: &'a ScopeKey,
    pub(crate) row: &'a TaskRow,
    pub(crate) version: i64,
    pub(crate) events: i64,
    pub(crate) now: i64,
    /// The expiry of the task should it become terminal now; `None` with a zero TTL.
    pub(crate) expires_at: Option<i64>,
    /// Lease holder and expiry ([`lease_columns`]).
    pub(crate) lease: (Option<&'a str>, Option<i64>),
}

/// Why a save with `Expected::Version` was refused, given the row the database holds
/// under its id (scope and expiry), if any, at `now`.
pub(crate) fn version_refusal(
    task_id: &str,
    found: Option<(ScopeKey, Option<i64>)>,
    scope: &ScopeKey,
    now: i64,
) -> StoreError {
    let task_id = TaskId::new(task_id);
    match found {
        Some((stored, expires_at))
            if expires_at.is_none_or(|at| at > now)
                && stored.tenant == scope.tenant
                && stored.has_owner == scope.has_owner
                && stored.owner == scope.owner =>
        {
            StoreError::Conflict { task_id }
        }
        // Missing, expired, or another scope's: all look the same, so a caller never learns
        // that a task it may not see exists.
        _ => StoreError::NotFound { task_id },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instant_keys_order_like_the_instants() {
        let texts = [
            "1969-12-31T23:59:59.999999999Z",
            "1970-01-01T00:00:00Z",
            "2025-01-01T10:00:00.000000001Z",
            "2025-01-01T10:00:00.000999999Z",
            "2025-01-01T10:00:00.001Z",
        ];
        let keys: Vec<(i64, i64)> = texts
            .iter()
            .map(|text| instant_key(&Timestamp::parse(text).unwrap()))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        assert_eq!(keys[1], (0, 0));
        assert_eq!(keys[0], (-1, 999_999));
    }

    #[test]
    fn a_zero_ttl_never_expires() {
        assert_eq!(Expiry::new(Duration::ZERO).expires_at(1_000), None);
        assert_eq!(
            Expiry::new(Duration::from_secs(1)).expires_at(5_000),
            Some(6_000)
        );
    }
}
