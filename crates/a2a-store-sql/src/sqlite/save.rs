//! A task save on SQLite: one job of the writer, the task's row and its events in the
//! writer's transaction. Up to [`EVENTS_PER_INSERT`] events go in the statement that
//! saves the task; more are appended after it in statements of that many.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use a2a_server::store::{Expected, Saved, StoreError, Version};
use a2a_types::TaskId;
use sqlx::SqliteConnection;

use super::{Shared, Sqlite};
use crate::rows::{
    Expiry, SaveColumns, ScopeKey, TaskRow, first_version, lease_columns, now_millis, to_i64,
    to_saved, version_refusal,
};
use crate::sql;

/// Events per `INSERT` statement, well below SQLite's limit of bound values.
const EVENTS_PER_INSERT: usize = 100;

/// What a save needs, shared by the runs of its writer job.
#[derive(Debug)]
struct SaveJob {
    scope: ScopeKey,
    row: TaskRow,
    expected: Expected,
    events: Vec<String>,
    instance_id: Arc<str>,
    lease_ttl: Duration,
}

impl Sqlite {
    pub(crate) async fn save(
        &self,
        scope: ScopeKey,
        row: TaskRow,
        expected: Expected,
        events: Vec<String>,
    ) -> Result<Saved, StoreError> {
        let job = Arc::new(SaveJob {
            scope,
            row,
            expected,
            events,
            instance_id: Arc::clone(&self.instance_id),
            lease_ttl: self.lease_ttl,
        });
        let expiry = self.expiry;
        self.writer
            .write(move |conn| {
                let job = Arc::clone(&job);
                Box::pin(async move { save(conn, &job, expiry).await })
            })
            .await?
    }
}

/// One save, inside the writer's transaction.
async fn save(
    conn: &mut SqliteConnection,
    job: &SaveJob,
    expiry: Expiry,
) -> Result<Result<Saved, StoreError>, sqlx::Error> {
    let now = now_millis();
    let row = &job.row;
    let count = to_i64(job.events.len());
    let columns = |version| SaveColumns {
        scope: &job.scope,
        row,
        version,
        events: count,
        now,
        expires_at: expiry.expires_at(now),
        lease: lease_columns(row.running, &job.instance_id, job.lease_ttl, now),
    };
    // Up to a point, the events go in the statement of the save itself: one round trip to
    // SQLite's thread instead of two.
    let inline = job.events.len() <= EVENTS_PER_INSERT;
    let inline_events: &[String] = if inline { &job.events } else { &[] };
    let done: Option<(i64, i64)> = match job.expected {
        Expected::Version(Version(version)) => {
            let statement = with_events(UPDATE_TASK, 17, inline_events);
            let mut query = Shared::bind_update(&statement, &columns(to_i64(version)));
            for body in inline_events {
                query = query.bind(body.as_str());
            }
            // All rows, not the first: stopping at the first row would skip the events.
            let saved = query.fetch_all(&mut *conn).await?.into_iter().next();
            if saved.is_none() {
                let found = Shared::find(&mut *conn, &row.task_id).await?;
                return Ok(Err(version_refusal(
                    &row.task_id,
                    found.map(|(stored, expires_at, _)| (stored, expires_at)),
                    &job.scope,
                    now,
                )));
            }
            saved
        }
        Expected::Absent => {
            let mut saved = insert(conn, &columns(first_version(None)), inline_events).await?;
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
                        saved = insert(conn, &columns(version), inline_events).await?;
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
    let statement = with_events(INSERT_TASK, 16, events);
    let mut query = Shared::bind_insert(&statement, columns);
    for body in events {
        query = query.bind(body.as_str());
    }
    Ok(query.fetch_all(&mut *conn).await?.into_iter().next())
}

/// `statement` (an `UPDATE` or `INSERT` of the task, `$1` its id and `$11` its number of
/// events, returning its last sequence number) followed by the `INSERT` of `events` as
/// `$first…`, numbered up to that last sequence number. The events go in only when the
/// task statement changed a row (`changes()`), so a refused save appends nothing.
fn with_events(statement: &str, first: usize, events: &[String]) -> String {
    if events.is_empty() {
        return statement.to_owned();
    }
    let mut sql = format!(
        "{statement}; INSERT INTO task_events (task_key, sequence, body) \
         SELECT task.task_key, task.last_sequence - $11 + event.column1, event.column2 \
         FROM tasks AS task, (VALUES "
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
