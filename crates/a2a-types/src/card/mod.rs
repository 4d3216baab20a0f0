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

/// Where an agent serves its public agent card, under its origin: the well-known URI of
/// RFC 8615 (spec §2.12). A client that knows only an agent's address discovers it by
/// fetching this path; servers and gateways serve the card there unless told otherwise.
pub const WELL_KNOWN_CARD_PATH: &str = "/.well-known/agent-card.json";
