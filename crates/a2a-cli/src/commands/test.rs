//! `a2a test URL`: checks an A2A agent against the spec's rules on every interface its card
//! declares, prints a verdict per rule (a table, `--json`, `--junit FILE`), and exits 0 when
//! no MUST rule fails, 1 when one does (`--strict`: a SHOULD rule too), 2 on a usage error,
//! 3 when the agent cannot be reached. `--list` prints the rules instead.

use std::io::IsTerminal as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use a2a_conformance::{Progress, RunError, RunOptions, report};

use crate::client_args::ClientArgs;
use crate::connection;
use crate::error::{UnreachableError, UsageError};
use crate::output;

/// `a2a test`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// Print the rules (id, level, spec section, what each checks) instead of running them
    #[arg(long, help_heading = "Rules")]
    list: bool,
    /// With --list: text, or the Markdown of docs/conformance.md
    #[arg(
        long,
        value_enum,
        default_value = "text",
        requires = "list",
        help_heading = "Rules"
    )]
    format: ListFormat,
    /// Only the rules whose id matches this glob (`*`, `?`; repeatable), e.g. 'card.*'
    #[arg(long, value_name = "GLOB", help_heading = "Rules")]
    filter: Vec<String>,
    /// Only the rules that create nothing on the agent (no tasks, no push configs)
    #[arg(long, help_heading = "Rules")]
    read_only: bool,
    /// Exit 1 when a SHOULD rule fails too
    #[arg(long, help_heading = "Rules")]
    strict: bool,
    /// Also write the report as JUnit XML to FILE
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    junit: Option<PathBuf>,
    /// How many checks run at once
    #[arg(long, value_name = "N", default_value_t = 16, help_heading = "Rules")]
    concurrency: usize,
    /// Where the webhook receiver of the push checks listens
    #[arg(
        long,
        value_name = "ADDRESS",
        default_value = "127.0.0.1:0",
        help_heading = "Push receiver"
    )]
    receiver_bind: SocketAddr,
    /// The receiver's URL as the agent reaches it (a tunnel, a public address) [default: http://the bound address]
    #[arg(long, value_name = "URL", help_heading = "Push receiver")]
    receiver_url: Option<String>,
}

/// The forms of `--list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    /// One line per rule.
    Text,
    /// The Markdown tables of docs/conformance.md.
    Markdown,
}

/// How long one call may take when `--timeout` is not given.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

/// Runs the checks, or lists the rules.
pub(crate) async fn run(args: TestArgs) -> anyhow::Result<()> {
    if args.list {
        let rules = a2a_conformance::rules();
        output::text(&match args.format {
            ListFormat::Text => report::rules_text(&rules),
            ListFormat::Markdown => report::rules_markdown(&rules),
        })?;
        return Ok(());
    }
    let client = &args.client;
    if client.url.is_empty() {
        return Err(UsageError::new("a2a test needs the agent's URL (or --list)").into());
    }
    if client.host.is_some() || client.port.is_some() {
        return Err(UsageError::new(
            "a2a test checks the interfaces as the card names them; --host and --port do not apply",
        )
        .into());
    }
    if client.stream_max_duration.is_some() {
        return Err(UsageError::new(
            "--stream-max-duration does not apply to a2a test; --timeout bounds every call and stream",
        )
        .into());
    }
    if args.concurrency == 0 {
        return Err(UsageError::new("--concurrency must be at least 1").into());
    }
    let mut options = RunOptions::default();
    options.credentials = connection::credentials(client);
    options.tls = connection::tls_options(client)?;
    options.headers = client.header_pairs()?;
    options.bindings = client
        .binding
        .map(|binding| vec![binding.protocol()])
        .unwrap_or_default();
    options.versions = client
        .protocol_version
        .map(|version| vec![version.library().as_str().to_owned()])
        .unwrap_or_default();
    options.filters.clone_from(&args.filter);
    options.read_only = args.read_only;
    options.timeout = client.timeout.unwrap_or(DEFAULT_TIMEOUT);
    // The card is never followed through a redirect (--no-redirects always holds here).
    if let Some(connect) = client.connect_timeout {
        options.connect_timeout = connect;
    }
    options.concurrency = args.concurrency;
    options.receiver_bind = args.receiver_bind;
    options.receiver_url.clone_from(&args.receiver_url);
    let show_progress = !client.json && std::io::stderr().is_terminal();
    let widest = std::sync::atomic::AtomicUsize::new(0);
    let progress = |event: Progress<'_>| {
        if !show_progress {
            return;
        }
        if let Progress::Finished {
            done,
            total,
            result,
        } = event
        {
            let line = format!(
                "[{done}/{total}] {} {}",
                result.rule,
                result.interface.as_deref().unwrap_or("")
            );
            let width = widest
                .fetch_max(line.len(), std::sync::atomic::Ordering::Relaxed)
                .max(line.len());
            output::spinner_frame(&format!("{line:width$}"));
        }
    };
    let outcome = a2a_conformance::run(&client.url, &options, &progress).await;
    if show_progress {
        output::spinner_clear(widest.load(std::sync::atomic::Ordering::Relaxed));
    }
    let report = match outcome {
        Ok(report) => report,
        Err(RunError::Unreachable(why)) => {
            return Err(UnreachableError::from_error(RunError::Unreachable(why)).into());
        }
        Err(error) => return Err(UsageError::from_error(error).into()),
    };
    if let Some(path) = &args.junit {
        std::fs::write(path, report::junit(&report)).map_err(|error| {
            UsageError::new(format!("--junit: cannot write {}: {error}", path.display()))
        })?;
    }
    if client.json {
        output::text(&format!("{}\n", report::json(&report)))?;
    } else {
        output::text(&report::table(&report, client.style().is_colored()))?;
    }
    if report.failed(args.strict) {
        let level = if args.strict {
            "MUST or SHOULD"
        } else {
            "MUST"
        };
        anyhow::bail!("the agent fails {level} rules of A2A");
    }
    Ok(())
}
