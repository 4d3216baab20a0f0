//! The MCP server: the rmcp handler that lists the catalogue's tools and routes each call.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{CancelTaskRequest, GetTaskRequest, TaskId};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::agent::{Connector, Target};
use crate::arguments::{required_string, send_request};
use crate::call::Call;
use crate::catalogue::{Catalogue, Route};
use crate::directory::{Directory, Entry};
use crate::results::{Answer, Origin, error_result, tool_result};

/// The default patience: how long a call waits for an agent before it answers with the task
/// as it stands. Hosts commonly give up on a tool call after about a minute.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(50);

const INSTRUCTIONS: &str = "Each send_to_* tool sends a message to an A2A agent and returns its \
    answer, with the task_id and state in structured content. When the state is \
    input_required, answer by calling the same tool with that task_id. When it is working, \
    the agent is not done yet: call get_task later. list_agents shows every agent.";

/// A2A agents as MCP tools: the server every session is served by.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use a2a_mcp::{Bridge, Connector, Target};
///
/// let bridge = Bridge::builder(Connector::default())
///     .build(vec![Target::url("http://localhost:9000")])
///     .await;
/// a2a_mcp::serve_stdio(bridge).await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Bridge {
    directory: Arc<Directory>,
    patience: Duration,
}

/// The settings of a [`Bridge`].
#[derive(Debug)]
#[must_use]
pub struct BridgeBuilder {
    connector: Connector,
    tool_per_skill: bool,
    patience: Duration,
}

impl BridgeBuilder {
    /// One tool per skill of each agent, instead of one per agent.
    pub fn tool_per_skill(mut self, on: bool) -> Self {
        self.tool_per_skill = on;
        self
    }

    /// How long a call waits for the agent before answering with the task as it stands
    /// ([`DEFAULT_PATIENCE`] unless set).
    pub fn patience(mut self, patience: Duration) -> Self {
        self.patience = patience;
        self
    }

    /// The bridge to `targets`, each reached now; one that cannot be reached gets a tool all
    /// the same, which tries again when called.
    pub async fn build(self, targets: Vec<Target>) -> Bridge {
        let bridge = Bridge {
            directory: Arc::new(Directory::new(self.connector, self.tool_per_skill)),
            patience: self.patience,
        };
        bridge.set_targets(targets).await;
        bridge
    }
}

impl Bridge {
    /// A bridge whose agents' clients `connector` makes.
    pub fn builder(connector: Connector) -> BridgeBuilder {
        BridgeBuilder {
            connector,
            tool_per_skill: false,
            patience: DEFAULT_PATIENCE,
        }
    }

    /// Offers exactly `targets` from now on, telling connected hosts when the tools change.
    /// True when they did.
    pub async fn set_targets(&self, targets: Vec<Target>) -> bool {
        self.directory.set_targets(targets).await
    }

    /// The tools offered now.
    #[must_use]
    pub fn tools(&self) -> Vec<Tool> {
        self.directory.catalogue().tools.clone()
    }

    async fn send(
        &self,
        catalogue: &Catalogue,
        name: &str,
        agent: usize,
        skill: Option<&str>,
        arguments: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let request = match send_request(arguments, skill) {
            Ok(request) => request,
            Err(problem) => return error_result(format!("{name}: {problem}")),
        };
        let handle = catalogue.handles.get(agent).map_or("", String::as_str);
        let entry = match self.reached(agent).await {
            Ok(entry) => entry,
            Err(problem) => return error_result(problem),
        };
        let Some(agent) = &entry.agent else {
            return error_result("the agent was not reached");
        };
        Call {
            agent,
            origin: Origin {
                agent: handle,
                tool: name,
            },
            peer: &context.peer,
            progress: context.meta.get_progress_token(),
            canceled: &context.ct,
            patience: self.patience,
        }
        .send(request)
        .await
    }

