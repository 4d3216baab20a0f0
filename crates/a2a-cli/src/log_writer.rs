//! The log's writer: lines are appended to a buffer in memory and a thread of its own writes
//! that buffer to stderr, many lines per `write` call.
//!
//! A busy server logs a line per request (the access log). Writing each one to stderr costs a
//! system call on the runtime's threads, and handing each one to a thread through a channel
//! costs a wake-up of that thread per line, which is dearer still. Here a line costs a short
//! lock; the thread is woken only when the buffer goes from empty to not empty, and then waits
//! [`LINGER`] for the lines that follow before it writes them all, so under load it runs a
//! few hundred times a second whatever the rate of lines.
//!
//! Nothing is dropped: a logger that finds [`MAX_BUFFERED`] bytes waiting waits for the
//! thread. The lines still buffered are written when the [`BatchedStderr`] guard is dropped.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the writer lets lines gather after the first one of a batch.
const LINGER: Duration = Duration::from_millis(2);

/// The most bytes waiting to be written before loggers wait for the writer.
const MAX_BUFFERED: usize = 4 << 20;

#[derive(Debug, Default)]
struct Buffer {
    bytes: Vec<u8>,
    closed: bool,
}

#[derive(Debug, Default)]
struct Shared {
    buffer: Mutex<Buffer>,
    /// Signalled when the buffer stops being empty, and when it is closed.
    filled: Condvar,
    /// Signalled when the writer took the buffer.
    drained: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Buffer> {
        self.buffer.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Makes the writers of log lines; its thread runs until the [`BatchedStderr`] is dropped.
#[derive(Debug, Clone)]
pub(crate) struct LogSink {
    shared: Arc<Shared>,
}

/// Keeps the writer thread; dropping it writes the lines still buffered and stops it.
#[derive(Debug)]
pub(crate) struct BatchedStderr {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Starts the writer thread, writing to stderr.
///
/// # Errors
/// When the thread cannot be started.
pub(crate) fn batched_stderr() -> std::io::Result<(LogSink, BatchedStderr)> {
    batched(std::io::stderr())
}

/// Starts the writer thread, writing to `out`.
fn batched(out: impl std::io::Write + Send + 'static) -> std::io::Result<(LogSink, BatchedStderr)> {
    let shared = Arc::new(Shared::default());
    let for_thread = Arc::clone(&shared);
    let thread = std::thread::Builder::new()
        .name("a2a-log".to_owned())
        .spawn(move || write_until_closed(&for_thread, out))?;
    Ok((
        LogSink {
            shared: Arc::clone(&shared),
        },
        BatchedStderr {
            shared,
            thread: Some(thread),
        },
    ))
}

fn write_until_closed(shared: &Shared, mut out: impl std::io::Write) {
    let mut spare = Vec::new();
    loop {
        let closed = {
            let mut buffer = shared.lock();
            while buffer.bytes.is_empty() && !buffer.closed {
                buffer = shared
                    .filled
                    .wait(buffer)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            buffer.closed
        };
        if !closed {
            // This is the writer's own thread, not one of the runtime's.
            #[allow(clippy::disallowed_methods)]
            std::thread::sleep(LINGER);
        }
        {
            let mut buffer = shared.lock();
            std::mem::swap(&mut buffer.bytes, &mut spare);
        }
        shared.drained.notify_all();
        if !spare.is_empty() {
            // Nowhere to report a failure to write the log.
            let _ = out.write_all(&spare);
            spare.clear();
        }
        if closed && shared.lock().bytes.is_empty() {
            return;
        }
    }
}

impl Drop for BatchedStderr {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.filled.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One log line's writer (the formatter writes each line whole, then drops it).
#[derive(Debug)]
pub(crate) struct LineWriter<'a> {
    shared: &'a Shared,
}

impl std::io::Write for LineWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.shared.lock();
        if buffer.closed {
            // After the guard is gone (the command's last moments): straight to stderr.
            drop(buffer);
            return std::io::stderr().write(bytes);
        }
        while buffer.bytes.len() >= MAX_BUFFERED && !buffer.closed {
            buffer = self
                .shared
                .drained
                .wait(buffer)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let was_empty = buffer.bytes.is_empty();
        buffer.bytes.extend_from_slice(bytes);
        drop(buffer);
        if was_empty {
            self.shared.filled.notify_one();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogSink {
    type Writer = LineWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        LineWriter {
            shared: &self.shared,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use tracing_subscriber::fmt::MakeWriter as _;

    use super::*;

    /// A destination the test reads back.
    #[derive(Clone, Default)]
    struct Collected(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Collected {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // the test's own thread waits for the writer
    fn every_line_is_written_in_order_soon_and_the_rest_when_the_guard_drops() {
        let out = Collected::default();
        let (sink, guard) = batched(out.clone()).unwrap();
        let expected: String = (0..1000).map(|index| format!("line {index}\n")).collect();
        for index in 0..1000 {
            writeln!(sink.make_writer(), "line {index}").unwrap();
        }
        // Nothing waits for long: the thread takes the buffer soon after a line.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while out.0.lock().unwrap().len() < expected.len() {
            assert!(std::time::Instant::now() < deadline, "not written");
            std::thread::sleep(Duration::from_millis(5));
        }
        writeln!(sink.make_writer(), "last").unwrap();
        drop(guard);
        let written = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(written, format!("{expected}last\n"));
    }
}
