//! The v0.3 [`AgentCard`] (`url`, `preferredTransport`, `additionalInterfaces`,
//! `protocolVersion`, `type`-tagged security schemes, `security` lists), with its
//! conversions to and from the v1.0 card.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::convert::{ConversionError, non_empty_str};
use crate::card::{
    AgentCardSignature, AgentProvider, ApiKeyLocation, AuthorizationCodeOAuthFlow,
    ClientCredentialsOAuthFlow, ImplicitOAuthFlow, PasswordOAuthFlow, ProtocolBinding, StringList,
};
use crate::{Metadata, card};

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

/// The v1.0 member of a capability set that holds v0.3's `stateTransitionHistory`.
const STATE_TRANSITION_HISTORY: &str = "stateTransitionHistory";

/// True for a v0.x protocol version (`0.3`, `0.3.0`).
fn is_v0(version: &str) -> bool {
    version.split('.').next() == Some("0")
}

/// `Major.Minor` of a version (`0.3.0` → `0.3`).
fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

impl From<&card::AgentInterface> for AgentInterface {
    fn from(interface: &card::AgentInterface) -> Self {
        Self {
            url: interface.url.clone(),
            transport: interface.protocol_binding.clone(),
        }
    }
}

/// The v0.3 view of a v1.0 card.
///
/// The endpoints come from `supportedInterfaces`: those that declare a v0.x
/// `protocolVersion` when there are any (a card lists a v0.3 interface when v0.3 is
/// served), else all of them (served on the same URLs). The first is `url` and
/// `preferredTransport`; when there are several, all are listed in
/// `additionalInterfaces`. `protocolVersion` is that interface's version when it is v0.x,
/// else [`PROTOCOL_VERSION`].
///
/// Dropped: interface `tenant`s, signatures (they sign the v1.0 document), the `pkceRequired`
/// flag, and device-code flows (their scheme keeps empty `flows`). Members kept in the v1.0
/// card's `extra` are not carried over, except `capabilities.stateTransitionHistory`.
impl From<&card::AgentCard> for AgentCard {
    fn from(card: &card::AgentCard) -> Self {
        let legacy: Vec<&card::AgentInterface> = card
            .supported_interfaces
            .iter()
            .filter(|interface| is_v0(&interface.protocol_version))
            .collect();
        let endpoints = if legacy.is_empty() {
            card.supported_interfaces.iter().collect()
        } else {
            legacy
        };
        let primary = endpoints.first();
        let protocol_version = primary
            .map(|interface| interface.protocol_version.as_str())
            .filter(|version| is_v0(version))
            .unwrap_or(PROTOCOL_VERSION);
        let capabilities = &card.capabilities;
        Self {
            protocol_version: Some(protocol_version.to_owned()),
            name: card.name.clone(),
            description: card.description.clone(),
            url: primary
                .map(|interface| interface.url.clone())
                .unwrap_or_default(),
            preferred_transport: Some(primary.map_or(ProtocolBinding::JsonRpc, |interface| {
                interface.protocol_binding.clone()
            })),
            additional_interfaces: (endpoints.len() > 1).then(|| {
                endpoints
                    .iter()
                    .map(|interface| AgentInterface::from(*interface))
                    .collect()
            }),
            icon_url: card.icon_url.clone(),
            provider: card.provider.clone(),
            version: card.version.clone(),
            documentation_url: card.documentation_url.clone(),
            capabilities: AgentCapabilities {
                streaming: capabilities.streaming,
                push_notifications: capabilities.push_notifications,
                state_transition_history: capabilities
                    .extra
                    .get(STATE_TRANSITION_HISTORY)
                    .and_then(Value::as_bool),
                extensions: (!capabilities.extensions.is_empty()).then(|| {
                    capabilities
                        .extensions
                        .iter()
                        .map(|extension| AgentExtension {
                            uri: extension.uri.clone(),
                            description: non_empty_str(extension.description.clone()),
                            required: extension.required.then_some(true),
                            params: extension.params.clone(),
                        })
                        .collect()
                }),
            },
            security_schemes: (!card.security_schemes.is_empty()).then(|| {
                card.security_schemes
                    .iter()
                    .map(|(name, scheme)| (name.clone(), SecurityScheme::from(&scheme.scheme)))
                    .collect()
            }),
            security: requirements_from_v1(&card.security_requirements),
            default_input_modes: card.default_input_modes.clone(),
            default_output_modes: card.default_output_modes.clone(),
            skills: card.skills.iter().map(AgentSkill::from).collect(),
            supports_authenticated_extended_card: capabilities.extended_agent_card,
            signatures: None,
            extra: Metadata::new(),
        }
    }
}

