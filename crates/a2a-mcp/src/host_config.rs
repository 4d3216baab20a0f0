//! Host configuration snippets: the JSON block a desktop host or editor takes to start (or
//! reach) this server.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// An MCP host whose configuration format is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Host {
    /// Claude Desktop's `claude_desktop_config.json`.
    Claude,
    /// VS Code's `.vscode/mcp.json`.
    Vscode,
    /// Cursor's `~/.cursor/mcp.json` (or `.cursor/mcp.json` in a project).
    Cursor,
}

impl Host {
    /// Where the host reads the snippet, for the user.
    #[must_use]
    pub fn config_file(self) -> &'static str {
        match self {
            Self::Claude => {
                "claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, \
                 Windows: %APPDATA%\\Claude\\)"
            }
            Self::Vscode => ".vscode/mcp.json in the workspace",
            Self::Cursor => "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
        }
    }
}

/// How the host reaches the server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Launch {
    /// The host starts `command args…` and talks over its stdio; `env` names the variables
    /// it must set (their values are placeholders for the user to fill in).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables to set, with placeholder values.
        env: BTreeMap<String, String>,
    },
    /// The host calls a server already running at this streamable HTTP URL.
    Http {
        /// The URL, e.g. `http://127.0.0.1:8765/mcp`.
        url: String,
    },
}

/// The JSON block to paste into `host`'s configuration, naming the server `name`.
#[must_use]
pub fn snippet(host: Host, name: &str, launch: &Launch) -> Value {
    let server = match (host, launch) {
        (Host::Vscode, Launch::Stdio { command, args, env }) => {
            let mut server = json!({"type": "stdio", "command": command, "args": args});
            add_env(&mut server, env);
            server
        }
        (Host::Claude | Host::Cursor, Launch::Stdio { command, args, env }) => {
            let mut server = json!({"command": command, "args": args});
            add_env(&mut server, env);
            server
        }
        (Host::Vscode, Launch::Http { url }) => json!({"type": "http", "url": url}),
        (Host::Cursor, Launch::Http { url }) => json!({"url": url}),
        // Claude Desktop starts stdio servers only; `mcp-remote` bridges it to an HTTP one.
        (Host::Claude, Launch::Http { url }) => {
            json!({"command": "npx", "args": ["-y", "mcp-remote", url]})
        }
    };
    let member = match host {
        Host::Vscode => "servers",
        Host::Claude | Host::Cursor => "mcpServers",
    };
    let mut servers = Map::new();
    servers.insert(name.to_owned(), server);
    let mut root = Map::new();
    root.insert(member.to_owned(), Value::Object(servers));
    Value::Object(root)
}

fn add_env(server: &mut Value, env: &BTreeMap<String, String>) {
    if !env.is_empty() {
        server["env"] = json!(env);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn stdio() -> Launch {
        Launch::Stdio {
            command: "/usr/local/bin/a2a".into(),
            args: vec!["mcp".into(), "http://localhost:9000".into()],
            env: BTreeMap::from([("A2A_BEARER_TOKEN".into(), "<your token>".into())]),
        }
    }

    #[test]
    fn each_host_gets_its_own_shape() {
        let claude = snippet(Host::Claude, "a2a", &stdio());
        assert_eq!(claude["mcpServers"]["a2a"]["command"], "/usr/local/bin/a2a");
        assert_eq!(
            claude["mcpServers"]["a2a"]["args"][1],
            "http://localhost:9000"
        );
        assert_eq!(
            claude["mcpServers"]["a2a"]["env"]["A2A_BEARER_TOKEN"],
            "<your token>"
        );
        let vscode = snippet(Host::Vscode, "a2a", &stdio());
        assert_eq!(vscode["servers"]["a2a"]["type"], "stdio");
        let cursor = snippet(
            Host::Cursor,
            "a2a",
            &Launch::Http {
                url: "http://127.0.0.1:1/mcp".into(),
            },
        );
        assert_eq!(cursor["mcpServers"]["a2a"]["url"], "http://127.0.0.1:1/mcp");
        let vscode = snippet(
            Host::Vscode,
            "a2a",
            &Launch::Http {
                url: "http://h/mcp".into(),
            },
        );
        assert_eq!(
            vscode["servers"]["a2a"],
            json!({"type": "http", "url": "http://h/mcp"})
        );
    }
}
