//! [`CallerProfile`]: who is calling, as authentication established it, and the identity its tasks
//! belong to.

use serde_json::{Map, Value};

use super::token::VerifiedToken;

/// How the caller proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CredentialKind {
    /// An API key the server holds.
    ApiKey,
    /// A static bearer token the server holds.
    StaticToken,
    /// A token someone else issued: a JWT or an introspected opaque token.
    IssuedToken,
    /// A client certificate checked by the TLS handshake.
    Certificate,
}

/// The authenticated caller: what the executor sees in its `RequestContext`, and what
/// scopes the caller's tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallerProfile {
    /// The card's name of the scheme that identified the caller.
    pub scheme: String,
    /// What kind of credential that was.
    pub kind: CredentialKind,
    /// The subject: `sub`, else `username`, else `client_id`/`azp`; the certificate's
    /// subject; the API key's or token's named caller. `None` for an unnamed static
    /// credential: every holder of those is one caller.
    pub subject: Option<String>,
    /// The token's or certificate's issuer.
    pub issuer: Option<String>,
    /// The token's audiences.
    pub audience: Vec<String>,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// The token's claims, as received; empty for other credentials.
    pub claims: Map<String, Value>,
    /// The stable identity tasks and push configs are owned by.
    identity: String,
}

impl CallerProfile {
    /// A caller holding a static credential; `caller` names it when the server gave the
    /// credential a name, else every holder of a static credential is the same caller.
    #[must_use]
    pub fn static_credential(scheme: &str, kind: CredentialKind, caller: Option<&str>) -> Self {
        let identity = match caller {
            Some(name) => encode(&["static", name]),
            None => encode(&["static"]),
        };
        Self {
            scheme: scheme.to_owned(),
            kind,
            subject: caller.map(str::to_owned),
            issuer: None,
            audience: Vec::new(),
            scopes: Vec::new(),
            claims: Map::new(),
            identity,
        }
    }

    /// A caller holding an issued token. Identity is issuer + `sub`, else issuer +
    /// `username`, else issuer + `client_id`/`azp`; `None` when the token
    /// names none of them, which authentication refuses.
    #[must_use]
    pub fn from_token(scheme: &str, token: VerifiedToken) -> Option<Self> {
        let issuer = token.issuer.clone().unwrap_or_default();
        let (field, subject) = [
            ("sub", &token.subject),
            ("username", &token.username),
            ("client_id", &token.client_id),
        ]
        .into_iter()
        .find_map(|(field, value)| {
            value
                .as_deref()
                .filter(|value| !value.is_empty())
                .map(|value| (field, value.to_owned()))
        })?;
        let identity = encode(&["token", &issuer, field, &subject]);
        Some(Self {
            scheme: scheme.to_owned(),
            kind: CredentialKind::IssuedToken,
            subject: Some(subject),
            issuer: token.issuer,
            audience: token.audience,
            scopes: token.scopes,
            claims: token.claims,
            identity,
        })
    }

    /// A caller presenting a client certificate with this subject, issued by `issuer`.
    #[must_use]
    pub fn from_certificate(scheme: &str, issuer: &str, subject: &str) -> Self {
        Self {
            scheme: scheme.to_owned(),
            kind: CredentialKind::Certificate,
            subject: Some(subject.to_owned()),
            issuer: Some(issuer.to_owned()),
            audience: Vec::new(),
            scopes: Vec::new(),
            claims: Map::new(),
            identity: encode(&["x509", issuer, subject]),
        }
    }

    /// The identity that owns this caller's tasks and push configs. Two profiles with the
    /// same identity are the same caller.
    #[must_use]
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// True when the caller was granted every scope in `required`.
    #[must_use]
    pub fn has_scopes(&self, required: &[String]) -> bool {
        required
            .iter()
            .all(|scope| self.scopes.iter().any(|granted| granted == scope))
    }
}

/// An unambiguous text for a tuple: a JSON array, so no issuer or subject can contain a
/// separator that makes two callers one.
fn encode(parts: &[&str]) -> String {
    serde_json::to_string(parts).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(issuer: &str, subject: Option<&str>, username: Option<&str>) -> VerifiedToken {
        VerifiedToken {
            issuer: Some(issuer.to_owned()),
            subject: subject.map(str::to_owned),
            username: username.map(str::to_owned),
            ..VerifiedToken::default()
        }
    }

    #[test]
    fn identity_prefers_sub_then_username_then_client_and_keeps_issuers_apart() {
        let by_sub = CallerProfile::from_token("oidc", token("https://a", Some("alice"), None));
        let by_name = CallerProfile::from_token("oidc", token("https://a", None, Some("alice")));
        let other_issuer =
            CallerProfile::from_token("oidc", token("https://b", Some("alice"), None));
        let (Some(by_sub), Some(by_name), Some(other_issuer)) = (by_sub, by_name, other_issuer)
        else {
            panic!("every token names a caller");
        };
        assert_ne!(by_sub.identity(), by_name.identity());
        assert_ne!(by_sub.identity(), other_issuer.identity());
        assert_eq!(by_sub.subject.as_deref(), Some("alice"));
        assert!(CallerProfile::from_token("oidc", token("https://a", None, None)).is_none());
        assert!(CallerProfile::from_token("oidc", token("https://a", Some(""), None)).is_none());
    }

    #[test]
    fn separators_cannot_merge_two_callers() {
        let one = CallerProfile::from_certificate("mtls", "CN=a\",\"b", "c");
        let two = CallerProfile::from_certificate("mtls", "CN=a", "b\",\"c");
        assert_ne!(one.identity(), two.identity());
    }

    #[test]
    fn unnamed_static_credentials_are_one_caller() {
        let key = CallerProfile::static_credential("apiKey", CredentialKind::ApiKey, None);
        let token = CallerProfile::static_credential("bearer", CredentialKind::StaticToken, None);
        assert_eq!(key.identity(), token.identity());
        let named = CallerProfile::static_credential("apiKey", CredentialKind::ApiKey, Some("ci"));
        assert_ne!(key.identity(), named.identity());
    }
}
