//! `a2a agents list|get|register|heartbeat|deregister GATEWAY …`: a client of a gateway's
//! agent registry (ours, `a2a gateway`, or KubeMQ's: the same API).
//!
//! | command | call |
//! |---|---|
//! | `list` | `GET /agents?skill_tags=…&limit=…` (a bare array, or the live KubeMQ broker's `{"agents": […]}`) |
//! | `get ID` | `GET /agents/{id}` |
//! | `register` | `POST /agents/register` with the card |
//! | `heartbeat ID` | `POST /agents/heartbeat {"agent_id"}` |
//! | `deregister ID` | `POST /agents/deregister {"agent_id"}` |
//!
//! Writes carry the registry key (`--key`, `A2A_REGISTER_KEY`) as a bearer token. Human
//! output by default; `--json` prints the gateway's answer as one line of JSON.

mod args;
mod body;
mod registry;
mod run;
mod show;

pub(crate) use self::args::AgentsArgs;
pub(crate) use self::run::run;

#[cfg(test)]
mod tests;
