//! The credential flags of the commands that call agents: an API key, a bearer token, or
//! OAuth 2.0 client credentials, of which clap lets one be given.

use crate::secret::Secret;

/// `--api-key`, `--bearer` or `--oauth-client-id` with its secret, as each command that calls
/// agents takes them (flattened under the command's own help heading).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct CredentialArgs {
    /// Send this API key (see --api-key-header)
    #[arg(long, value_name = "KEY", env = "A2A_API_KEY", hide_env_values = true,
          conflicts_with_all = ["bearer", "oauth_client_id"])]
    pub(crate) api_key: Option<Secret>,

    /// The header that carries --api-key [default: the card's API-key scheme, else Authorization; X-API-Key in the inspector]
    #[arg(long, value_name = "NAME", requires = "api_key")]
    pub(crate) api_key_header: Option<String>,

    /// Send `Authorization: Bearer TOKEN`
    #[arg(
        long,
        value_name = "TOKEN",
        env = "A2A_BEARER_TOKEN",
        hide_env_values = true,
        conflicts_with = "oauth_client_id"
    )]
    pub(crate) bearer: Option<Secret>,

    /// OAuth 2.0 client-credentials: the client id (with --oauth-client-secret)
    #[arg(long, value_name = "ID", requires = "oauth_client_secret")]
    pub(crate) oauth_client_id: Option<String>,

    /// OAuth 2.0 client-credentials: the client secret
    #[arg(
        long,
        value_name = "SECRET",
        env = "A2A_OAUTH_CLIENT_SECRET",
        hide_env_values = true,
        requires = "oauth_client_id"
    )]
    pub(crate) oauth_client_secret: Option<Secret>,

    /// OAuth 2.0 token endpoint [default: the card's client-credentials flow]
    #[arg(long, value_name = "URL", requires = "oauth_client_id")]
    pub(crate) oauth_token_url: Option<String>,

    /// OAuth 2.0 scope to ask for (repeatable)
    #[arg(long, value_name = "SCOPE", requires = "oauth_client_id")]
    pub(crate) oauth_scope: Vec<String>,
}

/// The one kind of credentials the flags name.
#[derive(Debug)]
pub(crate) enum Chosen<'a> {
    /// `--api-key`, in `--api-key-header` when given.
    ApiKey {
        key: &'a Secret,
        header: Option<&'a str>,
    },
    /// `--bearer`.
    Bearer(&'a Secret),
    /// `--oauth-client-id` and `--oauth-client-secret`, with the token URL and scopes.
    OAuth2 {
        client_id: &'a str,
        client_secret: &'a Secret,
        token_url: Option<&'a str>,
        scopes: &'a [String],
    },
}

impl CredentialArgs {
    /// The credentials given, if any (clap makes the kinds exclusive).
    pub(crate) fn chosen(&self) -> Option<Chosen<'_>> {
        if let Some(key) = &self.api_key {
            return Some(Chosen::ApiKey {
                key,
                header: self.api_key_header.as_deref(),
            });
        }
        if let Some(token) = &self.bearer {
            return Some(Chosen::Bearer(token));
        }
        match (&self.oauth_client_id, &self.oauth_client_secret) {
            (Some(client_id), Some(client_secret)) => Some(Chosen::OAuth2 {
                client_id,
                client_secret,
                token_url: self.oauth_token_url.as_deref(),
                scopes: &self.oauth_scope,
            }),
            _ => None,
        }
    }
}
