//! The SQLite file locked by another process: while a second process holds an exclusive
//! transaction on `a2a serve`'s database for longer than the store's busy timeout, each send
//! is answered (stored once the lock goes, or refused with an A2A error that says the
//! database is busy), reads still answer, and once the lock is gone sends are stored again;
//! nothing acknowledged is lost and the file passes SQLite's integrity check.

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::load::{Load, Outcome, Tally, send};
use crate::sqlite::{TempDir, integrity, tasks_in};
use crate::support::Server;

/// Longer than the store's 5 s busy timeout.
const LOCK_HELD: Duration = Duration::from_secs(8);

const HOLD_LOCK: &str = "\
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute('BEGIN EXCLUSIVE')
print('locked', flush=True)
time.sleep(float(sys.argv[2]))
db.execute('ROLLBACK')
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_file_locked_by_another_process_gets_clear_answers_then_recovers() {
    let _one = crate::one_at_a_time().await;
    let dir = TempDir::new("locked");
    let file = dir.0.join("a2a.db");
    let store = format!("sqlite://{}", file.display());
    let mut server = Server::start(&["--store", &store, "--log-level", "warn"]);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let before = match send(&http, &server.url, "before-the-lock").await {
        Outcome::Acked { task_id, .. } => task_id,
        other => panic!("{other:?}"),
    };

    let mut holder = Command::new("python3")
        .arg("-c")
        .arg(HOLD_LOCK)
        .arg(&file)
        .arg(LOCK_HELD.as_secs_f64().to_string())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut line = String::new();
    std::io::BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    let locked = Instant::now();

    let load = Load::start(&server.url, 4, "locked", Duration::from_secs(15));
    // A read while the lock is held.
    let read = server.call("GetTask", json!({"id": before})).await;
    assert_eq!(read["status"]["state"], "TASK_STATE_COMPLETED");
    let read_took = locked.elapsed();
    tokio::time::sleep(LOCK_HELD.saturating_sub(locked.elapsed())).await;
    assert!(holder.wait().unwrap().success());
    let released = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let calls = load.finish().await;

    let tally = Tally::of(&calls);
    assert!(
        tally.broken.is_empty(),
        "each send answered with a task or an A2A error: {:?}",
        &tally.broken[..tally.broken.len().min(3)]
    );
    assert!(
        tally
            .refused
            .keys()
            .all(|code| *code == crate::postgres_outage::UNAVAILABLE),
        "a send the locked file cannot take is refused as Unavailable: {:?}",
        tally.refused
    );
    let after = match send(&http, &server.url, "after-the-lock").await {
        Outcome::Acked { task_id, .. } => task_id,
        other => panic!("stored again once the lock is gone: {other:?}"),
    };
    let mut found = 0;
    for (task_id, _) in tally.acked.iter().chain([&(before.clone(), String::new())]) {
        let _task = server.call("GetTask", json!({"id": task_id})).await;
        found += 1;
    }
    let _ = server.call("GetTask", json!({"id": after})).await;
    assert!(server.terminate().is_some(), "the server stops when asked");
    assert_eq!(integrity(&file).await, "ok");
    let stored = tasks_in(&file).await;
    eprintln!(
        "FIGURES SQLite locked ({} s exclusive lock by another process, 4 senders): {} sends, {} \
         acknowledged, {} refused ({:?}), slowest answer {} ms; a read during the lock took {} \
         ms; {found} acknowledged tasks found (with the one sent before the lock), {stored} in \
         the file {} ms after the release; integrity check ok",
        LOCK_HELD.as_secs(),
        calls.len(),
        tally.acked.len(),
        tally.refused_count(),
        tally.refused,
        tally.slowest.as_millis(),
        read_took.as_millis(),
        released.elapsed().as_millis(),
    );
}
