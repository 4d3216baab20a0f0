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
    /// The codes of KubeMQ's older gateway and burn-in suite (`gateway.legacy_codes`,
    /// requirements C-07) on the JSON-RPC route and its relayed streams: -32603 for a busy
    /// agent, a reply too large and an unreachable agent, -32001 for an agent's 504, and an
    /// agent's HTTP 500 whose body is not JSON-RPC becomes a -32603 `agent unavailable: 500`
    /// instead of being relayed. Messages and `ErrorInfo` stay as they are. Default false:
    /// the seed's codes (-32003 for all of those).
    pub legacy_codes: bool,
    /// How the JSON-RPC route answers a missing or refused bearer token (requirements
    /// C-09). Default [`AuthFailureStatus::Ok`]: HTTP 200 with the -32010 error, as the seed
    /// says of every request the gateway can parse.
    pub auth_failure_status: AuthFailureStatus,
}

/// The HTTP status of an authentication failure on the JSON-RPC route; the body is the
/// -32010 JSON-RPC error either way. (The HTTP+JSON routes always answer 401.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthFailureStatus {
    /// HTTP 200, as for every other error of the gateway's (seed 004).
    #[default]
    Ok,
    /// HTTP 401 with `WWW-Authenticate: Bearer`, as KubeMQ's authentication page says.
    Unauthorized,
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
            legacy_codes: false,
            auth_failure_status: AuthFailureStatus::Ok,
        }
    }
}
