//! Preparing a card's requirements once, when the server is built.

use std::sync::Arc;

use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, SecuritySchemeKind};
use http::HeaderName;

use super::super::profile::{CallerProfile, CredentialKind};
use super::super::{AuthConfigError, Authentication, StaticCredential};
use super::rules::{Authenticator, Check, Known, Location, Method, Rules, Scheme};

impl Authenticator {
    /// Pairs the card's schemes with `config`, refusing a declared scheme nothing checks.
    pub(crate) fn new(card: &AgentCard, config: &Authentication) -> Result<Self, AuthConfigError> {
        if config.disabled {
            tracing::warn!(
                "authentication is disabled: every caller is served and callers share tasks"
            );
            return Ok(Self { rules: None });
        }
        if config
            .api_keys
            .iter()
            .chain(&config.bearer_tokens)
            .any(|credential| credential.secret.is_empty())
        {
            return Err(AuthConfigError::EmptySecret);
        }
        let api_keys = &config.api_keys;
        let bearer_tokens = &config.bearer_tokens;
        let mut schemes = Vec::new();
        for (name, scheme) in &card.security_schemes {
            let method = match &scheme.scheme {
                SecuritySchemeKind::ApiKey(api_key) => {
                    if api_keys.is_empty() {
                        return Err(nothing_checks(name, "configure an API key"));
                    }
                    let location = match api_key.location {
                        ApiKeyLocation::Header => Location::Header,
                        ApiKeyLocation::Query => Location::Query,
                        ApiKeyLocation::Cookie => Location::Cookie,
                        other => {
                            return Err(AuthConfigError::Unsupported {
                                scheme: name.clone(),
                                reason: format!("API keys in {other:?} are not supported"),
                            });
                        }
                    };
                    if api_key.name.is_empty() {
                        return Err(AuthConfigError::Unsupported {
                            scheme: name.clone(),
                            reason: "the API key scheme names no header, parameter or cookie"
                                .to_owned(),
                        });
                    }
                    Method::ApiKey {
                        location,
                        name: api_key.name.clone(),
                        header: HeaderName::from_bytes(api_key.name.as_bytes()).ok(),
                        keys: known(name, CredentialKind::ApiKey, api_keys),
                    }
                }
                SecuritySchemeKind::HttpAuth(http) => {
                    if !http.scheme.eq_ignore_ascii_case("bearer") {
                        return Err(AuthConfigError::Unsupported {
                            scheme: name.clone(),
                            reason: format!(
                                "HTTP `{}` authentication is not supported; use Bearer",
                                http.scheme
                            ),
                        });
                    }
                    let verifier = config.verifier_for(name);
                    if bearer_tokens.is_empty() && verifier.is_none() {
                        return Err(nothing_checks(
                            name,
                            "configure a bearer token or a token verifier",
                        ));
                    }
                    Method::Bearer {
                        tokens: known(name, CredentialKind::StaticToken, bearer_tokens),
                        verifier,
                    }
                }
                SecuritySchemeKind::OAuth2(_) | SecuritySchemeKind::OpenIdConnect(_) => {
                    let Some(verifier) = config.verifier_for(name) else {
                        return Err(nothing_checks(
                            name,
                            "configure a token verifier (JWKS, OpenID Connect or introspection)",
                        ));
                    };
                    Method::Bearer {
                        tokens: Vec::new(),
                        verifier: Some(verifier),
                    }
                }
                SecuritySchemeKind::MutualTls(_) => Method::Certificate,
            };
            schemes.push(Scheme {
                name: name.clone(),
                method,
                kind: scheme_kind(&scheme.scheme),
            });
        }
        // By name: the challenges list them in this order.
        schemes.sort_by(|a, b| a.name.cmp(&b.name));
        let index = |name: &str| schemes.iter().position(|scheme| scheme.name == name);
        let alternatives = if card.security_requirements.is_empty() {
            // Schemes without requirements: each scheme alone is enough.
            card.security_schemes
                .keys()
                .filter_map(|name| index(name))
                .map(|scheme| {
                    vec![Check {
                        scheme,
                        scopes: Vec::new(),
                    }]
                })
                .collect()
        } else {
            let mut alternatives = Vec::new();
            for requirement in &card.security_requirements {
                let mut checks = Vec::new();
                for (name, scopes) in &requirement.schemes {
                    let Some(scheme) = index(name) else {
                        return Err(AuthConfigError::UnknownScheme(name.clone()));
                    };
                    checks.push(Check {
                        scheme,
                        scopes: scopes.list.clone(),
                    });
                }
                // An empty requirement would let anyone in: fail closed instead.
                if !checks.is_empty() {
                    alternatives.push(checks);
                }
            }
            alternatives
        };
        if alternatives.is_empty() {
            tracing::warn!(
                "authentication is on but the card accepts no credential: every operation is refused"
            );
        }
        Ok(Self {
            rules: Some(Rules {
                schemes,
                alternatives,
                realm: realm(&card.name),
            }),
        })
    }
}

/// The `scheme` label of a card's security scheme.
fn scheme_kind(scheme: &SecuritySchemeKind) -> &'static str {
    match scheme {
        SecuritySchemeKind::ApiKey(_) => "api_key",
        SecuritySchemeKind::HttpAuth(_) => "http_bearer",
        SecuritySchemeKind::OAuth2(_) => "oauth2",
        SecuritySchemeKind::OpenIdConnect(_) => "openid_connect",
        SecuritySchemeKind::MutualTls(_) => "mtls",
    }
}

/// What `scheme` accepts of `credentials`: each one's digest, and the caller it names.
fn known(scheme: &str, kind: CredentialKind, credentials: &[StaticCredential]) -> Vec<Known> {
    credentials
        .iter()
        .map(|credential| Known {
            digest: credential.secret.digest(),
            profile: Arc::new(CallerProfile::static_credential(
                scheme,
                kind,
                credential.caller.as_deref(),
            )),
        })
        .collect()
}

fn nothing_checks(scheme: &str, hint: &'static str) -> AuthConfigError {
    AuthConfigError::NothingChecks {
        scheme: scheme.to_owned(),
        hint,
    }
}

/// The card's name as a realm: printable ASCII only, quotes and backslashes dropped.
fn realm(name: &str) -> String {
    let realm: String = name
        .chars()
        .filter(|c| c.is_ascii_graphic() || *c == ' ')
        .filter(|c| *c != '"' && *c != '\\')
        .take(100)
        .collect();
    if realm.trim().is_empty() {
        "a2a".to_owned()
    } else {
        realm
    }
}
