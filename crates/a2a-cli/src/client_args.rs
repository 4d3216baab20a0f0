//! The flags every client command shares: the agent's URL, how to reach it (binding,
//! headers, credentials, TLS, timeouts, host override, redirects) and how to print
//! (`--json`, `--no-color`).
//!
//! Secrets (`--api-key`, `--bearer`, `--oauth-client-secret`, header values) are kept in
//! [`Secret`], whose `Debug` hides them, and no error message repeats them.

use std::path::PathBuf;
use std::time::Duration;

use crate::credential_args::CredentialArgs;
use crate::duration::Millis;
use crate::error::UsageError;
use crate::render::Style;
pub(crate) use crate::secret::Secret;

/// Where the agent is and how to talk to it.
#[derive(Debug, clap::Args)]
pub(crate) struct ClientArgs {
    /// The agent: its base URL (the card is read from /.well-known/agent-card.json) or the
    /// URL of its card (ending in .json)
    #[arg(value_name = "URL")]
    pub(crate) url: String,

    /// The binding to use, by its spec name (any case) or alias [default: the card's first JSONRPC or HTTP+JSON interface, else its GRPC one]
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "BINDING",
        help_heading = "Connection"
    )]
    pub(crate) binding: Option<Binding>,

    /// The A2A protocol version to speak [default: the card's: 1.0 when it offers it, else 0.3]
    #[arg(long, value_enum, value_name = "VERSION", help_heading = "Connection")]
    pub(crate) protocol_version: Option<ProtocolVersion>,

    #[command(flatten, next_help_heading = "Connection")]
    pub(crate) auth: CredentialArgs,

    /// Send this header with every request, as NAME:VALUE (repeatable)
    #[arg(
        long = "header",
        short = 'H',
        value_name = "NAME:VALUE",
        help_heading = "Connection"
    )]
    pub(crate) headers: Vec<Secret>,

    /// Trust the certificate authorities in this PEM file for HTTPS (an agent whose
    /// certificate a private CA issued), besides the operating system's certificate store
    /// (SSL_CERT_FILE or SSL_CERT_DIR, when set, replace it) and the bundled Mozilla roots
    #[arg(long, value_name = "FILE", help_heading = "Connection")]
    pub(crate) cacert: Option<PathBuf>,

    /// Present this client certificate (PEM, leaf first) to an agent that asks for one
    /// (mutual TLS); its private key may follow in the same file, or be given by --key
    #[arg(long, value_name = "FILE", help_heading = "Connection")]
    pub(crate) cert: Option<PathBuf>,

    /// The private key of --cert (unencrypted PEM)
    #[arg(
        long,
        value_name = "FILE",
        requires = "cert",
        help_heading = "Connection"
    )]
    pub(crate) key: Option<PathBuf>,

    /// Give up connecting to the agent after this long (e.g. 5s; a bare number is
    /// milliseconds) [default: 30s, or --timeout when that is shorter]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Connection")]
    pub(crate) connect_timeout: Option<Duration>,

    /// Send requests to this host instead of the one the card's interface names (a card
    /// that advertises an address this machine cannot reach); `http://` or `https://` may
    /// lead, else the scheme is URL's. The card itself is still read from URL
    #[arg(long, value_name = "HOST", help_heading = "Connection")]
    pub(crate) host: Option<String>,

    /// The port requests go to on --host
    #[arg(
        long,
        value_name = "PORT",
        requires = "host",
        help_heading = "Connection"
    )]
    pub(crate) port: Option<u16>,

    /// Refuse a redirect when reading the card, as the client library does by default
    /// [default: follow up to five]
    #[arg(long, help_heading = "Connection")]
    pub(crate) no_redirects: bool,

    /// Give up on a request, or on a stream that stays silent, after this long (e.g. 30s, 5m; a
    /// bare number is milliseconds) [default: 60s per request, 300s of stream silence]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = "Connection")]
    pub(crate) timeout: Option<Duration>,

    /// Close a stream still open after this long, whether or not events keep coming (e.g. 5m;
    /// a bare number is milliseconds; 0 for no limit besides --timeout's silence) [default: 300s]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, env = "A2A_STREAM_MAX_DURATION",
          help_heading = "Connection")]
    pub(crate) stream_max_duration: Option<Duration>,

    /// Print the protocol JSON as received (in v1.0 shapes, a v0.3 agent's answers translated),
    /// one value per line, instead of a summary
    #[arg(long, help_heading = "Output")]
    pub(crate) json: bool,

    /// No colours: the same as --color never
    #[arg(long, help_heading = "Output")]
    pub(crate) no_color: bool,
}

/// A protocol binding the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Binding {
    /// JSON-RPC 2.0.
    #[value(name = "JSONRPC", alias = "json-rpc")]
    Jsonrpc,
    /// HTTP+JSON (REST).
    #[value(name = "HTTP+JSON", alias = "rest")]
    Rest,
    /// gRPC.
    #[value(name = "GRPC")]
    Grpc,
}

