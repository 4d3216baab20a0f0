//! Following a stream of events (`send --stream`, `subscribe`): each event printed as it
//! arrives, as JSON lines or as text, with a spinner while nothing is happening.

use a2a_types::StreamResponse;
use futures::{Stream, StreamExt as _};

use crate::client_args::ClientArgs;
use crate::output;
use crate::progress::Progress;
use crate::render::{Layout, StreamPrinter};
use crate::spinner::Spinners;

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
    // Dropped on an early return, which stops it too.
    let mut spinner = spinners.start("waiting for the agent");
    while let Some(event) = stream.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                spinner.stop().await;
                output::text(&printer.finish())?;
                return Err(error.into());
            }
        };
        progress.observe(&event);
        let text = if args.json {
            let mut line = serde_json::to_string(&event)?;
            line.push('\n');
            line
        } else {
            printer.event(&event)
        };
        spinner.stop().await;
        output::text(&text)?;
        // Mid-artifact a spinner would overwrite the text: only at the start of a line.
        if printer.at_line_start() {
            spinner = spinners.start("waiting for the agent");
        }
    }
    spinner.stop().await;
    output::text(&printer.finish())?;
    Ok(progress)
}
