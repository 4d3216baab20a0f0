//! Security on the card: [`SecurityRequirement`] with its [`StringList`]s, and the
//! [`SecurityScheme`] oneof with its five kinds. OAuth flows are in `oauth.rs`.

use a2a_types::Metadata;
use a2a_types::card::{
    ApiKeyLocation, ApiKeySecurityScheme, HttpAuthSecurityScheme, MutualTlsSecurityScheme,
    OAuth2SecurityScheme, OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme,
    SecuritySchemeKind, StringList,
};
use serde_json::Value;

use super::ConvertError;
use super::fields::{convert, convert_map, convert_present, required};
use crate::proto;
use crate::proto::security_scheme::Scheme;

impl From<StringList> for proto::StringList {
    fn from(list: StringList) -> Self {
        Self { list: list.list }
    }
}

impl TryFrom<proto::StringList> for StringList {
    type Error = ConvertError;

    /// Never fails.
    fn try_from(list: proto::StringList) -> Result<Self, ConvertError> {
        Ok(Self { list: list.list })
    }
}

impl From<SecurityRequirement> for proto::SecurityRequirement {
    fn from(requirement: SecurityRequirement) -> Self {
        Self {
            schemes: requirement
                .schemes
                .into_iter()
                .map(|(name, scopes)| (name, scopes.into()))
                .collect(),
        }
    }
}

impl TryFrom<proto::SecurityRequirement> for SecurityRequirement {
    type Error = ConvertError;

    /// Never fails; schemes come back in name order (protobuf maps have no order).
    fn try_from(requirement: proto::SecurityRequirement) -> Result<Self, ConvertError> {
        Ok(Self {
            schemes: convert_map(requirement.schemes, "schemes")?,
        })
    }
}

impl From<SecurityScheme> for proto::SecurityScheme {
    /// Members kept in `extra` (a v0.3 shape served next to the v1.0 one) are dropped.
    fn from(scheme: SecurityScheme) -> Self {
        let scheme = match scheme.scheme {
            SecuritySchemeKind::ApiKey(scheme) => Scheme::ApiKeySecurityScheme(scheme.into()),
            SecuritySchemeKind::HttpAuth(scheme) => Scheme::HttpAuthSecurityScheme(scheme.into()),
            SecuritySchemeKind::OAuth2(scheme) => Scheme::Oauth2SecurityScheme(scheme.into()),
            SecuritySchemeKind::OpenIdConnect(scheme) => {
                Scheme::OpenIdConnectSecurityScheme(scheme.into())
            }
            SecuritySchemeKind::MutualTls(scheme) => Scheme::MtlsSecurityScheme(scheme.into()),
        };
        Self {
            scheme: Some(scheme),
        }
    }
}

impl TryFrom<proto::SecurityScheme> for SecurityScheme {
    type Error = ConvertError;

    /// Fails when no member of the `scheme` oneof is set, or the member fails.
    fn try_from(scheme: proto::SecurityScheme) -> Result<Self, ConvertError> {
        let scheme = scheme.scheme.ok_or_else(|| {
            ConvertError::new(
                "scheme",
                "exactly one of api_key_security_scheme, http_auth_security_scheme, \
                 oauth2_security_scheme, open_id_connect_security_scheme, \
                 mtls_security_scheme must be set",
            )
        })?;
        let kind = match scheme {
            Scheme::ApiKeySecurityScheme(scheme) => {
                SecuritySchemeKind::ApiKey(convert(scheme, "api_key_security_scheme")?)
            }
            Scheme::HttpAuthSecurityScheme(scheme) => {
                SecuritySchemeKind::HttpAuth(convert(scheme, "http_auth_security_scheme")?)
            }
            Scheme::Oauth2SecurityScheme(scheme) => {
                SecuritySchemeKind::OAuth2(convert(scheme, "oauth2_security_scheme")?)
            }
            Scheme::OpenIdConnectSecurityScheme(scheme) => SecuritySchemeKind::OpenIdConnect(
                convert(scheme, "open_id_connect_security_scheme")?,
            ),
            Scheme::MtlsSecurityScheme(scheme) => {
                SecuritySchemeKind::MutualTls(convert(scheme, "mtls_security_scheme")?)
            }
        };
        Ok(Self {
            scheme: kind,
            extra: Metadata::new(),
        })
    }
}

