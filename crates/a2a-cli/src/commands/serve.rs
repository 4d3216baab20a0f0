//! `a2a serve`: serves a built-in agent over A2A until SIGINT or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use a2a_server::A2aServer;
use a2a_server::push::signing::PushSigner;
use a2a_server::store::InMemoryTaskStore;
use a2a_store_sql::SqlStore;
use a2a_types::AgentCard;
use anyhow::Context as _;
use tokio::net::TcpListener;
use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::agents::Agent;
use crate::config::StoreSetting;
use crate::config::{self, ServeOptions, Settings};
use crate::error::{BindError, UnreachableError, UsageError};
use crate::{authentication, card, logging, output};

/// Flags of `a2a serve`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Every option can also be set by an environment variable A2A_<OPTION> \
(e.g. A2A_MAX_CONCURRENT_TASKS=4) or by a key of the TOML file given by --config \
(e.g. max_concurrent_tasks = 4; docs/serve.toml lists them all). A flag wins over the \
environment, which wins over the file. Durations take ms, s, m or h (250ms, 30s, 5m, 1h); a \
bare number is milliseconds.
RUST_LOG, when set and not empty, overrides --log-level (same syntax).

Probes: GET /healthz answers 200 while the process is up; GET /readyz answers 200 when the \
task store answers, 503 while draining after SIGINT/SIGTERM or when the store does not. \
GET /metrics answers the server's series in the Prometheus text format (a2a_task_states_total, \
a2a_turns_running, a2a_turns_queued, a2a_admission_refusals_total, a2a_streams_open, \
a2a_events_published_total, a2a_push_deliveries_total, a2a_store_operation_seconds, \
a2a_jwks_fetches_total, a2a_authentication_failures_total). None of them needs credentials. \
Each request logs one info line under the target a2a::access.

Examples:
  a2a serve
  a2a serve --agent exec -- tr a-z A-Z
  a2a serve --card card.json --name \"My agent\" --bind 0.0.0.0:9000")]
pub(crate) struct ServeArgs {
    /// TOML file with options (keys in snake_case) [env: A2A_CONFIG]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print the effective configuration as a TOML file (secrets hidden) and exit: the
    /// settings the flags, variables and file give written out, every other one commented
    /// with its default
    #[arg(long)]
    print_config: bool,
    #[command(flatten)]
    options: ServeOptions,
}

/// Prints the file `--print-config` stands for, once the merged options are known to be
/// valid.
fn print_config(args: ServeArgs) -> anyhow::Result<()> {
    let merged =
        config::merge(args.options, args.config, std::env::vars_os()).map_err(UsageError::from)?;
    Settings::resolve(merged.clone()).map_err(UsageError::from)?;
    let values = toml::Table::try_from(&merged).context("cannot write the settings as TOML")?;
    let command = <ServeArgs as clap::Args>::augment_args(clap::Command::new("serve"));
    output::text(&config::render(config::Sample::Serve, &command, &values))?;
    Ok(())
}

/// Runs the server until a termination signal, then shuts it down gracefully.
pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<()> {
    if args.print_config {
        return print_config(args);
    }
    let settings =
        config::load(args.options, args.config, std::env::vars_os()).map_err(UsageError::from)?;
    let _log = logging::init(settings.log_format, &settings.log_level)?;
    let agent = Agent::new(&settings.agent).map_err(UsageError::from)?;
    let mut card = card::load(&settings).await.map_err(UsageError::from)?;
    let extended_card = card::load_extended(&settings).map_err(UsageError::from)?;
    let tls = crate::serving::tls_config(&settings).map_err(UsageError::from)?;

    let listener = TcpListener::bind(&settings.bind).await.map_err(|source| {
        UnreachableError::from(BindError {
            address: settings.bind.clone(),
            source,
        })
    })?;
    let address = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let grpc_listener = match &settings.grpc_bind {
        Some(bind) => Some(TcpListener::bind(bind).await.map_err(|source| {
            UnreachableError::from(BindError {
                address: bind.clone(),
                source,
            })
        })?),
        None => None,
    };
    let grpc_address = grpc_listener
        .as_ref()
        .map(TcpListener::local_addr)
        .transpose()
        .context("cannot read the bound gRPC address")?;
    for warning in settings
        .insecure_settings(address)
        .into_iter()
        .chain(authentication::warnings(&settings.auth))
    {
        tracing::warn!("insecure setting: {warning}");
    }
    let store = open_store(&settings.store).await?;
    let agent = match (agent, &settings.agent) {
        (Some(agent), _) => agent,
        (None, config::AgentSetup::Llm(setup)) => {
            let streaming = card.capabilities.supports_streaming();
            let runs: Arc<dyn a2a_run::store::RunStore> = match &store {
                OpenStore::Memory(_) => Arc::new(a2a_run::store::InMemoryRunStore::new()),
                OpenStore::Sql(store) => store.clone(),
            };
            let durable = matches!(store, OpenStore::Sql(_));
            let agent = crate::agents::llm::start(setup, runs, streaming, durable)
                .await
                .map_err(UnreachableError::from_error)?;
            if settings.card.file.is_none() {
                let skills = crate::agents::llm::skills(&agent, setup);
                if !skills.is_empty() {
                    card.skills = skills;
                }
            }
            Agent::Llm(agent)
        }
        (None, _) => anyhow::bail!("the agent could not be made"),
    };
    let cards = Cards {
        public: card,
        extended: extended_card,
    };
    let addresses = Addresses {
        http: address,
        grpc: grpc_address,
    };
    let server = build_server(&settings, addresses, cards, agent, store)?;

    // Watch the signals before announcing the address, so a caller that stops us as soon as
    // it sees the line gets a graceful shutdown.
    let mut termination = Termination::watch()?;
    log_summary(&settings, &server, address);
    output::listening(settings.scheme(), address);
    if let Some(grpc) = grpc_address {
        output::listening_grpc(grpc);
    }
    let registration = crate::register::start(&settings, server.handler().card(), address)?;
    let termination = async {
        let signal = termination.received().await;
        // Leave the gateway first, so it stops routing calls here while we drain.
        if let Some(registration) = registration {
            registration.stop().await;
        }
        signal
    };
    let listeners = crate::serving::Listeners {
        http: listener,
        grpc: grpc_listener,
    };
    crate::serving::serve(
        listeners,
        &server,
        tls,
        settings.connections.limits.clone(),
        termination,
        settings.shutdown_grace,
    )
    .await
}

