//! A task save on PostgreSQL: the task's row and its events in one statement, so one round
//! trip; a create that finds an expired task under its id replaces it in a transaction.

use std::sync::Arc;

use a2a_server::store::{Expected, Saved, StoreError, Version};
use a2a_types::TaskId;
use sqlx::{Connection, PgConnection};

use super::creates::Create;
use super::{Postgres, Shared};
use crate::error::backend;
use crate::rows::{
    SaveColumns, ScopeKey, TaskRow, first_version, lease_columns, now_millis, to_i64, to_saved,
    version_refusal,
};
use crate::sql;

/// How often a create retries when the id it wants belongs to an expired task that
/// another instance is replacing at the same moment.
const CREATE_ATTEMPTS: usize = 3;

/// The update ([`sql::update_task`]) and the appended events in one statement, `$17` the
/// event bodies → new version, last sequence; no row when refused.
const UPDATE_TASK: &str = concat!(
    "WITH saved AS (UPDATE tasks SET context_id = $6, ",
    sql::update_task!(),
    "), appended AS (INSERT INTO task_events (task_id, sequence, body) \
     SELECT $1, saved.last_sequence - $11 + event.position, event.body \
     FROM saved, unnest($17::text[]) WITH ORDINALITY AS event (body, position)) \
     SELECT version, last_sequence FROM saved"
);

/// A create ([`sql::insert_task`]) and its events in one statement, `$16` the event bodies
/// → version, last sequence; no row when the id is taken.
const INSERT_TASK: &str = concat!(
    "WITH saved AS (",
    sql::insert_task!(),
    "), appended AS (INSERT INTO task_events (task_id, sequence, body) \
     SELECT $1, event.position, event.body \
     FROM saved, unnest($16::text[]) WITH ORDINALITY AS event (body, position)) \
     SELECT version, last_sequence FROM saved"
);

impl Postgres {
    pub(crate) async fn save(
        &self,
        scope: ScopeKey,
        row: TaskRow,
        expected: Expected,
        events: Vec<String>,
    ) -> Result<Saved, StoreError> {
        let now = now_millis();
        let columns = |version| self.columns(&scope, &row, events.len(), now, version);
        match expected {
            Expected::Version(Version(version)) => {
                let done: Option<(i64, i64)> =
                    Shared::bind_update(UPDATE_TASK, &columns(to_i64(version)))
                        .bind(&events)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(backend)?;
                match done {
                    Some(done) => Ok(to_saved(done)),
                    None => {
                        let found = Shared::find(&self.pool, &row.task_id)
                            .await
                            .map_err(backend)?;
                        Err(version_refusal(
                            &row.task_id,
                            found.map(|(stored, expires_at, _)| (stored, expires_at)),
                            &scope,
                            now,
                        ))
                    }
                }
            }
            Expected::Absent => {
                // Most creates go in a batch with others; an id that is taken (a live task,
                // or an expired one to replace) and a failed batch go the one-task way.
                let terminal = row.terminal;
                let lease = lease_columns(row.running, &self.instance_id, self.lease_ttl, now);
                let create = Arc::new(Create {
                    version: first_version(None),
                    terminal_at: terminal.then_some(now),
                    lease: (lease.0.map(|_| Arc::clone(&self.instance_id)), lease.1),
                    expires_at: self.expiry.expires_at(now).filter(|_| terminal),
                    scope: scope.clone(),
                    row,
                    events,
                });
                if let Ok(Some(done)) = self.creates.create(Arc::clone(&create)).await {
                    return Ok(to_saved(done));
                }
                let Create {
                    scope, row, events, ..
                } = Arc::unwrap_or_clone(create);
                self.create_one(scope, row, events, now).await
            }
        }
    }

    /// The columns of a save of `row` with `events` events at `now`, as `version`.
    fn columns<'a>(
        &'a self,
        scope: &'a ScopeKey,
        row: &'a TaskRow,
        events: usize,
        now: i64,
        version: i64,
    ) -> SaveColumns<'a> {
        SaveColumns {
            scope,
            row,
            version,
            events: to_i64(events),
            now,
            expires_at: self.expiry.expires_at(now),
            lease: lease_columns(row.running, &self.instance_id, self.lease_ttl, now),
        }
    }

    /// A create on its own: the task, or the expired task under its id replaced.
    async fn create_one(
        &self,
        scope: ScopeKey,
        row: TaskRow,
        events: Vec<String>,
        now: i64,
    ) -> Result<Saved, StoreError> {
        let task_id = || TaskId::new(row.task_id.clone());
        let columns = |version| self.columns(&scope, &row, events.len(), now, version);
        for _ in 0..CREATE_ATTEMPTS {
            let mut conn = self.pool.acquire().await.map_err(backend)?;
            let create = columns(first_version(None));
            if let Some(done) = insert(&mut conn, &create, &events).await? {
                return Ok(to_saved(done));
            }
            match Shared::find(&mut *conn, &row.task_id)
                .await
                .map_err(backend)?
            {
                // An expired task gives its id up: it goes, with its events, push
                // configs and run, and the new one takes a greater version.
                Some((_, Some(expired_at), version)) if expired_at <= now => {
                    let create = columns(first_version(Some(version)));
                    let replaced = replace_expired(&mut conn, &create, &events).await?;
                    if let Some(done) = replaced {
                        return Ok(to_saved(done));
                    }
                }
                // Task ids are global: any scope's live task conflicts.
                Some(_) => return Err(StoreError::Conflict { task_id: task_id() }),
                // Gone between the two statements: try again.
                None => {}
            }
        }
        Err(StoreError::Conflict { task_id: task_id() })
    }
}

async fn insert(
    conn: &mut PgConnection,
    create: &SaveColumns<'_>,
    events: &[String],
) -> Result<Option<(i64, i64)>, StoreError> {
    Shared::bind_insert(INSERT_TASK, create)
        .bind(events)
        .fetch_optional(&mut *conn)
        .await
        .map_err(backend)
}

/// Deletes the expired task under the id (if it is still there and still expired), with
/// its push configs, events and run, and creates the new one, in one transaction.
async fn replace_expired(
    conn: &mut PgConnection,
    create: &SaveColumns<'_>,
    events: &[String],
) -> Result<Option<(i64, i64)>, StoreError> {
    let task_id = create.row.task_id.as_str();
    let mut tx = conn.begin().await.map_err(backend)?;
    let gone = sqlx::query("DELETE FROM tasks WHERE task_id = $1 AND expires_at <= $2")
        .bind(task_id)
        .bind(create.now)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    if gone.rows_affected() == 0 {
        return Ok(None);
    }
    sqlx::query(sql::DELETE_TASK_PUSH_CONFIGS)
        .bind(task_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    // Its run too: the new task's engine creates its own.
    sqlx::query(sql::DELETE_TASK_RUN)
        .bind(task_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    // Its events too: the new task's start again at 1.
    sqlx::query("DELETE FROM task_events WHERE task_id = $1")
        .bind(task_id)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    let saved = insert(&mut tx, create, events).await?;
    tx.commit().await.map_err(backend)?;
    Ok(saved)
}
