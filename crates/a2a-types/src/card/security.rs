//! Security requirements and the [`SecurityScheme`] oneof (based on OpenAPI 3.2).

use std::fmt;

use indexmap::IndexMap;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::OAuthFlows;
use crate::Metadata;
use crate::oneof::{self, oneof_message};
use crate::wire::nullable;

/// One alternative of a security requirement list (proto `SecurityRequirement`): every
/// scheme named here is required together (AND); the list of requirements is an OR.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SecurityRequirement {
    /// Scheme name (a key of the card's `securitySchemes`) to required scopes.
    #[serde(
        default,
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    pub schemes: IndexMap<String, StringList>,
}

impl SecurityRequirement {
    /// A requirement of one scheme with the given scopes.
    pub fn scheme<I, S>(name: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = scopes.into_iter().map(Into::into).collect();
        Self {
            schemes: IndexMap::from([(name.into(), StringList { list })]),
        }
    }

    /// This requirement and also the scheme `name` with `scopes` (all must pass).
    #[must_use]
    pub fn and<I, S>(mut self, name: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let list = scopes.into_iter().map(Into::into).collect();
        self.schemes.insert(name.into(), StringList { list });
        self
    }
}

impl SecurityScheme {
    /// An API key in a header, query parameter or cookie called `name`.
    pub fn api_key(location: ApiKeyLocation, name: impl Into<String>) -> Self {
        SecuritySchemeKind::ApiKey(ApiKeySecurityScheme {
            description: String::new(),
            location,
            name: name.into(),
        })
        .into()
    }

    /// HTTP bearer authentication; `bearer_format` hints at the token's kind (e.g. `JWT`),
    /// empty when unknown.
    pub fn bearer(bearer_format: impl Into<String>) -> Self {
        SecuritySchemeKind::HttpAuth(HttpAuthSecurityScheme {
            description: String::new(),
            scheme: "Bearer".to_owned(),
            bearer_format: bearer_format.into(),
        })
        .into()
    }

    /// OpenID Connect, discovered at `open_id_connect_url`.
    pub fn open_id_connect(open_id_connect_url: impl Into<String>) -> Self {
        SecuritySchemeKind::OpenIdConnect(OpenIdConnectSecurityScheme {
            description: String::new(),
            open_id_connect_url: open_id_connect_url.into(),
        })
        .into()
    }

    /// Mutual TLS: the client's certificate identifies it.
    pub fn mutual_tls() -> Self {
        SecuritySchemeKind::MutualTls(MutualTlsSecurityScheme {
            description: String::new(),
        })
        .into()
    }
}

/// A list of strings (proto `StringList`), written as `{"list": […]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StringList {
    /// The strings.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    pub list: Vec<String>,
}

/// How callers authenticate (proto `SecurityScheme`): exactly one kind of scheme.
///
/// Members this version does not know are kept in [`SecurityScheme::extra`] and written back:
/// an agent that also serves v0.3 clients puts the v0.3 shape (`type`, `in`, `flows`, …) next
/// to the v1.0 member, and re-serving its card must not drop it. A scheme in the v0.3
/// shape only is read into the matching v1.0 kind (its original members kept as well).
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityScheme {
    /// The kind of scheme and its settings.
    pub scheme: SecuritySchemeKind,
    /// Members this version does not know, written back unchanged.
    pub extra: Metadata,
}

impl From<SecuritySchemeKind> for SecurityScheme {
    fn from(scheme: SecuritySchemeKind) -> Self {
        Self {
            scheme,
            extra: Metadata::new(),
        }
    }
}

oneof_message! {
    /// The kinds of security scheme (the proto oneof `scheme`).
    pub enum SecuritySchemeKind {
        /// An API key in a header, query parameter or cookie.
        ApiKey(ApiKeySecurityScheme) = "apiKeySecurityScheme" | "api_key_security_scheme",
        /// HTTP authentication (`Bearer`, `Basic`, …).
        HttpAuth(HttpAuthSecurityScheme) = "httpAuthSecurityScheme" | "http_auth_security_scheme",
        /// OAuth 2.0 with one flow.
        OAuth2(OAuth2SecurityScheme) = "oauth2SecurityScheme" | "oauth2_security_scheme",
        /// OpenID Connect discovery.
        OpenIdConnect(OpenIdConnectSecurityScheme) =
            "openIdConnectSecurityScheme" | "open_id_connect_security_scheme",
        /// Mutual TLS.
        MutualTls(MutualTlsSecurityScheme) = "mtlsSecurityScheme" | "mtls_security_scheme",
    }
}

