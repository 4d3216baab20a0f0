-- Schema version 1: tasks with their event log and turn lease, and push configs.
-- Times are Unix milliseconds from the store's clock; bodies are compact JSON.

CREATE TABLE tasks (
    -- The row's number (SQLite's rowid), for the event log: new tasks get growing keys, so
    -- their events go at the end of task_events rather than all over it.
    task_key INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    -- The owner is a flag and a text ('' without one), so that equality needs no NULL rules.
    has_owner INTEGER NOT NULL,
    owner TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state TEXT NOT NULL,
    -- The list-order key: status timestamp in milliseconds, 0 without one.
    sort_millis INTEGER NOT NULL,
    -- Nanoseconds of the status timestamp past sort_millis; NULL without a timestamp.
    sub_millis_nanos INTEGER,
    version INTEGER NOT NULL,
    last_sequence INTEGER NOT NULL,
    -- When the save that made the task terminal ran; NULL while it is not terminal.
    terminal_at INTEGER,
    -- When the task expires: one TTL (of the store that made it terminal) after it became
    -- terminal; NULL while it is not terminal, or when that store kept terminal tasks.
    expires_at INTEGER,
    -- The turn lease: the instance running the task's turn, and until when. Saves that
    -- leave the task SUBMITTED, WORKING or AUTH_REQUIRED take it; other saves drop it.
    lease_holder TEXT,
    lease_expires_at INTEGER,
    body TEXT NOT NULL
);

CREATE INDEX tasks_list ON tasks (tenant, has_owner, owner, sort_millis DESC, task_id DESC);
-- Without the sort key, so that saves (which never change a task's scope or context) do
-- not touch it; a context holds few tasks, sorted when listed.
CREATE INDEX tasks_context ON tasks (tenant, has_owner, owner, context_id);
CREATE INDEX tasks_expires_at ON tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX tasks_lease_expires_at ON tasks (lease_expires_at)
    WHERE lease_expires_at IS NOT NULL;

-- Keyed by the task's task_key, and WITHOUT ROWID: one B-tree, ordered by (task, sequence),
-- appended to at its end. No foreign key: the store deletes a task's events with it, and a
-- key would cost a lookup per appended event.
CREATE TABLE task_events (
    task_key INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (task_key, sequence)
) WITHOUT ROWID;

CREATE TABLE push_configs (
    task_id TEXT NOT NULL,
    tenant TEXT NOT NULL,
    has_owner INTEGER NOT NULL,
    owner TEXT NOT NULL,
    config_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (task_id, tenant, has_owner, owner, config_id)
);