/// The task store `a2a serve` was asked for, opened (and migrated) before the server starts.
enum OpenStore {
    Memory(InMemoryTaskStore),
    Sql(Arc<SqlStore>),
}

async fn open_store(setting: &StoreSetting) -> anyhow::Result<OpenStore> {
    match setting {
        StoreSetting::Memory(config) => {
            Ok(OpenStore::Memory(InMemoryTaskStore::with_config(*config)))
        }
        StoreSetting::Sql { url, options } => {
            let store = SqlStore::connect(url, options.clone())
                .await
                .map_err(|error| UnreachableError::from(StoreOpenError(error)))?;
            Ok(OpenStore::Sql(Arc::new(store)))
        }
    }
}

/// The task store could not be opened: the database is unreachable, the URL is wrong, or
/// its schema is newer than this build (an [`UnreachableError`]). The message never holds a
/// password.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the task store: {0}")]
struct StoreOpenError(a2a_store_sql::SqlStoreError);

impl From<StoreOpenError> for UnreachableError {
    fn from(error: StoreOpenError) -> Self {
        Self::from_error(error)
    }
}

/// The bound addresses: HTTP, and gRPC when it is served.
#[derive(Debug, Clone, Copy)]
struct Addresses {
    http: SocketAddr,
    grpc: Option<SocketAddr>,
}

/// The cards as loaded: the public one, and the extended card's file when one was given.
struct Cards {
    public: AgentCard,
    extended: Option<AgentCard>,
}

fn build_server(
    settings: &Settings,
    addresses: Addresses,
    cards: Cards,
    agent: Agent,
    store: OpenStore,
) -> anyhow::Result<A2aServer> {
    let address = addresses.http;
    let grpc_url = addresses.grpc.map(|grpc| {
        settings.grpc_public_url.clone().unwrap_or_else(|| {
            if grpc.ip().is_unspecified() {
                tracing::warn!(
                    "the card advertises gRPC at {grpc}, which clients elsewhere cannot use; \
                     set --grpc-public-url to the address they reach"
                );
            }
            grpc.to_string()
        })
    });
    let public_url = settings.public_url.clone().unwrap_or_else(|| {
        let url = format!("{}://{address}", settings.scheme());
        if address.ip().is_unspecified() {
            tracing::warn!(
                "the card advertises {url}, which clients elsewhere cannot use; \
                 set --public-url to the address they reach"
            );
        }
        url
    });
    let mut served = card::serve(cards.public, settings, &public_url, grpc_url.as_deref());
    // A card that promises an interface nobody answers sends clients to a dead end: refuse
    // to start rather than warn and let them fail later.
    let unserved = card::unserved_interfaces(&served.card, grpc_url.is_some());
    if !unserved.is_empty() {
        return Err(UsageError::new(format!(
            "{}. Serve it, serve only the others with --protocol-binding, or take it off the card",
            unserved.join("; ")
        ))
        .into());
    }
    authentication::declare(&mut served.card, &settings.auth);
    if settings.push.is_some() {
        served.card.capabilities.push_notifications = Some(true);
    }
    let extended = card::extended(cards.extended, &served.card, &settings.agent);
    if extended.is_some() {
        served.card.capabilities.extended_agent_card = Some(true);
    }
    let mut builder = A2aServer::builder(served.card, agent)
        .config(settings.server.clone())
        .authentication(authentication::build(&settings.auth)?);
    if let Some(exporter) = crate::metrics_export::install() {
        builder = builder.metrics(exporter.page());
    }
    if let Some(extended) = extended {
        // Served to authenticated callers only; with authentication off, to everyone (the
        // start-up warning about --no-auth says so).
        builder = builder.extended_card(extended);
    }
    if let Some(path) = &settings.card.signing_key {
        builder = builder.card_signing_key(card_signing_key(
            path,
            settings.card.signing_key_id.as_deref(),
        )?);
    }
    if let Some(push) = &settings.push {
        builder = builder.push_signer(push_signer(push.signing_key.as_deref())?);
        if let OpenStore::Sql(store) = &store {
            // Webhooks and their delivery progress live beside the tasks: pending
            // deliveries survive a restart, and instances share the work.
            builder = builder.push_store(store.clone());
        }
    }
    let builder = match store {
        OpenStore::Memory(store) => builder.store(store),
        // The SQL store is also the cluster: leases and signals shared with every instance
        // over the same database.
        OpenStore::Sql(store) => builder.shared_store(store.clone()).cluster(store),
    };
    // Interfaces this command added already carry the base path in their URLs (the server
    // routes by URL path); a card file's interfaces are relative to it, as in the library.
    let builder = if served.interfaces_added {
        builder.card_path(format!("{}{}", settings.base_path, settings.card_path))
    } else {
        builder
            .base_path(settings.base_path.clone())
            .card_path(settings.card_path.clone())
    };
    Ok(builder.build()?)
}

