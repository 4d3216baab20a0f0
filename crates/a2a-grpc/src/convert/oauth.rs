//! The [`OAuthFlows`] oneof and its five flow objects. `implicit` and `password` are
//! deprecated in the proto; they are converted both ways so a card read with them keeps them.

// The generated `Implicit` and `Password` members carry `#[deprecated]`.
#![allow(deprecated)]

use a2a_types::card::{
    AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow, DeviceCodeOAuthFlow, ImplicitOAuthFlow,
    OAuthFlows, PasswordOAuthFlow,
};

use super::ConvertError;
use super::fields::{convert, required};
use crate::proto;
use crate::proto::o_auth_flows::Flow;

impl From<OAuthFlows> for proto::OAuthFlows {
    fn from(flows: OAuthFlows) -> Self {
        let flow = match flows {
            OAuthFlows::AuthorizationCode(flow) => Flow::AuthorizationCode(flow.into()),
            OAuthFlows::ClientCredentials(flow) => Flow::ClientCredentials(flow.into()),
            OAuthFlows::Implicit(flow) => Flow::Implicit(flow.into()),
            OAuthFlows::Password(flow) => Flow::Password(flow.into()),
            OAuthFlows::DeviceCode(flow) => Flow::DeviceCode(flow.into()),
        };
        Self { flow: Some(flow) }
    }
}

impl TryFrom<proto::OAuthFlows> for OAuthFlows {
    type Error = ConvertError;

    /// Fails when no member of the `flow` oneof is set, or the flow lacks a required URL.
    fn try_from(flows: proto::OAuthFlows) -> Result<Self, ConvertError> {
        let flow = flows.flow.ok_or_else(|| {
            ConvertError::new(
                "flow",
                "exactly one of authorization_code, client_credentials, implicit, password, \
                 device_code must be set",
            )
        })?;
        Ok(match flow {
            Flow::AuthorizationCode(flow) => {
                Self::AuthorizationCode(convert(flow, "authorization_code")?)
            }
            Flow::ClientCredentials(flow) => {
                Self::ClientCredentials(convert(flow, "client_credentials")?)
            }
            Flow::Implicit(flow) => Self::Implicit(convert(flow, "implicit")?),
            Flow::Password(flow) => Self::Password(convert(flow, "password")?),
            Flow::DeviceCode(flow) => Self::DeviceCode(convert(flow, "device_code")?),
        })
    }
}

impl From<AuthorizationCodeOAuthFlow> for proto::AuthorizationCodeOAuthFlow {
    fn from(flow: AuthorizationCodeOAuthFlow) -> Self {
        Self {
            authorization_url: flow.authorization_url,
            token_url: flow.token_url,
            refresh_url: flow.refresh_url,
            scopes: flow.scopes.into_iter().collect(),
            pkce_required: flow.pkce_required,
        }
    }
}

impl TryFrom<proto::AuthorizationCodeOAuthFlow> for AuthorizationCodeOAuthFlow {
    type Error = ConvertError;

    /// Fails without an `authorization_url` or a `token_url`.
    fn try_from(flow: proto::AuthorizationCodeOAuthFlow) -> Result<Self, ConvertError> {
        Ok(Self {
            authorization_url: required(flow.authorization_url, "authorization_url")?,
            token_url: required(flow.token_url, "token_url")?,
            refresh_url: flow.refresh_url,
            scopes: sorted(flow.scopes),
            pkce_required: flow.pkce_required,
        })
    }
}

impl From<ClientCredentialsOAuthFlow> for proto::ClientCredentialsOAuthFlow {
    fn from(flow: ClientCredentialsOAuthFlow) -> Self {
        Self {
            token_url: flow.token_url,
            refresh_url: flow.refresh_url,
            scopes: flow.scopes.into_iter().collect(),
        }
    }
}

impl TryFrom<proto::ClientCredentialsOAuthFlow> for ClientCredentialsOAuthFlow {
    type Error = ConvertError;

    /// Fails without a `token_url`.
    fn try_from(flow: proto::ClientCredentialsOAuthFlow) -> Result<Self, ConvertError> {
        Ok(Self {
            token_url: required(flow.token_url, "token_url")?,
            refresh_url: flow.refresh_url,
            scopes: sorted(flow.scopes),
        })
    }
}

impl From<DeviceCodeOAuthFlow> for proto::DeviceCodeOAuthFlow {
    fn from(flow: DeviceCodeOAuthFlow) -> Self {
        Self {
            device_authorization_url: flow.device_authorization_url,
            token_url: flow.token_url,
            refresh_url: flow.refresh_url,
            scopes: flow.scopes.into_iter().collect(),
        }
    }
}

impl TryFrom<proto::DeviceCodeOAuthFlow> for DeviceCodeOAuthFlow {
    type Error = ConvertError;

    /// Fails without a `device_authorization_url` or a `token_url`.
    fn try_from(flow: proto::DeviceCodeOAuthFlow) -> Result<Self, ConvertError> {
        Ok(Self {
            device_authorization_url: required(
                flow.device_authorization_url,
                "device_authorization_url",
            )?,
            token_url: required(flow.token_url, "token_url")?,
            refresh_url: flow.refresh_url,
            scopes: sorted(flow.scopes),
        })
    }
}

/// Both directions of a deprecated flow (`implicit`, `password`): its one endpoint, refresh
/// endpoint and scopes copied as they are, none of them required.
macro_rules! deprecated_flow_conversions {
    ($flow:ident, $endpoint:ident) => {
        impl From<$flow> for proto::$flow {
            fn from(flow: $flow) -> Self {
                Self {
                    $endpoint: flow.$endpoint,
                    refresh_url: flow.refresh_url,
                    scopes: flow.scopes.into_iter().collect(),
                }
            }
        }

        impl TryFrom<proto::$flow> for $flow {
            type Error = ConvertError;

            /// Never fails: no field is required.
            fn try_from(flow: proto::$flow) -> Result<Self, ConvertError> {
                Ok(Self {
                    $endpoint: flow.$endpoint,
                    refresh_url: flow.refresh_url,
                    scopes: sorted(flow.scopes),
                })
            }
        }
    };
}

deprecated_flow_conversions!(ImplicitOAuthFlow, authorization_url);
deprecated_flow_conversions!(PasswordOAuthFlow, token_url);

/// Scopes in name order: protobuf maps have none, and a fixed one keeps output reproducible.
fn sorted<C: FromIterator<(String, String)>>(
    scopes: impl IntoIterator<Item = (String, String)>,
) -> C {
    let mut scopes: Vec<(String, String)> = scopes.into_iter().collect();
    scopes.sort();
    scopes.into_iter().collect()
}
