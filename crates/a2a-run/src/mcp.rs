//! [`McpTools`]: the tools of an MCP server, over stdio (a child process) or streamable
//! HTTP, as a [`ToolSource`].
//!
//! ```no_run
//! # async fn run() -> Result<(), a2a_run::tools::ToolError> {
//! use a2a_run::mcp::McpTools;
//! use a2a_run::tools::ToolSource as _;
//!
//! let files = McpTools::command_line("mcp-server-filesystem '/srv/my files'").await?;
//! let web = McpTools::http("http://127.0.0.1:8931/mcp").await?;
//! for spec in files.list().await? {
//!     println!("{} (from {})", spec.name, files.server_name());
//! }
//! # let _ = web;
//! # Ok(())
//! # }
//! ```

use std::ffi::OsStr;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ContentBlock, Implementation,
    ResourceContents, Tool,
};
use rmcp::service::RunningService;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceError, ServiceExt as _};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::run::ToolSpec;
use crate::tools::{ToolError, ToolOutput, ToolSource};

/// How long the `initialize` handshake may take before the server is given up on.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// The tools of one MCP server.
///
/// - A server started by [`stdio`](Self::stdio), [`command_line`](Self::command_line) or
///   [`command`](Self::command) is a child process that is killed when the `McpTools` is
///   dropped (or shut down by [`close`](Self::close)). Its stderr is not shown: each line
///   goes to `tracing` at debug level (target `a2a_run::mcp`).
/// - [`list`](ToolSource::list) asks the server every time (no cache here; the MCP client
///   may reuse an answer within the server's cache hints); a tool's
///   [`repeatable`](ToolSpec::repeatable) is its `readOnlyHint || idempotentHint`.
/// - [`call`](ToolSource::call) joins the text contents of the result with newlines and
///   summarises the others (`[image image/png]`). `isError: true`, or a JSON-RPC error
///   answering the call (an unknown tool, invalid arguments), is a
///   [`ToolOutput::error`]; a broken connection or a dead server is a [`ToolError`]. When
///   `cancel` fires, the call returns at once and the server is sent
///   `notifications/cancelled`.
pub struct McpTools {
    name: String,
    process_id: Option<u32>,
    client: RunningService<RoleClient, ClientConfig>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTools")
            .field("server", &self.name)
            .field("process_id", &self.process_id)
            .finish_non_exhaustive()
    }
}

impl McpTools {
    /// Starts `program` with `args` and talks MCP with it over its stdin and stdout.
    ///
    /// # Errors
    /// [`ToolError`] when it cannot be started or does not complete the handshake.
    pub async fn stdio<I, S>(program: impl AsRef<OsStr>, args: I) -> Result<Self, ToolError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        Self::command(command).await
    }

    /// Starts the server that `command_line` names, a shell-like line such as
    /// `npx -y @modelcontextprotocol/server-filesystem '/srv/my files'`: words split on
    /// whitespace, with `'…'` taken literally, `"…"` allowing `\"` and `\\`, and `\` quoting
    /// the next character elsewhere. No variables, globs or pipes.
    ///
    /// # Errors
    /// [`ToolError`] when the line is empty or badly quoted, or as [`stdio`](Self::stdio).
    pub async fn command_line(command_line: &str) -> Result<Self, ToolError> {
        let words = split_command_line(command_line)?;
        let Some((program, args)) = words.split_first() else {
            return Err(ToolError::new("the MCP server's command line is empty"));
        };
        Self::stdio(program, args).await
    }

    /// Starts `command` (with the environment and directory it sets) as a stdio MCP server.
    /// Its stdin, stdout and stderr are replaced, and it is killed when dropped.
    ///
    /// # Errors
    /// As [`stdio`](Self::stdio).
    pub async fn command(mut command: tokio::process::Command) -> Result<Self, ToolError> {
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        command.kill_on_drop(true);
        let (transport, stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| ToolError::new(format!("cannot start {program}: {error}")))?;
        let process_id = transport.id();
        if let Some(stderr) = stderr {
            tokio::spawn(forward_stderr(program.clone(), stderr));
        }
        Self::connect(transport, program, process_id).await
    }

    /// Talks MCP with the streamable HTTP server at `url` (such as
    /// `http://127.0.0.1:8931/mcp`).
    ///
    /// # Errors
    /// [`ToolError`] when the server cannot be reached or does not complete the handshake.
    pub async fn http(url: &str) -> Result<Self, ToolError> {
        // A broken event stream is resumed a few times (over about 3.5 s), not forever, so a
        // call to a server that died ends.
        let mut retry = ExponentialBackoff::default();
        retry.max_times = Some(3);
        retry.base_duration = Duration::from_millis(500);
        retry.max_delay = Some(Duration::from_secs(2));
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        config.retry_config = Arc::new(retry);
        let transport = StreamableHttpClientTransport::from_config(config);
        Self::connect(transport, url.to_owned(), None).await
    }

    async fn connect<T, E, A>(
        transport: T,
        fallback_name: String,
        process_id: Option<u32>,
    ) -> Result<Self, ToolError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("a2a-run", env!("CARGO_PKG_VERSION")),
        );
        let client = tokio::time::timeout(HANDSHAKE_TIMEOUT, info.serve(transport))
            .await
            .map_err(|_| {
                ToolError::new(format!(
                    "the MCP server {fallback_name} did not complete the handshake in {}s",
                    HANDSHAKE_TIMEOUT.as_secs()
                ))
            })?
            .map_err(|error| {
                ToolError::new(format!(
                    "cannot connect to the MCP server {fallback_name}: {error}"
                ))
            })?;
        let name = client
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|server| server.name.clone()))
            .filter(|name| !name.is_empty())
            .unwrap_or(fallback_name);
        Ok(Self {
            name,
            process_id,
            client,
        })
    }

    /// The server's name from its `initialize` answer (or, when it gives none, the program or
    /// URL), for diagnostics.
    #[must_use]
    pub fn server_name(&self) -> &str {
        &self.name
    }

    /// The server process's id, for a server started as a child process.
    #[must_use]
    pub fn process_id(&self) -> Option<u32> {
        self.process_id
    }

    /// Ends the session: closes the connection and waits (a few seconds at most) for a child
    /// process to exit, killing it if it does not. Dropping an `McpTools` does the same
    /// without waiting.
    pub async fn close(mut self) {
        if let Err(error) = self.client.close().await {
            tracing::debug!(server = %self.name, %error, "closing the MCP session failed");
        }
    }

    fn failure(&self, error: &ServiceError) -> ToolError {
        ToolError::new(format!("the MCP server {} failed: {error}", self.name))
    }
}

