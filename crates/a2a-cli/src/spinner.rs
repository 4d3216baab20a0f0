//! [`Spinner`]: a small animation on stderr while a command waits for the agent. It runs
//! only when stderr is a terminal and the output is for humans, and erases itself before
//! anything is printed (without escape codes under `--color never` or `NO_COLOR`).

use std::io::IsTerminal as _;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::output;

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_TIME: Duration = Duration::from_millis(80);
/// Quick answers should not flash a spinner.
const DELAY: Duration = Duration::from_millis(250);

/// Whether spinners may be shown at all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spinners {
    enabled: bool,
}

impl Spinners {
    /// Spinners for human output on a terminal; none for `--json` or when stderr is not a
    /// terminal.
    pub(crate) fn detect(json: bool) -> Self {
        Self {
            enabled: !json && std::io::stderr().is_terminal(),
        }
    }

    /// Starts a spinner labelled `label`, or a no-op when spinners are off.
    pub(crate) fn start(self, label: &str) -> Spinner {
        if !self.enabled {
            return Spinner { running: None };
        }
        let (stop, stopped) = oneshot::channel();
        let label = label.to_owned();
        let task = tokio::spawn(animate(label, stopped));
        Spinner {
            running: Some((stop, task)),
        }
    }
}

/// A running spinner; [`Spinner::stop`] erases it and waits until it has. Dropping it stops
/// the animation too, without waiting.
#[derive(Debug)]
pub(crate) struct Spinner {
    running: Option<(oneshot::Sender<()>, JoinHandle<()>)>,
}

impl Spinner {
    /// Stops the animation and erases its line; waits until it has, so the next output
    /// lands on a clean line.
    pub(crate) async fn stop(&mut self) {
        if let Some((stop, task)) = self.running.take() {
            let _ = stop.send(());
            let _ = task.await;
        }
    }
}

async fn animate(label: String, mut stopped: oneshot::Receiver<()>) {
    tokio::select! {
        () = tokio::time::sleep(DELAY) => {}
        _ = &mut stopped => return,
    }
    let mut ticker = tokio::time::interval(FRAME_TIME);
    for frame in FRAMES.iter().cycle() {
        tokio::select! {
            _ = ticker.tick() => output::spinner_frame(&format!("{frame} {label}")),
            _ = &mut stopped => break,
        }
    }
    output::spinner_clear(label.chars().count() + 2);
}
