//! [`RunAgent`]: the agent-run executor. Each task is one run, kept in a run store under
//! the task id; a message starts the run, answers the actions it waits for, or resumes it.
//!
//! What a turn does, by the run's state:
//! - **no run yet**: the run starts with the message's text (and any client tools it
//!   declares).
//! - **suspended** (its status lists pending actions): the message must answer every one of
//!   them (`{approvalResponses?, clientToolResults?}` data parts); the answers are checked
//!   before anything is written, and a failed check refuses the message with InvalidParams,
//!   leaving task and run untouched. A message without answers is refused.
//! - **stopped, drained**: the message resumes the run from its last save (on any instance).
//! - **stopped for tool reconciliation**: waits for an operator, whose message settles each
//!   call of unknown outcome (`{reconciledToolResults}`, checked like answers); the run then
//!   goes on. Any other message is refused with UnsupportedOperation.
//! - **stopped, any other reason**: refused with UnsupportedOperation.
//! - **running** (its instance stopped mid-leg and the turn is recovered): resumes; a tool
//!   call with side effects that was under way stops the run for reconciliation.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::executor::Recovery;
use a2a_server::store::{Expected, StoreError, TaskScope, Version};
use a2a_server::{AgentExecutor, ExecutorError, RequestContext, TaskUpdater};
use a2a_types::{A2aError, Artifact, ArtifactChunk, Message, Part, Role, Task};
use async_trait::async_trait;
use sha2::{Digest, Sha256};

use crate::answers::{self, Incoming, RECONCILED_KEY, Resolution};
use crate::approval::ApprovalKey;
use crate::engine::{Leg, LegError, Outcome};
use crate::model::Model;
use crate::policy::ToolPolicy;
use crate::reconcile;
use crate::run::{CallState, ChatMessage, Run, RunStatus, StopReason, ToolSpec};
use crate::store::RunStore;
use crate::tools::Toolbox;

/// The metadata key (of a message, or of a data part) declaring client tools.
pub const CLIENT_TOOLS_KEY: &str = "clientTools";
/// The id of the artifact holding a run's output.
pub const OUTPUT_ARTIFACT_ID: &str = "output";
/// The artifact metadata key marking a draft (text streamed as the model writes it, never
/// stored).
pub const DRAFT_METADATA_KEY: &str = "draft";

/// Limits of one run, over all its legs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Model calls a run may make (default 16).
    pub max_steps: u32,
    /// Tokens (prompt and completion) a run may use; `None` for no limit (the default).
    pub token_budget: Option<u64>,
    /// Wall time a run may spend in legs; `None` for no limit (the default).
    pub wall_time: Option<Duration>,
    /// How long one tool call may take (default 60 s); a late call fails, and the model is
    /// told.
    pub tool_timeout: Duration,
    /// The most bytes of one tool's output the model sees (default 16 KiB).
    pub max_tool_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_steps: 16,
            token_budget: None,
            wall_time: None,
            tool_timeout: Duration::from_secs(60),
            max_tool_output: 16 * 1024,
        }
    }
}

/// What kind of output a run gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputKind {
    /// Text: the artifact has a text part (the default).
    #[default]
    Text,
    /// JSON: the model's answer must parse as JSON; the artifact has a data part with
    /// media type `application/json`, never sent in pieces.
    Json,
}

/// Why a run failed, for [`RunAgentBuilder::failure_message`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The model call failed with this code (`rate_limit`, `unauthorized`…).
    Model(String),
    /// The model's answer was not the output asked for.
    InvalidOutput,
    /// The run or task store failed.
    Store,
}

type FailureMessage = Arc<dyn Fn(&Failure) -> String + Send + Sync>;

