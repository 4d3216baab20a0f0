//! Durable task, event-log, push-configuration, cluster and agent-run stores for A2A agent
//! servers, on SQLite (embedded: the default store of `a2a serve`) and PostgreSQL (several
//! instances over one database), through sqlx.
//!
//! One type, [`SqlStore`], is the server's [`TaskStore`](a2a_server::store::TaskStore), its
//! [`PushConfigStore`](a2a_server::store::PushConfigStore) and its
//! [`Cluster`](a2a_server::cluster::Cluster) (turn leases and cross-instance signals), and
//! a2a-run's [`RunStore`](a2a_run::store::RunStore) (agent runs, beside their tasks). It
//! passes the same conformance suites as the in-memory stores.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_server::store::{Expected, TaskScope, TaskStore};
//! use a2a_store_sql::{SqlStore, SqlStoreOptions};
//! use a2a_types::{ContextId, Task, TaskId, TaskState};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A file: "sqlite://tasks.db"; a server: "postgres://user@host/database".
//! let store = SqlStore::connect("sqlite::memory:", SqlStoreOptions::new()).await?;
//!
//! let scope = TaskScope::tenant("acme");
//! let task = Task::new(TaskId::new("t-1"), ContextId::new("c-1"), TaskState::Working);
//! let saved = store.save(&scope, &task, Expected::Absent, &[]).await?;
//! let stored = store.load(&scope, &task.id).await?.expect("just saved");
//! assert_eq!(stored.version, saved.version);
//!
//! // Serve it: `A2aServer::builder(card, agent).store(store.clone()).cluster(Arc::new(store))`.
//! # let _: Arc<dyn a2a_server::cluster::Cluster> = Arc::new(store);
//! # Ok(()) }
//! ```
//!
//! The schema is created and migrated at [`SqlStore::connect`]; a database written by a
//! newer version of this crate is refused ([`SqlStoreError::SchemaTooNew`]). The runner
//! that does it, [`Migrations`], is public for other stores over sqlx to migrate their own
//! tables with the same guarantees.
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust:
//! [`a2a-types`](https://docs.rs/a2a-types) (the wire model),
//! [`a2a-grpc`](https://docs.rs/a2a-grpc) (the gRPC wire form),
//! [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod error;
mod list;
mod location;
mod migrations;
mod options;
mod periodic;
mod postgres;
mod rows;
mod schema;
mod sends;
mod shared;
mod signal;
mod sql;
mod sqlite;
mod store;

pub use self::error::SqlStoreError;
pub use self::migrations::{Migration, MigrationError, Migrations};
pub use self::options::{SqlStoreOptions, is_plain_schema_name};
pub use self::store::SqlStore;
