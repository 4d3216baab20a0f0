//! Running each `a2a agents` subcommand against the registry.

use serde_json::{Value, json};

use super::args::{AgentsArgs, AgentsCommand, IdArgs, ListArgs, RegisterArgs};
use super::body::register_body;
use super::registry::Registry;
use super::show::{agents_of, agents_table, record_text, text_of, url_of};
use crate::output;

/// Runs one `a2a agents` command.
pub(crate) async fn run(args: AgentsArgs) -> anyhow::Result<()> {
    match args.command {
        AgentsCommand::List(args) => list(args).await,
        AgentsCommand::Get(args) => get(args).await,
        AgentsCommand::Register(args) => register(args).await,
        AgentsCommand::Heartbeat(args) => heartbeat(args).await,
        AgentsCommand::Deregister(args) => deregister(args).await,
    }
}

pub(super) async fn list(args: ListArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let mut url = registry.url(&["agents"]);
    {
        let mut query = url.query_pairs_mut();
        let tags: Vec<&str> = args
            .skill_tags
            .iter()
            .map(|tag| tag.trim())
            .filter(|tag| !tag.is_empty())
            .collect();
        if !tags.is_empty() {
            query.append_pair("skill_tags", &tags.join(","));
        }
        if let Some(limit) = args.limit {
            query.append_pair("limit", &limit.to_string());
        }
    }
    if url.query() == Some("") {
        url.set_query(None);
    }
    let answer = registry.call(registry.http.get(url)).await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    let agents = agents_of(&answer)?;
    output::text(&agents_table(agents))?;
    Ok(())
}

pub(super) async fn get(args: IdArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let url = registry.url(&["agents", &args.agent_id]);
    let answer = registry
        .call(registry.http.get(url))
        .await
        .map_err(|error| error.about(&args.agent_id))?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&record_text(&answer))?;
    Ok(())
}

pub(super) async fn register(args: RegisterArgs) -> anyhow::Result<()> {
    let registry = Registry::new(&args.target)?;
    let body = register_body(&args)?;
    let request = registry.write(registry.http.post(registry.url(&["agents", "register"])));
    let answer = registry.call(request.json(&body)).await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    let agent_id = text_of(&answer, "agent_id");
    let mut line = format!("registered {agent_id}");
    let url = url_of(&answer);
    if !url.is_empty() {
        line.push_str(&format!(" at {url}"));
    }
    line.push('\n');
    line.push_str(&format!(
        "  registered at {}, last seen {}\n",
        text_of(&answer, "registered_at"),
        text_of(&answer, "last_seen")
    ));
    output::text(&line)?;
    Ok(())
}

pub(super) async fn heartbeat(args: IdArgs) -> anyhow::Result<()> {
    let answer = post_agent_id(&args, "heartbeat").await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&format!(
        "heartbeat sent for {}; last seen {}\n",
        args.agent_id,
        text_of(&answer, "last_seen")
    ))?;
    Ok(())
}

pub(super) async fn deregister(args: IdArgs) -> anyhow::Result<()> {
    let answer = post_agent_id(&args, "deregister").await?;
    if args.target.json {
        return output::json_line(&answer);
    }
    output::text(&format!("deregistered {}\n", args.agent_id))?;
    Ok(())
}

/// `POST /agents/{action}` with `{"agent_id"}`, a write carrying the registry key; an
/// "agent not found" answer is named after the agent.
async fn post_agent_id(args: &IdArgs, action: &str) -> anyhow::Result<Value> {
    let registry = Registry::new(&args.target)?;
    let request = registry.write(registry.http.post(registry.url(&["agents", action])));
    registry
        .call(request.json(&json!({"agent_id": args.agent_id})))
        .await
        .map_err(|error| error.about(&args.agent_id))
}