impl From<card::AgentCard> for AgentCard {
    fn from(card: card::AgentCard) -> Self {
        Self::from(&card)
    }
}

/// A v0.3 `security` list from v1.0 requirements; absent when there are none.
fn requirements_from_v1(
    requirements: &[card::SecurityRequirement],
) -> Option<SecurityRequirements> {
    (!requirements.is_empty()).then(|| {
        requirements
            .iter()
            .map(|requirement| {
                requirement
                    .schemes
                    .iter()
                    .map(|(name, scopes)| (name.clone(), scopes.list.clone()))
                    .collect()
            })
            .collect()
    })
}

impl From<&card::AgentSkill> for AgentSkill {
    fn from(skill: &card::AgentSkill) -> Self {
        let list = |items: &Vec<String>| (!items.is_empty()).then(|| items.clone());
        Self {
            id: skill.id.clone(),
            name: skill.name.clone(),
            description: skill.description.clone(),
            tags: skill.tags.clone(),
            examples: list(&skill.examples),
            input_modes: list(&skill.input_modes),
            output_modes: list(&skill.output_modes),
            security: requirements_from_v1(&skill.security_requirements),
        }
    }
}

impl From<&card::SecuritySchemeKind> for SecurityScheme {
    fn from(scheme: &card::SecuritySchemeKind) -> Self {
        match scheme {
            card::SecuritySchemeKind::ApiKey(scheme) => Self::ApiKey(ApiKeySecurityScheme {
                description: non_empty_str(scheme.description.clone()),
                location: scheme.location,
                name: scheme.name.clone(),
            }),
            card::SecuritySchemeKind::HttpAuth(scheme) => Self::Http(HttpAuthSecurityScheme {
                description: non_empty_str(scheme.description.clone()),
                scheme: scheme.scheme.clone(),
                bearer_format: non_empty_str(scheme.bearer_format.clone()),
            }),
            card::SecuritySchemeKind::OAuth2(scheme) => {
                let mut flows = OAuthFlows::default();
                match &scheme.flows {
                    card::OAuthFlows::AuthorizationCode(flow) => {
                        flows.authorization_code = Some(AuthorizationCodeOAuthFlow {
                            pkce_required: false,
                            ..flow.clone()
                        });
                    }
                    card::OAuthFlows::ClientCredentials(flow) => {
                        flows.client_credentials = Some(flow.clone());
                    }
                    card::OAuthFlows::Implicit(flow) => flows.implicit = Some(flow.clone()),
                    card::OAuthFlows::Password(flow) => flows.password = Some(flow.clone()),
                    card::OAuthFlows::DeviceCode(_) => {}
                }
                Self::OAuth2(Box::new(OAuth2SecurityScheme {
                    description: non_empty_str(scheme.description.clone()),
                    flows,
                    oauth2_metadata_url: non_empty_str(scheme.oauth2_metadata_url.clone()),
                }))
            }
            card::SecuritySchemeKind::OpenIdConnect(scheme) => {
                Self::OpenIdConnect(OpenIdConnectSecurityScheme {
                    description: non_empty_str(scheme.description.clone()),
                    open_id_connect_url: scheme.open_id_connect_url.clone(),
                })
            }
            card::SecuritySchemeKind::MutualTls(scheme) => {
                Self::MutualTls(MutualTlsSecurityScheme {
                    description: non_empty_str(scheme.description.clone()),
                })
            }
        }
    }
}

impl OAuthFlows {
    /// The flows that are set, each as a v1.0 one-flow value with its member name, in the
    /// order authorizationCode, clientCredentials, implicit, password.
    fn to_v1(&self) -> Vec<(&'static str, card::OAuthFlows)> {
        let mut flows = Vec::new();
        if let Some(flow) = &self.authorization_code {
            flows.push((
                "authorizationCode",
                card::OAuthFlows::AuthorizationCode(flow.clone()),
            ));
        }
        if let Some(flow) = &self.client_credentials {
            flows.push((
                "clientCredentials",
                card::OAuthFlows::ClientCredentials(flow.clone()),
            ));
        }
        if let Some(flow) = &self.implicit {
            flows.push(("implicit", card::OAuthFlows::Implicit(flow.clone())));
        }
        if let Some(flow) = &self.password {
            flows.push(("password", card::OAuthFlows::Password(flow.clone())));
        }
        flows
    }
}

