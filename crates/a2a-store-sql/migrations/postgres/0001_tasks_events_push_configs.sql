-- Schema version 1: tasks with their event log and turn lease, and push configs.
-- Times are Unix milliseconds from the store's clock; bodies are compact JSON kept as text
-- (byte for byte what the store wrote, key order included).
-- Ids that the list order or config order compares use the "C" collation: byte order, as
-- the in-memory store compares Rust strings.

CREATE TABLE tasks (
    task_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    tenant TEXT NOT NULL,
    -- The owner is a flag and a text ('' without one), so that equality needs no NULL rules.
    has_owner BOOLEAN NOT NULL,
    owner TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state TEXT NOT NULL,
    -- The list-order key: status timestamp in milliseconds, 0 without one.
    sort_millis BIGINT NOT NULL,
    -- Nanoseconds of the status timestamp past sort_millis; NULL without a timestamp.
    sub_millis_nanos BIGINT,
    version BIGINT NOT NULL,
    last_sequence BIGINT NOT NULL,
    -- When the save that made the task terminal ran; NULL while it is not terminal.
    terminal_at BIGINT,
    -- When the task expires: one TTL (of the store that made it terminal) after it became
    -- terminal; NULL while it is not terminal, or when that store kept terminal tasks.
    expires_at BIGINT,
    -- The turn lease: the instance running the task's turn, and until when. Saves that
    -- leave the task SUBMITTED, WORKING or AUTH_REQUIRED take it; other saves drop it.
    lease_holder TEXT,
    lease_expires_at BIGINT,
    body TEXT NOT NULL
);

CREATE INDEX tasks_list ON tasks (tenant, has_owner, owner, sort_millis DESC, task_id DESC);
CREATE INDEX tasks_context ON tasks
    (tenant, has_owner, owner, context_id, sort_millis DESC, task_id DESC);
CREATE INDEX tasks_expires_at ON tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX tasks_lease_expires_at ON tasks (lease_expires_at)
    WHERE lease_expires_at IS NOT NULL;

CREATE TABLE task_events (
    task_id TEXT COLLATE "C" NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
    sequence BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (task_id, sequence)
);

CREATE TABLE push_configs (
    task_id TEXT COLLATE "C" NOT NULL,
    tenant TEXT NOT NULL,
    has_owner BOOLEAN NOT NULL,
    owner TEXT NOT NULL,
    config_id TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (task_id, tenant, has_owner, owner, config_id)
);
