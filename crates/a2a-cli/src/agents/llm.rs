//! `--agent llm`: a language model behind an OpenAI-compatible endpoint, with the tools of
//! MCP servers, as an agent-run executor: tool calls may wait for a person's approval, and a
//! run survives restarts when the store is durable.

use std::sync::Arc;

use a2a_run::approval::ApprovalKey;
use a2a_run::mcp::McpTools;
use a2a_run::model::ModelError;
use a2a_run::openai::OpenAiModel;
use a2a_run::policy::{Decision, ToolPolicy};
use a2a_run::store::RunStore;
use a2a_run::tools::{ToolSource, Toolbox};
use a2a_run::{Limits, RunAgent};
use a2a_types::AgentSkill;

use crate::config::LlmSetup;

/// Why the LLM agent could not start: its model or an MCP server cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LlmStartError {
    /// The system prompt file cannot be read.
    #[error("cannot read the system prompt {path}: {source}")]
    System {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The model endpoint answered no, or not at all.
    #[error("{0}")]
    Model(String),
    /// An MCP server could not be started or reached.
    #[error("cannot use the MCP server {server}: {message}")]
    Mcp {
        /// The command line or URL.
        server: String,
        /// Why.
        message: String,
    },
}

/// Starts the agent: reads the system prompt, checks the model endpoint (so a wrong URL or
/// key shows now rather than on the first message), starts the MCP servers and lists their
/// tools.
pub(crate) async fn start(
    setup: &LlmSetup,
    runs: Arc<dyn RunStore>,
    streaming: bool,
    durable: bool,
) -> Result<RunAgent, LlmStartError> {
    let system = match &setup.system {
        Some(path) => {
            Some(
                std::fs::read_to_string(path).map_err(|source| LlmStartError::System {
                    path: path.display().to_string(),
                    source,
                })?,
            )
        }
        None => None,
    };
    let model = OpenAiModel::new(setup.model_url.clone(), setup.model.clone())
        .with_api_key(setup.api_key.as_ref().map(|key| key.expose().to_owned()));
    model
        .check()
        .await
        .map_err(|error| LlmStartError::Model(model_problem(&setup.model_url, &error)))?;

    let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
    for command in &setup.mcp_commands {
        let tools = McpTools::command_line(command)
            .await
            .map_err(|error| LlmStartError::Mcp {
                server: command.clone(),
                message: error.message,
            })?;
        sources.push(Arc::new(tools));
    }
    for url in &setup.mcp_urls {
        let tools = McpTools::http(url)
            .await
            .map_err(|error| LlmStartError::Mcp {
                server: url.clone(),
                message: error.message,
            })?;
        sources.push(Arc::new(tools));
    }
    let toolbox = Toolbox::gather(sources)
        .await
        .map_err(|error| LlmStartError::Mcp {
            server: "(listing tools)".to_owned(),
            message: error.message,
        })?;

    let key = match &setup.approval_key {
        Some(key) => ApprovalKey::new(key.expose().as_bytes().to_vec()),
        None => {
            if durable {
                tracing::warn!(
                    "no approval key (A2A_APPROVAL_KEY): approvals asked by this process cannot \
                     be answered after a restart or on another instance"
                );
            }
            ApprovalKey::random()
        }
    };
    let mut limits = Limits::default();
    limits.max_steps = setup.max_steps;
    limits.token_budget = setup.token_budget;
    limits.wall_time = setup.run_time_limit;
    limits.tool_timeout = setup.tool_timeout;
    limits.max_tool_output = setup.max_tool_output;
    let mut builder = RunAgent::builder(Arc::new(model), runs)
        .toolbox(toolbox)
        .policy(policy(setup))
        .limits(limits)
        .approval_key(key)
        .drafts(streaming)
        .label(format!("{} at {}", setup.model, setup.model_url));
    if let Some(system) = system {
        builder = builder.system(system);
    }
    Ok(builder.build())
}

/// The tool policy of `setup` (its patterns were checked with the settings).
pub(crate) fn policy(setup: &LlmSetup) -> ToolPolicy {
    let mut policy = ToolPolicy::allow_all();
    for pattern in &setup.approve {
        policy = policy.clone().ask(pattern).unwrap_or(policy);
    }
    for pattern in &setup.deny {
        policy = policy.clone().deny(pattern).unwrap_or(policy);
    }
    policy
}

/// The card's skills: one per tool the model may call, saying which need approval.
pub(crate) fn skills(agent: &RunAgent, setup: &LlmSetup) -> Vec<AgentSkill> {
    let policy = policy(setup);
    agent
        .tools()
        .iter()
        .filter_map(|tool| {
            let (tag, note) = match policy.decide(&tool.name) {
                Decision::Deny => return None,
                Decision::Ask => ("needs-approval", " (each call needs your approval)"),
                Decision::Allow => ("tool", ""),
            };
            let description = if tool.description.is_empty() {
                format!("The tool {}{note}", tool.name)
            } else {
                format!("{}{note}", tool.description)
            };
            let mut skill = AgentSkill::new(tool.name.clone(), tool.name.clone(), description);
            skill.tags = vec![tag.to_owned()];
            Some(skill)
        })
        .collect()
}

/// What a failed start-up check of the model endpoint means, in words (never the key).
fn model_problem(url: &str, error: &ModelError) -> String {
    match error.code.as_str() {
        "unreachable" => format!("cannot reach the model endpoint {url}: {}", error.detail),
        "unauthorized" => format!(
            "the model endpoint {url} refused the API key (set A2A_MODEL_API_KEY to a valid key)"
        ),
        "timeout" => format!("the model endpoint {url} did not answer in time"),
        code => format!("the model endpoint {url} answered with an error ({code})"),
    }
}
