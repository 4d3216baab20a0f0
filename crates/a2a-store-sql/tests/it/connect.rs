//! Opening a store: URLs, options, schema versions, and errors that never show a password.

use std::time::Duration;

use a2a_server::store::{Expected, TaskScope, TaskStore};
use a2a_store_sql::{SqlStore, SqlStoreError, SqlStoreOptions};
use a2a_types::TaskState;

use crate::support::{Database, on_both, task};

#[tokio::test]
async fn an_unreachable_database_is_reported_without_its_password() {
    let url = "postgres://alice:s3cret@127.0.0.1:1/test";
    let options = SqlStoreOptions::new().acquire_timeout(Duration::from_secs(3));
    let error = SqlStore::connect(url, options).await.unwrap_err();
    assert!(matches!(error, SqlStoreError::Connect { .. }), "{error:?}");
    let (text, debug) = (error.to_string(), format!("{error:?}"));
    assert_eq!(
        text,
        "could not connect to the database at postgres://alice:***@127.0.0.1:1/test"
    );
    assert!(!debug.contains("s3cret"), "{debug}");
    assert!(std::error::Error::source(&error).is_some());
}

#[tokio::test]
async fn urls_of_other_databases_are_refused() {
    for url in [
        "mysql://root:s3cret@localhost/test",
        "tasks.db",
        "sqlite://",
    ] {
        let error = SqlStore::connect(url, SqlStoreOptions::new())
            .await
            .unwrap_err();
        assert!(
            matches!(error, SqlStoreError::InvalidUrl { .. }),
            "{url}: {error:?}"
        );
        assert!(!error.to_string().contains("s3cret"), "{error}");
    }
}

#[tokio::test]
async fn options_that_cannot_work_are_refused() {
    for options in [
        SqlStoreOptions::new().postgres_schema("bad name\"; DROP"),
        SqlStoreOptions::new().postgres_schema(""),
        SqlStoreOptions::new().postgres_schema("9lives"),
        SqlStoreOptions::new().instance_id(""),
        SqlStoreOptions::new().max_connections(0),
    ] {
        let error = SqlStore::connect("sqlite::memory:", options.clone())
            .await
            .unwrap_err();
        assert!(
            matches!(error, SqlStoreError::InvalidOption { .. }),
            "{options:?}: {error:?}"
        );
    }
}

#[tokio::test]
async fn a_database_of_a_newer_schema_version_is_refused() {
    on_both(async |database: &Database| {
        database.store().await.close().await;
        database
            .execute("UPDATE a2a_schema_version SET version = 99")
            .await;
        let error = SqlStore::connect(&database.url(), database.options(SqlStoreOptions::new()))
            .await
            .unwrap_err();
        match &error {
            SqlStoreError::SchemaTooNew {
                found, supported, ..
            } => assert_eq!((*found, *supported), (99, 6)),
            other => panic!("{other:?}"),
        }
        assert!(error.to_string().contains("upgrade"), "{error}");
    })
    .await;
}

#[tokio::test]
async fn reopening_a_database_keeps_its_tasks_and_migrates_nothing() {
    on_both(async |database: &Database| {
        let scope = TaskScope::tenant("acme");
        let task = task(&crate::support::unique("t"), TaskState::Working);
        let first = database.store().await;
        first
            .save(&scope, &task, Expected::Absent, &[])
            .await
            .unwrap();
        first.close().await;
        let second = database.store().await;
        assert_eq!(
            second.load(&scope, &task.id).await.unwrap().unwrap().task,
            task
        );
        assert_eq!(database.count("a2a_schema_version").await, 1);
    })
    .await;
}

#[tokio::test]
async fn every_sqlite_url_form_opens_a_file_created_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (slashes, colon) = (dir.path().join("a.db"), dir.path().join("b.db"));
    for url in [
        format!("sqlite://{}", slashes.display()),
        format!("sqlite:{}", colon.display()),
    ] {
        let store = SqlStore::connect(&url, SqlStoreOptions::new())
            .await
            .unwrap();
        assert_eq!(store.url(), url);
        store.close().await;
    }
    assert!(slashes.exists() && colon.exists());
}

#[tokio::test]
async fn a_store_shows_its_url_without_the_password() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    // The test server trusts its clients, so any password opens it.
    let mut url = url::Url::parse(&database.url()).unwrap();
    url.set_password(Some("s3cret")).unwrap();
    let store = SqlStore::connect(url.as_str(), database.options(SqlStoreOptions::new()))
        .await
        .unwrap();
    assert!(store.url().contains(":***@"), "{}", store.url());
    let debug = format!("{store:?}");
    assert!(!debug.contains("s3cret"), "{debug}");
    drop(store);
    database.finish().await;
}

#[tokio::test]
async fn calls_after_close_fail() {
    let store = SqlStore::connect("sqlite::memory:", SqlStoreOptions::new())
        .await
        .unwrap();
    store.close().await;
    let result = store
        .save(
            &TaskScope::default(),
            &task("t", TaskState::Working),
            Expected::Absent,
            &[],
        )
        .await;
    assert!(result.is_err(), "{result:?}");
}

#[tokio::test]
async fn a_postgres_store_without_synchronous_commit_saves_and_loads() {
    let Some(database) = Database::postgres().await else {
        return;
    };
    let store = database
        .store_with(SqlStoreOptions::new().postgres_synchronous_commit(false))
        .await;
    let scope = TaskScope::tenant("acme");
    let task = task(&crate::support::unique("t"), TaskState::Working);
    store
        .save(&scope, &task, Expected::Absent, &[])
        .await
        .unwrap();
    assert_eq!(
        store.load(&scope, &task.id).await.unwrap().unwrap().task,
        task
    );
    drop(store);
    database.finish().await;
}

#[tokio::test]
async fn a_ping_answers_while_the_store_is_open_and_fails_once_it_is_closed() {
    on_both(async |database: &Database| {
        let store = database.store().await;
        store.ping().await.expect("an open store answers");
        store.close().await;
        assert!(store.ping().await.is_err(), "a closed store does not");
    })
    .await;
}
