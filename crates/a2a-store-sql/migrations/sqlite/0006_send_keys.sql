-- Schema version 6: send keys, for exactly-once SendMessage. A send claims its key (the
-- Idempotency-Key header, else the message id) in its scope before its turn runs; a retry
-- finds the claim and is answered with the task it names. The primary key makes one claim
-- win, whichever instance makes it. No foreign key to tasks: the claim comes before the
-- task exists. A claim naming an expired task is free again, and the cleanup of expired
-- tasks deletes their keys.

CREATE TABLE send_keys (
    tenant TEXT NOT NULL,
    -- The owner as in tasks: a flag and a text ('' without one).
    has_owner INTEGER NOT NULL,
    owner TEXT NOT NULL,
    send_key TEXT NOT NULL,
    -- SHA-256 of the message's canonical JSON, in hex: a retry sends the same.
    digest TEXT NOT NULL,
    task_id TEXT NOT NULL,
    -- When the key was claimed, Unix milliseconds.
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tenant, has_owner, owner, send_key)
);

-- The keys of a task, deleted with it.
CREATE INDEX send_keys_task ON send_keys (task_id);
