//! What the agent card says about credentials: where an API key goes and which token
//! endpoint an OAuth client may use.

use a2a_types::AgentCard;
use a2a_types::card::{ApiKeyLocation, OAuthFlows, SecuritySchemeKind};

use super::ApiKeyPlacement;
use crate::ClientError;

/// The card's API key placement: the first API key scheme named by a security requirement,
/// else the first declared.
pub(super) fn card_api_key_placement(card: &AgentCard) -> Option<ApiKeyPlacement> {
    let placement = |name: &str| {
        let scheme = card.security_schemes.get(name)?;
        match &scheme.scheme {
            SecuritySchemeKind::ApiKey(api_key) => Some(match api_key.location {
                ApiKeyLocation::Header => ApiKeyPlacement::Header(api_key.name.clone()),
                ApiKeyLocation::Query => ApiKeyPlacement::Query(api_key.name.clone()),
                ApiKeyLocation::Cookie => ApiKeyPlacement::Cookie(api_key.name.clone()),
                // A location this version does not know: leave the choice to the default.
                _ => return None,
            }),
            SecuritySchemeKind::HttpAuth(_)
            | SecuritySchemeKind::OAuth2(_)
            | SecuritySchemeKind::OpenIdConnect(_)
            | SecuritySchemeKind::MutualTls(_) => None,
        }
    };
    card.security_requirements
        .iter()
        .flat_map(|requirement| requirement.schemes.keys())
        .chain(card.security_schemes.keys())
        .find_map(|name| placement(name))
}

/// The token URL of the card's OAuth 2.0 client-credentials flow.
///
/// A card could name any token endpoint, and the client secret goes there; so a card's token
/// URL must be https, or on a loopback host (local development), or on the card's own origin.
pub(super) fn card_token_url(
    card: Option<&AgentCard>,
    card_source: Option<&url::Url>,
) -> Result<url::Url, ClientError> {
    let text = card
        .into_iter()
        .flat_map(|card| card.security_schemes.values())
        .find_map(|scheme| match &scheme.scheme {
            SecuritySchemeKind::OAuth2(oauth) => match &oauth.flows {
                OAuthFlows::ClientCredentials(flow) => Some(flow.token_url.clone()),
                OAuthFlows::AuthorizationCode(_)
                | OAuthFlows::Implicit(_)
                | OAuthFlows::Password(_)
                | OAuthFlows::DeviceCode(_) => None,
            },
            SecuritySchemeKind::ApiKey(_)
            | SecuritySchemeKind::HttpAuth(_)
            | SecuritySchemeKind::OpenIdConnect(_)
            | SecuritySchemeKind::MutualTls(_) => None,
        })
        .ok_or_else(|| {
            ClientError::config(
                "OAuth client credentials need a token url: none given and the card has no \
                 clientCredentials flow",
            )
        })?;
    let url = match card_source {
        Some(source) => source.join(&text),
        None => url::Url::parse(&text),
    }
    .map_err(|error| {
        ClientError::config(format!("invalid OAuth token url in the card: {error}"))
    })?;
    let same_origin = card_source.is_some_and(|source| source.origin() == url.origin());
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if url.scheme() == "https" || same_origin || loopback {
        Ok(url)
    } else {
        Err(ClientError::config(
            "the card's OAuth token url is neither https nor on the card's origin",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_placement_follows_the_card() {
        let card: AgentCard = serde_json::from_value(serde_json::json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://x/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {},
            "securitySchemes": {
                "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
                "key": {"apiKeySecurityScheme": {"location": "query", "name": "api_key"}}
            },
            "securityRequirements": [{"schemes": {"key": {}}}]
        }))
        .unwrap();
        assert_eq!(
            card_api_key_placement(&card),
            Some(ApiKeyPlacement::Query("api_key".into()))
        );
    }
}
