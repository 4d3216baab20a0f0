//! The agent card: what an agent is, where it listens, what it can do and how callers
//! authenticate (spec digest §3.17–§3.26, §11).

mod agent_card;
mod capabilities;
mod interface;
mod oauth;
mod security;
mod skill;

pub use self::agent_card::{AgentCard, AgentCardSignature, AgentProvider};
pub use self::capabilities::{AgentCapabilities, AgentExtension};
pub use self::interface::{AgentInterface, ProtocolBinding};
pub use self::oauth::{
    AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow, DeviceCodeOAuthFlow, ImplicitOAuthFlow,
    OAuthFlows, PasswordOAuthFlow, Scopes,
};
pub use self::security::{
    ApiKeyLocation, ApiKeySecurityScheme, HttpAuthSecurityScheme, MutualTlsSecurityScheme,
    OAuth2SecurityScheme, OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme,
    SecuritySchemeKind, StringList,
};
pub use self::skill::AgentSkill;
