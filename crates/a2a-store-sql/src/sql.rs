//! Statements both backends run as they are. SQLite reads `$N` as "the N-th bound value",
//! like PostgreSQL, so one text serves both. A task is visible while it is not terminal or
//! became terminal after the expiry cut-off (`rows::Expiry`).

/// `$1` task id, `$2` now → the task's (tenant, has_owner, owner), whoever owns it.
pub(crate) const LOCATE_TASK: &str = "SELECT tenant, has_owner, owner FROM tasks \
     WHERE task_id = $1 AND (expires_at IS NULL OR expires_at > $2)";

/// `$1` task id, `$2…$4` scope, `$5` now → body, version, last sequence.
pub(crate) const LOAD_TASK: &str = "SELECT body, version, last_sequence FROM tasks \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 \
     AND (expires_at IS NULL OR expires_at > $5)";

/// `$1` task id, `$2…$4` scope, `$5` after, `$6` now, `$7` limit → (sequence,
/// body) rows, in order; one row of NULLs when the task is there without such events, no
/// row when it is not there. PostgreSQL keys events by task id.
pub(crate) const LOAD_EVENTS: &str = "SELECT e.sequence, e.body FROM tasks t \
     LEFT JOIN task_events e ON e.task_id = t.task_id AND e.sequence > $5 \
     WHERE t.task_id = $1 AND t.tenant = $2 AND t.has_owner = $3 AND t.owner = $4 \
     AND (t.expires_at IS NULL OR t.expires_at > $6) \
     ORDER BY e.sequence LIMIT $7";

/// `$1` task id → tenant, has_owner, owner, expires_at, version of the row under that id,
/// to tell why a save was refused.
pub(crate) const FIND_TASK: &str =
    "SELECT tenant, has_owner, owner, expires_at, version FROM tasks WHERE task_id = $1";

/// The update of a save after `UPDATE tasks SET ` (a backend may set more columns first),
/// with `$1…$16` as `Shared::bind_update` binds them: `$6`, the context, is left to the
/// backend (a task keeps its context for life, as A2A ties a task to one) → new version,
/// last sequence; no row when refused.
macro_rules! update_task {
    () => {
        "state = $7, sort_millis = $8, sub_millis_nanos = $9, body = $10, \
         version = version + 1, last_sequence = last_sequence + $11, \
         terminal_at = CASE WHEN $12 THEN COALESCE(terminal_at, $13) ELSE NULL END, \
         expires_at = CASE WHEN $12 THEN \
         (CASE WHEN terminal_at IS NULL THEN $14 ELSE expires_at END) ELSE NULL END, \
         lease_holder = $15, lease_expires_at = $16 \
         WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND version = $5 \
         AND (expires_at IS NULL OR expires_at > $13) \
         RETURNING version, last_sequence"
    };
}
pub(crate) use update_task;

/// The insert of a create, with `$1…$15` as `Shared::bind_insert` binds them → version,
/// last sequence; no row when the id is taken.
macro_rules! insert_task {
    () => {
        "INSERT INTO tasks (task_id, tenant, has_owner, owner, version, context_id, state, \
         sort_millis, sub_millis_nanos, body, last_sequence, terminal_at, lease_holder, \
         lease_expires_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
         ON CONFLICT (task_id) DO NOTHING RETURNING version, last_sequence"
    };
}
pub(crate) use insert_task;

/// `$1` task id: deletes its push configs (before the task itself, whose events go with it).
pub(crate) const DELETE_TASK_PUSH_CONFIGS: &str = "DELETE FROM push_configs WHERE task_id = $1";

/// `$1` task id.
pub(crate) const DELETE_TASK: &str = "DELETE FROM tasks WHERE task_id = $1";

/// `$1` task id, `$2…$4` scope, `$5` config id → how many configs the task holds, and
/// whether one has that id (0 or 1).
pub(crate) const COUNT_PUSH_CONFIGS: &str = "SELECT COUNT(*), \
     COUNT(*) FILTER (WHERE config_id = $5) FROM push_configs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4";

/// `$1` task id, `$2…$4` scope, `$5` config id, `$6` body, `$7` the sequence after which a
/// new config is sent events. A replaced config keeps its delivery state (and claim).
pub(crate) const UPSERT_PUSH_CONFIG: &str = "INSERT INTO push_configs \
     (task_id, tenant, has_owner, owner, config_id, body, delivered_sequence) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) \
     ON CONFLICT (task_id, tenant, has_owner, owner, config_id) \
     DO UPDATE SET body = excluded.body";

/// `$1` task id, `$2…$4` scope, `$5` config id → body.
pub(crate) const GET_PUSH_CONFIG: &str = "SELECT body FROM push_configs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND config_id = $5";

