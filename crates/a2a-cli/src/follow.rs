//! Following a stream of events (`send --stream`, `subscribe`): each event printed as it
//! arrives, as JSON lines or as text, with a spinner while nothing is happening.

use a2a_types::StreamResponse;
use futures::{Stream, StreamExt as _};

use crate::client_args::ClientArgs;
use crate::output;
use crate::progress::Progress;
use crate::render::{Layout, StreamPrinter};
use crate::spinner::{Spinner, Spinners};

/// Prints every event of `stream` until it ends, and returns what it said about the task.
///
/// # Errors
/// The stream's own failure (after what came before it is printed), or a closed stdout.
pub(crate) async fn follow<S, E>(
    stream: S,
    args: &ClientArgs,
    spinners: Spinners,
) -> anyhow::Result<Progress>
where
    S: Stream<Item = Result<StreamResponse, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut stream = std::pin::pin!(stream);
    let mut printer = StreamPrinter::new(args.style(), Layout::Full);
    let mut progress = Progress::default();
    loop {
        // A spinner at the start of a line only: mid-artifact it would overwrite text.
        let mut spinner = if printer.at_line_start() {
            spinners.start("waiting for the agent")
        } else {
            Spinner::none()
        };
        let next = stream.next().await;
        spinner.stop().await;
        let Some(event) = next else { break };
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                output::text(&printer.finish())?;
                return Err(error.into());
            }
        };
        progress.observe(&event);
        if args.json {
            output::json_line(&event)?;
        } else {
            output::text(&printer.event(&event))?;
        }
    }
    output::text(&printer.finish())?;
    Ok(progress)
}
