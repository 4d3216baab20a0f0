//! Opening a PostgreSQL database: the pool, the schema (created and migrated), and the
//! listener for other instances' signals.

use a2a_server::cluster::ClusterSignal;
use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::leases::channel_name;
use super::{Postgres, listener, vacuum};
use crate::error::SqlStoreError;
use crate::options::SqlStoreOptions;
use crate::rows::Expiry;
use crate::schema;

impl Postgres {
    /// Connects, creates the schema when missing, brings it up to date, and starts
    /// listening for other instances' signals, which go to `signals`.
    pub(crate) async fn open(
        options: PgConnectOptions,
        settings: &SqlStoreOptions,
        url: &str,
        instance_id: &str,
        signals: broadcast::Sender<ClusterSignal>,
        shutdown: CancellationToken,
    ) -> Result<Self, SqlStoreError> {
        let connect_failed = |source| SqlStoreError::Connect {
            url: url.to_owned(),
            source,
        };
        let schema = settings.postgres_schema.as_deref();
        let mut options = options.disable_statement_logging();
        // Set at connection start-up, so every pooled connection (and the listener's) has
        // them without a round trip of its own.
        if let Some(schema) = schema {
            options = options.options([("search_path", format!("\"{schema}\""))]);
        }
        if !settings.postgres_synchronous_commit {
            options = options.options([("synchronous_commit", "off")]);
        }
        let pool = PgPoolOptions::new()
            .max_connections(settings.max_connections.max(1))
            .min_connections(settings.min_connections)
            .acquire_timeout(settings.acquire_timeout)
            .connect_with(options.clone())
            .await
            .map_err(connect_failed)?;
        let migrated = match pool.acquire().await {
            // The schema name was checked to be a plain identifier (options validation).
            Ok(mut conn) => schema::TASKS
                .migrate_postgres(&mut conn, schema)
                .await
                .map_err(|error| schema::store_error(error, url)),
            Err(error) => Err(connect_failed(error)),
        };
        if let Err(error) = migrated {
            pool.close().await;
            return Err(error);
        }
        let interval = settings.postgres_vacuum_interval;
        if !interval.is_zero() {
            match vacuum::server_vacuums(&pool).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(
                        every = ?interval,
                        "the PostgreSQL server's autovacuum is off: this store vacuums its own \
                         tables instead (turn autovacuum on to leave it to the server)"
                    );
                    vacuum::start(pool.clone(), interval, shutdown.clone());
                }
                Err(error) => {
                    pool.close().await;
                    return Err(connect_failed(error));
                }
            }
        }
        let channel = channel_name(schema);
        // The listener has a pool of its own: its connection is held for good, and must
        // not count against the pool the store's calls use.
        let listener_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(settings.acquire_timeout)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_lazy_with(options);
        listener::start(
            listener_pool,
            channel.clone(),
            instance_id.to_owned(),
            signals,
            shutdown,
        )
        .await
        .map_err(connect_failed)?;
        Ok(Self {
            creates: super::creates::Creates::spawn(pool.clone()),
            pool,
            expiry: Expiry::new(settings.completed_task_ttl),
            channel,
            instance_id: instance_id.into(),
            lease_ttl: settings.lease_ttl,
        })
    }

    pub(crate) async fn close(&self) {
        self.pool.close().await;
    }
}