/// A v0.3 scheme as v1.0 schemes: one, or one per flow for an OAuth scheme with several
/// flows (v1.0 holds one). The first keeps `name`; the others are `{name}-{flow}`.
fn scheme_to_v1(
    name: &str,
    scheme: &SecurityScheme,
) -> Result<Vec<(String, card::SecuritySchemeKind)>, ConversionError> {
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let single = |kind| Ok(vec![(name.to_owned(), kind)]);
    match scheme {
        SecurityScheme::ApiKey(scheme) => single(card::SecuritySchemeKind::ApiKey(
            card::ApiKeySecurityScheme {
                description: text(&scheme.description),
                location: scheme.location,
                name: scheme.name.clone(),
            },
        )),
        SecurityScheme::Http(scheme) => single(card::SecuritySchemeKind::HttpAuth(
            card::HttpAuthSecurityScheme {
                description: text(&scheme.description),
                scheme: scheme.scheme.clone(),
                bearer_format: text(&scheme.bearer_format),
            },
        )),
        SecurityScheme::OpenIdConnect(scheme) => single(card::SecuritySchemeKind::OpenIdConnect(
            card::OpenIdConnectSecurityScheme {
                description: text(&scheme.description),
                open_id_connect_url: scheme.open_id_connect_url.clone(),
            },
        )),
        SecurityScheme::MutualTls(scheme) => single(card::SecuritySchemeKind::MutualTls(
            card::MutualTlsSecurityScheme {
                description: text(&scheme.description),
            },
        )),
        SecurityScheme::OAuth2(scheme) => {
            let flows = scheme.flows.to_v1();
            if flows.is_empty() {
                return Err(ConversionError::new("flows", "no OAuth flow is set"));
            }
            Ok(flows
                .into_iter()
                .enumerate()
                .map(|(index, (flow_name, flows))| {
                    let scheme_name = if index == 0 {
                        name.to_owned()
                    } else {
                        format!("{name}-{flow_name}")
                    };
                    let kind = card::SecuritySchemeKind::OAuth2(card::OAuth2SecurityScheme {
                        description: text(&scheme.description),
                        flows,
                        oauth2_metadata_url: text(&scheme.oauth2_metadata_url),
                    });
                    (scheme_name, kind)
                })
                .collect())
        }
    }
}

/// v1.0 requirements from a v0.3 list. A scheme split into several (`split`) makes each
/// alternative that names it into one alternative per split scheme.
fn requirements_to_v1(
    requirements: Option<&SecurityRequirements>,
    split: &IndexMap<String, Vec<String>>,
) -> Vec<card::SecurityRequirement> {
    let mut out = Vec::new();
    for alternative in requirements.into_iter().flatten() {
        let mut expanded = vec![IndexMap::<String, StringList>::new()];
        for (name, scopes) in alternative {
            let names = split
                .get(name)
                .cloned()
                .unwrap_or_else(|| vec![name.clone()]);
            expanded = expanded
                .into_iter()
                .flat_map(|partial| {
                    names.iter().map(move |scheme_name| {
                        let mut next = partial.clone();
                        next.insert(
                            scheme_name.clone(),
                            StringList {
                                list: scopes.clone(),
                            },
                        );
                        next
                    })
                })
                .collect();
        }
        out.extend(
            expanded
                .into_iter()
                .map(|schemes| card::SecurityRequirement { schemes }),
        );
    }
    out
}

/// The v1.0 view of a v0.3 card.
///
/// `url` + `preferredTransport` (`JSONRPC` when absent) becomes the first interface, then
/// every other `additionalInterfaces` entry, all with the card's `protocolVersion` as
/// `Major.Minor` (`0.3` when absent). `supportsAuthenticatedExtendedCard` becomes
/// `capabilities.extendedAgentCard`; `stateTransitionHistory` is kept in the capabilities'
/// `extra`. An OAuth scheme with several flows becomes one scheme per flow (the first keeps
/// the name, the others are `{name}-{flow}`), and each requirement naming it one
/// alternative per flow. Signatures and `extra` are dropped.
///
/// Fails on an OAuth scheme with no flow.
impl TryFrom<AgentCard> for card::AgentCard {
    type Error = ConversionError;