/// The wire name of a key location, as its serde form writes it (the enum is
/// `#[non_exhaustive]`, so serde is the one place that knows every name).
fn location_name(location: ApiKeyLocation) -> String {
    match serde_json::to_value(location) {
        Ok(Value::String(name)) => name,
        Ok(_) | Err(_) => String::new(),
    }
}

/// Reads a key location with the same spellings as JSON (`header`, `HEADER`, `Header`).
fn location_from(name: String) -> Result<ApiKeyLocation, ConvertError> {
    let name = required(name, "location")?;
    serde_json::from_value(Value::String(name))
        .map_err(|_| ConvertError::new("location", "must be one of query, header, cookie"))
}

impl From<ApiKeySecurityScheme> for proto::ApiKeySecurityScheme {
    fn from(scheme: ApiKeySecurityScheme) -> Self {
        Self {
            description: scheme.description,
            location: location_name(scheme.location),
            name: scheme.name,
        }
    }
}

impl TryFrom<proto::ApiKeySecurityScheme> for ApiKeySecurityScheme {
    type Error = ConvertError;

    /// Fails without a `name`, or without a known `location`.
    fn try_from(scheme: proto::ApiKeySecurityScheme) -> Result<Self, ConvertError> {
        Ok(Self {
            description: scheme.description,
            location: location_from(scheme.location)?,
            name: required(scheme.name, "name")?,
        })
    }
}

impl From<HttpAuthSecurityScheme> for proto::HttpAuthSecurityScheme {
    fn from(scheme: HttpAuthSecurityScheme) -> Self {
        Self {
            description: scheme.description,
            scheme: scheme.scheme,
            bearer_format: scheme.bearer_format,
        }
    }
}

impl TryFrom<proto::HttpAuthSecurityScheme> for HttpAuthSecurityScheme {
    type Error = ConvertError;

    /// Fails without a `scheme`.
    fn try_from(scheme: proto::HttpAuthSecurityScheme) -> Result<Self, ConvertError> {
        Ok(Self {
            description: scheme.description,
            scheme: required(scheme.scheme, "scheme")?,
            bearer_format: scheme.bearer_format,
        })
    }
}

impl From<OAuth2SecurityScheme> for proto::OAuth2SecurityScheme {
    fn from(scheme: OAuth2SecurityScheme) -> Self {
        Self {
            description: scheme.description,
            flows: Some(scheme.flows.into()),
            oauth2_metadata_url: scheme.oauth2_metadata_url,
        }
    }
}

impl TryFrom<proto::OAuth2SecurityScheme> for OAuth2SecurityScheme {
    type Error = ConvertError;

    /// Fails without flows, or when the flow fails.
    fn try_from(scheme: proto::OAuth2SecurityScheme) -> Result<Self, ConvertError> {
        Ok(Self {
            description: scheme.description,
            flows: convert_present(scheme.flows, "flows")?,
            oauth2_metadata_url: scheme.oauth2_metadata_url,
        })
    }
}

impl From<OpenIdConnectSecurityScheme> for proto::OpenIdConnectSecurityScheme {
    fn from(scheme: OpenIdConnectSecurityScheme) -> Self {
        Self {
            description: scheme.description,
            open_id_connect_url: scheme.open_id_connect_url,
        }
    }
}

impl TryFrom<proto::OpenIdConnectSecurityScheme> for OpenIdConnectSecurityScheme {
    type Error = ConvertError;

    /// Fails without an `open_id_connect_url`.
    fn try_from(scheme: proto::OpenIdConnectSecurityScheme) -> Result<Self, ConvertError> {
        Ok(Self {
            description: scheme.description,
            open_id_connect_url: required(scheme.open_id_connect_url, "open_id_connect_url")?,
        })
    }
}

impl From<MutualTlsSecurityScheme> for proto::MutualTlsSecurityScheme {
    fn from(scheme: MutualTlsSecurityScheme) -> Self {
        Self {
            description: scheme.description,
        }
    }
}

impl TryFrom<proto::MutualTlsSecurityScheme> for MutualTlsSecurityScheme {
    type Error = ConvertError;

    /// Never fails.
    fn try_from(scheme: proto::MutualTlsSecurityScheme) -> Result<Self, ConvertError> {
        Ok(Self {
            description: scheme.description,
        })
    }
}
