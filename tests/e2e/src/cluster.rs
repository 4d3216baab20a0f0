//! Two instances of one agent over one fresh schema.

use crate::agent::GatedAgent;
use crate::instance::Instance;
use crate::postgres::Postgres;

/// Two instances, `a` and `b`, of one [`GatedAgent`] over one fresh schema; `None` when the
/// test is skipped (see [`Postgres::schema_for_test`]). Fields drop in declaration order:
/// `b`, `a`, the agent, then the database.
#[derive(Debug)]
pub struct Cluster {
    /// Instance `b`.
    pub b: Instance,
    /// Instance `a`.
    pub a: Instance,
    /// The agent both serve.
    pub agent: GatedAgent,
    /// The schema both share.
    pub database: Postgres,
}

impl Cluster {
    /// Starts `a`, then `b`, over a fresh schema.
    pub async fn start() -> Option<Self> {
        let database = Postgres::schema_for_test().await?;
        let agent = GatedAgent::default();
        let a = Instance::start(&database, "a", agent.clone());
        let b = Instance::start(&database, "b", agent.clone());
        Some(Self {
            b,
            a,
            agent,
            database,
        })
    }
}
