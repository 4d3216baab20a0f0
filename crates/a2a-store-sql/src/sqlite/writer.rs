//! The one writer of a SQLite database, with group commit.
//!
//! SQLite lets one connection write at a time, and a commit costs far more than the few
//! statements of a save. So every write of the store (task saves, push configs, leases,
//! cleanup) is a job sent to one tokio task that owns the write connection. The task takes
//! every job waiting when it gets to them, runs them in one `BEGIN IMMEDIATE … COMMIT`, and
//! answers each job after the commit. Under load one commit carries many saves; alone, a
//! save waits for no one.
//!
//! A job that fails with a database error (not a refusal such as a version conflict, which
//! writes nothing and is an answer like any other) rolls back the whole batch; the batch is
//! then run again one job per transaction, so that one bad job costs the others nothing.
//! Jobs are therefore closures that can run more than once.

use std::any::Any;
use std::sync::Arc;

use async_trait::async_trait;
use futures::future::BoxFuture;
use sqlx::pool::PoolConnection;
use sqlx::{Connection, Sqlite, SqliteConnection, SqlitePool};
use tokio::sync::{mpsc, oneshot};

use a2a_server::store::StoreError;

use super::checkpoint::Commits;
use super::job::{Job, Prelude, WriterStopped, send_answer};

/// The most jobs one transaction carries.
const MAX_BATCH: usize = 256;

/// How many jobs may wait for the writer before senders wait too.
const QUEUE: usize = 4096;

/// A handle to the writer task; cheap to clone. The task ends when the last handle is
/// dropped, after finishing the jobs already sent.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    jobs: mpsc::Sender<Box<dyn Job>>,
}

impl Writer {
    /// Starts the writer task over `pool`, whose connections it takes one batch at a time.
    /// Each commit is counted in `commits`. With `keep`, the writer keeps its connection
    /// from one batch to the next; without, the pool's readers share it (an in-memory
    /// database), so it goes back after each batch.
    /// Each batch runs `prelude` over its jobs before running them.
    pub(crate) fn spawn(pool: SqlitePool, commits: Commits, keep: bool, prelude: Prelude) -> Self {
        let (jobs, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(run(pool, receiver, commits, keep, prelude));
        Self { jobs }
    }

    /// Runs `op` in the writer's next transaction and returns its result once that
    /// transaction committed. `op` may run more than once (see the module docs), and the
    /// effects of all but its last run are rolled back.
    pub(crate) async fn write<T, F>(&self, op: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'c> Fn(&'c mut SqliteConnection) -> BoxFuture<'c, Result<T, sqlx::Error>>
            + Send
            + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.submit(Box::new(Pending {
            op,
            outcome: None,
            reply,
        }))
        .await?;
        answer
            .await
            .map_err(|_| StoreError::Backend(Box::new(WriterStopped)))?
    }

    /// Queues `job` for the writer's next transaction; it answers itself.
    pub(super) async fn submit(&self, job: Box<dyn Job>) -> Result<(), StoreError> {
        self.jobs
            .send(job)
            .await
            .map_err(|_| StoreError::Backend(Box::new(WriterStopped)))
    }
}

struct Pending<T, F> {
    op: F,
    outcome: Option<T>,
    reply: oneshot::Sender<Result<T, StoreError>>,
}

