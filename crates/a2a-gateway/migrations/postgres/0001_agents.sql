-- Registered agents. Times are milliseconds since the Unix epoch; an agent
-- is live while last_seen is newer than now minus the registry's TTL.
CREATE TABLE IF NOT EXISTS gateway_agents (
    agent_id      TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    jsonrpc_url   TEXT,
    rest_url      TEXT,
    -- The card as registered, JSON text: JSONB would reorder its members.
    card          TEXT NOT NULL,
    registered_at BIGINT NOT NULL,
    last_seen     BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS gateway_agents_last_seen ON gateway_agents (last_seen);
