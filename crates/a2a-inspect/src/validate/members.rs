//! The member names of each part of a card, in the proto's order, and the names v0.3 used.

/// The binding names of A2A 1.0.
pub(super) const BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/// The members of each part of a 1.0 card, in the proto's order.
pub(super) const CARD_MEMBERS: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "provider",
    "version",
    "documentationUrl",
    "capabilities",
    "securitySchemes",
    "securityRequirements",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "signatures",
    "iconUrl",
];
pub(super) const INTERFACE_MEMBERS: &[&str] =
    &["url", "protocolBinding", "tenant", "protocolVersion"];
pub(super) const PROVIDER_MEMBERS: &[&str] = &["url", "organization"];
pub(super) const CAPABILITY_MEMBERS: &[&str] = &[
    "streaming",
    "pushNotifications",
    "extensions",
    "extendedAgentCard",
];
pub(super) const EXTENSION_MEMBERS: &[&str] = &["uri", "description", "required", "params"];
pub(super) const SKILL_MEMBERS: &[&str] = &[
    "id",
    "name",
    "description",
    "tags",
    "examples",
    "inputModes",
    "outputModes",
    "securityRequirements",
];
pub(super) const SIGNATURE_MEMBERS: &[&str] = &["protected", "signature", "header"];
pub(super) const SCHEME_KINDS: &[&str] = &[
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];
pub(super) const FLOW_KINDS: &[&str] = &[
    "authorizationCode",
    "clientCredentials",
    "implicit",
    "password",
    "deviceCode",
];

/// Card members of v0.3 that 1.0 removed, with what replaced them.
pub(super) const LEGACY_CARD_MEMBERS: &[(&str, &str)] = &[
    (
        "url",
        "url was removed in A2A 1.0: the agent's endpoints are listed in supportedInterfaces, each with its url.",
    ),
    (
        "protocolVersion",
        "protocolVersion was removed from the card in A2A 1.0: each entry of supportedInterfaces states its own protocolVersion.",
    ),
    (
        "preferredTransport",
        "preferredTransport was removed in A2A 1.0: the first entry of supportedInterfaces is the preferred one.",
    ),
    (
        "additionalInterfaces",
        "additionalInterfaces was removed in A2A 1.0: every interface goes in supportedInterfaces, in preference order.",
    ),
    (
        "supportsAuthenticatedExtendedCard",
        "supportsAuthenticatedExtendedCard was removed in A2A 1.0: declare capabilities.extendedAgentCard instead.",
    ),
    (
        "security",
        "security was renamed securityRequirements in A2A 1.0, with a new shape: [{\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}].",
    ),
];
pub(super) const LEGACY_CAPABILITY_MEMBERS: &[(&str, &str)] = &[(
    "stateTransitionHistory",
    "capabilities.stateTransitionHistory was removed in A2A 1.0.",
)];
pub(super) const LEGACY_SCHEME_MEMBERS: &[(&str, &str)] = &[(
    "type",
    "type is the v0.3 shape of a security scheme; in A2A 1.0 the scheme's kind is the name of its one member (apiKeySecurityScheme, httpAuthSecurityScheme, …).",
)];
pub(super) const LEGACY_API_KEY_MEMBERS: &[(&str, &str)] = &[(
    "in",
    "in was renamed location in A2A 1.0 (query, header or cookie).",
)];

/// Member names that hold secrets; a card SHOULD NOT carry any.
pub(super) const SECRET_NAMES: &[&str] = &[
    "clientsecret",
    "client_secret",
    "password",
    "secret",
    "privatekey",
    "private_key",
    "accesstoken",
    "access_token",
    "refreshtoken",
    "refresh_token",
    "apikeyvalue",
    "credentials",
];
