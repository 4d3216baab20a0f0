//! A task save on SQLite: one job of the writer, the task's row and its events in the
//! writer's transaction. Up to [`EVENTS_PER_INSERT`] events go in the statement that
//! saves the task; more are appended after it in statements of that many.
//!
//! The first statements of all the saves of one writer batch go to SQLite as one text
//! ([`first_statements`]): one round trip to the connection's thread for the batch
//! instead of one per save. What follows (telling why a save was refused, replacing an
//! expired task, appending many events) is each save's own, in its job.

use std::any::Any;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::store::{Expected, Saved, StoreError, Version};
use a2a_types::TaskId;
use async_trait::async_trait;
use futures::future::BoxFuture;
use sqlx::SqliteConnection;
use sqlx::sqlite::{SqliteArguments, SqliteRow};
use sqlx::{Row as _, Sqlite as Db};
use tokio::sync::oneshot;

use super::job::{Job, WriterStopped, send_answer};
use super::{Shared, Sqlite};
use crate::rows::{
    Expiry, SaveColumns, ScopeKey, TaskRow, first_version, lease_columns, now_millis, to_i64,
    to_saved, version_refusal,
};
use crate::sql;

/// Events per `INSERT` statement, well below SQLite's limit of bound values.
const EVENTS_PER_INSERT: usize = 100;

/// What a save needs.
#[derive(Debug)]
struct SaveJob {
    scope: ScopeKey,
    row: TaskRow,
    expected: Expected,
    events: Vec<String>,
    instance_id: Arc<str>,
    lease_ttl: Duration,
    expiry: Expiry,
}

impl SaveJob {
    /// The events that go in the first statement: all of them up to a point, else none.
    fn inline_events(&self) -> &[String] {
        if self.events.len() <= EVENTS_PER_INSERT {
            &self.events
        } else {
            &[]
        }
    }

    fn columns(&self, version: i64, now: i64) -> SaveColumns<'_> {
        SaveColumns {
            scope: &self.scope,
            row: &self.row,
            version,
            events: to_i64(self.events.len()),
            now,
            expires_at: self.expiry.expires_at(now),
            lease: lease_columns(self.row.running, &self.instance_id, self.lease_ttl, now),
        }
    }
}

/// A save as a job of the writer.
pub(super) struct SaveTask {
    job: SaveJob,
    /// What this save's first statement gave in the batch's [`first_statements`], with
    /// the time it ran at; taken by the run that follows.
    first: Option<(i64, Option<(i64, i64)>)>,
    outcome: Option<Result<Saved, StoreError>>,
    reply: oneshot::Sender<Result<Result<Saved, StoreError>, StoreError>>,
}

impl std::fmt::Debug for SaveTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaveTask")
            .field("task_id", &self.job.row.task_id)
            .finish_non_exhaustive()
    }
}

impl Sqlite {
    pub(crate) async fn save(
        &self,
        scope: ScopeKey,
        row: TaskRow,
        expected: Expected,
        events: Vec<String>,
    ) -> Result<Saved, StoreError> {
        let (reply, answer) = oneshot::channel();
        let task = SaveTask {
            job: SaveJob {
                scope,
                row,
                expected,
                events,
                instance_id: Arc::clone(&self.instance_id),
                lease_ttl: self.lease_ttl,
                expiry: self.expiry,
            },
            first: None,
            outcome: None,
            reply,
        };
        self.writer.submit(Box::new(task)).await?;
        answer
            .await
            .map_err(|_| StoreError::Backend(Box::new(WriterStopped)))??
    }
}

#[async_trait]
impl Job for SaveTask {
    async fn run(&mut self, conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
        self.outcome = None;
        let first = match self.first.take() {
            Some(first) => first,
            None => {
                first_statements(conn, &mut [&mut *self]).await?;
                self.first.take().ok_or(sqlx::Error::WorkerCrashed)?
            }
        };
        self.outcome = Some(save(conn, &self.job, first).await?);
        Ok(())
    }

    fn answer(self: Box<Self>, failure: Option<Arc<sqlx::Error>>) {
        send_answer(self.reply, self.outcome, failure);
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The writer's batch prelude: the first statements of the batch's saves, in one text.
pub(super) fn batch_first_statements<'c>(
    conn: &'c mut SqliteConnection,
    jobs: &'c mut [Box<dyn Job>],
) -> BoxFuture<'c, Result<(), sqlx::Error>> {
    Box::pin(async move {
        let mut saves: Vec<&mut SaveTask> = jobs
            .iter_mut()
            .filter_map(|job| job.as_any_mut().downcast_mut::<SaveTask>())
            .collect();
        first_statements(conn, &mut saves).await
    })
}

