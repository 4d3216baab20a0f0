//! The v0.3 [`AgentCard`] (`url`, `preferredTransport`, `additionalInterfaces`,
//! `protocolVersion`, `type`-tagged security schemes, `security` lists) as it travels;
//! [`super::card_convert`] converts it to and from the v1.0 card.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Metadata;
use crate::card::{
    AgentCardSignature, AgentProvider, ApiKeyLocation, AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow, ImplicitOAuthFlow, PasswordOAuthFlow, ProtocolBinding,
};

/// The protocol version a v0.3 card states when the v1.0 card gives none.
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// A v0.3 security requirement list: alternatives (OR) of scheme name → scopes (AND).
pub type SecurityRequirements = Vec<IndexMap<String, Vec<String>>>;

/// The v0.3 agent card.
///
/// Members v0.3 does not define (such as the v1.0 members of a card that carries both)
/// are kept in `extra` and written back, but not converted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// The protocol version, e.g. `0.3.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The agent's name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The preferred endpoint.
    pub url: String,
    /// The binding at `url` (`JSONRPC` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_transport: Option<ProtocolBinding>,
    /// Every endpoint, the preferred one included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_interfaces: Option<Vec<AgentInterface>>,
    /// Icon URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// Who runs the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// The agent's own version.
    pub version: String,
    /// Documentation URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// Optional features.
    pub capabilities: AgentCapabilities,
    /// Scheme name to scheme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<IndexMap<String, SecurityScheme>>,
    /// Who may call the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityRequirements>,
    /// Media types accepted by every skill.
    #[serde(default)]
    pub default_input_modes: Vec<String>,
    /// Media types produced by every skill.
    #[serde(default)]
    pub default_output_modes: Vec<String>,
    /// What the agent can do.
    #[serde(default)]
    pub skills: Vec<AgentSkill>,
    /// `agent/getAuthenticatedExtendedCard` is supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_authenticated_extended_card: Option<bool>,
    /// JWS signatures over the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signatures: Option<Vec<AgentCardSignature>>,
    /// Members v0.3 does not define, written back unchanged.
    #[serde(flatten)]
    pub extra: Metadata,
}

/// An endpoint: URL and binding (`transport`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInterface {
    /// The endpoint URL.
    pub url: String,
    /// `JSONRPC`, `HTTP+JSON`, `GRPC` or a custom binding.
    pub transport: ProtocolBinding,
}

/// Optional features of a v0.3 agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// `message/stream` and `tasks/resubscribe` are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Push notifications are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    /// Status transitions are recorded in the task history (v0.3 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_transition_history: Option<bool>,
    /// Declared extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<AgentExtension>>,
}

/// An extension the agent supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentExtension {
    /// The extension's URI.
    pub uri: String,
    /// How this agent uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Clients must activate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Extension-specific configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Metadata>,
}

/// A skill of a v0.3 agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Unique id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Sample prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Vec<String>>,
    /// Accepted media types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_modes: Option<Vec<String>>,
    /// Produced media types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_modes: Option<Vec<String>>,
    /// Security for this skill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<SecurityRequirements>,
}

/// A v0.3 security scheme, told apart by `type` (after OpenAPI 3).
///
/// Not `#[non_exhaustive]`: the v0.3 set is closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SecurityScheme {
    /// `apiKey`.
    #[serde(rename = "apiKey")]
    ApiKey(ApiKeySecurityScheme),
    /// `http`.
    #[serde(rename = "http")]
    Http(HttpAuthSecurityScheme),
    /// `oauth2`.
    #[serde(rename = "oauth2")]
    OAuth2(Box<OAuth2SecurityScheme>),
    /// `openIdConnect`.
    #[serde(rename = "openIdConnect")]
    OpenIdConnect(OpenIdConnectSecurityScheme),
    /// `mutualTLS`.
    #[serde(rename = "mutualTLS")]
    MutualTls(MutualTlsSecurityScheme),
}

/// An API key (`type: "apiKey"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiKeySecurityScheme {
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where the key travels.
    #[serde(rename = "in")]
    pub location: ApiKeyLocation,
    /// The header, query parameter or cookie name.
    pub name: String,
}

/// HTTP authentication (`type: "http"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The RFC 7235 scheme, e.g. `Bearer`.
    pub scheme: String,
    /// A hint such as `JWT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_format: Option<String>,
}

/// OAuth 2.0 (`type: "oauth2"`), with any number of flows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The flows.
    pub flows: OAuthFlows,
    /// The RFC 8414 authorization-server metadata URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth2_metadata_url: Option<String>,
}

/// The flows of a v0.3 OAuth 2.0 scheme; several may be set at once.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlows {
    /// Authorization code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_code: Option<AuthorizationCodeOAuthFlow>,
    /// Client credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_credentials: Option<ClientCredentialsOAuthFlow>,
    /// Implicit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit: Option<ImplicitOAuthFlow>,
    /// Resource-owner password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<PasswordOAuthFlow>,
}

/// OpenID Connect (`type: "openIdConnect"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The OIDC discovery URL.
    pub open_id_connect_url: String,
}

/// Mutual TLS (`type: "mutualTLS"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MutualTlsSecurityScheme {
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
