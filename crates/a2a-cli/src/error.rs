//! Exit codes: every failure is reported as one line on stderr, and its kind
//! decides the code.
//!
//! This module sits below the others: they report a usage error as a [`UsageError`] and
//! something out of reach as an [`UnreachableError`], converting their own error types into
//! these, so the exit code is decided here without knowing any module's errors.

use std::error::Error;
use std::process::ExitCode;

use a2a_client::ClientError;

use crate::output;

/// A flag, argument, setting or file that cannot be used as given: the user's to fix (exit
/// code 2). Its message never repeats a secret.
///
/// It shows as the error it holds, with the same causes: a module's own error converted into
/// it reads as before.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub(crate) struct UsageError(Box<dyn Error + Send + Sync>);

impl UsageError {
    /// A usage error saying `message`.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        let message: String = message.into();
        Self(message.into())
    }

    /// `error`, which is the user's to fix, as a usage error.
    pub(crate) fn from_error(error: impl Error + Send + Sync + 'static) -> Self {
        Self(Box::new(error))
    }
}

/// Something the command must reach or open is out of reach: the address to listen on, the
/// task store, the gateway's registry (exit code 3, as for a client command's agent that
/// cannot be reached).
///
/// It shows as the error it holds, with the same causes.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub(crate) struct UnreachableError(Box<dyn Error + Send + Sync>);

impl UnreachableError {
    /// `error`, which says what could not be reached, as an unreachable error.
    pub(crate) fn from_error(error: impl Error + Send + Sync + 'static) -> Self {
        Self(Box::new(error))
    }
}

/// The listener could not be bound: the address is taken, not local, or not allowed (an
/// [`UnreachableError`]).
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {address}")]
pub(crate) struct BindError {
    /// The address as configured.
    pub(crate) address: String,
    /// Why.
    #[source]
    pub(crate) source: std::io::Error,
}

impl From<BindError> for UnreachableError {
    fn from(error: BindError) -> Self {
        Self::from_error(error)
    }
}

/// The task a command waited for ended FAILED, REJECTED or CANCELED (exit code 1).
#[derive(Debug, thiserror::Error)]
#[error("task {task_id} ended {}{}", crate::render::state_name(*state), reason(status_text))]
pub(crate) struct TaskEnded {
    /// The task.
    pub(crate) task_id: a2a_types::TaskId,
    /// FAILED, REJECTED or CANCELED.
    pub(crate) state: a2a_types::TaskState,
    /// The status message's text; may be empty.
    pub(crate) status_text: String,
}

fn reason(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or_default();
    if first_line.is_empty() {
        String::new()
    } else {
        format!(": {first_line}")
    }
}

/// A failure that is the caller's to fix: an unknown flag, a bad value, an unreadable
/// configuration or card.
const USAGE: u8 = 2;
/// Something went wrong while running.
const RUNTIME: u8 = 1;
/// A socket could not be bound or a peer could not be reached.
const UNREACHABLE: u8 = 3;

/// Reports a command-line parse error and returns its exit code: help and version requests
/// print in full and succeed; real errors print their first line only (the rest is clap's
/// usage block, which buries the message) and exit 2.
#[must_use]
pub fn report_usage_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            output::clap_message(error);
            if error.use_stderr() {
                ExitCode::from(USAGE)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            output::error_line(&clap_first_line(error));
            ExitCode::from(USAGE)
        }
    }
}

/// The first line of a clap error (`error: …`), without the usage block that follows and
/// without colours. A line ending in `:` (missing arguments) gets the indented names
/// listed under it.
pub(crate) fn clap_first_line(error: &clap::Error) -> String {
    let text = error.render().to_string();
    let mut lines = text.lines();
    let mut first = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_owned();
    if first.ends_with(':') {
        let named: Vec<&str> = lines
            .take_while(|line| line.starts_with("  "))
            .map(str::trim)
            .collect();
        if !named.is_empty() {
            first.push(' ');
            first.push_str(&named.join(", "));
        }
    }
    first
}

/// Reports a failure of a command as one line (`error: what: why: …`) and returns its exit
/// code.
#[must_use]
pub fn report_failure(error: &anyhow::Error) -> ExitCode {
    if is_broken_pipe(error) {
        // The reader of our output went away (`a2a list … | head`): nothing to report.
        return ExitCode::SUCCESS;
    }
    output::error_line(&format!("error: {}", message_of(error)));
    ExitCode::from(code_of(error))
}

