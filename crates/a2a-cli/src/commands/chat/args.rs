//! The arguments of `a2a chat`.

use crate::actions::{self};
use crate::client_args::ClientArgs;

/// `a2a chat`.
#[derive(Debug, clap::Args)]
pub(crate) struct ChatArgs {
    #[command(flatten)]
    pub(super) client: ClientArgs,

    /// Continue this conversation
    #[arg(long, value_name = "ID", help_heading = "Chat")]
    pub(super) context_id: Option<String>,

    /// The messageId of the first message; later ones are new UUIDs (the conformance
    /// agent, for one, picks its behaviour by messageId prefix)
    #[arg(long, value_name = "ID", help_heading = "Chat")]
    pub(super) message_id: Option<String>,

    /// Never stream, even when the agent can
    #[arg(long, help_heading = "Chat")]
    pub(super) no_stream: bool,

    /// Declare a tool this chat runs itself, as NAME or NAME:DESCRIPTION: an agent run that
    /// calls it asks you for its result (repeatable)
    #[arg(long = "client-tool", value_name = "NAME", help_heading = "Chat")]
    pub(super) client_tools: Vec<String>,
}

impl ChatArgs {
    /// The `clientTools` message metadata declaring `--client-tool`s; `None` without any.
    pub(super) fn client_tools(&self) -> Option<a2a_types::Metadata> {
        if self.client_tools.is_empty() {
            return None;
        }
        let tools = self
            .client_tools
            .iter()
            .map(|tool| {
                let (name, description) = tool.split_once(':').unwrap_or((tool.as_str(), ""));
                serde_json::json!({"name": name.trim(), "description": description.trim()})
            })
            .collect();
        let mut metadata = a2a_types::Metadata::new();
        metadata.insert(
            actions::CLIENT_TOOLS_KEY.to_owned(),
            serde_json::Value::Array(tools),
        );
        Some(metadata)
    }
}
