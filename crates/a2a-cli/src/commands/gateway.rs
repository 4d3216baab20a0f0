//! `a2a gateway`: the agent registry and the protocol-aware proxy for a fleet of agents
//! (after KubeMQ's A2A gateway), until SIGINT or SIGTERM.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use a2a_gateway::Gateway;
use a2a_gateway::proxy::{AuthFailureStatus, ProxyConfig};
use a2a_gateway::registry::{Registry, RegistryOptions, SignaturePolicy};
use a2a_server::auth::Secret;
use a2a_server::auth::token::TokenVerifier;
use a2a_server::tls::TlsConfig;
use anyhow::Context as _;
use clap::builder::BoolishValueParser;
use tokio::net::TcpListener;
use tokio::signal::unix::{SignalKind, signal};

use crate::config::{JwtKeys, JwtSetting, LogFormat, Millis};
use crate::error::{BindError, UnreachableError, UsageError};
use crate::serving::GatewayConnectionArgs;
use crate::{authentication, logging, output};

/// Flags of `a2a gateway`; each may also come from the environment variable named or the
/// `--config` file (`crate::config::layered`).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Agents register with POST /agents/register (a2a serve --register URL does it, and keeps \
heartbeating); callers POST JSON-RPC to /a2a/{agent_id} or use /a2a/{agent_id}/… for \
HTTP+JSON; GET /metrics serves Prometheus text (on --metrics-bind's address alone when given). GET /healthz answers 200 while the process is \
up, GET /readyz 200 when the registry database answers (503 when it does not, or while \
draining after SIGINT/SIGTERM); neither needs credentials. Failed calls to agents are logged \
at warn. RUST_LOG, when set and not empty, overrides --log-level.

Configuration: every option can also be set by the environment variable named in its help \
(A2A_<OPTION>, e.g. A2A_AGENT_TTL=5m) or by a key of the TOML file given by --config \
(the option in snake_case, e.g. agent_ttl = \"5m\"; docs/gateway.toml lists them all). A flag \
wins over a variable, which wins over the file. Durations take ms, s, m or h (250ms, 300s, \
5m, 1h); a bare number is milliseconds. The older names A2A_GATEWAY_<OPTION> still work; \
A2A_<OPTION> is preferred and wins when both are set.

KubeMQ's variable names are read too: each A2A_<OPTION> may also be given as \
KUBEMQ_A2A_<OPTION> (KUBEMQ_A2A_REGISTRY_KEY, KUBEMQ_A2A_LEGACY_CODES, …), and KubeMQ's own \
KUBEMQ_A2A_PORT (--bind 0.0.0.0:PORT), KUBEMQ_A2A_DEFAULT_TIMEOUT_SECONDS (--timeout), \
KUBEMQ_A2A_MAX_TIMEOUT_SECONDS, KUBEMQ_A2A_MAX_SSE_IDLE_SECONDS (seconds), \
KUBEMQ_A2A_AGENT_MAX_CONCURRENCY, KUBEMQ_A2A_AGENT_MAX_RESPONSE_BYTES, \
KUBEMQ_A2A_AGENT_TLS_SKIP_VERIFY and KUBEMQ_A2A_TRUSTED_ORIGINS. They rank below ours \
and above the file. KUBEMQ_A2A_ENABLE is not read: running the command is \
enabling it.

Examples:
  a2a gateway
  a2a gateway --bind 0.0.0.0:9090 --public-url https://gateway.example --registry-key \"$KEY\"
  a2a gateway --store postgres://gateway@db/a2a   # several instances over one database
  a2a gateway --config gateway.toml")]
pub(crate) struct GatewayArgs {
    /// TOML file with options (keys in snake_case) [env: A2A_CONFIG]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the effective configuration as a TOML file (secrets hidden) and exit: the
    /// settings the flags, variables and file give written out, every other one commented
    /// with its default
    #[arg(long)]
    print_config: bool,
    #[command(flatten, next_help_heading = "Serving")]
    serving: ServingArgs,
    #[command(flatten, next_help_heading = "Connections")]
    connections: GatewayConnectionArgs,
    #[command(flatten, next_help_heading = "Registry")]
    registry: RegistryArgs,
    #[command(flatten, next_help_heading = "Proxy")]
    proxy: ProxyArgs,
    #[command(flatten, next_help_heading = "Caller authentication")]
    callers: CallerArgs,
    #[command(flatten, next_help_heading = "Logging")]
    logging: LoggingArgs,
}

/// Where and how the gateway listens.
#[derive(Debug, clap::Args, serde::Serialize)]
struct ServingArgs {
    /// Address to listen on (port 0 picks a free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9090")]
    bind: String,
    /// Root URL clients use to reach the gateway, for the cards it serves [default: http:// and the request's Host; with TLS, https:// and the bound address]
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Serve GET /metrics on this address of its own (one only the scraper reaches) instead of beside the proxy
    #[arg(long, value_name = "ADDR")]
    metrics_bind: Option<String>,
    /// Origins whose browser pages may call the gateway, comma-separated; * for any
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    cors_origins: Vec<String>,
    /// Serve HTTPS with this certificate chain (PEM); needs --tls-key
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// How long open calls and streams may finish after SIGINT/SIGTERM
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    shutdown_grace: Millis,
}

/// The agent registry: its database, expiry, limits and card signatures.
#[derive(Debug, clap::Args, serde::Serialize)]
struct RegistryArgs {
    /// The registry's database: sqlite://FILE, sqlite::memory:, or postgres://… shared by several gateway instances
    #[arg(long, value_name = "URL", default_value = "sqlite://gateway.db")]
    store: String,
    /// An agent that sends no heartbeat for this long expires; 0 never expires
    #[arg(long, value_name = "DURATION", default_value = "300s")]
    agent_ttl: Millis,
    /// The most agents registered at once; 0 for no limit
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_agents: usize,
    /// Key required on registry writes (register, heartbeat, deregister) as a bearer token or X-API-Key; without it anybody who reaches the gateway can register
    #[arg(long, value_name = "KEY", hide_env_values = true)]
    #[serde(serialize_with = "crate::config::hidden")]
    registry_key: Option<Secret>,
    /// How long a call may reuse an agent's record before the database is read again; what other instances sharing the database change is seen within this (0: every call reads it)
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    directory_cache: Millis,
    /// Refuse cards that carry no valid signature (signed cards are always verified)
    #[arg(long, value_parser = BoolishValueParser::new(),
          num_args = 0..=1, require_equals = true, default_missing_value = "true",
          default_value = "false", value_name = "BOOL")]
    require_signed_cards: bool,
    /// JWK Set file of keys trusted for card signatures, beside keys embedded in signatures
    #[arg(long, value_name = "FILE")]
    card_keys: Option<PathBuf>,
}

