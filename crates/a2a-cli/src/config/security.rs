//! The security options of `a2a serve`, checked: who may call ([`AuthSetting`]) and how the
//! connection is protected ([`TlsSetting`]).

use std::path::PathBuf;

use a2a_server::auth::Secret;

use super::ConfigError;
use super::options::ServeOptions;

/// The header an API key travels in when the card does not name one. Not `Authorization`
/// (the default of Apache Camel's A2A component), so a key and a bearer token can be
/// accepted side by side.
pub(crate) const DEFAULT_API_KEY_HEADER: &str = "X-API-Key";

/// Who may call: everyone (`--no-auth`), or holders of the configured
/// credentials. With none configured every operation is refused with 401.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AuthSetting {
    /// `--no-auth`: no authentication at all.
    Disabled,
    /// Fail closed: only the credentials below are accepted.
    Required(Box<Credentials>),
}

/// The credentials `a2a serve` accepts; all optional, any may be combined.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Credentials {
    /// A static API key and the header it travels in.
    pub(crate) api_key: Option<(Secret, String)>,
    /// A static bearer token.
    pub(crate) bearer_token: Option<Secret>,
    /// JWTs, verified against a JWKS.
    pub(crate) jwt: Option<JwtSetting>,
    /// Opaque tokens, checked by introspection.
    pub(crate) introspection: Option<IntrospectionSetting>,
    /// Scopes every issued token must grant.
    pub(crate) required_scopes: Vec<String>,
    /// Client certificates (mutual TLS) are accepted as credentials.
    pub(crate) client_certificates: bool,
}

impl Credentials {
    /// True when no credential at all is configured: every call will be refused.
    pub(crate) fn is_empty(&self) -> bool {
        self.api_key.is_none()
            && self.bearer_token.is_none()
            && self.jwt.is_none()
            && self.introspection.is_none()
            && !self.client_certificates
    }
}

/// Where JWT keys come from, and what the tokens must say.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JwtSetting {
    /// The key source.
    pub(crate) keys: JwtKeys,
    /// The accepted audience.
    pub(crate) audience: String,
}

/// A JWKS URL with its issuer, or an OpenID Connect issuer whose discovery names both.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JwtKeys {
    /// `--jwks-url` with `--issuer`.
    Jwks {
        /// The JWKS.
        url: String,
        /// The expected `iss`.
        issuer: String,
    },
    /// `--oidc-issuer`.
    Oidc {
        /// The issuer; discovery is at `{issuer}/.well-known/openid-configuration`.
        issuer: String,
    },
}

/// An RFC 7662 introspection endpoint and the client credentials to call it with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IntrospectionSetting {
    /// The endpoint.
    pub(crate) url: String,
    /// The client id.
    pub(crate) client_id: String,
    /// The client secret.
    pub(crate) client_secret: Secret,
    /// The accepted audience, when given.
    pub(crate) audience: Option<String>,
}

/// HTTPS: the server's certificate and key, and the CAs of accepted client certificates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSetting {
    /// The certificate chain (PEM).
    pub(crate) cert: PathBuf,
    /// Its private key (PEM).
    pub(crate) key: PathBuf,
    /// Client certificates issued by these CAs are accepted (mutual TLS).
    pub(crate) client_ca: Option<PathBuf>,
}

/// The checked TLS options.
pub(crate) fn tls(options: &ServeOptions) -> Result<Option<TlsSetting>, ConfigError> {
    match (&options.tls_cert, &options.tls_key) {
        (Some(cert), Some(key)) => Ok(Some(TlsSetting {
            cert: cert.clone(),
            key: key.clone(),
            client_ca: options.client_ca.clone(),
        })),
        (None, None) if options.client_ca.is_some() => Err(invalid(
            "client-ca",
            "mutual TLS needs HTTPS: give --tls-cert and --tls-key too",
        )),
        (None, None) => Ok(None),
        (Some(_), None) => Err(invalid("tls-cert", "needs --tls-key")),
        (None, Some(_)) => Err(invalid("tls-key", "needs --tls-cert")),
    }
}

/// The checked authentication options.
pub(crate) fn auth(options: &ServeOptions) -> Result<AuthSetting, ConfigError> {
    let credentials = credentials(options)?;
    if options.no_auth == Some(true) {
        if !credentials.is_empty() {
            return Err(invalid(
                "no-auth",
                "cannot be combined with credentials (--api-key, --bearer-token, --jwks-url, \
                 --oidc-issuer, --introspection-url, --client-ca)",
            ));
        }
        return Ok(AuthSetting::Disabled);
    }
    Ok(AuthSetting::Required(Box::new(credentials)))
}

