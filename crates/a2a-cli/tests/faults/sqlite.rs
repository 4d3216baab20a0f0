//! What the SQLite fault tests share: a directory of the test's own, and the check that
//! the database file is sound.

use std::path::{Path, PathBuf};

use sqlx::Connection as _;

/// A fresh directory under the temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path =
            std::env::temp_dir().join(format!("a2a-faults-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `PRAGMA integrity_check` of the file: "ok" when sound.
pub async fn integrity(file: &Path) -> String {
    let url = format!("sqlite://{}", file.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let answer: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    answer
}

/// How many tasks the file holds.
pub async fn tasks_in(file: &Path) -> i64 {
    let url = format!("sqlite://{}", file.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM tasks")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    count
}
