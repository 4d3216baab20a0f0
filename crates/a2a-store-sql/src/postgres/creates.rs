//! Task creates on PostgreSQL, in batches: the new tasks saved at the same moment go in one
//! statement and one commit.
//!
//! Under load most saves are creates (a task that finishes at once is saved once), and a
//! create costs PostgreSQL far less than the statement, the transaction and the commit's WAL
//! flush around it. So creates are jobs sent to a dispatcher that takes every job waiting,
//! sends them as one `INSERT … SELECT FROM unnest(…)` of the tasks and their events, and
//! answers each job when that statement has committed. At most [`IN_FLIGHT`] batches run at
//! once; while they do, new jobs wait and make the next batch larger. Alone, a create waits
//! for no one.
//!
//! A batch only creates: a job whose id is taken (or named twice in one batch) is answered
//! "not created", and the caller goes the one-task way, which tells a live task (a conflict)
//! from an expired one (replaced). A batch that fails as a whole (one statement: nothing of
//! it was written) answers every job with the error, and the callers retry one by one.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sqlx::PgPool;
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::rows::{ScopeKey, TaskRow};

/// The most creates one statement carries.
const MAX_BATCH: usize = 256;

/// How many batches may run at once (each holds one pooled connection while it does).
const IN_FLIGHT: usize = 2;

/// How many creates may wait for the dispatcher before senders wait too.
const QUEUE: usize = 4096;

/// One batch: the tasks (`$1…$15`, one array per column) and their events (`$16` task id,
/// `$17` sequence, `$18` body) → the tasks it created, with version and last sequence. The
/// events of a task whose id was taken are dropped by the join.
const CREATE_BATCH: &str = "WITH saved AS (\
     INSERT INTO tasks (task_id, tenant, has_owner, owner, version, context_id, state, \
     sort_millis, sub_millis_nanos, body, last_sequence, terminal_at, lease_holder, \
     lease_expires_at, expires_at) \
     SELECT * FROM unnest($1::text[], $2::text[], $3::bool[], $4::text[], $5::int8[], \
     $6::text[], $7::text[], $8::int8[], $9::int8[], $10::text[], $11::int8[], $12::int8[], \
     $13::text[], $14::int8[], $15::int8[]) \
     ON CONFLICT (task_id) DO NOTHING RETURNING task_id, version, last_sequence), \
     appended AS (INSERT INTO task_events (task_id, sequence, body) \
     SELECT event.task_id, event.sequence, event.body \
     FROM unnest($16::text[], $17::int8[], $18::text[]) AS event (task_id, sequence, body) \
     JOIN saved ON saved.task_id = event.task_id COLLATE \"C\") \
     SELECT task_id, version, last_sequence FROM saved";

/// A task to create, with every column of its row.
#[derive(Debug, Clone)]
pub(super) struct Create {
    pub(super) scope: ScopeKey,
    pub(super) row: TaskRow,
    /// Its events, in order: sequences 1, 2, ….
    pub(super) events: Vec<String>,
    pub(super) version: i64,
    /// When the task became terminal (now), when it is terminal.
    pub(super) terminal_at: Option<i64>,
    pub(super) lease: (Option<Arc<str>>, Option<i64>),
    /// Its expiry, when it is terminal and terminal tasks expire.
    pub(super) expires_at: Option<i64>,
}

/// What a batch says of one create: its version and last sequence, or `None` when its id
/// was taken.
type Outcome = Result<Option<(i64, i64)>, BatchFailed>;

/// The create's batch failed as a whole (nothing of it was written), or the dispatcher
/// stopped: the caller creates the task on its own, and reports that attempt's error.
#[derive(Debug, Clone, Copy)]
pub(super) struct BatchFailed;

struct Job {
    create: Arc<Create>,
    reply: oneshot::Sender<Outcome>,
}

/// A handle to the dispatcher; cheap to clone. The dispatcher ends when the last handle is
/// dropped, after the jobs already sent.
#[derive(Debug, Clone)]
pub(super) struct Creates {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("task_id", &self.create.row.task_id)
            .finish_non_exhaustive()
    }
}

impl Creates {
    /// Starts the dispatcher over `pool`.
    pub(super) fn spawn(pool: PgPool) -> Self {
        let (jobs, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(dispatch(pool, receiver));
        Self { jobs }
    }

    /// Creates the task in the next batch: its version and last sequence, `None` when its
    /// id is taken (or was named twice in the batch).
    ///
    /// # Errors
    /// [`BatchFailed`]: the batch's statement failed, or the dispatcher stopped.
    pub(super) async fn create(&self, create: Arc<Create>) -> Outcome {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job { create, reply })
            .await
            .map_err(|_| BatchFailed)?;
        answer.await.map_err(|_| BatchFailed)?
    }
}

