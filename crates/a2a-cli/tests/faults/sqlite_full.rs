//! The disk full under a SQLite store: `a2a serve` keeps its file on a small tmpfs of the
//! test's own and is sent large messages until the disk is full. Each send it cannot store
//! gets an A2A error at once; nothing it acknowledged is lost; once the disk has room again
//! (the tmpfs grown) it stores again by itself, and the file passes SQLite's integrity check.
//! Mounting needs root: elsewhere the test is skipped with a notice, but not under CI.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::load::{Outcome, Tally, send};
use crate::sqlite::{TempDir, integrity, tasks_in};
use crate::support::Server;

/// A tmpfs mounted on a directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts `size` (`mount -o size=…`) on `dir`; `None` (after a notice) where that is
    /// not allowed, except under CI.
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output();
        match output {
            Ok(output) if output.status.success() => Some(Self(dir.to_owned())),
            other => {
                let why = match other {
                    Ok(output) => String::from_utf8_lossy(&output.stderr).trim().to_owned(),
                    Err(error) => error.to_string(),
                };
                assert!(
                    !a2a_test_support::is_ci(),
                    "cannot mount a tmpfs ({why}); CI=true needs it"
                );
                eprintln!("NOTICE: skipping the disk-full test: cannot mount a tmpfs ({why})");
                None
            }
        }
    }

    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success(), "remount with size {size}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_sends_clearly_and_service_resumes_when_space_returns() {
    let _one = crate::one_at_a_time().await;
    let dir = TempDir::new("disk-full");
    let Some(disk) = Tmpfs::mount(&dir.0, "4m") else {
        return;
    };
    let file = dir.0.join("a2a.db");
    let store = format!("sqlite://{}", file.display());
    let mut server = Server::start(&["--store", &store, "--log-level", "warn"]);
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(15))
        .build()
        .unwrap();

    // 32 KiB a message, echoed into the artifact: the 4 MiB are gone in a few dozen.
    let filler = "x".repeat(32 * 1024);
    let mut calls = Vec::new();
    let mut refused_in_a_row = 0;
    for n in 0..300 {
        let begun = std::time::Instant::now();
        let outcome = send(&http, &server.url, &format!("full-{n}-{filler}")).await;
        let took = begun.elapsed();
        refused_in_a_row = match outcome {
            Outcome::Refused { .. } => refused_in_a_row + 1,
            _ => 0,
        };
        calls.push(crate::load::Call {
            at: Duration::ZERO,
            took,
            outcome,
        });
        if refused_in_a_row == 5 {
            break;
        }
    }
    let full = Tally::of(&calls);
    assert!(
        full.broken.is_empty(),
        "each send answered with a task or an A2A error: {:?}",
        &full.broken[..full.broken.len().min(3)]
    );
    assert_eq!(
        refused_in_a_row,
        5,
        "the disk filled up: {} acknowledged",
        full.acked.len()
    );
    assert_eq!(
        full.refused.keys().copied().collect::<Vec<_>>(),
        [crate::postgres_outage::UNAVAILABLE],
        "a send the full disk cannot take is refused as Unavailable: {:?}",
        full.refused
    );
    let (refusal_code, (_, refusal)) = full.refused.iter().next().unwrap();
    let (refusal_code, refusal) = (*refusal_code, refusal.clone());

    disk.resize("64m");
    let resumed = crate::support::eventually(Duration::from_secs(10), || async {
        match send(&http, &server.url, "after-the-disk-was-grown").await {
            Outcome::Acked { task_id, state } => Some((task_id, state)),
            _ => None,
        }
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "the server stores again once there is room; log:\n{}",
            server.log()
        )
    });

    let mut found = 0;
    for (task_id, state) in full.acked.iter().chain(std::iter::once(&resumed)) {
        let task = server.call("GetTask", json!({"id": task_id})).await;
        assert_eq!(task["status"]["state"], state.as_str());
        found += 1;
    }
    assert!(server.terminate().is_some(), "the server stops when asked");
    assert_eq!(integrity(&file).await, "ok");
    let stored = tasks_in(&file).await;
    eprintln!(
        "FIGURES SQLite disk full (4 MiB tmpfs, 32 KiB messages): {} acknowledged before the \
         disk filled, {} refused ({refusal_code}: {refusal}), slowest answer {} ms; after \
         growing the disk the next send was stored; {found} acknowledged tasks found, {stored} \
         in the file, integrity check ok",
        full.acked.len(),
        full.refused_count(),
        full.slowest.as_millis(),
    );
    drop(disk);
}
