-- Schema version 5: agent runs (a2a-run's RunStore), one per task, beside the tasks.
-- No foreign key to tasks: a run is saved after its task exists, and the statements that
-- delete tasks (the cleanup of expired tasks, the replacement of an expired task under a
-- reused id) delete its run with it.

CREATE TABLE runs (
    -- Task ids are global, so one run per id whatever the scope: a create under another
    -- scope conflicts.
    task_id TEXT NOT NULL PRIMARY KEY,
    tenant TEXT NOT NULL,
    -- The owner as in tasks: a flag and a text ('' without one).
    has_owner INTEGER NOT NULL,
    owner TEXT NOT NULL,
    -- Starts from the creation time in microseconds and grows by one per save.
    version INTEGER NOT NULL,
    -- The run status's `state` name (running, suspended, stopped, …), for operators and
    -- sweepers; the run itself is in `state`.
    status TEXT NOT NULL,
    -- The whole run as compact JSON.
    state TEXT NOT NULL,
    -- When the run was last saved, Unix milliseconds.
    updated_at INTEGER NOT NULL
);

-- Sweepers look runs up by status, oldest save first.
CREATE INDEX runs_status ON runs (status, updated_at);
