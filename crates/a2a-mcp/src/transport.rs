//! How hosts reach the server: over the process's stdin and stdout, or over streamable HTTP.

use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::Bridge;

/// The streamable HTTP service of a [`Bridge`], to mount where hosts call (e.g. `/mcp`).
pub type HttpService = StreamableHttpService<Bridge, LocalSessionManager>;

/// Serves one host over stdin and stdout until it closes them: stdout carries only MCP frames.
///
/// # Errors
/// The host's handshake fails, or the session ends in error.
pub async fn serve_stdio(bridge: Bridge) -> Result<(), ServeError> {
    let running = bridge
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| ServeError(error.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|error| ServeError(error.to_string()))?;
    Ok(())
}

/// A streamable HTTP service for any number of hosts, each session served by `bridge`
/// (sessions share its agents and its catalogue).
#[must_use]
pub fn http_service(bridge: Bridge, config: StreamableHttpServerConfig) -> HttpService {
    StreamableHttpService::new(
        move || Ok(bridge.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// Why serving stopped.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the MCP session failed: {0}")]
pub struct ServeError(String);
