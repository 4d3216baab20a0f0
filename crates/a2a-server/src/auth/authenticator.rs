//! [`Authenticator`]: the card's requirements paired with what checks each scheme, applied to
//! every request: requirements are alternatives (OR), the schemes of one requirement must all
//! pass (AND), each with its scopes.
//!
//! Everything a request does not change is prepared once, when the server is built: the
//! schemes in a list the requirements index, API-key header names parsed, and for each
//! static credential its digest and the caller profile it names, which every request holding
//! it then shares.

use std::sync::Arc;

use a2a_types::card::{ApiKeyLocation, SecuritySchemeKind};
use a2a_types::{A2aError, AgentCard, ErrorKind};
use http::header::HeaderValue;
use http::request::Parts;
use http::{HeaderName, StatusCode};

use super::credentials::{Bearer, Presented};
use super::profile::{CallerProfile, CredentialKind};
use super::secret::{Digest, digest, same_digest};
use super::token::TokenVerifier;
use super::{AuthConfigError, Authentication, StaticCredential};

/// One scheme of the card and how it is checked.
#[derive(Debug, Clone)]
struct Scheme {
    /// Its name in the card.
    name: String,
    method: Method,
    /// Its type, as the `scheme` label of refused authentications counts it.
    kind: &'static str,
}

/// How one scheme of the card is checked.
#[derive(Debug, Clone)]
enum Method {
    /// An API key at a location, compared with the configured keys.
    ApiKey {
        location: Location,
        name: String,
        /// `name` as a header name, for [`Location::Header`]; `None` when it is not one,
        /// so no header can carry the key.
        header: Option<HeaderName>,
        keys: Vec<Known>,
    },
    /// `Authorization: Bearer`: static tokens first, then the verifier.
    Bearer {
        tokens: Vec<Known>,
        verifier: Option<Arc<dyn TokenVerifier>>,
    },
    /// A client certificate verified by the TLS layer.
    Certificate,
}

/// A configured API key or static token, as one scheme accepts it.
#[derive(Clone)]
struct Known {
    /// The SHA-256 of the secret.
    digest: Digest,
    /// The caller every request presenting it is.
    profile: Arc<CallerProfile>,
}

impl std::fmt::Debug for Known {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the digest: it would let anyone reading a log test guesses of a weak key.
        f.debug_struct("Known")
            .field("profile", &self.profile)
            .finish_non_exhaustive()
    }
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
    /// The scheme's index in [`Rules::schemes`].
    scheme: usize,
    scopes: Vec<String>,
}

