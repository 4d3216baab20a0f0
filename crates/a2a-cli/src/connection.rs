//! The `a2a-client` the client commands talk through, set up from [`ClientArgs`]: the one
//! place the commands meet the client library's settings.

use std::path::Path;

use a2a_client::transport::{HttpTransport, TlsOptions};
use a2a_client::{
    A2aClient, A2aClientBuilder, ApiKeyPlacement, CardFetchOptions, Credentials,
    OAuth2ClientCredentials, Timeouts,
};
use a2a_types::AgentCard;

use crate::client_args::ClientArgs;
use crate::credential_args::Chosen;
use crate::error::UsageError;

/// Fetches the agent's card (from `URL/.well-known/agent-card.json`, or the URL itself when
/// it ends in `.json`) and builds a client for it: in the `--protocol-version` asked for, else
/// in 1.0 when the card offers it and in 0.3 when it offers only that.
///
/// # Errors
/// Usage errors in the flags (exit 2), the client library's failures otherwise, and an
/// explicit `--binding` the card does not offer.
pub(crate) async fn open(args: &ClientArgs) -> anyhow::Result<A2aClient> {
    let client = builder(args)?
        .card_fetch(card_fetch_options(args)?)
        .discover(&args.url)
        .await?;
    if let Some(binding) = args.binding
        && client.binding() != binding.protocol()
    {
        // The library falls back to another interface (spec §5.4); a binding the user
        // named is a requirement, so say it cannot be met instead.
        return Err(UsageError::new(format!(
            "--binding: the agent's card has no {} interface for protocol {}",
            binding.protocol(),
            client.protocol_version()
        ))
        .into());
    }
    Ok(client)
}

/// Fetches and validates the agent's card, without building a client.
///
/// # Errors
/// As [`open`], less the binding check.
pub(crate) async fn fetch_card(args: &ClientArgs) -> anyhow::Result<AgentCard> {
    let options = card_fetch_options(args)?.transport(card_transport(args)?);
    Ok(a2a_client::fetch_agent_card(&args.url, &options).await?)
}

/// Fetches the card and checks each of its signatures against `verifier`'s keys.
pub(crate) async fn fetch_card_signatures(
    args: &ClientArgs,
    verifier: a2a_client::CardVerifier,
) -> anyhow::Result<(AgentCard, a2a_client::SignatureChecks)> {
    let options = card_fetch_options(args)?
        .verify_signatures(verifier)
        .transport(card_transport(args)?);
    Ok(a2a_client::fetch_agent_card_signatures(&args.url, &options).await?)
}

/// How the card is fetched: with the `--header`s, the `--timeout`, the connect timeout and
/// redirects followed unless `--no-redirects`.
fn card_fetch_options(args: &ClientArgs) -> Result<CardFetchOptions, UsageError> {
    // A person at a terminal expects a card that moved (http to https, a new path) to be
    // found, as a browser finds it; `--no-redirects` keeps the library's refusal.
    let mut options = CardFetchOptions::new().follow_redirects(!args.no_redirects);
    for header in &args.headers {
        let (name, value) = crate::client_args::parse_header(header.expose())?;
        // Both were checked by `parse_header`, so this cannot fail.
        let Ok(value) = value.to_str() else {
            return Err(UsageError::new(format!(
                "--header {name}: the value is not valid header text"
            )));
        };
        options = options
            .header(name.as_str(), value)
            .map_err(|_| UsageError::new(format!("--header {name}: not a valid header")))?;
    }
    if let Some(timeout) = args.timeout {
        options = options.timeout(timeout);
    }
    Ok(options)
}

/// The transport a card fetch without a client uses: the TLS flags and the connect timeout.
fn card_transport(args: &ClientArgs) -> anyhow::Result<HttpTransport> {
    let tls = tls_options(args)?.unwrap_or_default();
    Ok(HttpTransport::with_tls(connect_timeout(args), &tls)?)
}

