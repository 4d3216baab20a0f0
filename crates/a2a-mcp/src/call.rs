//! The call of one send tool: the message sent (streamed when the agent streams, else sent
//! and polled), progress notifications as events arrive, the agent's question asked through
//! elicitation where the host supports it, the task canceled when the host cancels, and an
//! unfinished answer when the run outlasts the host's patience.

use std::time::Duration;

use a2a_client::ClientError;
use a2a_types::{
    Artifact, CancelTaskRequest, GetTaskRequest, SendMessageRequest, SendMessageResponse,
    StreamResponse, Task, TaskState,
};
use futures::StreamExt as _;
use rmcp::model::{
    CallToolResult, ElicitRequestParams, ElicitationAction, ElicitationSchema,
    ProgressNotificationParam, ProgressToken,
};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::json;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::arguments::answer_request;
use crate::results::{Answer, Origin, error_result, state_name, texts, tool_result};

/// How often a task is read again while an agent that does not stream works on it.
const POLL_INTERVAL: Duration = Duration::from_millis(500);
/// How long a cancel on the host's behalf may take.
const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);
/// The most questions one call asks the user through elicitation.
const MAX_QUESTIONS: usize = 10;

/// One call of a send tool.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    /// The agent called.
    pub(crate) agent: &'a Agent,
    /// Its handle and the tool, for the result's hints.
    pub(crate) origin: Origin<'a>,
    /// The host's end of the session: progress and elicitation go there.
    pub(crate) peer: &'a Peer<RoleServer>,
    /// The host's progress token, when it asked for progress.
    pub(crate) progress: Option<ProgressToken>,
    /// Canceled when the host cancels the call.
    pub(crate) canceled: &'a CancellationToken,
    /// How long to wait for the agent before answering with the task as it stands.
    pub(crate) patience: Duration,
}

/// How one turn of the conversation ended.
enum Turn {
    /// The agent answered: a reply, or a task that finished or waits for input.
    Answered(Answer),
    /// The host's patience ran out first; the task as it stood.
    StillRunning(Task),
    /// The host canceled the call; the task, when one was known.
    Canceled(Option<Task>),
}