/// The error chain as one line: `what: why: …`. Below a client error that could not reach
/// the agent, the layers of the HTTP stack (request, connect, socket) say the same thing
/// again, so only the deepest one, the actual reason, is kept.
fn message_of(error: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in error.chain() {
        parts.push(cause.to_string());
        let reaches_out = cause.downcast_ref::<ClientError>().is_some_and(|error| {
            matches!(
                error,
                ClientError::Transport { .. } | ClientError::Credentials { .. }
            )
        });
        if reaches_out {
            if let Some(root) = error.chain().last()
                && !std::ptr::eq(root, cause)
            {
                parts.push(root.to_string());
            }
            break;
        }
    }
    parts.join(": ")
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The exit code of a client library failure: 3 when the agent could not be reached at
/// all, 2 for a client the flags set up wrongly, 1 when the agent answered but refused.
fn client_code(error: &ClientError) -> u8 {
    match error {
        ClientError::Transport { .. }
        | ClientError::Timeout(_)
        | ClientError::StreamInterrupted { .. } => UNREACHABLE,
        ClientError::Credentials {
            source: Some(source),
            ..
        } => client_code(source),
        ClientError::Config { .. } => USAGE,
        // A gateway that timed out, could not reach the agent, or has none under that id
        // (its own errors, marked `executed: false`): the agent is out of reach, as for a
        // transport failure.
        ClientError::Agent(_) if matches!(error.gateway_code(), Some(-32003..=-32001)) => {
            UNREACHABLE
        }
        // The agent answered, with a refusal or something unusable.
        _ => RUNTIME,
    }
}

fn code_of(error: &anyhow::Error) -> u8 {
    if let Some(client) = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<ClientError>())
    {
        return client_code(client);
    }
    let usage = error
        .chain()
        .any(|cause| cause.is::<UsageError>() || cause.is::<a2a_server::ConfigError>());
    if usage {
        USAGE
    } else if error.chain().any(|cause| cause.is::<UnreachableError>()) {
        UNREACHABLE
    } else {
        RUNTIME
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_map_to_their_exit_codes() {
        let bind = anyhow::Error::new(UnreachableError::from(BindError {
            address: "127.0.0.1:1".into(),
            source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
        }));
        assert_eq!(code_of(&bind), UNREACHABLE);
        let config = anyhow::Error::new(a2a_server::ConfigError::NoServableInterface)
            .context("building the server");
        assert_eq!(code_of(&config), USAGE);
        assert_eq!(code_of(&anyhow::anyhow!("disk on fire")), RUNTIME);
    }

    #[test]
    fn a_missing_argument_error_names_the_argument() {
        use clap::Parser as _;
        let error = crate::Cli::try_parse_from(["a2a", "get", "http://agent"]).unwrap_err();
        assert_eq!(
            clap_first_line(&error),
            "error: the following required arguments were not provided: <TASK_ID>"
        );
    }

    #[test]
    fn client_failures_map_to_their_exit_codes() {
        use a2a_client::TimeoutKind;
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let unreachable = ClientError::Transport {
            url: "http://127.0.0.1:1/".into(),
            source: Box::new(refused),
        };
        let cases = [
            (unreachable, UNREACHABLE),
            (ClientError::Timeout(TimeoutKind::Request), UNREACHABLE),
            (
                ClientError::Agent(a2a_types::A2aError::task_not_found("t")),
                RUNTIME,
            ),
            (
                ClientError::Http {
                    status: 401,
                    body: String::new(),
                },
                RUNTIME,
            ),
            (
                ClientError::NoUsableInterface {
                    reason: "grpc only".into(),
                },
                RUNTIME,
            ),
        ];
        for (error, code) in cases {
            let text = error.to_string();
            assert_eq!(code_of(&anyhow::Error::new(error)), code, "{text}");
        }
        let task = TaskEnded {
            task_id: "t".into(),
            state: a2a_types::TaskState::Failed,
            status_text: String::new(),
        };
        assert_eq!(code_of(&anyhow::Error::new(task)), RUNTIME);
        let usage = UsageError::new("--header needs NAME:VALUE");
        assert_eq!(code_of(&anyhow::Error::new(usage)), USAGE);
    }

    #[test]
    fn an_unreachable_agent_is_reported_with_the_deepest_reason_only() {
        #[derive(Debug, thiserror::Error)]
        #[error("error sending request")]
        struct Layer(#[source] std::io::Error);
        let refused =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let error = anyhow::Error::new(ClientError::Transport {
            url: "http://127.0.0.1:1/".into(),
            source: Box::new(Layer(refused)),
        });
        assert_eq!(
            message_of(&error),
            "cannot reach http://127.0.0.1:1/: connection refused"
        );
    }
}