impl Serialize for SecurityScheme {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1 + self.extra.len()))?;
        match &self.scheme {
            SecuritySchemeKind::ApiKey(scheme) => {
                map.serialize_entry("apiKeySecurityScheme", scheme)?
            }
            SecuritySchemeKind::HttpAuth(scheme) => {
                map.serialize_entry("httpAuthSecurityScheme", scheme)?
            }
            SecuritySchemeKind::OAuth2(scheme) => {
                map.serialize_entry("oauth2SecurityScheme", scheme)?
            }
            SecuritySchemeKind::OpenIdConnect(scheme) => {
                map.serialize_entry("openIdConnectSecurityScheme", scheme)?;
            }
            SecuritySchemeKind::MutualTls(scheme) => {
                map.serialize_entry("mtlsSecurityScheme", scheme)?
            }
        }
        for (key, value) in &self.extra {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SecurityScheme {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SchemeVisitor;
        impl<'de> Visitor<'de> for SchemeVisitor {
            type Value = SecurityScheme;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a SecurityScheme object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SecurityScheme, A::Error> {
                let mut scheme: Option<SecuritySchemeKind> = None;
                let mut extra = Metadata::new();
                while let Some(key) = map.next_key::<String>()? {
                    match SecuritySchemeKind::next_member(&key, &mut map)? {
                        Some(Some(member)) => {
                            if let Some(previous) = &scheme {
                                return Err(oneof::two_set(
                                    "SecurityScheme",
                                    previous.member_name(),
                                    member.member_name(),
                                ));
                            }
                            scheme = Some(member);
                        }
                        Some(None) => {}
                        None => {
                            extra.insert(key, map.next_value()?);
                        }
                    }
                }
                let scheme = match scheme {
                    Some(scheme) => scheme,
                    None => v0_3::scheme_from(&extra).ok_or_else(|| {
                        oneof::none_set("SecurityScheme", SecuritySchemeKind::MEMBERS)
                    })?,
                };
                Ok(SecurityScheme { scheme, extra })
            }
        }
        deserializer.deserialize_map(SchemeVisitor)
    }
}

/// Reading v0.3 security schemes (`{"type": "apiKey", "in": "header", "name": …}`).
mod v0_3 {
    use serde_json::Value;

    use super::*;
    use crate::card::OAuthFlows;

    fn text(object: &Metadata, key: &str) -> String {
        object
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    /// The v1.0 kind for a v0.3 scheme object, or `None` when it is not one.
    pub(super) fn scheme_from(object: &Metadata) -> Option<SecuritySchemeKind> {
        let description = text(object, "description");
        let kind = match object.get("type")?.as_str()? {
            "apiKey" => SecuritySchemeKind::ApiKey(ApiKeySecurityScheme {
                description,
                location: serde_json::from_value(object.get("in")?.clone()).ok()?,
                name: text(object, "name"),
            }),
            "http" => SecuritySchemeKind::HttpAuth(HttpAuthSecurityScheme {
                description,
                scheme: text(object, "scheme"),
                bearer_format: text(object, "bearerFormat"),
            }),
            "oauth2" => {
                // v0.3 allowed several flows in one scheme; v1.0 holds one. Take the first
                // (the original object stays in `extra`).
                let (name, flow) = object.get("flows")?.as_object()?.iter().next()?;
                let flows: OAuthFlows = serde_json::from_value(Value::Object(Metadata::from_iter(
                    [(name.clone(), flow.clone())],
                )))
                .ok()?;
                SecuritySchemeKind::OAuth2(OAuth2SecurityScheme {
                    description,
                    flows,
                    oauth2_metadata_url: text(object, "oauth2MetadataUrl"),
                })
            }
            "openIdConnect" => SecuritySchemeKind::OpenIdConnect(OpenIdConnectSecurityScheme {
                description,
                open_id_connect_url: text(object, "openIdConnectUrl"),
            }),
            "mutualTLS" => SecuritySchemeKind::MutualTls(MutualTlsSecurityScheme { description }),
            _ => return None,
        };
        Some(kind)
    }
}

/// An API key (proto `APIKeySecurityScheme`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeySecurityScheme {
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// Where the key travels (`in` in v0.3); required.
    #[serde(alias = "in")]
    pub location: ApiKeyLocation,
    /// The header, query parameter or cookie name; required.
    pub name: String,
}

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ApiKeyLocation {
    /// A query parameter.
    #[serde(alias = "QUERY", alias = "Query")]
    Query,
    /// A request header.
    #[serde(alias = "HEADER", alias = "Header")]
    Header,
    /// A cookie.
    #[serde(alias = "COOKIE", alias = "Cookie")]
    Cookie,
}

/// HTTP authentication (proto `HTTPAuthSecurityScheme`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// The RFC 7235 scheme, e.g. `Bearer`; required.
    pub scheme: String,
    /// A hint such as `JWT`; empty when unset.
    #[serde(
        default,
        alias = "bearer_format",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub bearer_format: String,
}

/// OAuth 2.0 (proto `OAuth2SecurityScheme`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// The one flow; required.
    pub flows: OAuthFlows,
    /// The RFC 8414 authorization-server metadata URL; empty when unset.
    #[serde(
        default,
        alias = "oauth2_metadata_url",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub oauth2_metadata_url: String,
}

/// OpenID Connect (proto `OpenIdConnectSecurityScheme`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
    /// The OIDC discovery URL; required.
    #[serde(alias = "open_id_connect_url")]
    pub open_id_connect_url: String,
}

/// Mutual TLS (proto `MutualTlsSecurityScheme`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MutualTlsSecurityScheme {
    /// A description; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub description: String,
}
