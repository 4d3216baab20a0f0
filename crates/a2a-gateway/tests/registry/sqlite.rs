//! What only a SQLite file shows: agents survive a restart, the periodic cleanup deletes
//! expired rows; and the checks `connect` makes.

use std::time::Duration;

use a2a_gateway::registry::{Registry, RegistryError, RegistryOptions};

use crate::support::{ManualClock, record};
use crate::with_clock;

#[tokio::test]
async fn a_sqlite_file_keeps_agents_across_a_restart() {
    let path =
        std::env::temp_dir().join(format!("a2a-registry-{}.db", uuid::Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", path.display());
    let registry = Registry::connect(&url, RegistryOptions::new())
        .await
        .unwrap();
    let registered = registry.register(record("durable")).await.unwrap();
    registry.close().await;
    drop(registry);
    let reopened = Registry::connect(&url, RegistryOptions::new())
        .await
        .unwrap();
    let found = reopened.get("durable").await.unwrap().unwrap();
    assert_eq!(found, registered);
    reopened.close().await;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[tokio::test]
async fn bad_urls_and_options_are_refused_at_connect() {
    let refused = [
        ("mysql://localhost/x", RegistryOptions::new()),
        (
            "sqlite::memory:",
            RegistryOptions::new().postgres_schema("bad schema"),
        ),
    ];
    for (url, options) in refused {
        let error = Registry::connect(url, options).await.unwrap_err();
        assert!(
            matches!(
                error,
                RegistryError::InvalidUrl { .. } | RegistryError::InvalidOption { .. }
            ),
            "{url}: {error:?}"
        );
    }
    let error = Registry::connect(
        "postgres://user:secret@127.0.0.1:1/x",
        RegistryOptions::new().acquire_timeout(Duration::from_millis(500)),
    )
    .await
    .unwrap_err();
    assert!(!error.to_string().contains("secret"), "{error}");
}

#[tokio::test]
async fn the_periodic_cleanup_deletes_expired_agents() {
    let path =
        std::env::temp_dir().join(format!("a2a-registry-{}.db", uuid::Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", path.display());
    let clock = ManualClock::new();
    let options = with_clock(&clock)
        .agent_ttl(Duration::from_secs(30))
        .cleanup_interval(Duration::from_millis(50));
    let registry = Registry::connect(&url, options).await.unwrap();
    registry.register(record("old")).await.unwrap();
    registry.register(record("young")).await.unwrap();
    clock.advance(Duration::from_secs(20));
    registry.heartbeat("young").await.unwrap().unwrap();
    clock.advance(Duration::from_secs(10));
    let rows = || async {
        use sqlx::Connection as _;
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        let ids: Vec<String> =
            sqlx::query_scalar("SELECT agent_id FROM gateway_agents ORDER BY agent_id")
                .fetch_all(&mut conn)
                .await
                .unwrap();
        ids
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while rows().await.len() > 1 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        rows().await,
        ["young"],
        "the cleanup deleted the expired agent's row"
    );
    registry.close().await;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// Two gateway instances over one database: what one changes reaches the other's proxy
/// within its directory cache's life, and at once with the cache off; what an instance
/// changes itself is seen at once.
#[tokio::test]
async fn a_record_in_use_is_read_again_past_half_its_life() {
    use a2a_gateway::agent::AgentDirectory as _;

    let path =
        std::env::temp_dir().join(format!("a2a-registry-{}.db", uuid::Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", path.display());
    let life = Duration::from_secs(2);
    let a = Registry::connect(&url, RegistryOptions::new().directory_cache(life))
        .await
        .unwrap();
    let b = Registry::connect(&url, RegistryOptions::new())
        .await
        .unwrap();

    b.register(record("shared")).await.unwrap();
    assert!(a.find("shared").await.unwrap().is_some());
    b.deregister("shared").await.unwrap();
    tokio::time::sleep(life * 6 / 10).await;
    assert!(
        a.find("shared").await.unwrap().is_none(),
        "past half its life, the record is read again before it is used"
    );

    for registry in [a, b] {
        registry.close().await;
    }
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[tokio::test]
async fn another_instances_deregistration_reaches_the_proxy_within_the_cache_life() {
    use a2a_gateway::agent::AgentDirectory as _;

    let path =
        std::env::temp_dir().join(format!("a2a-registry-{}.db", uuid::Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", path.display());
    let life = Duration::from_millis(300);
    let a = Registry::connect(&url, RegistryOptions::new().directory_cache(life))
        .await
        .unwrap();
    let b = Registry::connect(&url, RegistryOptions::new())
        .await
        .unwrap();
    let uncached = Registry::connect(&url, RegistryOptions::new().directory_cache(Duration::ZERO))
        .await
        .unwrap();

    b.register(record("shared")).await.unwrap();
    assert!(a.find("shared").await.unwrap().is_some());
    assert!(uncached.find("shared").await.unwrap().is_some());
    b.deregister("shared").await.unwrap();
    assert!(
        uncached.find("shared").await.unwrap().is_none(),
        "no cache: at once"
    );
    assert!(
        a.find("shared").await.unwrap().is_some(),
        "A reuses what it read, for at most {life:?}"
    );
    tokio::time::sleep(life + Duration::from_millis(50)).await;
    assert!(
        a.find("shared").await.unwrap().is_none(),
        "then reads again"
    );

    // A's own changes are never hidden by its cache.
    a.register(record("own")).await.unwrap();
    assert!(a.find("own").await.unwrap().is_some());
    a.deregister("own").await.unwrap();
    assert!(a.find("own").await.unwrap().is_none());

    for registry in [a, b, uncached] {
        registry.close().await;
    }
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
