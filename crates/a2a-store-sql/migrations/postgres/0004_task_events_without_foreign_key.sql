-- Schema version 4: a task's events go with the task through the statements that delete
-- tasks (the cleanup of expired tasks, the replacement of an expired task under a reused
-- id), no longer through a foreign key. Events are only ever written by the statement that
-- saves their task, so the key guarded nothing those statements do not; its check ran once
-- per appended event (a lookup and a row lock on the task) and cost more than the event's
-- insert.
ALTER TABLE task_events DROP CONSTRAINT IF EXISTS task_events_task_id_fkey;
