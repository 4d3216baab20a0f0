//! `a2a inspect [URL]`: the web inspector on a local address, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;

use anyhow::Context as _;

use crate::client_args::Binding;
use crate::credential_args::{Chosen, CredentialArgs};
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

    #[command(flatten, next_help_heading = "Credentials for URL")]
    auth: CredentialArgs,
}

impl InspectArgs {
    /// The credentials the command line gives for URL.
    fn auth(&self) -> a2a_inspect::Auth {
        match self.auth.chosen() {
            Some(Chosen::ApiKey { key, header }) => a2a_inspect::Auth::ApiKey {
                header: header.map(str::to_owned),
                value: key.expose().to_owned(),
            },
            Some(Chosen::Bearer(token)) => a2a_inspect::Auth::Bearer(token.expose().to_owned()),
            Some(Chosen::OAuth2 {
                client_id,
                client_secret,
                token_url,
                scopes,
            }) => a2a_inspect::Auth::OAuth2 {
                token_url: token_url.map(str::to_owned),
                client_id: client_id.to_owned(),
                client_secret: client_secret.expose().to_owned(),
                scopes: scopes.to_vec(),
            },
            None => a2a_inspect::Auth::None,
        }
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