fn builder(args: &ClientArgs) -> Result<A2aClientBuilder, UsageError> {
    let mut builder = A2aClient::builder();
    if let Some(binding) = args.binding {
        builder = builder.prefer_binding(binding.protocol());
    }
    if let Some(version) = args.protocol_version {
        builder = builder.protocol_version(version.library());
    }
    for (name, value) in args.header_pairs()? {
        builder = builder.header(name, value);
    }
    if let Some(credentials) = credentials(args) {
        builder = builder.credentials(credentials);
    }
    if let Some(timeout) = args.timeout {
        builder = builder.timeouts(Timeouts {
            connect: connect_timeout(args),
            request: timeout,
            stream_idle: timeout,
        });
    }
    builder = builder.connect_timeout(connect_timeout(args));
    if let Some(host) = args.host_override() {
        builder = builder.host(host);
        if let Some(port) = args.port {
            builder = builder.port(port);
        }
    }
    if let Some(limit) = args.stream_max_duration {
        builder = builder.stream_max_duration(limit);
    }
    if let Some(tls) = tls_options(args)? {
        builder = builder.tls(tls);
    }
    Ok(builder)
}

/// The connect timeout: `--connect-timeout`, else the library's, or `--timeout` when that
/// is shorter.
fn connect_timeout(args: &ClientArgs) -> std::time::Duration {
    if let Some(timeout) = args.connect_timeout {
        return timeout;
    }
    let default = Timeouts::default().connect;
    args.timeout.map_or(default, |timeout| timeout.min(default))
}

/// `--cacert`, `--cert` and `--key`, read; `None` when none is given. Errors name the flag
/// and the file, never what the file holds.
pub(crate) fn tls_options(args: &ClientArgs) -> Result<Option<TlsOptions>, UsageError> {
    if args.cacert.is_none() && args.cert.is_none() {
        return Ok(None);
    }
    let mut tls = TlsOptions::new();
    if let Some(path) = &args.cacert {
        tls = tls
            .root_certificate_pem(&read("--cacert", path)?)
            .map_err(|_| {
                UsageError::new(format!(
                    "--cacert: {} holds no PEM certificate",
                    path.display()
                ))
            })?;
    }
    if let Some(cert) = &args.cert {
        let mut identity = read("--cert", cert)?;
        if let Some(key) = &args.key {
            // PEM sections may follow each other in any order; the newline keeps a file
            // without a final one from gluing two lines together.
            identity.push(b'\n');
            identity.extend(read("--key", key)?);
        }
        tls = tls.client_identity_pem(&identity).map_err(|_| {
            let files = match &args.key {
                Some(key) => format!("{} and {}", cert.display(), key.display()),
                None => cert.display().to_string(),
            };
            UsageError::new(format!(
                "--cert: {files} must hold a PEM certificate and its unencrypted private key \
                 (give the key with --key when it is in a file of its own)"
            ))
        })?;
    }
    Ok(Some(tls))
}

fn read(flag: &str, path: &Path) -> Result<Vec<u8>, UsageError> {
    std::fs::read(path).map_err(|error| {
        UsageError::new(format!("{flag}: cannot read {}: {error}", path.display()))
    })
}

/// The one kind of credentials the flags name (clap makes them exclusive).
pub(crate) fn credentials(args: &ClientArgs) -> Option<Credentials> {
    Some(match args.auth.chosen()? {
        Chosen::ApiKey { key, header } => {
            let key = key.expose().to_owned();
            match header {
                Some(header) => {
                    Credentials::api_key_in(key, ApiKeyPlacement::Header(header.to_owned()))
                }
                None => Credentials::api_key(key),
            }
        }
        Chosen::Bearer(token) => Credentials::bearer(token.expose().to_owned()),
        Chosen::OAuth2 {
            client_id,
            client_secret,
            token_url,
            scopes,
        } => {
            let mut oauth = OAuth2ClientCredentials::new(
                client_id.to_owned(),
                client_secret.expose().to_owned(),
            )
            .scopes(scopes.iter().cloned());
            if let Some(url) = token_url {
                oauth = oauth.token_url(url.to_owned());
            }
            Credentials::oauth2(oauth)
        }
    })
}