/// What every turn of a [`RunAgent`] shares.
pub(crate) struct Settings {
    pub(crate) model: Arc<dyn Model>,
    pub(crate) store: Arc<dyn RunStore>,
    pub(crate) toolbox: Toolbox,
    pub(crate) policy: ToolPolicy,
    pub(crate) limits: Limits,
    pub(crate) system: Option<String>,
    pub(crate) approvals: Option<ApprovalKey>,
    pub(crate) drafts: bool,
    pub(crate) output: OutputKind,
    pub(crate) definition: String,
    pub(crate) failure_message: Option<FailureMessage>,
}

/// The agent-run executor: a model-and-tools loop behind A2A.
///
/// ```
/// use std::sync::Arc;
/// use a2a_run::{RunAgent, model::{Model, ModelReply, ModelRequest, ModelError, Drafts}};
/// use a2a_run::store::InMemoryRunStore;
///
/// struct Hello;
/// #[async_trait::async_trait]
/// impl Model for Hello {
///     async fn complete(&self, _: ModelRequest<'_>, _: Option<Drafts>) -> Result<ModelReply, ModelError> {
///         Ok(ModelReply::text("hello"))
///     }
/// }
///
/// let agent = RunAgent::builder(Arc::new(Hello), Arc::new(InMemoryRunStore::new()))
///     .system("You are brief.")
///     .build();
/// # let _ = agent;
/// ```
#[derive(Clone)]
pub struct RunAgent {
    settings: Arc<Settings>,
}

impl std::fmt::Debug for RunAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunAgent")
            .field("toolbox", &self.settings.toolbox)
            .field("limits", &self.settings.limits)
            .finish_non_exhaustive()
    }
}

/// Builds a [`RunAgent`].
pub struct RunAgentBuilder {
    settings: Settings,
    label: String,
}

impl std::fmt::Debug for RunAgentBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunAgentBuilder")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl RunAgent {
    /// A builder for an agent calling `model`, keeping its runs in `store`.
    #[must_use]
    pub fn builder(model: Arc<dyn Model>, store: Arc<dyn RunStore>) -> RunAgentBuilder {
        RunAgentBuilder {
            settings: Settings {
                model,
                store,
                toolbox: Toolbox::default(),
                policy: ToolPolicy::allow_all(),
                limits: Limits::default(),
                system: None,
                approvals: None,
                drafts: true,
                output: OutputKind::Text,
                definition: String::new(),
                failure_message: None,
            },
            label: String::new(),
        }
    }

    /// The tools the model is offered (for the card's skills).
    #[must_use]
    pub fn tools(&self) -> &[ToolSpec] {
        self.settings.toolbox.specs()
    }
}