async fn dispatch(pool: PgPool, mut receiver: mpsc::Receiver<Job>) {
    let permits = Arc::new(Semaphore::new(IN_FLIGHT));
    let mut waiting = Vec::with_capacity(MAX_BATCH);
    loop {
        // A permit first: while every batch runs, the jobs wait in the channel and the
        // next batch takes them all.
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else {
            return;
        };
        if receiver.recv_many(&mut waiting, MAX_BATCH).await == 0 {
            return;
        }
        let batch = std::mem::replace(&mut waiting, Vec::with_capacity(MAX_BATCH));
        let pool = pool.clone();
        tokio::spawn(async move {
            write(&pool, batch).await;
            drop(permit);
        });
    }
}

/// Runs one batch and answers its jobs.
async fn write(pool: &PgPool, jobs: Vec<Job>) {
    // A second create of one id in the batch would log its events beside the first's:
    // it goes the one-task way, which finds the first.
    let mut seen = HashSet::with_capacity(jobs.len());
    let (batch, twice): (Vec<Job>, Vec<Job>) = jobs
        .into_iter()
        .partition(|job| seen.insert(job.create.row.task_id.clone()));
    for job in twice {
        let _ = job.reply.send(Ok(None));
    }
    match run(pool, &batch).await {
        Ok(created) => {
            let mut created: HashMap<String, (i64, i64)> = created
                .into_iter()
                .map(|(task_id, version, last_sequence)| (task_id, (version, last_sequence)))
                .collect();
            for job in batch {
                let done = created.remove(&job.create.row.task_id);
                // The caller may have given up waiting; the create stands either way.
                let _ = job.reply.send(Ok(done));
            }
        }
        Err(error) => {
            tracing::debug!(%error, creates = batch.len(), "PostgreSQL create batch failed; its tasks are created one by one");
            for job in batch {
                let _ = job.reply.send(Err(BatchFailed));
            }
        }
    }
}

/// The batch's statement → (task id, version, last sequence) of each task it created.
async fn run(pool: &PgPool, batch: &[Job]) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
    let n = batch.len();
    let mut task_id = Vec::with_capacity(n);
    let mut tenant = Vec::with_capacity(n);
    let mut has_owner = Vec::with_capacity(n);
    let mut owner = Vec::with_capacity(n);
    let mut version = Vec::with_capacity(n);
    let mut context_id = Vec::with_capacity(n);
    let mut state = Vec::with_capacity(n);
    let mut sort_millis = Vec::with_capacity(n);
    let mut sub_millis_nanos = Vec::with_capacity(n);
    let mut body = Vec::with_capacity(n);
    let mut last_sequence = Vec::with_capacity(n);
    let mut terminal_at = Vec::with_capacity(n);
    let mut lease_holder = Vec::with_capacity(n);
    let mut lease_expires_at = Vec::with_capacity(n);
    let mut expires_at = Vec::with_capacity(n);
    let events = batch.iter().map(|job| job.create.events.len()).sum();
    let mut event_task = Vec::with_capacity(events);
    let mut event_sequence = Vec::with_capacity(events);
    let mut event_body = Vec::with_capacity(events);
    for job in batch {
        let create = &*job.create;
        let row = &create.row;
        task_id.push(row.task_id.as_str());
        tenant.push(create.scope.tenant.as_str());
        has_owner.push(create.scope.has_owner);
        owner.push(create.scope.owner.as_str());
        version.push(create.version);
        context_id.push(row.context_id.as_str());
        state.push(row.state);
        sort_millis.push(row.sort_millis);
        sub_millis_nanos.push(row.sub_millis_nanos);
        body.push(row.body.as_str());
        last_sequence.push(i64::try_from(create.events.len()).unwrap_or(i64::MAX));
        terminal_at.push(create.terminal_at);
        lease_holder.push(create.lease.0.as_deref());
        lease_expires_at.push(create.lease.1);
        expires_at.push(create.expires_at);
        for (sequence, event) in (1_i64..).zip(&create.events) {
            event_task.push(row.task_id.as_str());
            event_sequence.push(sequence);
            event_body.push(event.as_str());
        }
    }
    sqlx::query_as(CREATE_BATCH)
        .bind(task_id)
        .bind(tenant)
        .bind(has_owner)
        .bind(owner)
        .bind(version)
        .bind(context_id)
        .bind(state)
        .bind(sort_millis)
        .bind(sub_millis_nanos)
        .bind(body)
        .bind(last_sequence)
        .bind(terminal_at)
        .bind(lease_holder)
        .bind(lease_expires_at)
        .bind(expires_at)
        .bind(event_task)
        .bind(event_sequence)
        .bind(event_body)
        .fetch_all(pool)
        .await
}
