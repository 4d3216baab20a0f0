//! The agent `a2a serve` runs: echo, a command, or an LLM with tools.

use std::time::Duration;

use a2a_server::auth::Secret;

use super::DEFAULT_MODEL_URL;
use super::checks::{invalid, nonzero, positive};
use crate::config::ConfigError;
use crate::config::options::{AgentKind, ServeOptions};
use crate::config::{AgentSetup, DataFormat, ExecCommand, LlmSetup};

pub(super) fn agent(options: &ServeOptions) -> Result<AgentSetup, ConfigError> {
    let kind = options.agent.unwrap_or(AgentKind::Echo);
    if kind == AgentKind::Llm {
        if !options.command.is_empty() {
            return Err(invalid(
                "agent",
                "a command after `--` is only used by --agent exec; give MCP servers with --mcp",
            ));
        }
        return llm(options).map(|setup| AgentSetup::Llm(Box::new(setup)));
    }
    if options.model.is_some() {
        return Err(invalid("model", "--model is only used by --agent llm"));
    }
    let data_format = options
        .data_format
        .as_deref()
        .map(DataFormat::parse)
        .transpose()?;
    if data_format.is_some() && kind != AgentKind::Exec {
        return Err(invalid("data-format", "is only used by --agent exec"));
    }
    let mut words = options.command.clone().into_iter();
    match (kind, words.next()) {
        (AgentKind::Exec, Some(program)) => Ok(AgentSetup::Exec(ExecCommand {
            program,
            args: words.collect(),
            data_format: data_format.unwrap_or_default(),
        })),
        (AgentKind::Exec, None) => Err(invalid(
            "agent",
            "exec needs a command: a2a serve --agent exec -- CMD ARGS…",
        )),
        (AgentKind::Echo | AgentKind::Conformance | AgentKind::Llm, Some(program)) => Err(invalid(
            "agent",
            format!("a command (`{program}` …) is only used by --agent exec"),
        )),
        (AgentKind::Echo, None) => Ok(AgentSetup::Echo),
        (AgentKind::Conformance, None) => Ok(AgentSetup::Conformance),
        (AgentKind::Llm, None) => llm(options).map(|setup| AgentSetup::Llm(Box::new(setup))),
    }
}

pub(super) fn llm(options: &ServeOptions) -> Result<LlmSetup, ConfigError> {
    let Some(model) = options
        .model
        .clone()
        .filter(|model| !model.trim().is_empty())
    else {
        return Err(invalid(
            "model",
            "--agent llm needs --model NAME (the model's name at --model-url)",
        ));
    };
    let model_url = options
        .model_url
        .clone()
        .unwrap_or_else(|| DEFAULT_MODEL_URL.to_owned());
    match url::Url::parse(&model_url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => {}
        _ => {
            return Err(invalid(
                "model-url",
                format!("`{model_url}` is not an http(s) URL"),
            ));
        }
    }
    let approve = options.approve.clone().unwrap_or_default();
    let deny = options.deny.clone().unwrap_or_default();
    let mut policy = a2a_run::policy::ToolPolicy::allow_all();
    for pattern in &approve {
        policy = policy
            .ask(pattern)
            .map_err(|error| invalid("approve", error.to_string()))?;
    }
    for pattern in &deny {
        policy = policy
            .deny(pattern)
            .map_err(|error| invalid("deny", error.to_string()))?;
    }
    let _ = policy;
    let max_steps = match options.max_steps {
        Some(0) => return Err(invalid("max-steps", "must be at least 1")),
        Some(steps) => steps,
        None => 16,
    };
    Ok(LlmSetup {
        model,
        model_url,
        api_key: options
            .model_api_key
            .clone()
            .filter(|key| !key.is_empty())
            .map(Secret::new),
        system: options.system.clone(),
        mcp_commands: options.mcp.clone().unwrap_or_default(),
        mcp_urls: options.mcp_url.clone().unwrap_or_default(),
        approve,
        deny,
        max_steps,
        token_budget: options.token_budget.filter(|budget| *budget > 0),
        run_time_limit: options
            .run_time_limit
            .map(|limit| limit.0)
            .filter(|limit| !limit.is_zero()),
        tool_timeout: match options.tool_timeout {
            Some(timeout) => positive("tool-timeout", timeout.0)?,
            None => Duration::from_secs(60),
        },
        max_tool_output: match options.max_tool_output {
            Some(size) => nonzero("max-tool-output", size)?,
            None => 16 * 1024,
        },
        approval_key: options
            .approval_key
            .clone()
            .filter(|key| !key.is_empty())
            .map(Secret::new),
    })
}
