//! One *leg* of a run: the loop that runs the open tool calls, calls the model, and records
//! what it answered, saving the run after every step, until the model answers, an action
//! needs an answer from outside, a limit stops it, or it is canceled or drained.

use std::time::{Duration, Instant};

use a2a_server::store::{Expected, StoreError, TaskScope, Version};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::model::{Finish, ModelError, ModelRequest};
use crate::policy::Decision;
use crate::run::{CallState, ChatMessage, OpenCall, Run, RunStatus, StopReason};
use crate::settings::Settings;
use crate::tools::ToolOutput;

/// How a leg ended, the run saved accordingly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The model answered; the run holds its output.
    Completed,
    /// Actions wait for answers from outside.
    Suspended,
    /// A limit, a refusal, or a drain stopped it.
    Stopped(StopReason),
    /// The task was canceled (the model call and tool calls were aborted).
    Canceled,
}

/// Why a leg failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LegError {
    /// The model call failed.
    #[error(transparent)]
    Model(ModelError),
    /// The run could not be saved.
    #[error("the run could not be saved")]
    Store(#[source] StoreError),
}

/// Where a leg sends the model's text as it comes: `(step, piece)`; a step's draft ends
/// with `None`.
pub(crate) type DraftSink<'a> = &'a (dyn Fn(u32, Option<&str>) + Send + Sync);

/// One leg of a run.
pub(crate) struct Leg<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) scope: &'a TaskScope,
    pub(crate) run: Run,
    pub(crate) version: Version,
    pub(crate) cancel: CancellationToken,
    pub(crate) draining: CancellationToken,
    pub(crate) drafts: Option<DraftSink<'a>>,
    pub(crate) started: Instant,
    pub(crate) elapsed_before: u64,
}

enum Interrupt {
    Canceled,
    Stop(StopReason),
}

impl<'a> Leg<'a> {
    /// A leg of `run` (stored at `version`).
    pub(crate) fn new(
        settings: &'a Settings,
        scope: &'a TaskScope,
        run: Run,
        version: Version,
        cancel: CancellationToken,
        draining: CancellationToken,
    ) -> Self {
        let elapsed_before = run.elapsed_ms;
        Self {
            settings,
            scope,
            run,
            version,
            cancel,
            draining,
            drafts: None,
            started: Instant::now(),
            elapsed_before,
        }
    }

    /// Saves the run as it is now.
    pub(crate) async fn save(&mut self) -> Result<(), LegError> {
        self.run.elapsed_ms = self.elapsed_ms();
        self.version = self
            .settings
            .store
            .save(self.scope, &self.run, Expected::Version(self.version))
            .await
            .map_err(LegError::Store)?;
        Ok(())
    }

    fn elapsed_ms(&self) -> u64 {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.elapsed_before.saturating_add(now)
    }

    /// The wall time left, when the run has a limit.
    fn time_left(&self) -> Option<Duration> {
        self.settings
            .limits
            .wall_time
            .map(|limit| limit.saturating_sub(Duration::from_millis(self.elapsed_ms())))
    }

    async fn finish(&mut self, status: RunStatus, outcome: Outcome) -> Result<Outcome, LegError> {
        self.run.status = status;
        self.save().await?;
        Ok(outcome)
    }

    async fn stop(&mut self, reason: StopReason) -> Result<Outcome, LegError> {
        self.finish(RunStatus::Stopped { reason }, Outcome::Stopped(reason))
            .await
    }

    async fn interrupted(&mut self, interrupt: Interrupt) -> Result<Outcome, LegError> {
        match interrupt {
            Interrupt::Canceled => {
                self.run.status = RunStatus::Canceled;
                // The task is canceled already; a run that cannot be marked so is harmless
                // (no later turn may drive it).
                if let Err(error) = self.save().await {
                    tracing::debug!(error = %error, "could not mark a canceled run");
                }
                Ok(Outcome::Canceled)
            }
            Interrupt::Stop(reason) => self.stop(reason).await,
        }
    }

