//! Per-agent credentials: what each agent is called with, from the command line or a TOML
//! file that maps agents to credentials.
//!
//! ```toml
//! # Keys: an agent's URL as given (or its gateway URL `GATEWAY/a2a/ID`), or its gateway id.
//! [agents."https://weather.example.com"]
//! bearer = "eyJhbGciOi..."
//!
//! [agents.billing]
//! api_key = "k-123"
//! api_key_header = "X-API-Key"
//!
//! [agents.reports.oauth]
//! client_id = "mcp-bridge"
//! client_secret = "..."
//! token_url = "https://auth.example.com/token"   # default: the card's client-credentials flow
//! scopes = ["reports.read"]
//! ```
//!
//! An agent the file names is called with the file's credentials only; the others with the
//! command line's. Secrets are never shown: `Debug` hides them and no error repeats them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use a2a_client::{ApiKeyPlacement, Credentials, OAuth2ClientCredentials};
use serde::Deserialize;

/// A value that must not be shown: `Debug` prints `<redacted>`, and there is no `Display`.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `value`.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for the one place that sends it.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How to authenticate to one agent: at most one kind of credential.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentCredentials {
    /// An API key, sent in [`api_key_header`](Self::api_key_header) or where the card says.
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// The header that carries the API key.
    #[serde(default)]
    pub api_key_header: Option<String>,
    /// A bearer token.
    #[serde(default)]
    pub bearer: Option<Secret>,
    /// OAuth 2.0 client credentials.
    #[serde(default)]
    pub oauth: Option<OAuthCredentials>,
}

/// OAuth 2.0 client credentials of one agent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthCredentials {
    /// The client id.
    pub client_id: String,
    /// The client secret.
    pub client_secret: Secret,
    /// The token endpoint; the card's client-credentials flow when absent.
    #[serde(default)]
    pub token_url: Option<String>,
    /// The scopes to ask for.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl AgentCredentials {
    /// The client library's credentials, or `None` when there are none.
    ///
    /// # Errors
    /// More than one kind of credential given for the same agent.
    pub fn to_client(&self) -> Result<Option<Credentials>, CredentialsError> {
        let kinds = [
            self.api_key.is_some(),
            self.bearer.is_some(),
            self.oauth.is_some(),
        ];
        if kinds.iter().filter(|given| **given).count() > 1 {
            return Err(CredentialsError::Ambiguous);
        }
        if let Some(key) = &self.api_key {
            let key = key.expose().to_owned();
            return Ok(Some(match &self.api_key_header {
                Some(header) => {
                    Credentials::api_key_in(key, ApiKeyPlacement::Header(header.clone()))
                }
                None => Credentials::api_key(key),
            }));
        }
        if let Some(token) = &self.bearer {
            return Ok(Some(Credentials::bearer(token.expose().to_owned())));
        }
        if let Some(oauth) = &self.oauth {
            let mut client = OAuth2ClientCredentials::new(
                oauth.client_id.clone(),
                oauth.client_secret.expose().to_owned(),
            )
            .scopes(oauth.scopes.iter().cloned());
            if let Some(url) = &oauth.token_url {
                client = client.token_url(url.clone());
            }
            return Ok(Some(Credentials::oauth2(client)));
        }
        Ok(None)
    }
}

/// The credentials file: agents (by URL or gateway id) to their credentials.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CredentialsFile {
    /// Each agent's credentials.
    #[serde(default)]
    pub agents: BTreeMap<String, AgentCredentials>,
}

impl CredentialsFile {
    /// Reads and checks the file at `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not valid TOML of this shape, or names more than one kind
    /// of credential for an agent. Messages give the place, never the file's values.
    pub fn load(path: &Path) -> Result<Self, CredentialsError> {
        let text = std::fs::read_to_string(path).map_err(|error| CredentialsError::Read {
            path: path.display().to_string(),
            reason: error.to_string(),
        })?;
        Self::parse(&text).map_err(|error| match error {
            CredentialsError::Invalid { reason, .. } => CredentialsError::Invalid {
                path: path.display().to_string(),
                reason,
            },
            other => other,
        })
    }

    /// Reads the file's text.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn parse(text: &str) -> Result<Self, CredentialsError> {
        let file: Self = toml::from_str(text).map_err(|error| {
            // toml's own message quotes the offending line, which may hold a secret: say
            // only what is wrong and on which line.
            let line = error
                .span()
                .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
            CredentialsError::Invalid {
                path: String::new(),
                reason: match line {
                    Some(line) => format!("line {line}: {}", error.message()),
                    None => error.message().to_owned(),
                },
            }
        })?;
        for (agent, credentials) in &file.agents {
            credentials
                .to_client()
                .map_err(|_| CredentialsError::Invalid {
                    path: String::new(),
                    reason: format!(
                        "agent {agent:?}: give one of api_key, bearer and oauth, not several"
                    ),
                })?;
        }
        Ok(file)
    }

    /// The credentials of the first of `keys` the file names.
    #[must_use]
    pub fn for_agent<'a>(
        &self,
        keys: impl IntoIterator<Item = &'a str>,
    ) -> Option<&AgentCredentials> {
        keys.into_iter().find_map(|key| {
            self.agents
                .get(key)
                .or_else(|| self.agents.get(key.trim_end_matches('/')))
        })
    }
}

/// Why credentials cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialsError {
    /// The file cannot be read.
    #[error("cannot read the credentials file {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The file is not a valid credentials file.
    #[error("the credentials file {path} is not valid: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, without the file's values.
        reason: String,
    },
    /// More than one kind of credential for one agent.
    #[error("give one of an API key, a bearer token and OAuth client credentials, not several")]
    Ambiguous,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn agents_are_found_by_url_or_id() {
        let file = CredentialsFile::parse(
            r#"
            [agents."http://127.0.0.1:9000"]
            bearer = "t-1"
            [agents.billing]
            api_key = "k-1"
            api_key_header = "X-API-Key"
            [agents.reports.oauth]
            client_id = "bridge"
            client_secret = "s-1"
            scopes = ["read"]
            "#,
        )
        .unwrap();
        let by_url = file.for_agent(["http://127.0.0.1:9000/"]).unwrap();
        assert_eq!(by_url.bearer.as_ref().unwrap().expose(), "t-1");
        let by_id = file
            .for_agent(["http://gw/a2a/billing", "billing"])
            .unwrap();
        assert_eq!(by_id.api_key_header.as_deref(), Some("X-API-Key"));
        assert!(file.for_agent(["reports"]).unwrap().oauth.is_some());
        assert!(file.for_agent(["nobody"]).is_none());
    }

    #[test]
    fn errors_never_quote_the_secrets() {
        let error = CredentialsFile::parse("[agents.a]\nbearer = 42\napi_key = \"sekrit\"\n")
            .unwrap_err()
            .to_string();
        assert!(!error.contains("sekrit"), "{error}");
        assert!(error.contains("line 2"), "{error}");
        let error = CredentialsFile::parse("[agents.a]\nbearer = \"sekrit\"\napi_key = \"k\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            !error.contains("sekrit") && error.contains("not several"),
            "{error}"
        );
        let error = CredentialsFile::parse("[agents.a]\nbearer = \"sekrit\nx").unwrap_err();
        assert!(!format!("{error} {error:?}").contains("sekrit"), "{error}");
    }

    #[test]
    fn debug_output_hides_secrets() {
        let credentials = AgentCredentials {
            bearer: Some(Secret::new("s3cr3t")),
            ..AgentCredentials::default()
        };
        assert!(!format!("{credentials:?}").contains("s3cr3t"));
    }
}