fn credentials(options: &ServeOptions) -> Result<Credentials, ConfigError> {
    let api_key = match &options.api_key {
        Some(key) if key.is_empty() => return Err(invalid("api-key", "must not be empty")),
        Some(key) => {
            let header = options
                .api_key_header
                .as_deref()
                .map(str::trim)
                .unwrap_or(DEFAULT_API_KEY_HEADER);
            if http::HeaderName::from_bytes(header.as_bytes()).is_err() {
                return Err(invalid(
                    "api-key-header",
                    format!("`{header}` is not a header name"),
                ));
            }
            Some((key.clone(), header.to_owned()))
        }
        None if options.api_key_header.is_some() => {
            return Err(invalid("api-key-header", "needs --api-key"));
        }
        None => None,
    };
    let bearer_token = match &options.bearer_token {
        Some(token) if token.is_empty() => {
            return Err(invalid("bearer-token", "must not be empty"));
        }
        other => other.clone(),
    };
    let audience = options
        .audience
        .as_deref()
        .map(str::trim)
        .filter(|audience| !audience.is_empty());
    let jwt = match (&options.jwks_url, &options.oidc_issuer) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "jwks-url",
                "give either --jwks-url (with --issuer) or --oidc-issuer, not both",
            ));
        }
        (Some(url), None) => {
            let issuer = options.issuer.as_deref().map(str::trim).unwrap_or_default();
            if issuer.is_empty() {
                return Err(invalid(
                    "jwks-url",
                    "needs --issuer, the `iss` tokens carry",
                ));
            }
            Some(JwtKeys::Jwks {
                url: http_url("jwks-url", url)?,
                issuer: issuer.to_owned(),
            })
        }
        (None, Some(issuer)) => Some(JwtKeys::Oidc {
            issuer: http_url("oidc-issuer", issuer)?,
        }),
        (None, None) => {
            if options.issuer.is_some() {
                return Err(invalid("issuer", "applies to --jwks-url only"));
            }
            None
        }
    };
    let jwt = match (jwt, audience) {
        (Some(keys), Some(audience)) => Some(JwtSetting {
            keys,
            audience: audience.to_owned(),
        }),
        (Some(_), None) => {
            return Err(invalid(
                "audience",
                "is required with --jwks-url or --oidc-issuer: tokens for other services must not work here",
            ));
        }
        (None, _) => None,
    };
    let introspection = match &options.introspection_url {
        Some(url) => {
            let client_id = options
                .introspection_client_id
                .clone()
                .filter(|id| !id.is_empty())
                .ok_or_else(|| invalid("introspection-url", "needs --introspection-client-id"))?;
            let client_secret = options
                .introspection_client_secret
                .clone()
                .filter(|secret| !secret.is_empty())
                .ok_or_else(|| {
                    invalid("introspection-url", "needs --introspection-client-secret")
                })?;
            Some(IntrospectionSetting {
                url: http_url("introspection-url", url)?,
                client_id,
                client_secret,
                audience: audience.map(str::to_owned),
            })
        }
        None => {
            if options.introspection_client_id.is_some()
                || options.introspection_client_secret.is_some()
            {
                return Err(invalid(
                    "introspection-client-id",
                    "applies to --introspection-url only",
                ));
            }
            None
        }
    };
    let required_scopes: Vec<String> = options
        .required_scopes
        .as_deref()
        .unwrap_or_default()
        .split([',', ' '])
        .map(str::trim)
        .filter(|scope| !scope.is_empty())
        .map(str::to_owned)
        .collect();
    if !required_scopes.is_empty() && jwt.is_none() && introspection.is_none() {
        return Err(invalid(
            "required-scopes",
            "applies to issued tokens: give --jwks-url, --oidc-issuer or --introspection-url",
        ));
    }
    Ok(Credentials {
        api_key,
        bearer_token,
        jwt,
        introspection,
        required_scopes,
        client_certificates: options.client_ca.is_some(),
    })
}

fn http_url(option: &'static str, value: &str) -> Result<String, ConfigError> {
    let value = value.trim();
    match url::Url::parse(value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {
            Ok(value.trim_end_matches('/').to_owned())
        }
        Ok(_) | Err(_) => Err(invalid(
            option,
            format!("`{value}` is not an http:// or https:// URL"),
        )),
    }
}

fn invalid(option: &'static str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        option,
        message: message.into(),
    }
}
