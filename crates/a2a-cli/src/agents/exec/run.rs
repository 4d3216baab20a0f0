//! Running the command for a turn: finding it at start-up, spawning it in its own process
//! group, streaming its output, and judging its exit.

use std::os::unix::process::ExitStatusExt as _;
use std::process::{ExitStatus, Stdio};

use a2a_server::executor::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use async_trait::async_trait;
use tokio::process::Command;

use super::process::{self, CommandNotFound, ProcessGroup};
use super::{Exec, output};
use crate::config::{DataFormat, ExecCommand};

impl Exec {
    /// Finds `command`'s program now, so a typo fails start-up instead of every message.
    pub(crate) fn new(command: &ExecCommand) -> Result<Self, CommandNotFound> {
        Ok(Self {
            path: process::find_program(&command.program)?,
            program: command.program.clone(),
            args: command.args.clone(),
            data_format: command.data_format,
        })
    }

    fn spawn(&self) -> Result<tokio::process::Child, ExecutorError> {
        Command::new(&self.path)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so a cancel reaches whatever the command started too.
            .process_group(0)
            // If this future is dropped (async timeout, shutdown), tokio kills and reaps.
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                ExecutorError::failed(format!("could not start `{}`: {error}", self.program))
            })
    }

    /// What the command reads on stdin, in its `--data-format`.
    fn input(&self, context: &RequestContext) -> Result<String, ExecutorError> {
        let json = match self.data_format {
            DataFormat::Payload => return Ok(context.text()),
            DataFormat::Message => serde_json::to_string(&context.message),
            DataFormat::Raw => serde_json::to_string(&a2a_types::SendMessageRequest {
                message: context.message.clone(),
                configuration: context.configuration.clone(),
                metadata: context.metadata.clone(),
                tenant: context.tenant.clone(),
            }),
        };
        json.map_err(ExecutorError::internal)
    }

    /// The task's final state from the command's exit.
    fn verdict(&self, status: ExitStatus, stderr: &str) -> Result<(), String> {
        let what = match (status.code(), status.signal()) {
            (Some(0), _) => return Ok(()),
            (Some(code), _) => format!("`{}` exited with status {code}", self.program),
            (None, Some(signal)) => format!("`{}` was killed by signal {signal}", self.program),
            (None, None) => format!("`{}` ended abnormally", self.program),
        };
        if stderr.is_empty() {
            Err(what)
        } else {
            Err(format!("{what}:\n{stderr}"))
        }
    }
}

#[async_trait]
impl AgentExecutor for Exec {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater.working(()).await?;
        let mut child = self.spawn()?;
        let group = ProcessGroup::of(&child);
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ExecutorError::internal(
                "the command's pipes were not set up",
            ));
        };
        let run = async {
            let ((), (), stderr) = tokio::try_join!(
                output::feed(stdin, self.input(&context)?),
                output::stream(stdout, &updater),
                output::tail(stderr),
            )?;
            let status = child.wait().await.map_err(ExecutorError::internal)?;
            Ok::<_, ExecutorError>((status, stderr))
        };
        let finished = tokio::select! {
            finished = run => Some(finished),
            () = context.cancellation.cancelled() => None,
        };
        // Whatever the command left running in its group ends with the turn. After a
        // cancel or a refused update the command itself may still run: reap it so no zombie
        // stays behind. (A timeout drops this future instead: `ProcessGroup` and
        // `kill_on_drop` do the same then.)
        group.kill();
        let (status, stderr) = match finished {
            Some(Ok(done)) => done,
            Some(Err(error)) => {
                let _ = child.wait().await;
                return Err(error);
            }
            None => {
                let _ = child.wait().await;
                // The turn normally ended already (CANCELED, or FAILED by a shutdown) and
                // this is ignored; if not, the task must not look completed.
                return Err(ExecutorError::failed(format!(
                    "`{}` was stopped before it finished",
                    self.program
                )));
            }
        };
        match self.verdict(status, &stderr) {
            Ok(()) => updater.complete(()).await?,
            Err(message) => return Err(ExecutorError::failed(message)),
        }
        Ok(())
    }
}
