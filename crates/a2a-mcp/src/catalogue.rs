//! The tool catalogue: one tool per agent (or per skill), named uniquely and described from
//! the agent's card, plus the generic tools `list_agents`, `get_task` and `cancel_task`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use a2a_types::AgentCard;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::agent::Target;

/// The generic tools' names.
pub(crate) const LIST_AGENTS: &str = "list_agents";
pub(crate) const GET_TASK: &str = "get_task";
pub(crate) const CANCEL_TASK: &str = "cancel_task";

/// The longest tool name made; several hosts refuse names over 64 characters.
const MAX_NAME: usize = 64;
/// The prefix of an agent's tool.
const SEND_PREFIX: &str = "send_to_";
/// The longest description made from a card; the rest is cut.
const MAX_DESCRIPTION: usize = 4000;

/// One agent as the catalogue sees it: where it is and, once reached, its card.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Listing<'a> {
    pub(crate) target: &'a Target,
    pub(crate) card: Option<&'a AgentCard>,
}

/// What a tool does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    /// Sends to the agent of this listing index, naming a skill under `--tool-per-skill`.
    Send {
        agent: usize,
        skill: Option<String>,
    },
    ListAgents,
    GetTask,
    CancelTask,
}

/// The tools of a set of agents, and where each call goes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalogue {
    pub(crate) tools: Vec<Tool>,
    routes: BTreeMap<String, Route>,
    /// Each listing's handle: its unique sanitised name, the `agent` argument of the generic
    /// tools.
    pub(crate) handles: Vec<String>,
}