    /// Runs the leg to its end.
    pub(crate) async fn drive(&mut self) -> Result<Outcome, LegError> {
        loop {
            if let Some(interrupt) = self.run_open_calls().await? {
                return self.interrupted(interrupt).await;
            }
            if !self.run.pending().is_empty() {
                return self.finish(RunStatus::Suspended, Outcome::Suspended).await;
            }
            if let Some(reason) = self.limit_reached() {
                return self.stop(reason).await;
            }
            let reply = match self.call_model().await {
                Ok(Ok(reply)) => reply,
                Ok(Err(error)) => {
                    self.run.status = RunStatus::Failed {
                        code: error.code.clone(),
                    };
                    self.save().await?;
                    return Err(LegError::Model(error));
                }
                Err(interrupt) => return self.interrupted(interrupt).await,
            };
            self.run.steps = self.run.steps.saturating_add(1);
            self.run.usage.add(reply.usage);
            if reply.finish == Finish::ContentFilter {
                return self.stop(StopReason::Refusal).await;
            }
            if reply.tool_calls.is_empty() {
                if reply.finish == Finish::Length {
                    return self.stop(StopReason::Length).await;
                }
                let text = reply.text.clone().unwrap_or_default();
                self.run.transcript.push(ChatMessage::Assistant {
                    text: reply.text,
                    tool_calls: Vec::new(),
                });
                self.run.output = Some(text);
                return self.finish(RunStatus::Completed, Outcome::Completed).await;
            }
            self.run.transcript.push(ChatMessage::Assistant {
                text: reply.text,
                tool_calls: reply.tool_calls.clone(),
            });
            for call in reply.tool_calls {
                self.open(call);
            }
            self.save().await?;
        }
    }

    /// Records a tool call of the model: ready to run, waiting for approval or for the
    /// client, or refused at once (the model is told why).
    fn open(&mut self, call: crate::run::ToolCall) {
        let client_tool = self
            .run
            .client_tools
            .iter()
            .any(|tool| tool.name == call.name);
        let state = if client_tool {
            CallState::AwaitingClient
        } else if self.settings.toolbox.spec(&call.name).is_none() {
            let content = format!("error: there is no tool named {:?}", call.name);
            self.run.transcript.push(ChatMessage::Tool {
                call_id: call.id,
                content,
            });
            return;
        } else {
            match self.settings.policy.decide(&call.name) {
                Decision::Allow => CallState::Ready,
                Decision::Ask => CallState::AwaitingApproval {
                    approval_id: format!("approval-{}", uuid::Uuid::new_v4().simple()),
                },
                Decision::Deny => {
                    let content = format!("error: the tool {:?} is not allowed here", call.name);
                    self.run.transcript.push(ChatMessage::Tool {
                        call_id: call.id,
                        content,
                    });
                    return;
                }
            }
        };
        self.run.open_calls.push(OpenCall { call, state });
    }

    fn limit_reached(&self) -> Option<StopReason> {
        let limits = &self.settings.limits;
        if self.draining.is_cancelled() {
            Some(StopReason::Drained)
        } else if self.run.steps >= limits.max_steps {
            Some(StopReason::MaxSteps)
        } else if limits
            .token_budget
            .is_some_and(|budget| self.run.usage.total() >= budget)
        {
            Some(StopReason::Budget)
        } else if self.time_left().is_some_and(|left| left.is_zero()) {
            Some(StopReason::WallTime)
        } else {
            None
        }
    }

