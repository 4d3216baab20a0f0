-- Schema version 3: secrets every server over this database shares, each made at random by
-- the first server that needs it and kept (the ListTasks page-token key, so that a page
-- token from one instance pages on another, and after a restart).
CREATE TABLE shared_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
