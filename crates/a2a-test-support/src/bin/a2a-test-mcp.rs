//! `a2a-test-mcp`: a small MCP server for the tests, with files under a root and tools that
//! are slow, fail or answer too much.
//!
//! ```text
//! a2a-test-mcp --root DIR                      # over stdio
//! a2a-test-mcp --root DIR --http 127.0.0.1:0   # streamable HTTP at /mcp; the first stdout
//!                                              # line is `listening on http://ADDR/mcp`
//! ```
//!
//! Tools: `list_files` (read-only), `read_file {path}` (read-only), `write_file {path, text}`,
//! `slow {seconds}` (idempotent; sleeps, stops when canceled), `slow_change {seconds}` (the
//! same, neither read-only nor idempotent), `fail {message}` (an error
//! result) and `big {bytes}` (that many `x`). Paths stay under the root. `slow` appends
//! `slow started` and then `slow canceled` or `slow finished` to `ROOT/.events`, so a test
//! can see what the server saw.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[derive(Clone)]
struct Files {
    root: Arc<PathBuf>,
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema: JsonObject = match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new(name, description, schema)
}

fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true);
    vec![
        tool(
            "list_files",
            "Lists the files under the root.",
            json!({"type": "object", "properties": {}}),
        )
        .with_annotations(read_only.clone()),
        tool(
            "read_file",
            "Reads a file under the root.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        )
        .with_annotations(read_only),
        tool(
            "write_file",
            "Writes a file under the root.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}, "required": ["path", "text"]}),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(true)),
        tool(
            "slow",
            "Sleeps for some seconds.",
            json!({"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}),
        )
        .with_annotations(ToolAnnotations::new().idempotent(true)),
        tool(
            "slow_change",
            "Sleeps for some seconds, then changes something (neither read-only nor idempotent).",
            json!({"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).idempotent(false)),
        tool(
            "fail",
            "Always fails, saying message.",
            json!({"type": "object", "properties": {"message": {"type": "string"}}}),
        ),
        tool(
            "big",
            "Answers with that many x characters.",
            json!({"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]}),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
    ]
}

fn text(result: Result<String, String>) -> CallToolResponse {
    match result {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
    }
    .into()
}

impl Files {
    /// `path` under the root, refusing absolute paths and `..`.
    fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let relative = Path::new(path);
        if path.is_empty()
            || !relative
                .components()
                .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
        {
            return Err(format!("{path}: outside the root"));
        }
        Ok(self.root.join(relative))
    }

    fn event(&self, line: &str) {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.root.join(".events"))
        {
            let _ = writeln!(file, "{line}");
        }
    }

    fn list(&self) -> Result<String, String> {
        fn walk(dir: &Path, prefix: &str, names: &mut Vec<String>) -> std::io::Result<()> {
            for entry in std::fs::read_dir(dir)? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let name = format!("{prefix}{name}");
                if entry.file_type()?.is_dir() {
                    walk(&entry.path(), &format!("{name}/"), names)?;
                } else {
                    names.push(name);
                }
            }
            Ok(())
        }
        let mut names = Vec::new();
        walk(&self.root, "", &mut names).map_err(|error| error.to_string())?;
        names.sort();
        Ok(names.join("\n"))
    }

    async fn slow(
        &self,
        name: &str,
        seconds: f64,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.event(&format!("{name} started"));
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))) => {
                self.event(&format!("{name} finished"));
                text(Ok(format!("slept {seconds} seconds")))
            }
            () = context.ct.cancelled() => {
                self.event(&format!("{name} canceled"));
                text(Err("canceled".into()))
            }
        }
    }
}

impl ServerHandler for Files {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("a2a-test-mcp", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let string = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| ErrorData::invalid_params(format!("{key} is required"), None))
        };
        let number = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| ErrorData::invalid_params(format!("{key} is required"), None))
        };
        Ok(match request.name.as_ref() {
            "list_files" => text(self.list()),
            "read_file" => {
                let path = string("path")?;
                text(self.resolve(&path).and_then(|file| {
                    std::fs::read_to_string(file).map_err(|error| format!("{path}: {error}"))
                }))
            }
            "write_file" => {
                let (path, body) = (string("path")?, string("text")?);
                text(self.resolve(&path).and_then(|file| {
                    if let Some(parent) = file.parent() {
                        std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
                    }
                    std::fs::write(file, &body).map_err(|error| format!("{path}: {error}"))?;
                    Ok(format!("wrote {} bytes to {path}", body.len()))
                }))
            }
            "slow" => self.slow("slow", number("seconds")?, &context).await,
            "slow_change" => self.slow("slow_change", number("seconds")?, &context).await,
            "fail" => text(Err(string("message").unwrap_or_else(|_| "failed".into()))),
            "big" => {
                let bytes = arguments.get("bytes").and_then(Value::as_u64).unwrap_or(0);
                text(Ok("x".repeat(usize::try_from(bytes).unwrap_or(0))))
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let mut root = None;
    let mut http = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--root" => root = args.next().map(PathBuf::from),
            "--http" => http = args.next(),
            other => {
                return Err(format!(
                    "unknown argument {other}; usage: a2a-test-mcp --root DIR [--http ADDR]"
                )
                .into());
            }
        }
    }
    let root = root.ok_or("usage: a2a-test-mcp --root DIR [--http ADDR]")?;
    let files = Files {
        root: Arc::new(std::fs::canonicalize(root)?),
    };
    match http {
        None => {
            files
                .serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
        }
        Some(addr) => {
            let service: StreamableHttpService<Files, LocalSessionManager> =
                StreamableHttpService::new(
                    move || Ok(files.clone()),
                    Arc::new(LocalSessionManager::default()),
                    StreamableHttpServerConfig::default()
                        .with_sse_keep_alive(Some(Duration::from_millis(500))),
                );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            let mut stdout = std::io::stdout();
            writeln!(stdout, "listening on http://{}/mcp", listener.local_addr()?)?;
            stdout.flush()?;
            axum::serve(listener, router).await?;
        }
    }
    Ok(())
}