/// `$1` task id, `$2…$4` scope → bodies, by config id.
pub(crate) const LIST_PUSH_CONFIGS: &str = "SELECT body FROM push_configs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 \
     ORDER BY config_id";

/// `$1` task id, `$2…$4` scope, `$5` config id.
pub(crate) const DELETE_PUSH_CONFIG: &str = "DELETE FROM push_configs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND config_id = $5";

/// The webhooks a claim may take, as a condition on `c` (push_configs) joined with `t`
/// (tasks), `$1` now: their task logged events after the last one delivered, and is live;
/// their next attempt is due; no live claim holds them.
macro_rules! claimable {
    () => {
        "FROM push_configs c JOIN tasks t ON t.task_id = c.task_id AND t.tenant = c.tenant \
         AND t.has_owner = c.has_owner AND t.owner = c.owner \
         WHERE c.next_attempt_at <= $1 AND (c.claimed_until IS NULL OR c.claimed_until <= $1) \
         AND c.delivered_sequence < t.last_sequence \
         AND (t.expires_at IS NULL OR t.expires_at > $1)"
    };
}
pub(crate) use claimable;

/// `$1` task id, `$2…$4` scope, `$5` config id, `$6` delivered, `$7` attempts, `$8` next
/// attempt at, `$9` claimed by (NULL: released), `$10` claimed until, `$11` the instance
/// that must hold the claim: changes no row when another one took it over or released it,
/// or the config is gone.
pub(crate) const RECORD_DELIVERY: &str = "UPDATE push_configs SET delivered_sequence = $6, \
     attempts = $7, next_attempt_at = $8, claimed_by = $9, claimed_until = $10 \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND config_id = $5 \
     AND claimed_by = $11";

/// `$1` task id, `$2…$4` scope, `$5` holder, `$6` expires at, `$7` now: takes a free or
/// expired lease, or renews the holder's own; changes no row when another holder's lease
/// is live (or the task is not there).
pub(crate) const ACQUIRE_LEASE: &str = "UPDATE tasks SET lease_holder = $5, lease_expires_at = $6 \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 \
     AND (lease_holder IS NULL OR lease_holder = $5 OR lease_expires_at <= $7)";

/// `$1` task id, `$2…$4` scope, `$5` holder, `$6` now → a row when another holder's lease on
/// the task is live.
pub(crate) const LEASED_TO_ANOTHER: &str = "SELECT 1 FROM tasks \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 \
     AND lease_holder IS NOT NULL AND lease_holder <> $5 AND lease_expires_at > $6";

/// `$1` task id, `$2` holder.
pub(crate) const RELEASE_LEASE: &str = "UPDATE tasks SET lease_holder = NULL, \
     lease_expires_at = NULL WHERE task_id = $1 AND lease_holder = $2";

/// `$1` name, `$2` a fresh random value: kept only when no value of that name exists yet.
pub(crate) const OFFER_SECRET: &str =
    "INSERT INTO shared_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING";

/// `$1` name → the value every server over the database shares.
pub(crate) const READ_SECRET: &str = "SELECT value FROM shared_secrets WHERE name = $1";

/// `$1` task id, `$2…$4` scope → the run (JSON), version.
pub(crate) const LOAD_RUN: &str = "SELECT state, version FROM runs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4";

/// `$1` task id, `$2…$4` scope, `$5` expected version, `$6` status, `$7` run, `$8` now →
/// new version; no row when the run is not at that version (or not in that scope).
pub(crate) const UPDATE_RUN: &str = "UPDATE runs SET version = version + 1, status = $6, \
     state = $7, updated_at = $8 \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4 AND version = $5 \
     RETURNING version";

/// `$1` task id, `$2…$4` scope, `$5` first version, `$6` status, `$7` run, `$8` now →
/// version; no row when a run of that task exists, in any scope.
pub(crate) const INSERT_RUN: &str = "INSERT INTO runs \
     (task_id, tenant, has_owner, owner, version, status, state, updated_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
     ON CONFLICT (task_id) DO NOTHING RETURNING version";

/// `$1` task id, `$2…$4` scope → a row when the run is there.
pub(crate) const FIND_RUN: &str = "SELECT 1 FROM runs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4";

/// `$1` task id, `$2…$4` scope.
pub(crate) const DELETE_RUN: &str = "DELETE FROM runs \
     WHERE task_id = $1 AND tenant = $2 AND has_owner = $3 AND owner = $4";

/// `$1` task id: deletes its run, whatever its scope (with the task it belongs to).
pub(crate) const DELETE_TASK_RUN: &str = "DELETE FROM runs WHERE task_id = $1";