/// Runs the first statement of each of `saves` (the update, or the insert of a create,
/// with the events that go inline), all in one text, and records in each what it gave.
async fn first_statements(
    conn: &mut SqliteConnection,
    saves: &mut [&mut SaveTask],
) -> Result<(), sqlx::Error> {
    if saves.is_empty() {
        return Ok(());
    }
    let now = now_millis();
    let mut text = String::new();
    let mut offset = 0;
    for (index, save) in saves.iter().enumerate() {
        let job = &save.job;
        let (statement, columns) = match job.expected {
            Expected::Version(_) => (UPDATE_TASK, 16),
            Expected::Absent => (INSERT_TASK, 15),
        };
        let events = job.inline_events();
        let statement = with_events(statement, columns + 1, events, index);
        if index > 0 {
            text.push_str("; ");
        }
        renumber(&mut text, &statement, offset);
        offset += columns + events.len();
    }
    let mut query = sqlx::query::<Db>(&text);
    for save in saves.iter() {
        query = bind_first(query, &save.job, now);
    }
    let rows: Vec<SqliteRow> = query.fetch_all(&mut *conn).await?;
    for save in saves.iter_mut() {
        save.first = Some((now, None));
    }
    for row in rows {
        let index: i64 = row.try_get(2)?;
        let saved = (row.try_get(0)?, row.try_get(1)?);
        if let Some(save) = usize::try_from(index).ok().and_then(|i| saves.get_mut(i)) {
            save.first = Some((now, Some(saved)));
        }
    }
    Ok(())
}

/// `query` with the values of `job`'s first statement bound after those already bound, in
/// the order of `$1…` of [`Shared::bind_update`] or [`Shared::bind_insert`], then the
/// inline events.
fn bind_first<'q>(
    query: sqlx::query::Query<'q, Db, SqliteArguments<'q>>,
    job: &'q SaveJob,
    now: i64,
) -> sqlx::query::Query<'q, Db, SqliteArguments<'q>> {
    let version = match job.expected {
        Expected::Version(Version(version)) => to_i64(version),
        Expected::Absent => first_version(None),
    };
    let save = job.columns(version, now);
    let row = &job.row;
    let mut query = query
        .bind(row.task_id.as_str())
        .bind(job.scope.tenant.as_str())
        .bind(job.scope.has_owner)
        .bind(job.scope.owner.as_str())
        .bind(save.version)
        .bind(row.context_id.as_str())
        .bind(row.state)
        .bind(row.sort_millis)
        .bind(row.sub_millis_nanos)
        .bind(row.body.as_str())
        .bind(save.events);
    query = match job.expected {
        Expected::Version(_) => query
            .bind(row.terminal)
            .bind(save.now)
            .bind(save.expires_at)
            .bind(save.lease.0)
            .bind(save.lease.1),
        Expected::Absent => query
            .bind(row.terminal.then_some(save.now))
            .bind(save.lease.0)
            .bind(save.lease.1)
            .bind(save.expires_at.filter(|_| row.terminal)),
    };
    for body in job.inline_events() {
        query = query.bind(body.as_str());
    }
    query
}