    fn try_from(card: AgentCard) -> Result<Self, ConversionError> {
        let version = major_minor(card.protocol_version.as_deref().unwrap_or(PROTOCOL_VERSION));
        let primary = AgentInterface {
            url: card.url,
            transport: card.preferred_transport.unwrap_or(ProtocolBinding::JsonRpc),
        };
        let mut endpoints = vec![primary];
        for interface in card.additional_interfaces.into_iter().flatten() {
            if !endpoints.contains(&interface) {
                endpoints.push(interface);
            }
        }
        let supported_interfaces = endpoints
            .into_iter()
            .map(|interface| {
                let mut v1 = card::AgentInterface::new(interface.url, interface.transport);
                v1.protocol_version.clone_from(&version);
                v1
            })
            .collect();

        let mut security_schemes = IndexMap::new();
        let mut split = IndexMap::new();
        for (name, scheme) in card.security_schemes.iter().flatten() {
            let schemes = scheme_to_v1(name, scheme)
                .map_err(|err| err.within(format!("securitySchemes.{name}")))?;
            if schemes.len() > 1 {
                split.insert(
                    name.clone(),
                    schemes
                        .iter()
                        .map(|(scheme_name, _)| scheme_name.clone())
                        .collect(),
                );
            }
            for (scheme_name, kind) in schemes {
                security_schemes.insert(scheme_name, card::SecurityScheme::from(kind));
            }
        }

        let capabilities = card.capabilities;
        let mut capability_extra = Metadata::new();
        if let Some(history) = capabilities.state_transition_history {
            capability_extra.insert(STATE_TRANSITION_HISTORY.to_owned(), Value::Bool(history));
        }
        let skills = card
            .skills
            .into_iter()
            .map(|skill| card::AgentSkill {
                id: skill.id,
                name: skill.name,
                description: skill.description,
                tags: skill.tags,
                examples: skill.examples.unwrap_or_default(),
                input_modes: skill.input_modes.unwrap_or_default(),
                output_modes: skill.output_modes.unwrap_or_default(),
                security_requirements: requirements_to_v1(skill.security.as_ref(), &split),
                extra: Metadata::new(),
            })
            .collect();

        Ok(Self {
            name: card.name,
            description: card.description,
            supported_interfaces,
            provider: card.provider,
            version: card.version,
            documentation_url: card.documentation_url,
            capabilities: card::AgentCapabilities {
                streaming: capabilities.streaming,
                push_notifications: capabilities.push_notifications,
                extensions: capabilities
                    .extensions
                    .unwrap_or_default()
                    .into_iter()
                    .map(|extension| card::AgentExtension {
                        uri: extension.uri,
                        description: extension.description.unwrap_or_default(),
                        required: extension.required.unwrap_or(false),
                        params: extension.params,
                    })
                    .collect(),
                extended_agent_card: card.supports_authenticated_extended_card,
                extra: capability_extra,
            },
            security_schemes,
            security_requirements: requirements_to_v1(card.security.as_ref(), &split),
            default_input_modes: card.default_input_modes,
            default_output_modes: card.default_output_modes,
            skills,
            signatures: Vec::new(),
            icon_url: card.icon_url,
            extra: Metadata::new(),
        })
    }
}

/// The members of a v0.3 card that a card serving both versions adds at its top level.
pub(super) const LEGACY_CARD_MEMBERS: [&str; 6] = [
    "protocolVersion",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "supportsAuthenticatedExtendedCard",
    "security",
];

/// A v1.0 card that v0.3 clients can read too: the v0.3 view of `card`
/// ([`From<&AgentCard>`](AgentCard)) merged into it as unknown members, which v1.0 readers
/// ignore and the v1.0 types keep. The top level gains `protocolVersion`, `url`,
/// `preferredTransport`, `additionalInterfaces`, `supportsAuthenticatedExtendedCard` and
/// `security` (those that are set); each security scheme gains its v0.3 members (`type`,
/// `in`, `flows`, …) beside its v1.0 wrapper; each skill gains `security`.
///
/// Signatures are kept as they are: they must be made over the card as served.
#[must_use]
pub fn dual_protocol_card(card: &card::AgentCard) -> card::AgentCard {
    let legacy = AgentCard::from(card);
    let mut dual = card.clone();
    if let Ok(Value::Object(members)) = serde_json::to_value(&legacy) {
        for key in LEGACY_CARD_MEMBERS {
            if let Some(value) = members.get(key) {
                dual.extra.insert(key.to_owned(), value.clone());
            }
        }
    }
    for (name, scheme) in legacy.security_schemes.iter().flatten() {
        if let (Some(target), Ok(Value::Object(members))) = (
            dual.security_schemes.get_mut(name),
            serde_json::to_value(scheme),
        ) {
            target.extra.extend(members);
        }
    }
    for (skill, legacy_skill) in dual.skills.iter_mut().zip(&legacy.skills) {
        if let Some(Ok(security)) = legacy_skill.security.as_ref().map(serde_json::to_value) {
            skill.extra.insert("security".to_owned(), security);
        }
    }
    dual
}