impl Catalogue {
    /// The catalogue of `listings`, in their order.
    pub(crate) fn new(listings: &[Listing<'_>], tool_per_skill: bool) -> Self {
        let mut taken = BTreeSet::new();
        let handles: Vec<String> = listings
            .iter()
            .map(|listing| unique(&mut taken, &sanitise(&display_name(listing)), 40))
            .collect();
        let mut names = BTreeSet::from([
            LIST_AGENTS.to_owned(),
            GET_TASK.to_owned(),
            CANCEL_TASK.to_owned(),
        ]);
        let mut catalogue = Self {
            tools: Vec::new(),
            routes: BTreeMap::new(),
            handles: handles.clone(),
        };
        for (index, (listing, handle)) in listings.iter().zip(&handles).enumerate() {
            let skills = listing
                .card
                .map(|card| card.skills.as_slice())
                .unwrap_or_default();
            if tool_per_skill && !skills.is_empty() {
                for skill in skills {
                    let base = format!("{handle}_{}", sanitise(or(&skill.id, &skill.name)));
                    let name = unique(&mut names, &base, MAX_NAME - 3);
                    let tool = send_tool(&name, skill_description(listing, skill));
                    catalogue.add(
                        tool,
                        Route::Send {
                            agent: index,
                            skill: Some(skill.id.clone()),
                        },
                    );
                }
            } else {
                let name = unique(&mut names, &format!("{SEND_PREFIX}{handle}"), MAX_NAME - 3);
                let tool = send_tool(&name, agent_description(listing));
                catalogue.add(
                    tool,
                    Route::Send {
                        agent: index,
                        skill: None,
                    },
                );
            }
        }
        catalogue.add(list_agents_tool(), Route::ListAgents);
        catalogue.add(task_tool(GET_TASK, &handles), Route::GetTask);
        catalogue.add(task_tool(CANCEL_TASK, &handles), Route::CancelTask);
        catalogue
    }

    fn add(&mut self, tool: Tool, route: Route) {
        self.routes.insert(tool.name.to_string(), route);
        self.tools.push(tool);
    }

    /// Where a call of the tool `name` goes.
    pub(crate) fn route(&self, name: &str) -> Option<&Route> {
        self.routes.get(name)
    }

    /// The tool `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// The listing index of the agent whose handle is `handle`.
    pub(crate) fn agent_of(&self, handle: &str) -> Option<usize> {
        self.handles.iter().position(|known| known == handle)
    }

    /// The names of the tools that send to the agent at listing index `agent`.
    pub(crate) fn tools_of(&self, agent: usize) -> Vec<&str> {
        self.routes
            .iter()
            .filter(|(_, route)| matches!(route, Route::Send { agent: of, .. } if *of == agent))
            .map(|(name, _)| name.as_str())
            .collect()
    }
}

/// What an agent is called before it is sanitised: its card's name, else its gateway id,
/// else its URL's host, port and path.
fn display_name(listing: &Listing<'_>) -> String {
    if let Some(card) = listing.card
        && !card.name.trim().is_empty()
    {
        return card.name.clone();
    }
    if let Some(id) = &listing.target.gateway_id {
        return id.clone();
    }
    let url = listing.target.url.as_str();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    rest.trim_end_matches(".json").to_owned()
}

/// Lowercase ASCII letters and digits, other runs as one `_`; `agent` when nothing is left.
pub(crate) fn sanitise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for character in name.chars() {
        if character.is_ascii_alphanumeric() {
            out.push(character.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_');
    if out.is_empty() {
        "agent".to_owned()
    } else {
        out.to_owned()
    }
}

/// `base` cut to `limit` characters, with `_2`, `_3`, … added until no name in `taken` is the
/// same; the name is then taken.
fn unique(taken: &mut BTreeSet<String>, base: &str, limit: usize) -> String {
    let base: String = base.chars().take(limit).collect();
    let base = base.trim_end_matches('_').to_owned();
    let mut name = base.clone();
    let mut number = 2;
    while taken.contains(&name) {
        name = format!("{base}_{number}");
        number += 1;
    }
    taken.insert(name.clone());
    name
}

fn or<'a>(first: &'a str, second: &'a str) -> &'a str {
    if first.trim().is_empty() {
        second
    } else {
        first
    }
}

/// The URL without user information (`user:password@`).
fn shown_url(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            if path.is_empty() {
                format!("{scheme}://{host}")
            } else {
                format!("{scheme}://{host}/{path}")
            }
        }
        None => url.to_owned(),
    }
}

const CONTINUE_HINT: &str = "A long answer may come back unfinished, with a task_id and state: \
    if the agent asks for more input (state input_required), call this tool again with the \
    same task_id and the answer as message; if it is still working, call get_task later.";

fn agent_description(listing: &Listing<'_>) -> String {
    let url = shown_url(&listing.target.url);
    let Some(card) = listing.card else {
        return format!(
            "Sends a message to the A2A agent at {url} (not reached yet: its card will be read \
             on the first call). {CONTINUE_HINT}"
        );
    };
    let mut text = String::new();
    text.push_str(or(&card.description, "An A2A agent."));
    text.push_str(&format!("\n\nA2A agent \"{}\" at {url}.", card.name));
    if !card.skills.is_empty() {
        text.push_str("\nSkills:");
        for skill in &card.skills {
            text.push_str(&format!("\n- {}", or(&skill.name, &skill.id)));
            if !skill.description.is_empty() {
                text.push_str(&format!(": {}", skill.description));
            }
            if !skill.examples.is_empty() {
                text.push_str(&format!(" (e.g. {})", skill.examples.join("; ")));
            }
        }
    }
    text.push_str("\n\n");
    text.push_str(CONTINUE_HINT);
    cut(text)
}

fn skill_description(listing: &Listing<'_>, skill: &a2a_types::AgentSkill) -> String {
    let agent = listing.card.map_or("", |card| card.name.as_str());
    let mut text = format!(
        "{}: {}",
        or(&skill.name, &skill.id),
        or(&skill.description, "a skill of an A2A agent.")
    );
    if !skill.examples.is_empty() {
        text.push_str(&format!(" (e.g. {})", skill.examples.join("; ")));
    }
    text.push_str(&format!(
        "\n\nA skill of the A2A agent \"{agent}\" at {}.\n\n{CONTINUE_HINT}",
        shown_url(&listing.target.url)
    ));
    cut(text)
}

fn cut(text: String) -> String {
    if text.chars().count() <= MAX_DESCRIPTION {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_DESCRIPTION - 1).collect();
    cut.push('…');
    cut
}

fn object(schema: Value) -> Arc<JsonObject> {
    Arc::new(match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    })
}

fn send_tool(name: &str, description: String) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "What to tell the agent."},
            "task_id": {"type": "string", "description": "Continue this task: the task_id of an earlier answer (one that asked for input, say)."},
            "context_id": {"type": "string", "description": "Stay in this conversation: the context_id of an earlier answer."},
            "data": {"description": "Structured data sent with the message (any JSON value)."},
            "files": {
                "type": "array",
                "description": "Files sent with the message: each inline (content_base64) or by URL.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "media_type": {"type": "string"},
                        "content_base64": {"type": "string"},
                        "url": {"type": "string"}
                    }
                }
            },
            "message_id": {"type": "string", "description": "An id for this message; sending the same id again returns the first answer instead of starting new work."}
        },
        "required": ["message"]
    });
    Tool::new(name.to_owned(), description, object(schema)).with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(false)
            .open_world(true),
    )
}

