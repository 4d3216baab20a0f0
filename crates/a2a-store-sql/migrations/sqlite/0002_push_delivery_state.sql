-- Schema version 2: where each webhook's delivery stands, so that a restart or
-- another instance carries on from the last event delivered rather than losing or
-- repeating the log.

-- The last event sequence delivered or given up on; the events after it are due.
ALTER TABLE push_configs ADD COLUMN delivered_sequence INTEGER NOT NULL DEFAULT 0;
-- Failed attempts at the event after delivered_sequence.
ALTER TABLE push_configs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
-- Unix milliseconds before which the webhook is not claimed (retry backoff).
ALTER TABLE push_configs ADD COLUMN next_attempt_at INTEGER NOT NULL DEFAULT 0;
-- The instance delivering the webhook, and until when; NULL when nobody is.
ALTER TABLE push_configs ADD COLUMN claimed_by TEXT;
ALTER TABLE push_configs ADD COLUMN claimed_until INTEGER;

-- Configs registered before this version start at their task's log end: what was logged
-- before the upgrade is not sent again, all at once, to every webhook.
UPDATE push_configs SET delivered_sequence = COALESCE((SELECT t.last_sequence FROM tasks t
    WHERE t.task_id = push_configs.task_id AND t.tenant = push_configs.tenant
    AND t.has_owner = push_configs.has_owner AND t.owner = push_configs.owner), 0);

-- The claim reads configs in the order they fall due and stops at the first one not due
-- yet, skipping those under a live claim; each of the others costs one lookup of its task
-- by key, where the log's end tells whether it has events to send.
CREATE INDEX push_configs_due ON push_configs (next_attempt_at, claimed_until);