/// The result of checking one scheme.
#[derive(Debug, Clone)]
enum Outcome {
    /// Passed; the caller it names.
    Pass(Arc<CallerProfile>),
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
    /// The card's schemes, by name.
    schemes: Vec<Scheme>,
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
        // Each scheme is checked at most once, however many requirements name it: its
        // outcome, by the scheme's index.
        let mut outcomes: Vec<Option<Outcome>> = vec![None; rules.schemes.len()];
        let mut scope_shortfall: Option<Vec<String>> = None;
        let mut scope_scheme: Option<usize> = None;
        for alternative in &rules.alternatives {
            let mut caller: Option<Arc<CallerProfile>> = None;
            let mut passed = true;
            for check in alternative {
                let Some(slot) = outcomes.get_mut(check.scheme) else {
                    passed = false;
                    continue;
                };
                if slot.is_none() {
                    let outcome = match rules.schemes.get(check.scheme) {
                        Some(scheme) => run(scheme, &presented).await,
                        None => Outcome::Missing,
                    };
                    *slot = Some(outcome);
                }
                match slot {
                    Some(Outcome::Pass(profile)) => {
                        if !profile.has_scopes(&check.scopes) {
                            let missing: Vec<String> = check
                                .scopes
                                .iter()
                                .filter(|scope| !profile.scopes.contains(scope))
                                .cloned()
                                .collect();
                            scope_shortfall.get_or_insert(missing);
                            scope_scheme.get_or_insert(check.scheme);
                            passed = false;
                        }
                        caller = Some(stronger(caller, profile));
                    }
                    Some(Outcome::Missing | Outcome::Invalid(_)) | None => passed = false,
                }
            }
            // An alternative always has at least one check, so a passed one names a caller.
            if passed && let Some(caller) = caller {
                return Ok(Some(caller));
            }
        }
        let invalid = rules
            .schemes
            .iter()
            .zip(&outcomes)
            .find_map(|(scheme, outcome)| {
                matches!(outcome, Some(Outcome::Invalid(_))).then_some(scheme.kind)
            });
        // The scheme that refused: the one whose token lacked a scope, else the first that
        // found a credential wrong; `none` when no scheme found a credential at all.
        let (reason, scheme) = match (scope_scheme, invalid) {
            (Some(index), _) => (
                "scope",
                rules
                    .schemes
                    .get(index)
                    .map_or("none", |scheme| scheme.kind),
            ),
            (None, Some(kind)) => ("invalid", kind),
            (None, None) => ("missing", "none"),
        };
        crate::metrics::authentication_failed(reason, scheme);
        Err(rules.failure(
            &outcomes,
            scope_shortfall.as_deref(),
            presented.has_authorization(),
        ))
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

impl Rules {
    /// The refusal: 403 when a valid token lacked a scope, else 401 naming what failed.
    fn failure(
        &self,
        outcomes: &[Option<Outcome>],
        scope_shortfall: Option<&[String]>,
        had_authorization: bool,
    ) -> AuthFailure {
        let invalid =
            self.schemes
                .iter()
                .zip(outcomes)
                .find_map(|(scheme, outcome)| match outcome {
                    Some(Outcome::Invalid(reason)) => Some((scheme, reason.as_str())),
                    Some(Outcome::Pass(_) | Outcome::Missing) | None => None,
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
            Some((scheme, reason)) => {
                format!("authentication failed ({}): {reason}", scheme.name)
            }
            None if self.alternatives.is_empty() => {
                "authentication required, and this agent accepts no credentials".to_owned()
            }
            None if had_authorization => {
                "authentication required: the Authorization header is not a credential this agent accepts"
                    .to_owned()
            }
            None => format!("authentication required: present {}", self.accepted()),
        };
        let token_refused =
            invalid.is_some_and(|(scheme, _)| matches!(scheme.method, Method::Bearer { .. }));
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
                .filter_map(|check| self.schemes.get(check.scheme))
                .map(|scheme| match &scheme.method {
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
        for scheme in &self.schemes {
            let challenge = match &scheme.method {
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
async fn run(scheme: &Scheme, presented: &Presented<'_>) -> Outcome {
    match &scheme.method {
        Method::ApiKey {
            location,
            name,
            header,
            keys,
        } => {
            let value: Option<std::borrow::Cow<'_, [u8]>> = match location {
                Location::Header => header
                    .as_ref()
                    .and_then(|header| presented.header(header))
                    .map(std::borrow::Cow::Borrowed),
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
                Some(key) => Outcome::Pass(Arc::clone(&key.profile)),
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
                return Outcome::Pass(Arc::clone(&credential.profile));
            }
            let Some(verifier) = verifier else {
                return Outcome::Invalid("the bearer token is not valid".to_owned());
            };
            match verifier.verify(token).await {
                Ok(verified) => match CallerProfile::from_token(&scheme.name, verified) {
                    Some(profile) => Outcome::Pass(Arc::new(profile)),
                    None => Outcome::Invalid(
                        "the token names no subject, username or client".to_owned(),
                    ),
                },
                Err(error) => {
                    tracing::debug!(scheme = scheme.name, %error, "token refused");
                    Outcome::Invalid(error.to_string())
                }
            }
        }
        Method::Certificate => match presented.certificate() {
            None => Outcome::Missing,
            Some(certificate) => match certificate.identity() {
                Ok(identity) => Outcome::Pass(Arc::new(CallerProfile::from_certificate(
                    &scheme.name,
                    &identity.issuer,
                    &identity.subject,
                ))),
                Err(error) => Outcome::Invalid(error.to_string()),
            },
        },
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

/// The configured credential equal to `presented`. It is hashed once and its digest compared
/// with every configured one, each comparison taking the same time, so the time taken says
/// neither which matched nor how much of one did.
fn matching<'a>(credentials: &'a [Known], presented: &[u8]) -> Option<&'a Known> {
    if credentials.is_empty() {
        return None;
    }
    let presented = digest(presented);
    let mut found = None;
    for credential in credentials {
        if same_digest(&credential.digest, &presented) && found.is_none() {
            found = Some(credential);
        }
    }
    found
}

/// The profile that names the caller when one requirement combines schemes: an issued
/// token, else a certificate, else a static credential, whatever the order of the schemes
/// (between two of a kind, the first).
fn stronger(current: Option<Arc<CallerProfile>>, next: &Arc<CallerProfile>) -> Arc<CallerProfile> {
    let rank = |profile: &CallerProfile| match profile.kind {
        CredentialKind::IssuedToken => 0,
        CredentialKind::Certificate => 1,
        CredentialKind::ApiKey | CredentialKind::StaticToken => 2,
    };
    match current {
        Some(current) if rank(&current) <= rank(next) => current,
        Some(_) | None => Arc::clone(next),
    }
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
