//! The directory of agents the server offers: each target, reached or not, the catalogue of
//! their tools, and the hosts told when that catalogue changes.

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use futures::future::join_all;
use rmcp::{Peer, RoleServer};

use crate::agent::{Agent, Connector, Target};
use crate::catalogue::{Catalogue, Listing};

/// One target: the agent once reached, else why it was not.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) target: Target,
    pub(crate) agent: Option<Agent>,
    pub(crate) problem: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    entries: Vec<Entry>,
    catalogue: Arc<Catalogue>,
}

/// The agents, their catalogue and the connected hosts; shared by every session.
#[derive(Debug)]
pub(crate) struct Directory {
    connector: Connector,
    tool_per_skill: bool,
    state: RwLock<State>,
    hosts: Mutex<Vec<Peer<RoleServer>>>,
}

impl Directory {
    pub(crate) fn new(connector: Connector, tool_per_skill: bool) -> Self {
        Self {
            connector,
            tool_per_skill,
            state: RwLock::new(State::default()),
            hosts: Mutex::new(Vec::new()),
        }
    }

    /// The catalogue as it stands.
    pub(crate) fn catalogue(&self) -> Arc<Catalogue> {
        Arc::clone(&self.read().catalogue)
    }

    /// The entry at listing index `index` of the current catalogue.
    pub(crate) fn entry(&self, index: usize) -> Option<Entry> {
        self.read().entries.get(index).cloned()
    }

    /// Every entry.
    pub(crate) fn entries(&self) -> Vec<Entry> {
        self.read().entries.clone()
    }

    /// Offers exactly `targets`: new ones are reached (concurrently), known ones kept as they
    /// are, the others dropped. Hosts are told when the tools changed. True when they did.
    pub(crate) async fn set_targets(&self, targets: Vec<Target>) -> bool {
        let known = self.entries();
        let fresh: Vec<&Target> = targets
            .iter()
            .filter(|target| !known.iter().any(|entry| &entry.target == *target))
            .collect();
        let reached = join_all(fresh.iter().map(|target| self.reach(target))).await;
        let entries: Vec<Entry> = targets
            .iter()
            .map(|target| {
                known
                    .iter()
                    .find(|entry| &entry.target == target)
                    .cloned()
                    .or_else(|| {
                        fresh
                            .iter()
                            .position(|fresh| *fresh == target)
                            .and_then(|at| reached.get(at).cloned())
                    })
                    .unwrap_or_else(|| Entry {
                        target: target.clone(),
                        agent: None,
                        problem: None,
                    })
            })
            .collect();
        self.replace(entries).await
    }

    /// Tries again to reach the agent at index `index` when it was not reached; the entry as it
    /// then stands.
    pub(crate) async fn reach_again(&self, index: usize) -> Option<Entry> {
        let entry = self.entry(index)?;
        if entry.agent.is_some() {
            return Some(entry);
        }
        let reached = self.reach(&entry.target).await;
        let mut entries = self.entries();
        if let Some(slot) = entries
            .iter_mut()
            .find(|known| known.target == entry.target)
        {
            *slot = reached.clone();
        }
        self.replace(entries).await;
        Some(reached)
    }

    async fn reach(&self, target: &Target) -> Entry {
        match self.connector.connect(target).await {
            Ok(agent) => {
                tracing::info!(url = %target.url, agent = %agent.card.name, "agent reached");
                Entry {
                    target: target.clone(),
                    agent: Some(agent),
                    problem: None,
                }
            }
            Err(error) => {
                tracing::warn!(url = %target.url, %error, "agent not reached");
                Entry {
                    target: target.clone(),
                    agent: None,
                    problem: Some(error.to_string()),
                }
            }
        }
    }

    /// Puts `entries` in place with their catalogue; hosts are told when the tools changed.
    async fn replace(&self, entries: Vec<Entry>) -> bool {
        let listings: Vec<Listing<'_>> = entries
            .iter()
            .map(|entry| Listing {
                target: &entry.target,
                card: entry.agent.as_ref().map(|agent| &agent.card),
            })
            .collect();
        let catalogue = Catalogue::new(&listings, self.tool_per_skill);
        let changed = {
            let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
            let changed = state.catalogue.tools != catalogue.tools;
            state.catalogue = Arc::new(catalogue);
            state.entries = entries;
            changed
        };
        if changed {
            self.tell_hosts().await;
        }
        changed
    }

    /// Keeps `host` to tell it when the tools change.
    pub(crate) fn add_host(&self, host: Peer<RoleServer>) {
        self.hosts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(host);
    }

    /// Sends the list-changed notification to every host still connected.
    async fn tell_hosts(&self) {
        let hosts: Vec<Peer<RoleServer>> = {
            let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
            hosts.retain(|host| !host.is_transport_closed());
            hosts.clone()
        };
        for host in hosts {
            if let Err(error) = host.notify_tool_list_changed().await {
                tracing::debug!(%error, "a host was not told that the tools changed");
            }
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }
}