impl Call<'_> {
    /// Sends `request` and answers with the tool result, tool errors included.
    pub(crate) async fn send(mut self, mut request: SendMessageRequest) -> CallToolResult {
        let mut sent = 0_u32;
        for _ in 0..=MAX_QUESTIONS {
            let turn = match self.turn(request, &mut sent).await {
                Ok(turn) => turn,
                Err(error) => return self.failed(&error),
            };
            let task = match turn {
                Turn::Answered(Answer::Task(task))
                    if task.status.state == TaskState::InputRequired =>
                {
                    task
                }
                Turn::Answered(answer) => return tool_result(self.origin, &answer),
                Turn::StillRunning(task) => return tool_result(self.origin, &Answer::Task(task)),
                Turn::Canceled(task) => return self.cancel(task).await,
            };
            let Some(reply) = self.ask(&task).await else {
                return tool_result(self.origin, &Answer::Task(task));
            };
            request = answer_request(task.id.as_str(), task.context_id.as_str(), reply);
        }
        error_result(format!(
            "{} asked more than {MAX_QUESTIONS} questions in one call; continue with task_id",
            self.origin.agent
        ))
    }

    fn failed(&self, error: &ClientError) -> CallToolResult {
        tracing::warn!(agent = self.origin.agent, %error, "the call to the agent failed");
        error_result(format!(
            "The call to the A2A agent \"{}\" failed: {error}",
            self.origin.agent
        ))
    }

    /// One message sent, and its answer awaited.
    async fn turn(
        &mut self,
        request: SendMessageRequest,
        sent: &mut u32,
    ) -> Result<Turn, ClientError> {
        let deadline = Instant::now() + self.patience;
        if self.agent.card.capabilities.streaming == Some(true) {
            self.streamed(request, deadline, sent).await
        } else {
            self.polled(request, deadline, sent).await
        }
    }

    async fn streamed(
        &mut self,
        request: SendMessageRequest,
        deadline: Instant,
        sent: &mut u32,
    ) -> Result<Turn, ClientError> {
        let client = &self.agent.client;
        let opened = tokio::select! {
            opened = client.send_streaming_message(request) => opened?,
            () = self.canceled.cancelled() => return Ok(Turn::Canceled(None)),
            () = tokio::time::sleep_until(deadline) => {
                return Err(ClientError::Timeout(a2a_client::TimeoutKind::Request));
            }
        };
        let mut events = opened;
        let mut task: Option<Task> = None;
        loop {
            let event = tokio::select! {
                event = events.next() => event,
                () = self.canceled.cancelled() => return Ok(Turn::Canceled(task)),
                () = tokio::time::sleep_until(deadline) => {
                    return Ok(match task {
                        Some(task) => Turn::StillRunning(task),
                        None => return Err(ClientError::Timeout(a2a_client::TimeoutKind::Request)),
                    });
                }
            };
            let Some(event) = event else { break };
            // A follow-up's first snapshot may still show the state that asked for it: only
            // an update settles the turn before the stream ends.
            let mut settles = false;
            match event? {
                StreamResponse::Message(message) => {
                    return Ok(Turn::Answered(Answer::Message(message)));
                }
                StreamResponse::Task(snapshot) => {
                    self.report(sent, status_line(&snapshot)).await;
                    settles = snapshot.status.state.is_terminal();
                    task = Some(snapshot);
                }
                StreamResponse::StatusUpdate(update) => {
                    let current = task.get_or_insert_with(|| {
                        Task::new(
                            update.task_id.clone(),
                            update.context_id.clone(),
                            update.status.state,
                        )
                    });
                    current.status = update.status;
                    settles = is_settled(current.status.state);
                    let line = status_line(current);
                    self.report(sent, line).await;
                }
                StreamResponse::ArtifactUpdate(update) => {
                    let current = task.get_or_insert_with(|| {
                        Task::new(
                            update.task_id.clone(),
                            update.context_id.clone(),
                            TaskState::Working,
                        )
                    });
                    let name = artifact_name(&update.artifact).to_owned();
                    merge_artifact(current, update.artifact, update.append);
                    self.report(sent, format!("artifact {name}")).await;
                }
            }
            if settles {
                break;
            }
        }
        match task {
            Some(task) if is_settled(task.status.state) => Ok(Turn::Answered(Answer::Task(task))),
            // The stream ended early: read the task as it stands.
            Some(task) => self.poll_task(task, deadline, sent).await,
            None => Err(ClientError::InvalidResponse {
                reason: "the stream ended before the agent answered".into(),
            }),
        }
    }

    async fn polled(
        &mut self,
        mut request: SendMessageRequest,
        deadline: Instant,
        sent: &mut u32,
    ) -> Result<Turn, ClientError> {
        request
            .configuration
            .get_or_insert_with(Default::default)
            .return_immediately = true;
        let answer = tokio::select! {
            answer = self.agent.client.send_message(request) => answer?,
            () = self.canceled.cancelled() => return Ok(Turn::Canceled(None)),
            () = tokio::time::sleep_until(deadline) => {
                return Err(ClientError::Timeout(a2a_client::TimeoutKind::Request));
            }
        };
        match answer {
            SendMessageResponse::Message(message) => Ok(Turn::Answered(Answer::Message(message))),
            SendMessageResponse::Task(task) => {
                self.report(sent, status_line(&task)).await;
                self.poll_task(task, deadline, sent).await
            }
        }
    }

    /// Reads `task` again until it settles, the host cancels or its patience runs out.
    async fn poll_task(
        &mut self,
        mut task: Task,
        deadline: Instant,
        sent: &mut u32,
    ) -> Result<Turn, ClientError> {
        while !is_settled(task.status.state) {
            tokio::select! {
                () = tokio::time::sleep(POLL_INTERVAL) => {}
                () = self.canceled.cancelled() => return Ok(Turn::Canceled(Some(task))),
                () = tokio::time::sleep_until(deadline) => return Ok(Turn::StillRunning(task)),
            }
            let read = self
                .agent
                .client
                .get_task(GetTaskRequest {
                    tenant: String::new(),
                    id: task.id.clone(),
                    history_length: Some(0),
                })
                .await?;
            if read.status.state != task.status.state
                || read.artifacts.len() != task.artifacts.len()
            {
                self.report(sent, status_line(&read)).await;
            }
            task = read;
        }
        Ok(Turn::Answered(Answer::Task(task)))
    }

    /// A progress notification, when the host asked for them.
    async fn report(&self, sent: &mut u32, message: String) {
        let Some(token) = &self.progress else { return };
        *sent += 1;
        let mut progress = ProgressNotificationParam::new(token.clone(), f64::from(*sent));
        progress.message = Some(message);
        if let Err(error) = self.peer.notify_progress(progress).await {
            tracing::debug!(%error, "a progress notification was not sent");
        }
    }

    /// The agent's question asked through elicitation, when the host supports it: the
    /// user's answer, or `None` (not supported, declined, or no answer).
    async fn ask(&self, task: &Task) -> Option<String> {
        if !self
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return None;
        }
        let question = task
            .status
            .message
            .as_ref()
            .map(|message| texts(&message.parts))
            .filter(|text| !text.trim().is_empty())
            .unwrap_or_else(|| "The agent needs more input.".to_owned());
        let schema = ElicitationSchema::from_json_schema(
            json!({
                "type": "object",
                "properties": {"answer": {"type": "string", "title": "Answer", "description": "Your answer to the agent"}},
                "required": ["answer"]
            })
            .as_object()
            .cloned()
            .unwrap_or_default(),
        )
        .ok()?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!("{} asks: {question}", self.agent.card.name),
            requested_schema: schema,
        };
        let answered = tokio::select! {
            answered = self.peer.create_elicitation(params) => answered,
            () = self.canceled.cancelled() => return None,
        };
        match answered {
            Ok(result) if result.action == ElicitationAction::Accept => result
                .content
                .as_ref()
                .and_then(|content| content.get("answer"))
                .and_then(|answer| answer.as_str())
                .map(str::to_owned),
            Ok(_) => None,
            Err(error) => {
                tracing::debug!(%error, "elicitation failed; the question goes back in the result");
                None
            }
        }
    }

    /// Cancels the task the host gave up on, when one was started.
    async fn cancel(&self, task: Option<Task>) -> CallToolResult {
        let Some(task) = task else {
            return error_result("canceled before the agent started a task");
        };
        let request = CancelTaskRequest {
            tenant: String::new(),
            id: task.id.clone(),
            metadata: None,
        };
        match tokio::time::timeout(CANCEL_TIMEOUT, self.agent.client.cancel_task(request)).await {
            Ok(Ok(canceled)) => tool_result(self.origin, &Answer::Task(canceled)),
            Ok(Err(error)) => {
                tracing::warn!(agent = self.origin.agent, task = task.id.as_str(), %error, "the task could not be canceled");
                error_result(format!(
                    "the call was canceled, but the task was not: {error}"
                ))
            }
            Err(_) => {
                error_result("the call was canceled; the agent did not confirm the cancel in time")
            }
        }
    }
}

/// Finished, or waiting for the user: the turn is over.
fn is_settled(state: TaskState) -> bool {
    state.is_terminal() || state.is_interrupted()
}

fn status_line(task: &Task) -> String {
    let said = task
        .status
        .message
        .as_ref()
        .map(|message| texts(&message.parts))
        .unwrap_or_default();
    if said.is_empty() {
        state_name(task.status.state).to_owned()
    } else {
        format!("{}: {said}", state_name(task.status.state))
    }
}

fn artifact_name(artifact: &Artifact) -> &str {
    if artifact.name.is_empty() {
        artifact.artifact_id.as_str()
    } else {
        &artifact.name
    }
}

/// Adds an artifact event to the task: appended to the artifact of the same id when the event
/// says so, else replacing it (or added).
fn merge_artifact(task: &mut Task, artifact: Artifact, append: bool) {
    match task
        .artifacts
        .iter_mut()
        .find(|known| known.artifact_id == artifact.artifact_id)
    {
        Some(known) if append => known.parts.extend(artifact.parts),
        Some(known) => *known = artifact,
        None => task.artifacts.push(artifact),
    }
}
