//! The proxy's resource limits: per-agent concurrency and the reply size cap enforced
//! while reading.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use futures::StreamExt as _;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::GatewayError;

/// Above this many tracked agents, idle entries are dropped on the next insert.
const PRUNE_ABOVE: usize = 1024;

/// One semaphore per agent, shared by every client, held by sync calls and open streams alike.
#[derive(Debug)]
pub(crate) struct ConcurrencyLimits {
    per_agent: usize,
    agents: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl ConcurrencyLimits {
    /// `per_agent` permits for each agent; zero means no limit.
    pub(crate) fn new(per_agent: usize) -> Self {
        let per_agent = if per_agent == 0 {
            Semaphore::MAX_PERMITS
        } else {
            per_agent.min(Semaphore::MAX_PERMITS)
        };
        Self {
            per_agent,
            agents: Mutex::new(HashMap::new()),
        }
    }

    /// A permit for one call or stream to `agent_id`. Never waits: a busy agent is reported
    /// at once (-32003).
    ///
    /// # Errors
    /// [`GatewayError::Busy`] when all of the agent's permits are taken.
    pub(crate) fn acquire(&self, agent_id: &str) -> Result<OwnedSemaphorePermit, GatewayError> {
        // Acquiring under the map lock is what makes pruning safe: an entry whose permits
        // are all free has no holder and no one about to take one.
        let mut agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        if !agents.contains_key(agent_id) && agents.len() >= PRUNE_ABOVE {
            agents.retain(|_, semaphore| semaphore.available_permits() < self.per_agent);
        }
        // Looked up before inserting: the id is copied only for an agent's first call.
        let semaphore = match agents.get(agent_id) {
            Some(semaphore) => Arc::clone(semaphore),
            None => Arc::clone(
                agents
                    .entry(agent_id.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.per_agent))),
            ),
        };
        semaphore
            .try_acquire_owned()
            .map_err(|_| GatewayError::Busy {
                agent_id: agent_id.to_owned(),
            })
    }
}

/// A request body, read up to `limit` bytes.
///
/// # Errors
/// [`GatewayError::InvalidRequest`] when it is longer, or the client broke off.
pub(crate) async fn read_request(body: Body, limit: usize) -> Result<Bytes, GatewayError> {
    axum::body::to_bytes(body, limit).await.map_err(|error| {
        tracing::debug!(error = %error, "request body not read");
        GatewayError::invalid_request(format!(
            "the request body could not be read within {limit} bytes"
        ))
    })
}

/// Why a capped read stopped.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// More than the cap arrived (or was announced in `Content-Length`).
    TooLarge,
    /// The connection failed mid-body.
    Body,
}

/// The whole body of `response`, refused as soon as it exceeds `limit` bytes: an announced
/// length is checked first, the bytes themselves as they arrive, so an oversized reply is
/// never held in memory.
pub(crate) async fn read_capped(
    response: reqwest::Response,
    limit: usize,
) -> Result<Bytes, ReadError> {
    let announced = response
        .content_length()
        .and_then(|length| usize::try_from(length).ok());
    if announced.is_some_and(|length| length > limit) {
        return Err(ReadError::TooLarge);
    }
    let mut body = BytesMut::with_capacity(announced.unwrap_or(0));
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|error| {
            tracing::debug!(error = %error, "agent reply broke off");
            ReadError::Body
        })?;
        if body.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_per_agent_and_permits_come_back() {
        let limits = ConcurrencyLimits::new(2);
        let first = limits.acquire("a1");
        let second = limits.acquire("a1");
        assert!(first.is_ok() && second.is_ok());
        assert!(limits.acquire("a1").is_err(), "third call to a1");
        assert!(limits.acquire("a2").is_ok(), "another agent");
        drop(first);
        assert!(limits.acquire("a1").is_ok(), "after a release");
    }

    #[test]
    fn idle_agents_are_pruned_but_busy_ones_keep_their_count() {
        let limits = ConcurrencyLimits::new(1);
        let held = limits.acquire("busy");
        for index in 0..PRUNE_ABOVE {
            let _ = limits.acquire(&format!("idle-{index}"));
        }
        assert!(limits.agents.lock().unwrap().len() <= PRUNE_ABOVE);
        assert!(limits.acquire("busy").is_err());
        drop(held);
    }
}
