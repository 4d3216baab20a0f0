//! Running an SDK driver script (`tests/interop/*/drive_agent.*`) to its end: a program that
//! drives an agent through an official SDK's client, prints one line per check and
//! `all checks passed [BINDING]` at the end, and exits 0 only then.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::python::describe;

/// Runs `driver` (its arguments, environment and directory already set) to its end, killing
/// it after `timeout`; `what` names it and `binding` its run in failures, and `logs` gives
/// the servers' logs to show with them. Prints the driver's output on success.
///
/// # Panics
/// When the driver cannot start, runs out of time, fails, or exits 0 without printing
/// `all checks passed [BINDING]`.
pub fn run(
    mut driver: Command,
    what: &str,
    binding: &str,
    timeout: Duration,
    logs: &dyn Fn() -> String,
) {
    let mut child = driver
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run the {what} driver: {error}"));
    let (tx, rx) = mpsc::channel();
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        panic!("the {what} driver's output is not piped");
    };
    let out = drain(stdout, tx.clone());
    let err = drain(stderr, tx);
    // Both pipes close when the driver exits; if they do not in time, kill it.
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    for _ in 0..2 {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(left) {
            timed_out = true;
            let _ = child.kill();
            break;
        }
    }
    let status = child
        .wait()
        .unwrap_or_else(|error| panic!("cannot wait for the {what} driver: {error}"));
    let joined = |reader: thread::JoinHandle<String>| {
        reader
            .join()
            .unwrap_or_else(|_| panic!("the {what} driver's output reader panicked"))
    };
    let output = format!("{}{}", joined(out), joined(err));
    let report = || {
        format!(
            "--- {what} driver output ({binding}) ---\n{output}\n{}",
            logs()
        )
    };
    assert!(
        !timed_out,
        "the {what} driver ({binding}) did not finish within {timeout:?}\n{}",
        report()
    );
    assert!(
        status.success(),
        "the {what} driver ({binding}) failed: {}\n{}",
        describe(status),
        report()
    );
    assert!(
        output.contains(&format!("all checks passed [{binding}]")),
        "the {what} driver ({binding}) exited 0 without finishing its checks\n{}",
        report()
    );
    eprintln!("{output}");
}

/// Reads a pipe to the end on a thread; signals `done` when the pipe closes.
fn drain(
    mut pipe: impl Read + Send + 'static,
    done: mpsc::Sender<()>,
) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = done.send(());
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