    /// Runs every ready call, in order, saving before (so a crash mid-call is known) and
    /// after each.
    async fn run_open_calls(&mut self) -> Result<Option<Interrupt>, LegError> {
        while let Some(index) = self
            .run
            .open_calls
            .iter()
            .position(|open| matches!(open.state, CallState::Ready))
        {
            if self.draining.is_cancelled() {
                return Ok(Some(Interrupt::Stop(StopReason::Drained)));
            }
            let call = {
                let open = &mut self.run.open_calls[index];
                let repeatable = self
                    .settings
                    .toolbox
                    .spec(&open.call.name)
                    .is_some_and(|spec| spec.repeatable);
                open.state = CallState::Started { repeatable };
                open.call.clone()
            };
            self.save().await?;
            let tool_cancel = self.cancel.child_token();
            let timeout = self.settings.limits.tool_timeout;
            let output = tokio::select! {
                output = self.settings.toolbox.call(&call.name, call.arguments.clone(), tool_cancel.clone()) => {
                    output.unwrap_or_else(|error| ToolOutput::error(error.message))
                }
                () = self.cancel.cancelled() => {
                    tool_cancel.cancel();
                    return Ok(Some(Interrupt::Canceled));
                }
                () = tokio::time::sleep(timeout) => {
                    tool_cancel.cancel();
                    ToolOutput::error(format!("the tool did not answer within {} s", timeout.as_secs()))
                }
            };
            let content = self.capped(output);
            self.run.open_calls.remove(index);
            self.run.transcript.push(ChatMessage::Tool {
                call_id: call.id,
                content,
            });
            self.save().await?;
        }
        Ok(None)
    }

    /// The tool's output as the model sees it: errors marked, long outputs cut short.
    fn capped(&self, output: ToolOutput) -> String {
        let limit = self.settings.limits.max_tool_output;
        let mut content = if output.is_error {
            format!("error: {}", output.content)
        } else {
            output.content
        };
        if content.len() > limit {
            let total = content.len();
            let mut cut = limit;
            while !content.is_char_boundary(cut) {
                cut -= 1;
            }
            content.truncate(cut);
            content.push_str(&format!(
                "\n[output truncated: {limit} of {total} bytes shown]"
            ));
        }
        content
    }

    /// Calls the model once, sending its text to the draft sink as it comes. `Err` when the
    /// call was interrupted (canceled, drained, out of time).
    async fn call_model(
        &mut self,
    ) -> Result<Result<crate::model::ModelReply, ModelError>, Interrupt> {
        let step = self.run.steps.saturating_add(1);
        let mut specs: Vec<crate::run::ToolSpec> = self.settings.toolbox.specs().to_vec();
        specs.extend(self.run.client_tools.iter().cloned());
        let (sender, receiver) = mpsc::unbounded_channel();
        let drafts = self.drafts;
        let mut receiver = drafts.map(|_| receiver);
        let request = ModelRequest::new(&self.run.transcript, &specs);
        let call = self
            .settings
            .model
            .complete(request, drafts.map(|_| sender));
        tokio::pin!(call);
        let deadline = self.time_left();
        let out_of_time = async {
            match deadline {
                Some(left) => tokio::time::sleep(left).await,
                None => futures::future::pending().await,
            }
        };
        tokio::pin!(out_of_time);
        let mut drafted = false;
        let reply = loop {
            tokio::select! {
                biased;
                () = self.cancel.cancelled() => return Err(Interrupt::Canceled),
                () = self.draining.cancelled() => return Err(Interrupt::Stop(StopReason::Drained)),
                piece = next_piece(&mut receiver) => match (piece, drafts) {
                    (Some(piece), Some(sink)) => {
                        drafted = true;
                        sink(step, Some(&piece));
                    }
                    // The model dropped its sender: no more pieces.
                    _ => receiver = None,
                },
                reply = &mut call => break reply,
                () = &mut out_of_time => return Err(Interrupt::Stop(StopReason::WallTime)),
            }
        };
        if let (Some(sink), Some(receiver)) = (drafts, receiver.as_mut()) {
            while let Ok(piece) = receiver.try_recv() {
                drafted = true;
                sink(step, Some(&piece));
            }
        }
        if drafted && let Some(sink) = drafts {
            sink(step, None);
        }
        Ok(reply)
    }
}

async fn next_piece(receiver: &mut Option<mpsc::UnboundedReceiver<String>>) -> Option<String> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => futures::future::pending().await,
    }
}