    /// The entry at `index`, reached now if it was not yet.
    async fn reached(&self, index: usize) -> Result<Entry, String> {
        let entry = self
            .directory
            .reach_again(index)
            .await
            .ok_or_else(|| "the agent is no longer offered".to_owned())?;
        if entry.agent.is_none() {
            return Err(format!(
                "Cannot reach the A2A agent at {}: {}",
                entry.target.url,
                entry.problem.as_deref().unwrap_or("unknown error")
            ));
        }
        Ok(entry)
    }

    async fn task_call(
        &self,
        catalogue: &Catalogue,
        route: &Route,
        arguments: &JsonObject,
    ) -> CallToolResult {
        let (handle, task_id) = match (
            required_string(arguments, "agent"),
            required_string(arguments, "task_id"),
        ) {
            (Ok(handle), Ok(task_id)) => (handle, task_id),
            (Err(problem), _) | (_, Err(problem)) => return error_result(problem),
        };
        let Some(index) = catalogue.agent_of(&handle) else {
            return error_result(format!(
                "no agent is called {handle:?}; list_agents gives the handles: {}",
                catalogue.handles.join(", ")
            ));
        };
        let entry = match self.reached(index).await {
            Ok(entry) => entry,
            Err(problem) => return error_result(problem),
        };
        let Some(agent) = &entry.agent else {
            return error_result("the agent was not reached");
        };
        let tools = catalogue.tools_of(index);
        let origin = Origin {
            agent: &handle,
            tool: tools.first().copied().unwrap_or_default(),
        };
        let id = TaskId::new(task_id);
        let answer = match route {
            Route::CancelTask => {
                agent
                    .client
                    .cancel_task(CancelTaskRequest {
                        tenant: String::new(),
                        id,
                        metadata: None,
                    })
                    .await
            }
            Route::GetTask | Route::ListAgents | Route::Send { .. } => {
                agent
                    .client
                    .get_task(GetTaskRequest {
                        tenant: String::new(),
                        id,
                        history_length: Some(0),
                    })
                    .await
            }
        };
        match answer {
            Ok(task) => tool_result(origin, &Answer::Task(task)),
            Err(error) => error_result(format!("The A2A agent \"{handle}\" refused: {error}")),
        }
    }

    fn list_agents(&self, catalogue: &Catalogue) -> CallToolResult {
        let agents: Vec<Value> = self
            .directory
            .entries()
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let mut agent = json!({
                    "agent": catalogue.handles.get(index),
                    "url": entry.target.url,
                    "reached": entry.agent.is_some(),
                    "tools": catalogue.tools_of(index),
                });
                if let Some(id) = &entry.target.gateway_id {
                    agent["gateway_id"] = json!(id);
                }
                if let Some(found) = &entry.agent {
                    let card = &found.card;
                    agent["name"] = json!(card.name);
                    agent["description"] = json!(card.description);
                    agent["streaming"] = json!(card.capabilities.streaming == Some(true));
                    agent["skills"] = card
                        .skills
                        .iter()
                        .map(|skill| json!({"id": skill.id, "name": skill.name, "description": skill.description}))
                        .collect();
                }
                if let Some(problem) = &entry.problem {
                    agent["problem"] = json!(problem);
                }
                agent
            })
            .collect();
        let listing = json!({ "agents": agents });
        let mut result = CallToolResult::success(vec![ContentBlock::text(
            serde_json::to_string_pretty(&listing).unwrap_or_default(),
        )]);
        result.structured_content = Some(listing);
        result
    }
}

impl ServerHandler for Bridge {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("a2a-mcp", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.directory.add_host(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.directory.catalogue().tool(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let catalogue = self.directory.catalogue();
        let name = request.name.to_string();
        let Some(route) = catalogue.route(&name).cloned() else {
            return Err(ErrorData::invalid_params(
                format!("no tool named {name}"),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let result = match &route {
            Route::Send { agent, skill } => {
                self.send(
                    &catalogue,
                    &name,
                    *agent,
                    skill.as_deref(),
                    &arguments,
                    &context,
                )
                .await
            }
            Route::ListAgents => self.list_agents(&catalogue),
            Route::GetTask | Route::CancelTask => {
                self.task_call(&catalogue, &route, &arguments).await
            }
        };
        Ok(result.into())
    }
}
