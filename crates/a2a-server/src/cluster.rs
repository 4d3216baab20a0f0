//! [`Cluster`]: what several server instances over one shared store need from each other:
//! turn leases (so a turn lost with its instance is found and settled) and signals that
//! cross instances (new events, cancels).
//!
//! One instance alone uses [`SingleInstance`], which needs nothing. A durable store provides
//! its own implementation (the SQL store: a lease table, and PostgreSQL's LISTEN/NOTIFY for
//! signals), so that a subscriber on instance B sees a turn running on A, a cancel on B stops
//! A's turn, and a turn whose instance died is failed (or recovered) by another one once its
//! lease expired.

use std::time::Duration;

use a2a_types::TaskId;
use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::store::{StoreError, TaskScope};

/// A message from one instance to every instance (itself included).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClusterSignal {
    /// The task's event log grew up to `last_sequence`.
    Events {
        /// The task.
        task_id: TaskId,
        /// Its last logged event.
        last_sequence: u64,
    },
    /// The task was canceled: the instance running its turn stops it.
    Cancel {
        /// The task.
        task_id: TaskId,
    },
}

/// A lease whose holder stopped renewing it, claimed for recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredLease {
    /// The scope the task was stored under.
    pub scope: TaskScope,
    /// The task.
    pub task_id: TaskId,
    /// The instance that held the lease.
    pub holder: String,
}

/// Leases and signals shared by the instances that serve one agent over one store.
///
/// Implementations must guarantee:
/// - **One holder**: at most one instance holds a live (unexpired) lease on a task.
/// - **Expiry**: a lease not renewed within its TTL expires; [`Cluster::claim_expired_leases`]
///   hands each expired lease to exactly one caller, which then holds it for the TTL it gave.
/// - **Signals**: [`Cluster::publish`] reaches every instance's [`Cluster::subscribe`]
///   receivers, its own included, at most a moment later. Signals may be lost under overload
///   (receivers see `Lagged`); they are hints, and the store stays the truth.
///
/// **Leases taken by saves.** A store that is its own cluster (the SQL store) takes the lease
/// for the saving instance in every [`TaskStore::save`](crate::store::TaskStore::save) that
/// leaves the task SUBMITTED, WORKING or AUTH_REQUIRED (a turn runs), with the store's lease
/// TTL, and drops the lease in a save that leaves it in any other state (terminal, or
/// INPUT_REQUIRED: nothing runs). So a new task costs no lease write of its own. The engine
/// calls [`Cluster::acquire_lease`] only before a follow-up turn on an existing task,
/// [`Cluster::renew_leases`] periodically for its running turns, and
/// [`Cluster::release_lease`] when a turn ends with its task still leased.
#[async_trait]
pub trait Cluster: Send + Sync + 'static {
    /// This instance's id, unique among live instances.
    fn instance_id(&self) -> &str;

    /// How long a lease lives without renewal. The engine renews its leases every third of
    /// it and looks for expired ones every half of it.
    fn lease_ttl(&self) -> Duration;

    /// False for a cluster of one ([`SingleInstance`]): the engine then runs no lease or
    /// signal machinery at all.
    fn is_shared(&self) -> bool {
        true
    }

    /// Takes the lease on `task_id` for this instance for [`Cluster::lease_ttl`]. Returns
    /// `false` (and takes nothing) when another instance holds a live lease on it; taking a
    /// lease this instance holds already renews it.
    async fn acquire_lease(&self, scope: &TaskScope, task_id: &TaskId) -> Result<bool, StoreError>;

    /// Extends the leases this instance holds on `task_ids` by [`Cluster::lease_ttl`].
    async fn renew_leases(&self, task_ids: &[TaskId]) -> Result<(), StoreError>;

    /// Gives up this instance's lease on `task_id`, if it holds one.
    async fn release_lease(&self, task_id: &TaskId) -> Result<(), StoreError>;

    /// Claims up to `limit` leases that expired (their holder stopped renewing), each for
    /// this instance for [`Cluster::lease_ttl`].
    async fn claim_expired_leases(&self, limit: usize) -> Result<Vec<ExpiredLease>, StoreError>;

    /// Sends `signal` to every instance.
    async fn publish(&self, signal: &ClusterSignal) -> Result<(), StoreError>;

    /// Sends `signals`, in order, to every instance. The default publishes them one by one;
    /// a store that can send many in one round trip overrides it.
    async fn publish_all(&self, signals: &[ClusterSignal]) -> Result<(), StoreError> {
        for signal in signals {
            self.publish(signal).await?;
        }
        Ok(())
    }

    /// A receiver of the signals of every instance.
    fn subscribe(&self) -> broadcast::Receiver<ClusterSignal>;
}

/// The [`Cluster`] of a server that is alone with its store: every lease is granted, none
/// expires, and signals go nowhere (the instance already knows).
#[derive(Debug)]
pub struct SingleInstance {
    signals: broadcast::Sender<ClusterSignal>,
}

impl Default for SingleInstance {
    fn default() -> Self {
        Self {
            signals: broadcast::channel(1).0,
        }
    }
}

#[async_trait]
impl Cluster for SingleInstance {
    fn instance_id(&self) -> &str {
        "local"
    }

    fn lease_ttl(&self) -> Duration {
        Duration::from_secs(30)
    }

    fn is_shared(&self) -> bool {
        false
    }

    async fn acquire_lease(
        &self,
        _scope: &TaskScope,
        _task_id: &TaskId,
    ) -> Result<bool, StoreError> {
        Ok(true)
    }

    async fn renew_leases(&self, _task_ids: &[TaskId]) -> Result<(), StoreError> {
        Ok(())
    }

    async fn release_lease(&self, _task_id: &TaskId) -> Result<(), StoreError> {
        Ok(())
    }

    async fn claim_expired_leases(&self, _limit: usize) -> Result<Vec<ExpiredLease>, StoreError> {
        Ok(Vec::new())
    }

    async fn publish(&self, _signal: &ClusterSignal) -> Result<(), StoreError> {
        Ok(())
    }

    fn subscribe(&self) -> broadcast::Receiver<ClusterSignal> {
        self.signals.subscribe()
    }
}
