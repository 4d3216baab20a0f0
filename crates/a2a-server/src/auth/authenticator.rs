//! [`Authenticator`]: the card's requirements paired with what checks each scheme, applied to
//! every request: requirements are alternatives (OR), the schemes of one requirement must all
//! pass (AND), each with its scopes.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_types::card::{ApiKeyLocation, SecuritySchemeKind};
use a2a_types::{A2aError, AgentCard, ErrorKind};
use http::StatusCode;
use http::header::HeaderValue;
use http::request::Parts;

use super::credentials::{Bearer, Presented};
use super::profile::{CallerProfile, CredentialKind};
use super::token::TokenVerifier;
use super::{AuthConfigError, Authentication, StaticCredential};

/// How one scheme of the card is checked.
#[derive(Debug, Clone)]
enum Method {
    /// An API key at a location, compared with the configured keys.
    ApiKey {
        location: Location,
        name: String,
        keys: Arc<[StaticCredential]>,
    },
    /// `Authorization: Bearer`: static tokens first, then the verifier.
    Bearer {
        tokens: Arc<[StaticCredential]>,
        verifier: Option<Arc<dyn TokenVerifier>>,
    },
    /// A client certificate verified by the TLS layer.
    Certificate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Location {
    Header,
    Query,
    Cookie,
}

/// One scheme of a requirement, with the scopes that requirement asks of it.
#[derive(Debug, Clone)]
struct Check {
    scheme: String,
    scopes: Vec<String>,
}

/// The result of checking one scheme.
#[derive(Debug, Clone)]
enum Outcome {
    /// Passed; the caller it names.
    Pass(CallerProfile),
    /// No credential for this scheme was presented.
    Missing,
    /// A credential was presented and refused, for this reason.
    Invalid(String),
}

/// A refused request: the error for the body, its status, and the challenges.
#[derive(Debug, Clone)]
pub(crate) struct AuthFailure {
    /// Authentication (401) or Authorization (403, missing scope).
    pub(crate) error: A2aError,
    /// 401 or 403.
    pub(crate) status: StatusCode,
    /// `WWW-Authenticate` values.
    pub(crate) challenges: Vec<HeaderValue>,
}

/// Authenticates requests for one card.
#[derive(Debug, Clone)]
pub(crate) struct Authenticator {
    /// `None` when authentication is disabled.
    rules: Option<Rules>,
}

#[derive(Debug, Clone)]
struct Rules {
    schemes: HashMap<String, Method>,
    /// The alternatives; empty means nothing is accepted (fail closed).
    alternatives: Vec<Vec<Check>>,
    realm: String,
}

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
        let api_keys: Arc<[StaticCredential]> = config.api_keys.clone().into();
        let bearer_tokens: Arc<[StaticCredential]> = config.bearer_tokens.clone().into();
        let mut schemes = HashMap::new();
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
                        keys: Arc::clone(&api_keys),
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
                        tokens: Arc::clone(&bearer_tokens),
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
                        tokens: Arc::from(Vec::new()),
                        verifier: Some(verifier),
                    }
                }
                SecuritySchemeKind::MutualTls(_) => Method::Certificate,
            };
            schemes.insert(name.clone(), method);
        }
        let alternatives = if card.security_requirements.is_empty() {
            // Schemes without requirements: each scheme alone is enough.
            card.security_schemes
                .keys()
                .map(|name| {
                    vec![Check {
                        scheme: name.clone(),
                        scopes: Vec::new(),
                    }]
                })
                .collect()
        } else {
            let mut alternatives = Vec::new();
            for requirement in &card.security_requirements {
                let mut checks = Vec::new();
                for (name, scopes) in &requirement.schemes {
                    if !schemes.contains_key(name) {
                        return Err(AuthConfigError::UnknownScheme(name.clone()));
                    }
                    checks.push(Check {
                        scheme: name.clone(),
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

    /// True when authentication is on.
    pub(crate) fn is_enabled(&self) -> bool {
        self.rules.is_some()
    }

    /// The caller of a request; `Ok(None)` when authentication is disabled.
    pub(crate) async fn authenticate(
        &self,
        parts: &Parts,
    ) -> Result<Option<Arc<CallerProfile>>, AuthFailure> {
        let Some(rules) = &self.rules else {
            return Ok(None);
        };
        let presented = Presented::of(parts);
        let mut outcomes: HashMap<&str, Outcome> = HashMap::new();
        let mut scope_shortfall: Option<Vec<String>> = None;
        for alternative in &rules.alternatives {
            let mut profiles = Vec::new();
            let mut passed = true;
            for check in alternative {
                let outcome = match outcomes.get(check.scheme.as_str()) {
                    Some(outcome) => outcome.clone(),
                    None => {
                        let outcome = match rules.schemes.get(&check.scheme) {
                            Some(method) => run(&check.scheme, method, &presented).await,
                            None => Outcome::Missing,
                        };
                        outcomes.insert(&check.scheme, outcome.clone());
                        outcome
                    }
                };
                match outcome {
                    Outcome::Pass(profile) => {
                        if !profile.has_scopes(&check.scopes) {
                            let missing: Vec<String> = check
                                .scopes
                                .iter()
                                .filter(|scope| !profile.scopes.contains(scope))
                                .cloned()
                                .collect();
                            scope_shortfall.get_or_insert(missing);
                            passed = false;
                        }
                        profiles.push(profile);
                    }
                    Outcome::Missing | Outcome::Invalid(_) => passed = false,
                }
            }
            if passed {
                return Ok(Some(Arc::new(strongest(profiles))));
            }
        }
        Err(rules.failure(
            &outcomes,
            scope_shortfall.as_deref(),
            presented.has_authorization(),
        ))
    }
}

impl Rules {
    /// The refusal: 403 when a valid token lacked a scope, else 401 naming what failed.
    fn failure(
        &self,
        outcomes: &HashMap<&str, Outcome>,
        scope_shortfall: Option<&[String]>,
        had_authorization: bool,
    ) -> AuthFailure {
        let invalid = outcomes.iter().find_map(|(scheme, outcome)| match outcome {
            Outcome::Invalid(reason) => Some((*scheme, reason.as_str())),
            Outcome::Pass(_) | Outcome::Missing => None,
        });
        if let (Some(missing), None) = (scope_shortfall, invalid) {
            let scopes = missing.join(" ");
            let error = A2aError::new(
                ErrorKind::Authorization,
                format!("the token does not grant the required scope(s): {scopes}"),
            );
            let challenge = format!(
                "Bearer realm=\"{}\", error=\"insufficient_scope\", scope=\"{}\"",
                self.realm,
                quoted(&scopes)
            );
            return AuthFailure {
                error,
                status: StatusCode::FORBIDDEN,
                challenges: HeaderValue::from_str(&challenge).into_iter().collect(),
            };
        }
        let message = match invalid {
            Some((scheme, reason)) => format!("authentication failed ({scheme}): {reason}"),
            None if self.alternatives.is_empty() => {
                "authentication required, and this agent accepts no credentials".to_owned()
            }
            None if had_authorization => {
                "authentication required: the Authorization header is not a credential this agent accepts"
                    .to_owned()
            }
            None => format!("authentication required: present {}", self.accepted()),
        };
        let token_refused = invalid.is_some_and(|(scheme, _)| {
            matches!(self.schemes.get(scheme), Some(Method::Bearer { .. }))
        });
        AuthFailure {
            error: A2aError::new(ErrorKind::Authentication, message),
            status: StatusCode::UNAUTHORIZED,
            challenges: self.challenges(token_refused),
        }
    }

    /// The accepted credentials, for people: "an API key in header X-API-Key or a bearer token".
    fn accepted(&self) -> String {
        let mut kinds: Vec<String> = Vec::new();
        for alternative in &self.alternatives {
            let parts: Vec<String> = alternative
                .iter()
                .filter_map(|check| self.schemes.get(&check.scheme))
                .map(|method| match method {
                    Method::ApiKey { location, name, .. } => {
                        let place = match location {
                            Location::Header => "header",
                            Location::Query => "query parameter",
                            Location::Cookie => "cookie",
                        };
                        format!("an API key in {place} {name}")
                    }
                    Method::Bearer { .. } => "a bearer token".to_owned(),
                    Method::Certificate => "a client certificate".to_owned(),
                })
                .collect();
            let text = parts.join(" and ");
            if !kinds.contains(&text) {
                kinds.push(text);
            }
        }
        kinds.join(", or ")
    }

    /// One `WWW-Authenticate` value per kind of accepted scheme, so a 401 names every accepted
    /// scheme.
    fn challenges(&self, token_refused: bool) -> Vec<HeaderValue> {
        let mut values: Vec<String> = Vec::new();
        let mut names: Vec<&String> = self.schemes.keys().collect();
        names.sort();
        for name in names {
            let challenge = match &self.schemes[name] {
                Method::Bearer { .. } if token_refused => {
                    format!("Bearer realm=\"{}\", error=\"invalid_token\"", self.realm)
                }
                Method::Bearer { .. } => format!("Bearer realm=\"{}\"", self.realm),
                Method::ApiKey { location, name, .. } => {
                    let place = match location {
                        Location::Header => "header",
                        Location::Query => "query",
                        Location::Cookie => "cookie",
                    };
                    format!(
                        "ApiKey realm=\"{}\", in=\"{place}\", name=\"{}\"",
                        self.realm,
                        quoted(name)
                    )
                }
                Method::Certificate => format!("MutualTLS realm=\"{}\"", self.realm),
            };
            if !values.contains(&challenge) {
                values.push(challenge);
            }
        }
        if values.is_empty() {
            values.push(format!("Bearer realm=\"{}\"", self.realm));
        }
        values
            .iter()
            .filter_map(|value| HeaderValue::from_str(value).ok())
            .collect()
    }
}

/// Checks one scheme's credential.
async fn run(scheme: &str, method: &Method, presented: &Presented<'_>) -> Outcome {
    match method {
        Method::ApiKey {
            location,
            name,
            keys,
        } => {
            let value: Option<std::borrow::Cow<'_, [u8]>> = match location {
                Location::Header => presented.header(name).map(std::borrow::Cow::Borrowed),
                Location::Query => presented
                    .query(name)
                    .map(|value| std::borrow::Cow::Owned(value.into_bytes())),
                Location::Cookie => presented
                    .cookie(name)
                    .map(|value| std::borrow::Cow::Borrowed(value.as_bytes())),
            };
            let Some(value) = value else {
                return Outcome::Missing;
            };
            match matching(keys, &value) {
                Some(key) => Outcome::Pass(CallerProfile::static_credential(
                    scheme,
                    CredentialKind::ApiKey,
                    key.caller.as_deref(),
                )),
                None => Outcome::Invalid("the API key is not valid".to_owned()),
            }
        }
        Method::Bearer { tokens, verifier } => {
            let token = match presented.bearer() {
                Bearer::Absent => return Outcome::Missing,
                Bearer::Malformed => {
                    return Outcome::Invalid(
                        "the Authorization header is not a valid bearer token".to_owned(),
                    );
                }
                Bearer::Token(token) => token,
            };
            if let Some(credential) = matching(tokens, token.as_bytes()) {
                return Outcome::Pass(CallerProfile::static_credential(
                    scheme,
                    CredentialKind::StaticToken,
                    credential.caller.as_deref(),
                ));
            }
            let Some(verifier) = verifier else {
                return Outcome::Invalid("the bearer token is not valid".to_owned());
            };
            match verifier.verify(token).await {
                Ok(verified) => match CallerProfile::from_token(scheme, verified) {
                    Some(profile) => Outcome::Pass(profile),
                    None => Outcome::Invalid(
                        "the token names no subject, username or client".to_owned(),
                    ),
                },
                Err(error) => {
                    tracing::debug!(scheme, %error, "token refused");
                    Outcome::Invalid(error.to_string())
                }
            }
        }
        Method::Certificate => match presented.certificate() {
            None => Outcome::Missing,
            Some(certificate) => match certificate.identity() {
                Ok(identity) => Outcome::Pass(CallerProfile::from_certificate(
                    scheme,
                    &identity.issuer,
                    &identity.subject,
                )),
                Err(error) => Outcome::Invalid(error.to_string()),
            },
        },
    }
}

/// The configured credential equal to `presented`; every one is compared, so the time
/// taken does not say which matched.
fn matching<'a>(
    credentials: &'a [StaticCredential],
    presented: &[u8],
) -> Option<&'a StaticCredential> {
    let mut found = None;
    for credential in credentials {
        if credential.secret.matches(presented) && found.is_none() {
            found = Some(credential);
        }
    }
    found
}

/// The profile that names the caller when one requirement combines schemes: an issued
/// token, else a certificate, else a static credential, whatever the order of the schemes.
fn strongest(profiles: Vec<CallerProfile>) -> CallerProfile {
    let rank = |profile: &CallerProfile| match profile.kind {
        CredentialKind::IssuedToken => 0,
        CredentialKind::Certificate => 1,
        CredentialKind::ApiKey | CredentialKind::StaticToken => 2,
    };
    let mut best: Option<CallerProfile> = None;
    for profile in profiles {
        best = match best {
            Some(current) if rank(&current) <= rank(&profile) => Some(current),
            Some(_) | None => Some(profile),
        };
    }
    // An alternative always has at least one check, so at least one profile passed.
    best.unwrap_or_else(|| CallerProfile::static_credential("", CredentialKind::ApiKey, None))
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

/// `value` fit for a quoted-string.
fn quoted(value: &str) -> String {
    value
        .chars()
        .filter(|c| (c.is_ascii_graphic() || *c == ' ') && *c != '"' && *c != '\\')
        .collect()
}