/// How calls are forwarded to agents: deadlines, streams and limits.
#[derive(Debug, clap::Args, serde::Serialize)]
struct ProxyArgs {
    /// Deadline of a call whose request sets none (a request's params.configuration.timeout is in seconds)
    #[arg(long, value_name = "DURATION", default_value = "300s")]
    timeout: Millis,
    /// The longest deadline a request may ask for
    #[arg(long, value_name = "DURATION", default_value = "3600s")]
    max_timeout: Millis,
    /// A stream quiet this long ends with a -32001 frame
    #[arg(long, value_name = "DURATION", default_value = "300s")]
    max_sse_idle: Millis,
    /// Time between `: keepalive` comments on a quiet stream; 0 sends none
    #[arg(long, value_name = "DURATION", default_value = "30s")]
    sse_keepalive: Millis,
    /// Calls and open streams one agent may have at once; 0 for no limit
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_concurrency_per_agent: usize,
    /// The largest agent reply (and single stream event) read, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    max_response_bytes: usize,
    /// The largest request body accepted, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 10 * 1024 * 1024)]
    max_request_bytes: usize,
    /// Accept any TLS certificate from agents; for development only
    #[arg(long, value_parser = BoolishValueParser::new(),
          num_args = 0..=1, require_equals = true, default_missing_value = "true",
          default_value = "false", value_name = "BOOL")]
    agent_tls_skip_verify: bool,
    /// The codes of KubeMQ's older gateway: -32603 for busy, too large, unreachable and an agent's non-JSON-RPC 500; -32001 for an agent's 504 (default: the seed's -32003 for all)
    #[arg(long, value_parser = BoolishValueParser::new(),
          num_args = 0..=1, require_equals = true, default_missing_value = "true",
          default_value = "false", value_name = "BOOL")]
    legacy_codes: bool,
}

