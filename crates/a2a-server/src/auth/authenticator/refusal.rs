//! The answer to a refused request: its error, its status and its `WWW-Authenticate` challenges.

use a2a_types::{A2aError, ErrorKind};
use http::StatusCode;
use http::header::HeaderValue;

use super::rules::{Location, Method, Outcome, Rules};

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

impl Rules {
    /// The refusal: 403 when a valid token lacked a scope, else 401 naming what failed.
    pub(super) fn failure(
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

/// `value` fit for a quoted-string.
fn quoted(value: &str) -> String {
    value
        .chars()
        .filter(|c| (c.is_ascii_graphic() || *c == ' ') && *c != '"' && *c != '\\')
        .collect()
}
