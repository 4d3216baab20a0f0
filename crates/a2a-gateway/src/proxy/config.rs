//! [`ProxyConfig`]: the proxy's deadlines, limits and switches, with KubeMQ's defaults.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::auth::token::TokenVerifier;

/// How the proxy behaves. The defaults are those of KubeMQ's A2A gateway and its configuration.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProxyConfig {
    /// The deadline of a call whose request names none (`DefaultTimeoutSeconds`).
    /// Default 300 s.
    pub default_timeout: Duration,
    /// The longest deadline a request may ask for with `params.configuration.timeout`;
    /// longer ones are capped silently (`MaxTimeoutSeconds`). Default 3600 s.
    pub max_timeout: Duration,
    /// A stream that carries no event for this long gets a final -32001 frame and is closed
    /// (`MaxSSEIdleSeconds`). Default 300 s.
    pub max_sse_idle: Duration,
    /// How often a `: keepalive` comment is sent on a quiet stream. Default 30 s;
    /// zero sends none.
    pub sse_keepalive: Duration,
    /// Calls and open streams one agent may have at once, counted over every client
    /// (`AgentMaxConcurrency`). Default 100; zero means no limit.
    pub max_concurrency_per_agent: usize,
    /// The largest agent reply read, and the largest single event of a stream
    /// (`AgentMaxResponseBytes`). Default 10 MiB.
    pub max_response_bytes: usize,
    /// The largest request body accepted. Default 10 MiB.
    pub max_request_bytes: usize,
    /// Accept any TLS certificate from agents (`AgentTLSSkipVerify`). Default false.
    pub agent_tls_skip_verify: bool,
    /// Origins whose browser pages may call the gateway (`TrustedOrigins`); `*`
    /// allows any. Default empty: no CORS headers at all.
    pub trusted_origins: Vec<String>,
    /// Checks the caller's bearer token on the JSON-RPC and HTTP+JSON routes before anything
    /// is routed, typically an [`a2a_server::auth::token::JwtVerifier`]; cards stay
    /// public. Default `None`: calls are anonymous.
    pub token_verifier: Option<Arc<dyn TokenVerifier>>,
    /// The gateway's base URL as clients reach it (`https://gateway.example`), used in
    /// cards. Default `None`: `http://` and the request's `Host`.
    pub public_url: Option<String>,
}

impl Default for ProxyConfig {
    fn default() -> Self {
        const MIB: usize = 1024 * 1024;
        Self {
            default_timeout: Duration::from_secs(300),
            max_timeout: Duration::from_secs(3600),
            max_sse_idle: Duration::from_secs(300),
            sse_keepalive: Duration::from_secs(30),
            max_concurrency_per_agent: 100,
            max_response_bytes: 10 * MIB,
            max_request_bytes: 10 * MIB,
            agent_tls_skip_verify: false,
            trusted_origins: Vec::new(),
            token_verifier: None,
            public_url: None,
        }
    }
}