impl Binding {
    /// The binding's protocol name.
    pub(crate) fn protocol(self) -> a2a_types::ProtocolBinding {
        match self {
            Self::Jsonrpc => a2a_types::ProtocolBinding::JsonRpc,
            Self::Rest => a2a_types::ProtocolBinding::HttpJson,
            Self::Grpc => a2a_types::ProtocolBinding::Grpc,
        }
    }
}

/// A protocol version the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProtocolVersion {
    /// A2A v1.0.
    #[value(name = "1.0", alias = "1")]
    V1,
    /// A2A v0.3 (JSON-RPC or HTTP+JSON).
    #[value(name = "0.3")]
    V03,
}

impl ProtocolVersion {
    /// The client library's version.
    pub(crate) fn library(self) -> a2a_client::ProtocolVersion {
        match self {
            Self::V1 => a2a_client::ProtocolVersion::V1_0,
            Self::V03 => a2a_client::ProtocolVersion::V0_3,
        }
    }
}

impl ClientArgs {
    /// The colours to print with.
    pub(crate) fn style(&self) -> Style {
        if self.json {
            Style::plain()
        } else {
            Style::detect(self.no_color)
        }
    }

    /// The `--host` override as the client library takes it: with a scheme, URL's scheme
    /// when `--host` names none.
    pub(crate) fn host_override(&self) -> Option<String> {
        let host = self.host.as_deref()?.trim();
        if host.contains("://") {
            return Some(host.to_owned());
        }
        let scheme = match url::Url::parse(&self.url) {
            Ok(url) if url.scheme() == "http" => "http",
            _ => "https",
        };
        Some(format!("{scheme}://{host}"))
    }

    /// The `--header` flags as (name, value) pairs.
    ///
    /// # Errors
    /// A flag without `:` or with an invalid name; the message never shows the value.
    pub(crate) fn header_pairs(
        &self,
    ) -> Result<Vec<(http::HeaderName, http::HeaderValue)>, UsageError> {
        self.headers
            .iter()
            .map(|header| parse_header(header.expose()))
            .collect()
    }
}

pub(crate) fn parse_header(
    text: &str,
) -> Result<(http::HeaderName, http::HeaderValue), UsageError> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(UsageError::new("--header needs NAME:VALUE"));
    };
    let name = name.trim();
    let header_name = http::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| UsageError::new(format!("--header: `{name}` is not a header name")))?;
    let header_value = http::HeaderValue::from_str(value.trim()).map_err(|_| {
        UsageError::new(format!(
            "--header {name}: the value is not a valid header value"
        ))
    })?;
    Ok((header_name, header_value))
}

/// A duration: milliseconds, or a number with `ms`, `s`, `m` or `h`.
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let Millis(duration) = text.parse()?;
    if duration.is_zero() {
        return Err("must be more than 0".to_owned());
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit_or_milliseconds() {
        assert_eq!(parse_duration("1500"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
        assert!(parse_duration("0").is_err());
    }

    #[test]
    fn headers_are_name_colon_value_and_errors_hide_the_value() {
        let (name, value) = parse_header("X-Trace: abc").unwrap();
        assert_eq!((name.as_str(), value.to_str().unwrap()), ("x-trace", "abc"));
        let (_, value) = parse_header("Authorization: Bearer a:b").unwrap();
        assert_eq!(value.to_str().unwrap(), "Bearer a:b");
        let error = parse_header("sekrit-no-colon").unwrap_err().to_string();
        assert!(!error.contains("sekrit"), "{error}");
        let error = parse_header("X-Bad: sekrit\u{7}").unwrap_err().to_string();
        assert!(!error.contains("sekrit"), "{error}");
    }

    #[test]
    fn a_host_without_a_scheme_takes_the_urls() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            client: ClientArgs,
        }
        let host = |args: &[&str]| {
            Cli::try_parse_from(args)
                .map(|cli| cli.client.host_override())
                .map_err(|error| error.kind())
        };
        assert_eq!(
            host(&["a2a", "http://agent:1", "--host", "127.0.0.1"]),
            Ok(Some("http://127.0.0.1".to_owned()))
        );
        assert_eq!(
            host(&["a2a", "https://agent", "--host", "gw:8443"]),
            Ok(Some("https://gw:8443".to_owned()))
        );
        assert_eq!(
            host(&["a2a", "https://agent", "--host", "http://gw"]),
            Ok(Some("http://gw".to_owned()))
        );
        assert_eq!(host(&["a2a", "http://agent"]), Ok(None));
        assert_eq!(
            host(&["a2a", "http://agent", "--port", "8080"]),
            Err(clap::error::ErrorKind::MissingRequiredArgument)
        );
    }
}