#[async_trait]
impl<T, F> Job for Pending<T, F>
where
    T: Send + 'static,
    F: for<'c> Fn(&'c mut SqliteConnection) -> BoxFuture<'c, Result<T, sqlx::Error>>
        + Send
        + 'static,
{
    async fn run(&mut self, conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
        self.outcome = None;
        self.outcome = Some((self.op)(conn).await?);
        Ok(())
    }

    fn answer(self: Box<Self>, failure: Option<Arc<sqlx::Error>>) {
        send_answer(self.reply, self.outcome, failure);
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

async fn run(
    pool: SqlitePool,
    mut receiver: mpsc::Receiver<Box<dyn Job>>,
    commits: Commits,
    keep: bool,
    prelude: Prelude,
) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    // The write connection, kept from one batch to the next: a connection given back to
    // the pool is tested there (a round trip to its thread) before it can be taken again.
    // It goes back when the pool closes, so that closing does not wait for it, or after a
    // batch that failed, so that the pool tests it.
    let mut held: Option<PoolConnection<Sqlite>> = None;
    loop {
        let received = tokio::select! {
            received = receiver.recv_many(&mut batch, MAX_BATCH) => received,
            () = pool.close_event(), if held.is_some() => {
                held = None;
                continue;
            }
        };
        if received == 0 {
            return;
        }
        let conn = match held.take() {
            Some(conn) => conn,
            None => match pool.acquire().await {
                Ok(conn) => conn,
                Err(error) => {
                    let error = Arc::new(error);
                    for job in batch.drain(..) {
                        job.answer(Some(Arc::clone(&error)));
                    }
                    continue;
                }
            },
        };
        let kept = write_batch(&pool, conn, &mut batch, prelude).await;
        if keep {
            held = kept;
        }
        commits.committed();
    }
}

/// Runs `batch` on `conn` and answers its jobs; the connection back when its transaction
/// committed (after a failure it goes back to the pool, or is closed when unsound).
async fn write_batch(
    pool: &SqlitePool,
    mut conn: PoolConnection<Sqlite>,
    batch: &mut Vec<Box<dyn Job>>,
    prelude: Prelude,
) -> Option<PoolConnection<Sqlite>> {
    let error = match transaction(&mut conn, batch, prelude).await {
        Ok(()) => {
            for job in batch.drain(..) {
                job.answer(None);
            }
            return Some(conn);
        }
        Err(error) => error,
    };
    close_if_unsound(&mut conn, &error);
    if batch.len() == 1 {
        let error = Arc::new(error);
        for job in batch.drain(..) {
            job.answer(Some(Arc::clone(&error)));
        }
        return None;
    }
    tracing::debug!(%error, jobs = batch.len(), "SQLite batch failed; retrying its writes one by one");
    let mut conn = (!unsound(&error)).then_some(conn);
    for mut job in batch.drain(..) {
        let mut current = match conn.take() {
            Some(current) => current,
            None => match pool.acquire().await {
                Ok(fresh) => fresh,
                Err(error) => {
                    job.answer(Some(Arc::new(error)));
                    continue;
                }
            },
        };
        let failure = transaction(&mut current, std::slice::from_mut(&mut job), prelude).await;
        match failure {
            Ok(()) => {
                conn = Some(current);
                job.answer(None);
            }
            Err(error) => {
                close_if_unsound(&mut current, &error);
                if !unsound(&error) {
                    conn = Some(current);
                }
                job.answer(Some(Arc::new(error)));
            }
        }
    }
    None
}

/// Whether a failed transaction may have left its connection unusable: anything but a
/// constraint the statement broke. SQLite rolls a transaction back by itself after a full
/// disk or an I/O error, which the driver does not see: it would refuse every later
/// `BEGIN` on that connection as a nested one.
fn unsound(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(error) => !matches!(
            error.kind(),
            sqlx::error::ErrorKind::UniqueViolation
                | sqlx::error::ErrorKind::ForeignKeyViolation
                | sqlx::error::ErrorKind::NotNullViolation
                | sqlx::error::ErrorKind::CheckViolation
        ),
        _ => true,
    }
}

/// Closes `conn` when it is given back, if `error` may have left it unusable, so that the
/// pool opens a fresh one.
fn close_if_unsound(conn: &mut PoolConnection<Sqlite>, error: &sqlx::Error) {
    if unsound(error) {
        conn.close_on_drop();
    }
}

/// Runs `jobs` in one transaction, `prelude` first; on the first failure rolls everything
/// back.
async fn transaction(
    conn: &mut SqliteConnection,
    jobs: &mut [Box<dyn Job>],
    prelude: Prelude,
) -> Result<(), sqlx::Error> {
    // Dropping `tx` without committing rolls back.
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    prelude(&mut tx, jobs).await?;
    for job in jobs.iter_mut() {
        job.run(&mut tx).await?;
    }
    tx.commit().await
}