/// The HTTP status of a caller's failed authentication on the JSON-RPC route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
enum AuthFailureArg {
    /// HTTP 200 with the -32010 JSON-RPC error (KubeMQ's seed)
    #[value(name = "200")]
    #[serde(rename = "200")]
    Ok,
    /// HTTP 401 with WWW-Authenticate: Bearer, the body still the -32010 error
    #[value(name = "401")]
    #[serde(rename = "401")]
    Unauthorized,
}

/// The JWT callers must present.
#[derive(Debug, clap::Args, serde::Serialize)]
struct CallerArgs {
    /// Callers need a JWT signed by a key of this JWK Set; with --issuer and --audience
    #[arg(long, value_name = "URL", conflicts_with = "oidc_issuer")]
    jwks_url: Option<String>,
    /// The `iss` JWTs must carry, with --jwks-url
    #[arg(long, value_name = "ISSUER", requires = "jwks_url")]
    issuer: Option<String>,
    /// Callers need a JWT of this OpenID Connect issuer (keys found by discovery)
    #[arg(long, value_name = "URL")]
    oidc_issuer: Option<String>,
    /// The `aud` JWTs must carry: tokens for other services must not work here
    #[arg(long, value_name = "AUDIENCE")]
    audience: Option<String>,
    /// The HTTP status of a refused token on the JSON-RPC route (HTTP+JSON routes always answer 401)
    #[arg(long, value_enum, value_name = "STATUS", default_value = "200")]
    auth_failure_status: AuthFailureArg,
}

/// What the gateway logs, and how.
#[derive(Debug, clap::Args, serde::Serialize)]
struct LoggingArgs {
    /// Log format
    #[arg(long, value_enum, default_value = "text")]
    log_format: LogFormat,
    /// Log filter, e.g. `info` or `warn,a2a_gateway=debug`; RUST_LOG, when set and not empty, overrides it
    #[arg(long, value_name = "FILTER", default_value = "info")]
    log_level: String,
}

/// Prints the file `--print-config` stands for: the values parsed from the flags, which the
/// variables and the file have become ([`crate::config::layered`]).
fn print_config(args: &GatewayArgs) -> anyhow::Result<()> {
    let mut values = toml::Table::new();
    let groups = [
        toml::Table::try_from(&args.serving),
        toml::Table::try_from(&args.connections),
        toml::Table::try_from(&args.registry),
        toml::Table::try_from(&args.proxy),
        toml::Table::try_from(&args.callers),
        toml::Table::try_from(&args.logging),
    ];
    for group in groups {
        values.extend(group.context("cannot write the settings as TOML")?);
    }
    let command = <GatewayArgs as clap::Args>::augment_args(clap::Command::new("gateway"));
    output::text(&crate::config::render(
        crate::config::Sample::Gateway,
        &command,
        &values,
    ))?;
    Ok(())
}

