-- Schema version 4: nothing changes on SQLite. PostgreSQL's task_events lost the foreign
-- key to tasks at this version; SQLite's never had one (the statements that delete tasks
-- delete their events), and the version keeps step so both backends number alike.
SELECT 1;
