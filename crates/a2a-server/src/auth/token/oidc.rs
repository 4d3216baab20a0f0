//! OpenID Connect discovery: where an issuer publishes its keys. The document must name the
//! issuer we expect (OpenID Connect Discovery 1.0 §4.3), or its keys are not used.

use std::sync::Arc;

use url::Url;

use super::{TokenConfigError, TokenError};

/// The path an issuer's discovery document lives under.
pub(super) const WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// Where to discover and which issuer the document must name.
#[derive(Debug, Clone)]
pub(super) struct DiscoveryTarget {
    url: Url,
    /// `None` when neither the configuration nor the URL says; the document's issuer is
    /// then taken as it is.
    expected_issuer: Option<String>,
}

impl DiscoveryTarget {
    /// Discovery under `issuer`: `{issuer}/.well-known/openid-configuration`. The document
    /// must name `configured` when given, else `issuer` itself.
    pub(super) fn for_issuer(
        issuer: &Url,
        configured: Option<&str>,
    ) -> Result<Self, TokenConfigError> {
        let invalid = TokenConfigError::InvalidUrl {
            what: "the OpenID Connect issuer",
        };
        if !is_http(issuer) || issuer.query().is_some() || issuer.fragment().is_some() {
            return Err(invalid);
        }
        let base = issuer.as_str().trim_end_matches('/');
        let url = Url::parse(&format!("{base}{WELL_KNOWN}")).map_err(|_| invalid)?;
        Ok(Self {
            url,
            expected_issuer: Some(configured.unwrap_or(base).to_owned()),
        })
    }

    /// Discovery at a full document URL, such as a card's `openIdConnectUrl`. The document
    /// must name `configured` when given, else the URL's prefix before the well-known path.
    pub(super) fn for_document(
        url: Url,
        configured: Option<&str>,
    ) -> Result<Self, TokenConfigError> {
        if !is_http(&url) {
            return Err(TokenConfigError::InvalidUrl {
                what: "the OpenID Connect discovery url",
            });
        }
        let expected_issuer = configured.map(str::to_owned).or_else(|| {
            if url.query().is_some() || url.fragment().is_some() {
                return None;
            }
            url.as_str().strip_suffix(WELL_KNOWN).map(str::to_owned)
        });
        Ok(Self {
            url,
            expected_issuer,
        })
    }
}

fn is_http(url: &Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host().is_some()
}

/// What discovery found.
#[derive(Debug, Clone)]
pub(super) struct Provider {
    /// The issuer, exactly as the document spells it: tokens must carry this `iss`.
    pub(super) issuer: Arc<str>,
    pub(super) jwks_uri: Url,
}

/// Fetches and checks the discovery document.
///
/// # Errors
/// [`TokenError::Unavailable`] when it cannot be fetched or read, names another issuer, or
/// has no usable `jwks_uri`.
pub(super) async fn discover(
    http: &reqwest::Client,
    target: &DiscoveryTarget,
    limit: usize,
) -> Result<Provider, TokenError> {
    #[derive(serde::Deserialize)]
    struct Metadata {
        issuer: String,
        jwks_uri: String,
    }

    let unavailable =
        |why: &str| TokenError::Unavailable(format!("OpenID Connect discovery failed: {why}"));
    let request = http
        .get(target.url.clone())
        .header(http::header::ACCEPT, "application/json");
    let response = super::http::send_checked(request)
        .await
        .map_err(|why| unavailable(&why))?;
    let body = super::http::read_limited(response, limit)
        .await
        .map_err(unavailable)?;
    let metadata: Metadata = serde_json::from_slice(&body)
        .map_err(|_| unavailable("the provider configuration is invalid"))?;
    if let Some(expected) = &target.expected_issuer
        && !same_issuer(expected, &metadata.issuer)
    {
        tracing::warn!(
            expected = %expected,
            found = %metadata.issuer,
            "the OpenID provider names another issuer; its keys are not used"
        );
        return Err(unavailable("the provider names another issuer"));
    }
    let jwks_uri = Url::parse(&metadata.jwks_uri)
        .ok()
        .filter(|uri| {
            // No downgrade: keys found over https are fetched over https.
            is_http(uri) && (uri.scheme() == "https" || target.url.scheme() == "http")
        })
        .ok_or_else(|| unavailable("the provider's jwks_uri is not a usable url"))?;
    Ok(Provider {
        issuer: metadata.issuer.into(),
        jwks_uri,
    })
}

/// Issuers compare exactly, except that one trailing slash is ignored: a configured URL
/// gains one when parsed, and providers differ in whether they write it.
fn same_issuer(expected: &str, found: &str) -> bool {
    let trim = |issuer: &str| issuer.strip_suffix('/').unwrap_or(issuer).to_owned();
    trim(expected) == trim(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_url_of_an_issuer() {
        let cases = [
            (
                "https://idp.example.com",
                "https://idp.example.com/.well-known/openid-configuration",
                "https://idp.example.com",
            ),
            (
                "https://idp.example.com/realms/a2a/",
                "https://idp.example.com/realms/a2a/.well-known/openid-configuration",
                "https://idp.example.com/realms/a2a",
            ),
        ];
        for (issuer, url, expected) in cases {
            let target = DiscoveryTarget::for_issuer(&Url::parse(issuer).unwrap(), None).unwrap();
            assert_eq!(target.url.as_str(), url);
            assert_eq!(target.expected_issuer.as_deref(), Some(expected));
        }
        let configured = DiscoveryTarget::for_issuer(
            &Url::parse("https://idp.example.com").unwrap(),
            Some("https://idp.example.com/"),
        )
        .unwrap();
        assert_eq!(
            configured.expected_issuer.as_deref(),
            Some("https://idp.example.com/")
        );
        for bad in ["https://idp.example.com/?tenant=1", "ftp://idp.example.com"] {
            assert!(DiscoveryTarget::for_issuer(&Url::parse(bad).unwrap(), None).is_err());
        }
    }

    #[test]
    fn issuer_of_a_discovery_document_url() {
        let url = |text: &str| Url::parse(text).unwrap();
        let target = DiscoveryTarget::for_document(
            url("https://login.example.com/tenant/v2.0/.well-known/openid-configuration"),
            None,
        )
        .unwrap();
        assert_eq!(
            target.expected_issuer.as_deref(),
            Some("https://login.example.com/tenant/v2.0")
        );
        let elsewhere =
            DiscoveryTarget::for_document(url("https://idp.example.com/oidc.json"), None).unwrap();
        assert_eq!(elsewhere.expected_issuer, None);
        let configured = DiscoveryTarget::for_document(
            url("https://idp.example.com/oidc.json"),
            Some("https://idp.example.com"),
        )
        .unwrap();
        assert_eq!(
            configured.expected_issuer.as_deref(),
            Some("https://idp.example.com")
        );
    }

    #[test]
    fn issuers_compare_exactly_but_for_one_trailing_slash() {
        assert!(same_issuer("https://a.example", "https://a.example/"));
        assert!(same_issuer("https://a.example/", "https://a.example"));
        assert!(!same_issuer("https://a.example", "https://a.example.evil"));
        assert!(!same_issuer("https://a.example", "https://A.example"));
        assert!(!same_issuer("https://a.example/x", "https://a.example"));
    }
}