/// Serves the gateway until a termination signal, then drains and closes the registry.
pub(crate) async fn run(args: GatewayArgs) -> anyhow::Result<()> {
    if args.print_config {
        return print_config(&args);
    }
    let _log = logging::init(args.logging.log_format, &args.logging.log_level)?;
    let mut proxy = proxy_config(&args)?;
    let options = registry_options(&args.registry)?;
    let tls = match (&args.serving.tls_cert, &args.serving.tls_key) {
        (Some(cert), Some(key)) => Some(
            TlsConfig::from_pem_files(cert, key)
                .map_err(|error| {
                    UsageError::new(format!("--tls-cert/--tls-key: {}", error_chain(&error)))
                })?
                .handshake_timeout(args.connections.tls_handshake_timeout()),
        ),
        _ => None,
    };

    let listener = TcpListener::bind(&args.serving.bind)
        .await
        .map_err(|source| {
            UnreachableError::from(BindError {
                address: args.serving.bind.clone(),
                source,
            })
        })?;
    let address = listener
        .local_addr()
        .context("cannot read the bound address")?;
    if !address.ip().is_loopback() && args.registry.registry_key.is_none() {
        tracing::warn!(
            "insecure setting: the registry takes registrations from anybody who reaches \
             {address}; set --registry-key"
        );
    }
    if args.proxy.agent_tls_skip_verify {
        tracing::warn!("insecure setting: TLS certificates of agents are not verified");
    }
    let registry = Registry::connect(&args.registry.store, options)
        .await
        .map_err(|error| UnreachableError::from(GatewayStoreError(error)))?;
    let registry = Arc::new(registry);
    if tls.is_some() && proxy.public_url.is_none() {
        // Cards name the gateway by the request's Host with `http://` unless told otherwise:
        // over TLS they must say `https://`.
        if address.ip().is_unspecified() {
            tracing::warn!(
                "cards advertise https://{address}, which clients elsewhere cannot use; set \
                 --public-url to the address they reach"
            );
        }
        proxy.public_url = Some(format!("https://{address}"));
    }
    let mut gateway = Gateway::new(Arc::clone(&registry), proxy);
    if let Some(key) = args.registry.registry_key.clone() {
        gateway = gateway.registry_key(key);
    }
    if let Some(exporter) = crate::metrics_export::install() {
        gateway = gateway.metrics(exporter.page()).agent_series(exporter);
    }
    let metrics_listener = match &args.serving.metrics_bind {
        Some(bind) => {
            let listener = TcpListener::bind(bind).await.map_err(|source| {
                UnreachableError::from(BindError {
                    address: bind.clone(),
                    source,
                })
            })?;
            gateway = gateway.metrics_apart();
            Some(listener)
        }
        None => None,
    };

    let mut terminate = signal(SignalKind::terminate()).context("cannot watch SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch SIGINT")?;
    tracing::info!(
        store = registry.url(),
        agent_ttl_s = registry.agent_ttl().as_secs(),
        max_agents = registry.max_agents(),
        jwt = args.callers.jwks_url.is_some() || args.callers.oidc_issuer.is_some(),
        registry_key = args.registry.registry_key.is_some(),
        config = ?args.config,
        "gateway ready"
    );
    output::listening(if tls.is_some() { "https" } else { "http" }, address);

    let stop = tokio_util::sync::CancellationToken::new();
    if let Some(listener) = metrics_listener {
        let metrics_address = listener
            .local_addr()
            .context("cannot read the bound metrics address")?;
        tracing::info!(address = %metrics_address, "serving /metrics");
        let metrics = axum::serve(listener, gateway.metrics_router())
            .with_graceful_shutdown(stop.clone().cancelled_owned());
        tokio::spawn(async move {
            if let Err(error) = metrics.await {
                tracing::error!(error = %error, "the metrics listener stopped");
            }
        });
    }
    let shutdown = stop.clone().cancelled_owned();
    let mut serving = crate::serving::serving(
        listener,
        gateway.router(),
        tls,
        args.connections.limits(),
        shutdown,
        false,
    );
    let signal = tokio::select! {
        result = &mut serving => {
            registry.close().await;
            return result.context("the gateway stopped");
        }
        _ = terminate.recv() => "SIGTERM",
        _ = interrupt.recv() => "SIGINT",
    };
    let grace = args.serving.shutdown_grace.0;
    tracing::info!(signal, grace_ms = grace.as_millis(), "shutting down");
    gateway.drain();
    stop.cancel();
    match tokio::time::timeout(grace, &mut serving).await {
        Ok(result) => result.context("the gateway failed while shutting down")?,
        Err(_elapsed) => {
            tracing::warn!("calls and streams still open after the grace period were dropped");
        }
    }
    registry.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// The registry database could not be opened (an [`UnreachableError`]). The message never
/// holds a password.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the gateway's registry: {0}")]
struct GatewayStoreError(a2a_gateway::registry::RegistryError);

impl From<GatewayStoreError> for UnreachableError {
    fn from(error: GatewayStoreError) -> Self {
        Self::from_error(error)
    }
}

fn proxy_config(args: &GatewayArgs) -> anyhow::Result<ProxyConfig> {
    let mut config = ProxyConfig::default();
    config.default_timeout = positive("timeout", args.proxy.timeout.0)?;
    config.max_timeout = positive("max-timeout", args.proxy.max_timeout.0)?;
    if config.default_timeout > config.max_timeout {
        return Err(UsageError::new("--timeout must not exceed --max-timeout").into());
    }
    config.max_sse_idle = positive("max-sse-idle", args.proxy.max_sse_idle.0)?;
    config.sse_keepalive = args.proxy.sse_keepalive.0;
    config.max_concurrency_per_agent = args.proxy.max_concurrency_per_agent;
    config.max_response_bytes = args.proxy.max_response_bytes;
    config.max_request_bytes = args.proxy.max_request_bytes;
    config.agent_tls_skip_verify = args.proxy.agent_tls_skip_verify;
    config.legacy_codes = args.proxy.legacy_codes;
    config.auth_failure_status = match args.callers.auth_failure_status {
        AuthFailureArg::Ok => AuthFailureStatus::Ok,
        AuthFailureArg::Unauthorized => AuthFailureStatus::Unauthorized,
    };
    config.trusted_origins = args
        .serving
        .cors_origins
        .iter()
        .map(|origin| origin.trim().to_owned())
        .filter(|origin| !origin.is_empty())
        .collect();
    config.token_verifier = token_verifier(&args.callers)?;
    if let Some(url) = &args.serving.public_url {
        let parsed = url::Url::parse(url)
            .map_err(|error| UsageError::new(format!("--public-url {url}: {error}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(UsageError::new("--public-url must be an http or https URL").into());
        }
        config.public_url = Some(url.trim_end_matches('/').to_owned());
    }
    Ok(config)
}

/// An error and its sources on one line; TLS errors name files, never key material.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn positive(option: &str, value: Duration) -> Result<Duration, UsageError> {
    if value.is_zero() {
        Err(UsageError::new(format!("--{option} must be more than 0")))
    } else {
        Ok(value)
    }
}

/// The JWT check of `--jwks-url`/`--issuer` or `--oidc-issuer`, with `--audience`: the
/// verifier `a2a serve` builds for the same flags.
fn token_verifier(args: &CallerArgs) -> anyhow::Result<Option<Arc<dyn TokenVerifier>>> {
    let keys = match (&args.jwks_url, &args.oidc_issuer) {
        (Some(url), None) => {
            let Some(issuer) = &args.issuer else {
                return Err(UsageError::new("--jwks-url needs --issuer").into());
            };
            JwtKeys::Jwks {
                url: url.clone(),
                issuer: issuer.clone(),
            }
        }
        (None, Some(issuer)) => JwtKeys::Oidc {
            issuer: issuer.clone(),
        },
        (None, None) => {
            if args.audience.is_some() {
                return Err(UsageError::new(
                    "--audience applies only with --jwks-url or --oidc-issuer",
                )
                .into());
            }
            return Ok(None);
        }
        (Some(_), Some(_)) => {
            return Err(UsageError::new("give --jwks-url or --oidc-issuer, not both").into());
        }
    };
    let Some(audience) = &args.audience else {
        return Err(UsageError::new(
            "--audience is required with --jwks-url or --oidc-issuer: tokens for other \
             services must not work here",
        )
        .into());
    };
    let setting = JwtSetting {
        keys,
        audience: audience.clone(),
    };
    let verifier = authentication::jwt_verifier(&setting)
        .map_err(|error| UsageError::new(format!("{error:#}")))?;
    Ok(Some(verifier))
}

fn registry_options(args: &RegistryArgs) -> anyhow::Result<RegistryOptions> {
    let mut policy = SignaturePolicy::new().require_signature(args.require_signed_cards);
    if let Some(path) = &args.card_keys {
        let text = std::fs::read_to_string(path)
            .map_err(|error| UsageError::new(format!("--card-keys {}: {error}", path.display())))?;
        let jwks: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
            UsageError::new(format!("--card-keys {}: not JSON: {error}", path.display()))
        })?;
        policy = policy
            .trusted_keys(&jwks)
            .map_err(|error| UsageError::new(format!("--card-keys {}: {error}", path.display())))?;
    }
    Ok(RegistryOptions::new()
        .agent_ttl(args.agent_ttl.0)
        .max_agents(args.max_agents)
        .directory_cache(args.directory_cache.0)
        .signatures(policy))
}
