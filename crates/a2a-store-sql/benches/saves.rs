//! Saves per second of the task stores under the load of an echo agent: every task goes
//! through three saves (created SUBMITTED, WORKING, COMPLETED with an artifact), with many
//! tasks in flight at once, as `SendMessage` makes them.
//!
//! Run with `cargo bench -p a2a-store-sql --bench saves`. Each line gives completed tasks
//! per second and saves per second, for the in-memory store, a SQLite file and (when
//! `A2A_TEST_POSTGRES_URL` or the default local server answers) PostgreSQL, each with and
//! without one logged event per save. Set `A2A_BENCH_TASKS` to change the number of tasks
//! per run (default 20 000), `A2A_BENCH_STORES` to pick stores (default
//! `memory,sqlite,postgres`), `A2A_BENCH_EVENTS` to `none` or `1` for one variant, and
//! `A2A_BENCH_PG_CONNECTIONS` for the PostgreSQL pool size (default 16),
//! `A2A_BENCH_PG_SYNC=off` for `synchronous_commit = off`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    reason = "a benchmark binary: it reports on stdout and stops at the first failure"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_server::store::{Expected, InMemoryTaskStore, TaskScope, TaskStore};
use a2a_store_sql::{SqlStore, SqlStoreOptions};
use a2a_types::{
    Artifact, ContextId, Message, StreamResponse, Task, TaskId, TaskState, TaskStatus,
    TaskStatusUpdateEvent, Timestamp,
};

/// Tasks in flight at once.
const CONCURRENCY: usize = 64;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let tasks: usize = std::env::var("A2A_BENCH_TASKS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    println!("{tasks} echo tasks, 3 saves each, {CONCURRENCY} in flight");
    println!(
        "{:<16} {:>8} {:>10} {:>10} {:>14} {:>16}",
        "store", "events", "tasks/s", "saves/s", "CPU µs/task", "SQLite µs/task"
    );
    let stores =
        std::env::var("A2A_BENCH_STORES").unwrap_or_else(|_| "memory,sqlite,postgres".to_owned());
    let wanted = |name: &str| stores.split(',').any(|store| store.trim() == name);
    let variants = match std::env::var("A2A_BENCH_EVENTS").as_deref() {
        Ok("none") => vec![false],
        Ok("1") => vec![true],
        _ => vec![false, true],
    };
    let dir = tempfile::tempdir().unwrap();
    for events in variants {
        if wanted("memory") {
            measure("memory", events, tasks, Arc::new(InMemoryTaskStore::new())).await;
        }
        if wanted("sqlite") {
            sqlite(dir.path(), events, tasks).await;
        }
        if wanted("postgres") {
            postgres(events, tasks).await;
        }
    }
}

async fn sqlite(dir: &std::path::Path, events: bool, tasks: usize) {
    {
        let file = dir.join(format!("bench-{events}.db"));
        let store = SqlStore::connect(
            &format!("sqlite://{}", file.display()),
            SqlStoreOptions::new(),
        )
        .await
        .unwrap();
        measure("sqlite file", events, tasks, Arc::new(store.clone())).await;
        store.close().await;
    }
}

async fn postgres(events: bool, tasks: usize) {
    {
        let url = std::env::var("A2A_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
        let schema = format!("a2a_bench_{}", uuid::Uuid::new_v4().simple());
        let options = SqlStoreOptions::new()
            .postgres_schema(schema.clone())
            .max_connections(
                std::env::var("A2A_BENCH_PG_CONNECTIONS")
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(16),
            )
            .acquire_timeout(Duration::from_secs(3))
            .postgres_synchronous_commit(
                std::env::var("A2A_BENCH_PG_SYNC").as_deref() != Ok("off"),
            );
        match SqlStore::connect(&url, options).await {
            Ok(store) => {
                measure("postgres", events, tasks, Arc::new(store.clone())).await;
                store.close().await;
                drop_schema(&url, &schema).await;
            }
            Err(error) => println!("postgres: skipped ({error})"),
        }
    }
}

async fn measure(name: &str, events: bool, tasks: usize, store: Arc<dyn TaskStore>) {
    let next = Arc::new(AtomicUsize::new(0));
    let prefix = uuid::Uuid::new_v4().simple().to_string();
    let cpu_before = cpu_ticks();
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (store, next, prefix) = (Arc::clone(&store), Arc::clone(&next), prefix.clone());
        workers.spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= tasks {
                    return;
                }
                lifecycle(store.as_ref(), &format!("{prefix}-{n}"), events).await;
            }
        });
    }
    while let Some(done) = workers.join_next().await {
        done.unwrap();
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu_after = cpu_ticks();
    let per_second = tasks as f64 / seconds;
    let micros_per_task = |ticks: u64| ticks as f64 * 10_000.0 / tasks as f64;
    println!(
        "{name:<16} {:>8} {per_second:>10.0} {:>10.0} {:>14.0} {:>16.0}",
        if events { "1/save" } else { "none" },
        per_second * 3.0,
        micros_per_task(cpu_after.0 - cpu_before.0),
        micros_per_task(cpu_after.1.saturating_sub(cpu_before.1)),
    );
}

/// CPU time so far, in clock ticks (1/100 s): of the process, and of its sqlx SQLite
/// threads (one per connection: the writer's is the one that limits the throughput).
fn cpu_ticks() -> (u64, u64) {
    fn ticks(stat: &str) -> Option<(String, u64)> {
        let (_, rest) = stat.split_once('(')?;
        let (name, rest) = rest.rsplit_once(')')?;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let user: u64 = fields.get(11)?.parse().ok()?;
        let system: u64 = fields.get(12)?.parse().ok()?;
        Some((name.to_owned(), user + system))
    }
    let total = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| ticks(&stat))
        .map_or(0, |(_, ticks)| ticks);
    let sqlite = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .filter_map(|stat| ticks(&stat))
        .filter(|(name, _)| name.starts_with("sqlx-sqlite"))
        .map(|(_, ticks)| ticks)
        .sum();
    (total, sqlite)
}

/// The three saves of an echo task.
async fn lifecycle(store: &dyn TaskStore, id: &str, with_events: bool) {
    let scope = TaskScope::tenant("");
    let context_id = ContextId::new(format!("ctx-{id}"));
    let mut task = Task::new(TaskId::new(id), context_id.clone(), TaskState::Submitted);
    task.history.push(
        Message::user_text("Hello, echo agent! Please repeat this sentence.")
            .with_context_id(context_id.clone())
            .with_task_id(task.id.clone()),
    );
    task.status.timestamp = Some(Timestamp::now());
    let events = |task: &Task| -> Vec<StreamResponse> {
        if !with_events {
            return Vec::new();
        }
        vec![StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            metadata: None,
        })]
    };
    let saved = store
        .save(&scope, &task, Expected::Absent, &events(&task))
        .await
        .unwrap();

    task.status = TaskStatus::new(TaskState::Working).with_message(Message::agent_text("Echoing…"));
    let saved = store
        .save(
            &scope,
            &task,
            Expected::Version(saved.version),
            &events(&task),
        )
        .await
        .unwrap();

    task.artifacts.push(Artifact::from_text(
        "Hello, echo agent! Please repeat this sentence.",
    ));
    task.status = TaskStatus::new(TaskState::Completed);
    store
        .save(
            &scope,
            &task,
            Expected::Version(saved.version),
            &events(&task),
        )
        .await
        .unwrap();
}

async fn drop_schema(url: &str, schema: &str) {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::raw_sql(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
}