fn list_agents_tool() -> Tool {
    Tool::new(
        LIST_AGENTS,
        "Lists the A2A agents these tools reach: each agent's handle (the `agent` of get_task \
         and cancel_task), name, description, skills, URL, tools and whether it was reached.",
        object(json!({"type": "object", "properties": {}})),
    )
    .with_annotations(ToolAnnotations::new().read_only(true))
}

fn task_tool(name: &'static str, handles: &[String]) -> Tool {
    let (description, annotations) = if name == GET_TASK {
        (
            "Reads a task of an A2A agent: its state, the agent's last message and its \
             artifacts. Use it for an answer that came back while the agent was still working.",
            ToolAnnotations::new().read_only(true),
        )
    } else {
        (
            "Cancels a task of an A2A agent that is still running.",
            ToolAnnotations::new().read_only(false).destructive(true),
        )
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "agent": {"type": "string", "enum": handles, "description": "The agent's handle, as list_agents gives it."},
            "task_id": {"type": "string", "description": "The task's id, from an earlier answer."}
        },
        "required": ["agent", "task_id"]
    });
    Tool::new(name, description, object(schema)).with_annotations(annotations)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_types::AgentSkill;

    use super::*;

    fn card(name: &str, skills: &[&str]) -> AgentCard {
        let mut card = AgentCard::new(name, "Does things.", "1.0.0");
        card.skills = skills
            .iter()
            .map(|id| AgentSkill::new(*id, format!("Skill {id}"), "A skill."))
            .collect();
        card
    }

    #[test]
    fn names_are_sanitised() {
        assert_eq!(sanitise("Weather Agent (EU)"), "weather_agent_eu");
        assert_eq!(sanitise("--"), "agent");
        assert_eq!(sanitise("Ünïcode✓ name"), "n_code_name");
    }

    #[test]
    fn names_are_unique_and_short() {
        let (a, b, c) = (
            Target::url("http://a"),
            Target::url("http://b"),
            Target::url("http://c"),
        );
        let long = "x".repeat(100);
        let cards = [card("Echo", &[]), card("echo", &[]), card(&long, &[])];
        let listings: Vec<Listing<'_>> = [&a, &b, &c]
            .into_iter()
            .zip(&cards)
            .map(|(target, card)| Listing {
                target,
                card: Some(card),
            })
            .collect();
        let catalogue = Catalogue::new(&listings, false);
        let names: Vec<&str> = catalogue
            .tools
            .iter()
            .map(|tool| tool.name.as_ref())
            .collect();
        assert_eq!(names[..2], ["send_to_echo", "send_to_echo_2"]);
        assert!(names.iter().all(|name| name.len() <= MAX_NAME), "{names:?}");
        assert_eq!(names[3..], [LIST_AGENTS, GET_TASK, CANCEL_TASK]);
        assert_eq!(catalogue.agent_of("echo_2"), Some(1));
    }

    #[test]
    fn one_tool_per_skill_when_asked() {
        let target = Target::url("http://user:sekrit@a:1/x");
        let card = card("Travel", &["flights", "hotels"]);
        let listing = [Listing {
            target: &target,
            card: Some(&card),
        }];
        let catalogue = Catalogue::new(&listing, true);
        let names: Vec<&str> = catalogue
            .tools
            .iter()
            .map(|tool| tool.name.as_ref())
            .collect();
        assert_eq!(names[..2], ["travel_flights", "travel_hotels"]);
        assert_eq!(
            catalogue.route("travel_hotels"),
            Some(&Route::Send {
                agent: 0,
                skill: Some("hotels".into())
            })
        );
        for tool in &catalogue.tools {
            let text = serde_json::to_string(tool).unwrap();
            assert!(!text.contains("sekrit"), "{text}");
        }
    }

    #[test]
    fn an_agent_not_reached_is_named_after_its_url() {
        let target = Target::url("http://127.0.0.1:9/");
        let catalogue = Catalogue::new(
            &[Listing {
                target: &target,
                card: None,
            }],
            false,
        );
        assert_eq!(catalogue.tools[0].name, "send_to_127_0_0_1_9");
    }
}