/// Appends `statement` to `text` with each `$N` as `$(N + offset)`.
fn renumber(text: &mut String, statement: &str, offset: usize) {
    let mut rest = statement;
    while let Some(at) = rest.find('$') {
        text.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(number) => {
                let _ = write!(text, "{}", number + offset);
            }
            Err(_) => text.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    text.push_str(rest);
}

/// The rest of one save, inside the writer's transaction, after its first statement gave
/// `first`: (the time it ran at, the new version and last sequence, or `None` when
/// refused).
async fn save(
    conn: &mut SqliteConnection,
    job: &SaveJob,
    (now, first): (i64, Option<(i64, i64)>),
) -> Result<Result<Saved, StoreError>, sqlx::Error> {
    let row = &job.row;
    let count = to_i64(job.events.len());
    let inline = job.events.len() <= EVENTS_PER_INSERT;
    let inline_events = job.inline_events();
    let done: Option<(i64, i64)> = match job.expected {
        Expected::Version(Version(_)) => {
            if first.is_none() {
                let found = Shared::find(&mut *conn, &row.task_id).await?;
                return Ok(Err(version_refusal(
                    &row.task_id,
                    found.map(|(stored, expires_at, _)| (stored, expires_at)),
                    &job.scope,
                    now,
                )));
            }
            first
        }
        Expected::Absent => {
            let mut saved = first;
            if saved.is_none() {
                match Shared::find(&mut *conn, &row.task_id).await? {
                    // An expired task gives its id up: it goes, with its events, push
                    // configs and run, and the new one takes a greater version than it had.
                    Some((_, Some(expired_at), version)) if expired_at <= now => {
                        sqlx::query(sql::DELETE_TASK_PUSH_CONFIGS)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(sql::DELETE_TASK_RUN)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(DELETE_TASK_EVENTS)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        sqlx::query(sql::DELETE_TASK)
                            .bind(&row.task_id)
                            .execute(&mut *conn)
                            .await?;
                        let version = first_version(Some(version));
                        saved = insert(conn, &job.columns(version, now), inline_events).await?;
                    }
                    _ => {}
                }
            }
            if saved.is_none() {
                // Task ids are global: any scope's live task conflicts.
                return Ok(Err(StoreError::Conflict {
                    task_id: TaskId::new(row.task_id.clone()),
                }));
            }
            saved
        }
    };
    let Some((version, last_sequence)) = done else {
        return Ok(Err(StoreError::Conflict {
            task_id: TaskId::new(row.task_id.clone()),
        }));
    };
    if !inline {
        append_events(conn, &row.task_id, last_sequence - count + 1, &job.events).await?;
    }
    Ok(Ok(to_saved((version, last_sequence))))
}

/// `$1` task id: deletes its event log.
const DELETE_TASK_EVENTS: &str =
    "DELETE FROM task_events WHERE task_key = (SELECT task_key FROM tasks WHERE task_id = $1)";

/// The update of a save ([`sql::update_task`]); `$6`, the context, is unused: leaving it
/// out keeps saves off the context index.
const UPDATE_TASK: &str = concat!("UPDATE tasks SET ", sql::update_task!());

/// The insert of a create ([`sql::insert_task`]).
const INSERT_TASK: &str = sql::insert_task!();

/// Creates the task, with `events` (those that go inline, or none); `None` when the id is
/// taken.
async fn insert(
    conn: &mut SqliteConnection,
    columns: &SaveColumns<'_>,
    events: &[String],
) -> Result<Option<(i64, i64)>, sqlx::Error> {
    let statement = with_events(INSERT_TASK, 16, events, 0);
    let mut query = Shared::bind_insert::<(i64, i64, i64)>(&statement, columns);
    for body in events {
        query = query.bind(body.as_str());
    }
    let saved = query.fetch_all(&mut *conn).await?.into_iter().next();
    Ok(saved.map(|(version, last_sequence, _)| (version, last_sequence)))
}

/// `statement` (an `UPDATE` or `INSERT` of the task, `$1` its id and `$11` its number of
/// events, returning its last sequence number), returning `index` too, followed by the
/// `INSERT` of `events` as `$first…`, numbered up to that last sequence number. The events
/// go in only when the task statement changed a row (`changes()`), so a refused save
/// appends nothing.
fn with_events(statement: &str, first: usize, events: &[String], index: usize) -> String {
    let mut sql = format!("{statement}, {index}");
    if events.is_empty() {
        return sql;
    }
    sql.push_str(
        "; INSERT INTO task_events (task_key, sequence, body) \
         SELECT task.task_key, task.last_sequence - $11 + event.column1, event.column2 \
         FROM tasks AS task, (VALUES ",
    );
    for index in 0..events.len() {
        let separator = if index == 0 { "" } else { ", " };
        let _ = write!(sql, "{separator}({}, ${})", index + 1, first + index);
    }
    sql.push_str(") AS event WHERE task.task_id = $1 AND changes() = 1");
    sql
}

async fn append_events(
    conn: &mut SqliteConnection,
    task_id: &str,
    first: i64,
    events: &[String],
) -> Result<(), sqlx::Error> {
    let mut sequence = first;
    for chunk in events.chunks(EVENTS_PER_INSERT) {
        let mut statement = String::from(
            "INSERT INTO task_events (task_key, sequence, body) \
             SELECT (SELECT task_key FROM tasks WHERE task_id = $1), column1, column2 \
             FROM (VALUES ",
        );
        for index in 0..chunk.len() {
            let separator = if index == 0 { "" } else { ", " };
            let _ = write!(
                statement,
                "{separator}(${}, ${})",
                2 * index + 2,
                2 * index + 3
            );
        }
        statement.push(')');
        let mut query = sqlx::query(&statement).bind(task_id);
        for body in chunk {
            query = query.bind(sequence).bind(body.as_str());
            sequence += 1;
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}