#[async_trait]
impl ToolSource for McpTools {
    async fn list(&self) -> Result<Vec<ToolSpec>, ToolError> {
        let tools = self
            .client
            .peer()
            .list_all_tools()
            .await
            .map_err(|error| self.failure(&error))?;
        Ok(tools.into_iter().map(spec).collect())
    }

    async fn call(
        &self,
        name: &str,
        arguments: Value,
        cancel: CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        match arguments {
            Value::Null => {}
            Value::Object(arguments) => params = params.with_arguments(arguments),
            _ => return Ok(ToolOutput::error("the arguments must be a JSON object")),
        }
        // Dropping the call's future (when `cancel` fires) sends `notifications/cancelled`.
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::new("the tool call was canceled")),
            result = self.client.peer().call_tool(params) => result,
        };
        match result {
            Ok(result) => {
                let content = content_text(&result.content, result.structured_content.as_ref());
                Ok(if result.is_error == Some(true) {
                    ToolOutput::error(content)
                } else {
                    ToolOutput::ok(content)
                })
            }
            Err(ServiceError::McpError(error)) => Ok(ToolOutput::error(error.message.into_owned())),
            Err(error) => Err(self.failure(&error)),
        }
    }
}

/// An MCP tool as a [`ToolSpec`].
fn spec(tool: Tool) -> ToolSpec {
    let repeatable = tool.annotations.as_ref().is_some_and(|hints| {
        hints.read_only_hint == Some(true) || hints.idempotent_hint == Some(true)
    });
    let mut spec = ToolSpec::new(
        tool.name.into_owned(),
        tool.description
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_default(),
        Value::Object((*tool.input_schema).clone()),
    );
    spec.repeatable = repeatable;
    spec
}

/// The text of a result's contents, one per line; what is not text is summarised. A result
/// with only structured content gives that, as JSON.
fn content_text(content: &[ContentBlock], structured: Option<&Value>) -> String {
    if content.is_empty() {
        return structured.map(Value::to_string).unwrap_or_default();
    }
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!("[image {}]", image.mime_type),
            ContentBlock::Audio(audio) => format!("[audio {}]", audio.mime_type),
            ContentBlock::Resource(resource) => match &resource.resource {
                ResourceContents::TextResourceContents { text, .. } => text.clone(),
                ResourceContents::BlobResourceContents { uri, mime_type, .. } => {
                    format!(
                        "[resource {uri} {}]",
                        mime_type.as_deref().unwrap_or("binary")
                    )
                }
                _ => "[resource]".to_owned(),
            },
            ContentBlock::ResourceLink(link) => format!("[resource link {}]", link.uri),
            _ => "[content]".to_owned(),
        })
        .collect();
    parts.join("\n")
}

/// Sends the server's stderr to `tracing`, line by line, until it closes.
async fn forward_stderr(program: String, stderr: tokio::process::ChildStderr) {
    use tokio::io::AsyncBufReadExt as _;
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(server = %program, "{line}");
    }
}

/// Splits a shell-like command line into words (see [`McpTools::command_line`]).
fn split_command_line(line: &str) -> Result<Vec<String>, ToolError> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    let unterminated = || ToolError::new(format!("unterminated quote in {line:?}"));
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                words.extend(word.take());
            }
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unterminated)? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next().ok_or_else(unterminated)? {
                        '"' => break,
                        '\\' => match chars.next().ok_or_else(unterminated)? {
                            c @ ('"' | '\\') => word.push(c),
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                let escaped = chars
                    .next()
                    .ok_or_else(|| ToolError::new(format!("trailing backslash in {line:?}")))?;
                word.get_or_insert_with(String::new).push(escaped);
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split_command_line;

    #[test]
    fn splits_like_a_shell() {
        let split = |line| split_command_line(line).unwrap();
        assert_eq!(split("prog a  b"), ["prog", "a", "b"]);
        assert_eq!(
            split("  prog 'arg two' \"x \\\"y\\\" \\n\"  "),
            ["prog", "arg two", "x \"y\" \\n"]
        );
        assert_eq!(split("a'b c'd e\\ f ''"), ["ab cd", "e f", ""]);
        assert!(split("").is_empty());
        assert!(split_command_line("prog 'open").is_err());
        assert!(split_command_line("prog \"open").is_err());
        assert!(split_command_line("prog \\").is_err());
    }
}
