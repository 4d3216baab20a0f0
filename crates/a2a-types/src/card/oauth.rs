//! The [`OAuthFlows`] oneof and its flow objects. `implicit` and `password` are deprecated
//! in the proto: they are read, and written back when read, but should not be created.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::oneof::oneof_message;
use crate::wire::{is_false, nullable};

/// Scope name to description.
pub type Scopes = IndexMap<String, String>;

oneof_message! {
    /// The single OAuth flow of an OAuth 2.0 scheme (proto `OAuthFlows`).
    pub enum OAuthFlows {
        /// Authorization code (with PKCE).
        AuthorizationCode(AuthorizationCodeOAuthFlow) = "authorizationCode" | "authorization_code",
        /// Client credentials.
        ClientCredentials(ClientCredentialsOAuthFlow) = "clientCredentials" | "client_credentials",
        /// Implicit (deprecated).
        Implicit(ImplicitOAuthFlow) = "implicit",
        /// Resource-owner password (deprecated).
        Password(PasswordOAuthFlow) = "password",
        /// Device code (RFC 8628).
        DeviceCode(DeviceCodeOAuthFlow) = "deviceCode" | "device_code",
    }
}

/// Declares a current flow (authorization code, client credentials, device code): the fields
/// given first, then the three every current flow has (the token endpoint and the scopes
/// required, the refresh endpoint optional), then the fields given after `then`.
macro_rules! token_flow {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($before:tt)*
        }
        $(then { $($after:tt)* })?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $($before)*
            /// The token endpoint; required.
            #[serde(alias = "token_url")]
            pub token_url: String,
            /// The refresh endpoint; empty when unset.
            #[serde(
                default,
                alias = "refresh_url",
                skip_serializing_if = "String::is_empty",
                deserialize_with = "nullable"
            )]
            pub refresh_url: String,
            /// Available scopes; required (may be empty).
            #[serde(default, deserialize_with = "nullable")]
            pub scopes: Scopes,
            $($($after)*)?
        }
    };
}

token_flow! {
    /// Authorization-code flow (proto `AuthorizationCodeOAuthFlow`).
    pub struct AuthorizationCodeOAuthFlow {
        /// The authorization endpoint; required.
        #[serde(alias = "authorization_url")]
        pub authorization_url: String,
    }
    then {
        /// PKCE is mandatory.
        #[serde(
            default,
            alias = "pkce_required",
            skip_serializing_if = "is_false",
            deserialize_with = "nullable"
        )]
        pub pkce_required: bool,
    }
}

token_flow! {
    /// Client-credentials flow (proto `ClientCredentialsOAuthFlow`).
    pub struct ClientCredentialsOAuthFlow {}
}

token_flow! {
    /// Device-code flow (proto `DeviceCodeOAuthFlow`).
    pub struct DeviceCodeOAuthFlow {
        /// The device authorization endpoint; required.
        #[serde(alias = "device_authorization_url")]
        pub device_authorization_url: String,
    }
}

/// Declares a deprecated flow (`implicit`, `password`): one endpoint, a refresh endpoint and
/// scopes, all three optional, as the proto declares both.
macro_rules! deprecated_flow {
    (
        $(#[$meta:meta])*
        $name:ident {
            $(#[$endpoint_meta:meta])*
            $endpoint:ident = $snake:literal
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $(#[$endpoint_meta])*
            #[serde(
                default,
                alias = $snake,
                skip_serializing_if = "String::is_empty",
                deserialize_with = "nullable"
            )]
            pub $endpoint: String,
            /// The refresh endpoint; empty when unset.
            #[serde(
                default,
                alias = "refresh_url",
                skip_serializing_if = "String::is_empty",
                deserialize_with = "nullable"
            )]
            pub refresh_url: String,
            /// Available scopes.
            #[serde(
                default,
                skip_serializing_if = "IndexMap::is_empty",
                deserialize_with = "nullable"
            )]
            pub scopes: Scopes,
        }
    };
}

deprecated_flow! {
    /// Implicit flow, deprecated (proto `ImplicitOAuthFlow`).
    ImplicitOAuthFlow {
        /// The authorization endpoint; empty when unset.
        authorization_url = "authorization_url"
    }
}

deprecated_flow! {
    /// Password flow, deprecated (proto `PasswordOAuthFlow`).
    PasswordOAuthFlow {
        /// The token endpoint; empty when unset.
        token_url = "token_url"
    }
}
