//! PostgreSQL: the store vacuums its own tables when, and only when, the server's
//! autovacuum is off. Real server, real time, a short interval.

use std::time::Duration;

use a2a_server::store::{Expected, TaskScope, TaskStore};
use a2a_store_sql::SqlStoreOptions;
use a2a_types::{StreamResponse, TaskState};
use tokio::time::{Instant, sleep};

use crate::support::{Database, task, unique};

const INTERVAL: Duration = Duration::from_millis(200);

/// Rows of the statistics view naming the store's `tasks` table as vacuumed by hand (not
/// by the autovacuum daemon) at least once.
const VACUUMED: &str = "pg_stat_user_tables \
    WHERE schemaname = current_schema() AND relname = 'tasks' AND vacuum_count > 0";

#[tokio::test]
async fn the_store_vacuums_its_tables_only_when_the_server_does_not() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    let Database::Postgres(schema) = &database else {
        unreachable!("a PostgreSQL database")
    };
    let setting: String = sqlx::query_scalar("SELECT current_setting('autovacuum')")
        .fetch_one(&mut schema.connect().await)
        .await
        .unwrap();
    let store = database
        .store_with(SqlStoreOptions::new().postgres_vacuum_interval(INTERVAL))
        .await;
    let scope = TaskScope::tenant("acme");
    // Dead rows to vacuum: a task saved working, then completed.
    let mut saved = task(&unique("churn"), TaskState::Working);
    let working = vec![StreamResponse::Task(saved.clone())];
    let first = store
        .save(&scope, &saved, Expected::Absent, &working)
        .await
        .unwrap();
    saved.status.state = TaskState::Completed;
    let completed = vec![StreamResponse::Task(saved.clone())];
    store
        .save(&scope, &saved, Expected::Version(first.version), &completed)
        .await
        .unwrap();

    if setting == "on" {
        // The server vacuums: the store never does.
        sleep(INTERVAL * 5).await;
        assert_eq!(database.count(VACUUMED).await, 0);
    } else {
        let deadline = Instant::now() + Duration::from_secs(10);
        while database.count(VACUUMED).await == 0 {
            assert!(
                Instant::now() < deadline,
                "no vacuum of the tasks table within 10 s, autovacuum being off"
            );
            sleep(INTERVAL).await;
        }
    }
    store.close().await;
    drop(store);
    database.finish().await;
}
