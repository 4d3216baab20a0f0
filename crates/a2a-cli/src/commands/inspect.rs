//! `a2a inspect [URL]`: the web inspector on a local address, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;

use anyhow::Context as _;

use crate::client_args::{Binding, Secret};
use crate::output;

/// `a2a inspect`.
#[derive(Debug, clap::Args)]
pub(crate) struct InspectArgs {
    /// An agent or gateway to open at once: its base URL or the URL of its card
    #[arg(value_name = "URL")]
    url: Option<String>,

    /// Where to serve the page (only this machine can reach the default)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    bind: SocketAddr,

    /// Open the page in the desktop's browser (xdg-open)
    #[arg(long)]
    open: bool,

    /// The binding to use with URL, by its spec name (any case) or alias
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "BINDING",
        requires = "url",
        help_heading = "Credentials for URL"
    )]
    binding: Option<Binding>,

    /// Send this API key to URL (see --api-key-header)
    #[arg(long, value_name = "KEY", env = "A2A_API_KEY", hide_env_values = true,
          conflicts_with_all = ["bearer", "oauth_client_id"], help_heading = "Credentials for URL")]
    api_key: Option<Secret>,

    /// The header that carries --api-key [default: the card's API-key scheme, else X-API-Key]
    #[arg(
        long,
        value_name = "NAME",
        requires = "api_key",
        help_heading = "Credentials for URL"
    )]
    api_key_header: Option<String>,

    /// Send `Authorization: Bearer TOKEN` to URL
    #[arg(
        long,
        value_name = "TOKEN",
        env = "A2A_BEARER_TOKEN",
        hide_env_values = true,
        conflicts_with = "oauth_client_id",
        help_heading = "Credentials for URL"
    )]
    bearer: Option<Secret>,

    /// OAuth 2.0 client-credentials: the client id (with --oauth-client-secret)
    #[arg(
        long,
        value_name = "ID",
        requires = "oauth_client_secret",
        help_heading = "Credentials for URL"
    )]
    oauth_client_id: Option<String>,

    /// OAuth 2.0 client-credentials: the client secret
    #[arg(
        long,
        value_name = "SECRET",
        env = "A2A_OAUTH_CLIENT_SECRET",
        hide_env_values = true,
        requires = "oauth_client_id",
        help_heading = "Credentials for URL"
    )]
    oauth_client_secret: Option<Secret>,

    /// OAuth 2.0 token endpoint [default: the card's client-credentials flow]
    #[arg(
        long,
        value_name = "URL",
        requires = "oauth_client_id",
        help_heading = "Credentials for URL"
    )]
    oauth_token_url: Option<String>,

    /// OAuth 2.0 scope to ask for (repeatable)
    #[arg(
        long,
        value_name = "SCOPE",
        requires = "oauth_client_id",
        help_heading = "Credentials for URL"
    )]
    oauth_scope: Vec<String>,
}

impl InspectArgs {
    /// The credentials the command line gives for URL.
    fn auth(&self) -> a2a_inspect::Auth {
        if let Some(key) = &self.api_key {
            return a2a_inspect::Auth::ApiKey {
                header: self.api_key_header.clone(),
                value: key.expose().to_owned(),
            };
        }
        if let Some(token) = &self.bearer {
            return a2a_inspect::Auth::Bearer(token.expose().to_owned());
        }
        if let (Some(id), Some(secret)) = (&self.oauth_client_id, &self.oauth_client_secret) {
            return a2a_inspect::Auth::OAuth2 {
                token_url: self.oauth_token_url.clone(),
                client_id: id.clone(),
                client_secret: secret.expose().to_owned(),
                scopes: self.oauth_scope.clone(),
            };
        }
        a2a_inspect::Auth::None
    }
}

/// Serves the inspector until Ctrl-C or SIGTERM.
pub(crate) async fn run(args: InspectArgs) -> anyhow::Result<()> {
    let _log = crate::logging::init(crate::config::LogFormat::Text, "warn")?;
    let mut builder = a2a_inspect::Inspector::builder();
    if let Some(url) = &args.url {
        builder = builder.credentials_for(url.clone(), args.auth());
    }
    let inspector = builder.build().context("cannot start the inspector")?;
    let listener = tokio::net::TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("cannot listen on {}", args.bind))?;
    let address = listener.local_addr()?;
    // Watch the signals before announcing the address, so a caller that stops us as soon as
    // it sees the line still gets a clean stop.
    let termination = crate::serving::termination()?;
    output::listening("http", address);
    let page = match &args.url {
        Some(url) => {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            query.append_pair("url", url);
            if let Some(binding) = args.binding {
                query.append_pair("binding", binding.protocol().as_str());
            }
            format!("http://{address}/?{}", query.finish())
        }
        None => format!("http://{address}/"),
    };
    output::text(&format!("open {page}\n"))?;
    if args.open {
        open_browser(&page);
    }
    inspector
        .serve_with_shutdown(listener, termination)
        .await
        .context("the inspector stopped")
}

/// Opens `page` with `xdg-open`; a desktop without one is told how to open it by hand.
fn open_browser(page: &str) {
    let opened = std::process::Command::new("xdg-open")
        .arg(page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(error) = opened {
        output::error_line(&format!(
            "cannot open a browser ({error}); open {page} yourself"
        ));
    }
}