impl RunAgentBuilder {
    /// The system prompt.
    #[must_use]
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.settings.system = Some(system.into());
        self
    }

    /// The tools offered to the model.
    #[must_use]
    pub fn toolbox(mut self, toolbox: Toolbox) -> Self {
        self.settings.toolbox = toolbox;
        self
    }

    /// Which tools need approval or are refused.
    #[must_use]
    pub fn policy(mut self, policy: ToolPolicy) -> Self {
        self.settings.policy = policy;
        self
    }

    /// The run limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.settings.limits = limits;
        self
    }

    /// Signs approval requests with `key`; an approval must then echo its request's token.
    #[must_use]
    pub fn approval_key(mut self, key: ApprovalKey) -> Self {
        self.settings.approvals = Some(key);
        self
    }

    /// Whether streaming requests get drafts of the model's text (default true; turn it
    /// off when the card does not offer streaming).
    #[must_use]
    pub fn drafts(mut self, drafts: bool) -> Self {
        self.settings.drafts = drafts;
        self
    }

    /// The kind of output (default text).
    #[must_use]
    pub fn output(mut self, output: OutputKind) -> Self {
        self.settings.output = output;
        self
    }

    /// Names the model (and anything else that makes this agent what it is) in the run's
    /// definition: a run started under another definition is not driven by this agent.
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Rewords the status message of a failed task (by default "agent run failed (CODE)",
    /// or "could not update the task" for a store failure).
    #[must_use]
    pub fn failure_message(
        mut self,
        message: impl Fn(&Failure) -> String + Send + Sync + 'static,
    ) -> Self {
        self.settings.failure_message = Some(Arc::new(message));
        self
    }

    /// The agent.
    #[must_use]
    pub fn build(mut self) -> RunAgent {
        let mut hash = Sha256::new();
        let tools: Vec<&str> = self
            .settings
            .toolbox
            .specs()
            .iter()
            .map(|spec| spec.name.as_str())
            .collect();
        let definition = serde_json::json!({
            "label": self.label,
            "system": self.settings.system,
            "tools": tools,
            "output": format!("{:?}", self.settings.output),
        });
        hash.update(definition.to_string().as_bytes());
        self.settings.definition = hex(&hash.finalize());
        RunAgent {
            settings: Arc::new(self.settings),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A run loaded for a turn, and what the turn does with it.
enum Start {
    /// Drive a leg of this run (saved at this version).
    Drive(Run, Version),
    /// Ask again for the run's pending actions; no leg runs.
    AskAgain(Run),
}

impl RunAgent {
    fn failure_text(&self, failure: &Failure) -> String {
        if let Some(message) = &self.settings.failure_message {
            return message(failure);
        }
        match failure {
            Failure::Model(code) => format!("agent run failed ({code})"),
            Failure::InvalidOutput => "agent run failed (invalid_output)".to_owned(),
            Failure::Store => "could not update the task".to_owned(),
        }
    }

    /// Decides, before anything is written, what this turn does.
    async fn start(
        &self,
        context: &RequestContext,
        scope: &TaskScope,
        incoming: &Incoming,
    ) -> Result<Start, ExecutorError> {
        let stored = self
            .settings
            .store
            .load(scope, &context.task_id)
            .await
            .map_err(|error| refuse_store(&error))?;
        let Some(stored) = stored else {
            if incoming.has_answers {
                return Err(nothing_pending());
            }
            let run = self.new_run(context, incoming)?;
            let version = self
                .settings
                .store
                .save(scope, &run, Expected::Absent)
                .await
                .map_err(|error| refuse_store(&error))?;
            return Ok(Start::Drive(run, version));
        };
        let mut run = stored.run;
        if run.definition != self.settings.definition {
            return Err(ExecutorError::Refuse(A2aError::unsupported_operation(
                "this run was started by another definition of the agent (its model, prompt or tools changed); start a new task",
            )));
        }
        match run.status.clone() {
            RunStatus::Suspended => {
                if !incoming.has_answers {
                    let listed = context
                        .task
                        .as_ref()
                        .is_some_and(|task| answers::lists_actions(task.status.message.as_ref()));
                    if listed {
                        return Err(ExecutorError::Refuse(A2aError::invalid_params(
                            "the task waits for answers to its pending actions: send them in a data part {approvalResponses?, clientToolResults?}",
                        )));
                    }
                    return Ok(Start::AskAgain(run));
                }
                let resolutions = answers::check(incoming, &run, self.settings.approvals.as_ref())
                    .map_err(ExecutorError::Refuse)?;
                apply(&mut run, resolutions);
                run.status = RunStatus::Running;
            }
            RunStatus::Stopped { reason } if reason.resumable() => {
                if incoming.has_answers {
                    return Err(nothing_pending());
                }
                if let Some(text) = user_text(incoming) {
                    run.transcript.push(ChatMessage::User { text });
                }
                resume_calls(&mut run);
                run.status = RunStatus::Running;
            }
            RunStatus::Stopped {
                reason: StopReason::ToolReconciliationRequired,
            } if incoming.has_answers => {
                let resolutions =
                    reconcile::check(incoming, &run).map_err(ExecutorError::Refuse)?;
                // As with answers, the message's text stays in the task's history only.
                apply(&mut run, resolutions);
                resume_calls(&mut run);
                run.status = RunStatus::Running;
            }
            RunStatus::Stopped { reason } => {
                let message = if reason == StopReason::ToolReconciliationRequired {
                    format!(
                        "the run stopped during a tool call that may have had effects; it waits until an operator settles it with {RECONCILED_KEY}"
                    )
                } else {
                    format!("the run stopped ({reason}) and cannot go on; start a new task")
                };
                return Err(ExecutorError::Refuse(
                    A2aError::unsupported_operation(message)
                        .with_metadata("reason", reason.as_str()),
                ));
            }
            RunStatus::Running => {
                // The turn that drove this run was lost with its instance and is recovered
                // here: resume from the last save.
                if incoming.has_answers {
                    return Err(nothing_pending());
                }
                let unknown = run
                    .open_calls
                    .iter()
                    .any(|open| matches!(open.state, CallState::Started { repeatable: false }));
                if unknown {
                    run.status = RunStatus::Stopped {
                        reason: StopReason::ToolReconciliationRequired,
                    };
                } else {
                    resume_calls(&mut run);
                }
            }
            RunStatus::Completed | RunStatus::Failed { .. } | RunStatus::Canceled => {
                return Err(ExecutorError::Refuse(A2aError::unsupported_operation(
                    "this run has ended; start a new task",
                )));
            }
        }
        let version = self
            .settings
            .store
            .save(scope, &run, Expected::Version(stored.version))
            .await
            .map_err(|error| refuse_store(&error))?;
        Ok(Start::Drive(run, version))
    }

    fn new_run(&self, context: &RequestContext, incoming: &Incoming) -> Result<Run, ExecutorError> {
        let mut transcript = Vec::new();
        if let Some(system) = &self.settings.system {
            transcript.push(ChatMessage::System {
                text: system.clone(),
            });
        }
        let mut client_tools = declared_tools(
            context
                .metadata
                .as_ref()
                .and_then(|m| m.get(CLIENT_TOOLS_KEY)),
        )?;
        client_tools.extend(declared_tools(
            context
                .message
                .metadata
                .as_ref()
                .and_then(|m| m.get(CLIENT_TOOLS_KEY)),
        )?);
        for data in &incoming.other_data {
            client_tools.extend(declared_tools(data.get(CLIENT_TOOLS_KEY))?);
        }
        let Some(text) = user_text(incoming) else {
            return Err(ExecutorError::Refuse(A2aError::invalid_params(
                "the message has nothing for the agent: send some text",
            )));
        };
        transcript.push(ChatMessage::User { text });
        let mut run = Run::new(
            context.task_id.clone(),
            self.settings.definition.clone(),
            transcript,
        );
        run.client_tools = client_tools;
        Ok(run)
    }

    /// Sends drafts of the model's text as chunks of a fresh artifact per model step.
    fn draft_sink(updater: &TaskUpdater) -> impl Fn(u32, Option<&str>) + Send + Sync + '_ {
        let started = std::sync::Mutex::new(0_u32);
        move |step, piece| {
            let mut last_step = started
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let first = *last_step != step;
            *last_step = step;
            let (text, chunk) = match piece {
                Some(text) if first => (text, ArtifactChunk::First),
                Some(text) => (text, ArtifactChunk::Next),
                None => ("", ArtifactChunk::Last),
            };
            let mut metadata = a2a_types::Metadata::new();
            metadata.insert(DRAFT_METADATA_KEY.to_owned(), serde_json::Value::Bool(true));
            let mut artifact = Artifact::new(vec![Part::text(text)])
                .with_id(format!("draft-{step}"))
                .with_name("draft");
            artifact.metadata = Some(metadata);
            // A draft that cannot be sent (the turn ended) is simply lost.
            let _ = updater.draft(artifact, chunk);
        }
    }

    async fn settle(
        &self,
        outcome: Result<Outcome, LegError>,
        run: &Run,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        match outcome {
            Ok(Outcome::Completed) => {
                let text = run.output.clone().unwrap_or_default();
                let part = match self.settings.output {
                    OutputKind::Text => Part::text(text),
                    OutputKind::Json => match parse_json_output(&text) {
                        Some(value) => Part::data(value).with_media_type("application/json"),
                        None => {
                            updater
                                .fail(self.failure_text(&Failure::InvalidOutput))
                                .await?;
                            return Ok(());
                        }
                    },
                };
                let artifact = Artifact::new(vec![part])
                    .with_id(OUTPUT_ARTIFACT_ID)
                    .with_name("output");
                updater.complete_with_artifacts(vec![artifact], ()).await?;
            }
            Ok(Outcome::Suspended) => {
                updater.require_input(self.ask_message(run)).await?;
            }
            Ok(Outcome::Stopped(reason)) => {
                let text = match reason {
                    StopReason::Drained => "The agent paused because its server is shutting down; send any message to resume.".to_owned(),
                    StopReason::ToolReconciliationRequired => format!("The run stopped during a tool call that may have had effects; an operator must settle it: send each call's result in a data part {{{RECONCILED_KEY}: [{{toolCallId, output}}]}}."),
                    other => format!("The run stopped ({other})."),
                };
                let message = Message::new(
                    Role::Agent,
                    vec![
                        Part::text(text),
                        reconcile::stopped_part(
                            run,
                            reason.as_str(),
                            reason == StopReason::ToolReconciliationRequired,
                        ),
                    ],
                );
                updater.require_input(message).await?;
            }
            Ok(Outcome::Canceled) => {}
            Err(LegError::Model(error)) => {
                tracing::warn!(code = %error.code, detail = %error.detail, "agent run failed: model call");
                updater
                    .fail(self.failure_text(&Failure::Model(error.code)))
                    .await?;
            }
            Err(LegError::Store(error)) => {
                tracing::error!(error = %error, source = ?std::error::Error::source(&error), "agent run failed: run store");
                updater.fail(self.failure_text(&Failure::Store)).await?;
            }
        }
        Ok(())
    }

    fn ask_message(&self, run: &Run) -> Message {
        // "approve write_file (2 calls), run get_location": each tool once, in order.
        let mut asks: Vec<(String, usize)> = Vec::new();
        for open in run.pending() {
            let ask = match open.state {
                CallState::AwaitingApproval { .. } => format!("approve {}", open.call.name),
                CallState::Ready | CallState::Started { .. } | CallState::AwaitingClient => {
                    format!("run {}", open.call.name)
                }
            };
            match asks.iter_mut().find(|(known, _)| *known == ask) {
                Some((_, count)) => *count += 1,
                None => asks.push((ask, 1)),
            }
        }
        let names: Vec<String> = asks
            .into_iter()
            .map(|(ask, count)| {
                if count == 1 {
                    ask
                } else {
                    format!("{ask} ({count} calls)")
                }
            })
            .collect();
        Message::new(
            Role::Agent,
            vec![
                Part::text(format!("Waiting for you to {}.", names.join(", "))),
                answers::actions_part(run, self.settings.approvals.as_ref()),
            ],
        )
    }
}

#[async_trait]
impl AgentExecutor for RunAgent {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let scope = TaskScope {
            tenant: context.tenant.clone(),
            owner: context.owner.clone(),
        };
        answers::refuse_owned_options(context.metadata.as_ref(), "request")
            .and_then(|()| {
                answers::refuse_owned_options(context.message.metadata.as_ref(), "message")
            })
            .map_err(ExecutorError::Refuse)?;
        let incoming = answers::read(&context.message).map_err(ExecutorError::Refuse)?;
        let (run, version) = match self.start(&context, &scope, &incoming).await? {
            Start::AskAgain(run) => {
                updater.require_input(self.ask_message(&run)).await?;
                return Ok(());
            }
            Start::Drive(run, version) => (run, version),
        };
        if let RunStatus::Stopped { reason } = run.status {
            let outcome = Ok(Outcome::Stopped(reason));
            updater.working(()).await?;
            return self.settle(outcome, &run, updater).await;
        }
        updater.working(()).await?;
        let sink = Self::draft_sink(&updater);
        let drafts =
            self.settings.drafts && context.streaming && self.settings.output == OutputKind::Text;
        let mut leg = Leg::new(
            &self.settings,
            &scope,
            run,
            version,
            context.cancellation.clone(),
            context.draining.clone(),
        );
        if drafts {
            leg.drafts = Some(&sink);
        }
        let outcome = leg.drive().await;
        let run = leg.run;
        drop(sink);
        self.settle(outcome, &run, updater).await
    }

    async fn recover(&self, task: &Task) -> Recovery {
        let _ = task;
        Recovery::Rerun
    }
}

/// A call cut short by a drain or a crash that is harmless to repeat runs again.
fn resume_calls(run: &mut Run) {
    for open in &mut run.open_calls {
        if let CallState::Started { repeatable: true } = open.state {
            open.state = CallState::Ready;
        }
    }
}

/// Applies checked answers: approved calls become ready, denied ones and client results
/// become tool results for the model.
fn apply(run: &mut Run, resolutions: Vec<Resolution>) {
    for resolution in resolutions {
        match resolution {
            Resolution::Approved { call_id } => {
                if let Some(open) = run
                    .open_calls
                    .iter_mut()
                    .find(|open| open.call.id == call_id)
                {
                    open.state = CallState::Ready;
                }
            }
            Resolution::Denied { call_id, reason } => {
                run.open_calls.retain(|open| open.call.id != call_id);
                let content = match reason {
                    Some(reason) => format!("error: the user denied this call: {reason}"),
                    None => "error: the user denied this call".to_owned(),
                };
                run.transcript.push(ChatMessage::Tool { call_id, content });
            }
            Resolution::Ran {
                call_id,
                content,
                is_error,
            } => {
                run.open_calls.retain(|open| open.call.id != call_id);
                let content = if is_error {
                    format!("error: {content}")
                } else {
                    content
                };
                run.transcript.push(ChatMessage::Tool { call_id, content });
            }
        }
    }
}

/// The text the model gets from a message: its text parts, then any data parts (other than
/// client-tool declarations) as JSON; `None` when that is empty.
fn user_text(incoming: &Incoming) -> Option<String> {
    let mut text = incoming.text.trim().to_owned();
    for data in &incoming.other_data {
        if data.get(CLIENT_TOOLS_KEY).is_some() {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&data.to_string());
    }
    (!text.is_empty()).then_some(text)
}

fn declared_tools(value: Option<&serde_json::Value>) -> Result<Vec<ToolSpec>, ExecutorError> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    serde_json::from_value(value.clone()).map_err(|error| {
        ExecutorError::Refuse(A2aError::invalid_params(format!(
            "{CLIENT_TOOLS_KEY} must be a list of {{name, description?, inputSchema?}}: {error}"
        )))
    })
}

fn parse_json_output(text: &str) -> Option<serde_json::Value> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    serde_json::from_str(inner.trim()).ok()
}

fn nothing_pending() -> ExecutorError {
    ExecutorError::Refuse(A2aError::invalid_params(
        "the run waits for no answers: send a message without approvalResponses or clientToolResults",
    ))
}

/// A store failure before the turn changed anything: another instance drove the run (its
/// save won), or the store failed.
fn refuse_store(error: &StoreError) -> ExecutorError {
    match error {
        StoreError::Conflict { .. } => ExecutorError::Refuse(A2aError::unsupported_operation(
            "another server instance is driving this run",
        )),
        other => {
            tracing::error!(error = %other, source = ?std::error::Error::source(other), "run store failed");
            ExecutorError::Refuse(A2aError::internal())
        }
    }
}