/// The key that signs the served card, read from its PEM file. Errors name the file and the
/// kind of key, never its contents.
fn card_signing_key(
    path: &std::path::Path,
    kid: Option<&str>,
) -> anyhow::Result<a2a_signature::SigningKey> {
    let invalid = |message: String| {
        anyhow::Error::from(UsageError::from(config::ConfigError::Invalid {
            option: "card-signing-key",
            message,
        }))
    };
    let pem = std::fs::read(path)
        .map_err(|source| invalid(format!("cannot read {}: {source}", path.display())))?;
    let key = a2a_signature::SigningKey::from_pem(&pem)
        .map_err(|error| invalid(format!("{}: {error}", path.display())))?;
    Ok(match kid {
        Some(kid) => key.with_kid(kid),
        None => key,
    })
}

/// The key that signs push deliveries: the configured PKCS#8 file (so several instances
/// publish one key), else a new one for this run.
fn push_signer(key: Option<&std::path::Path>) -> anyhow::Result<PushSigner> {
    let Some(path) = key else {
        return Ok(PushSigner::generate()?);
    };
    let pem = std::fs::read(path).map_err(|source| {
        UsageError::from(config::ConfigError::Invalid {
            option: "push-signing-key",
            message: format!("cannot read {}: {source}", path.display()),
        })
    })?;
    PushSigner::from_pkcs8_pem(&pem).map_err(|_| {
        UsageError::from(config::ConfigError::Invalid {
            option: "push-signing-key",
            message: format!(
                "{} is not an EC P-256 or P-384 or an Ed25519 private key in PKCS#8 PEM",
                path.display()
            ),
        })
        .into()
    })
}

/// One line with what is served; option values are named one by one, never dumped whole,
/// so a secret option added later cannot leak into the log (secrets never appear in logs).
fn log_summary(settings: &Settings, server: &A2aServer, address: SocketAddr) {
    let card = server.handler().card();
    let agent = match &settings.agent {
        config::AgentSetup::Echo => "echo".to_owned(),
        config::AgentSetup::Exec(command) => format!("exec `{}`", command.program),
        config::AgentSetup::Conformance => "conformance".to_owned(),
        config::AgentSetup::Llm(setup) => format!("llm {} at {}", setup.model, setup.model_url),
    };
    let endpoints: Vec<String> = server
        .endpoints()
        .iter()
        .map(|endpoint| format!("{:?} {}", endpoint.binding, endpoint.path))
        .collect();
    tracing::info!(
        %address,
        agent,
        card = %card.name,
        endpoints = ?endpoints,
        store = settings.store.describe(),
        async_timeout_ms = settings.server.async_timeout.as_millis(),
        max_concurrent_tasks = settings.server.max_concurrent_tasks,
        "serving"
    );
}

/// SIGINT and SIGTERM, watched from creation on.
struct Termination {
    interrupt: Signal,
    terminate: Signal,
}

impl Termination {
    fn watch() -> anyhow::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt()).context("cannot watch SIGINT")?,
            terminate: signal(SignalKind::terminate()).context("cannot watch SIGTERM")?,
        })
    }

    /// Waits for either; returns its name.
    async fn received(&mut self) -> &'static str {
        tokio::select! {
            _ = self.interrupt.recv() => "SIGINT",
            _ = self.terminate.recv() => "SIGTERM",
        }
    }
}
