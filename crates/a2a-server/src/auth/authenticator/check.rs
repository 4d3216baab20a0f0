//! Authenticating one request against a card's prepared requirements.

use std::sync::Arc;

use http::request::Parts;

use super::super::credentials::{Bearer, Presented};
use super::super::profile::{CallerProfile, CredentialKind};
use super::super::secret::{digest, same_digest};
use super::refusal::AuthFailure;
use super::rules::{Authenticator, Known, Location, Method, Outcome, Scheme};

impl Authenticator {
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
