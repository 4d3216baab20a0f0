//! Security: the declared schemes (OAuth 2.0 flows included), the requirements that name
//! them, and the summary of what the card asks callers for.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use url::Url;

use super::checker::Checker;
use super::checker::{field, is_local, kind, member};
use super::members::{FLOW_KINDS, LEGACY_API_KEY_MEMBERS, LEGACY_SCHEME_MEMBERS, SCHEME_KINDS};
impl Checker {
    pub(super) fn security_schemes(&mut self, card: &Map<String, Value>) {
        let path = "securitySchemes";
        let Some(value) = field(card, path) else {
            return;
        };
        let Some(schemes) = self.object(value, path) else {
            return;
        };
        for (name, scheme) in schemes {
            let path = member(path, name);
            let scopes = self.security_scheme(scheme, &path);
            self.schemes.insert(name.clone(), scopes);
        }
    }

    /// Checks one scheme; returns its OAuth scopes when it is an OAuth 2.0 scheme.
    pub(super) fn security_scheme(
        &mut self,
        scheme: &Value,
        path: &str,
    ) -> Option<BTreeSet<String>> {
        let scheme = self.object(scheme, path)?;
        self.members(
            scheme,
            path,
            "SecurityScheme",
            SCHEME_KINDS,
            LEGACY_SCHEME_MEMBERS,
        );
        let kinds: Vec<(&str, &Value)> = SCHEME_KINDS
            .iter()
            .filter_map(|kind| field(scheme, kind).map(|value| (*kind, value)))
            .collect();
        let [(kind, body)] = kinds.as_slice() else {
            if kinds.is_empty() {
                self.error(
                    path,
                    "A SecurityScheme MUST set exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme or mtlsSecurityScheme; this one sets none.",
                );
            } else {
                self.error(
                    path,
                    "A SecurityScheme MUST set exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme or mtlsSecurityScheme; this one sets several.",
                );
            }
            return None;
        };
        let path = member(path, kind);
        let body = self.object(body, &path)?;
        self.optional_string(body, &path, "description");
        match *kind {
            "apiKeySecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "APIKeySecurityScheme",
                    &["description", "location", "name"],
                    LEGACY_API_KEY_MEMBERS,
                );
                if let Some(location) = self.required_string(
                    body,
                    &path,
                    "location",
                    "location is REQUIRED: where the API key goes, query, header or cookie.",
                ) && !matches!(location, "query" | "header" | "cookie")
                {
                    self.error(
                        &member(&path, "location"),
                        format!("location is query, header or cookie, not {location:?}."),
                    );
                }
                self.required_string(
                    body,
                    &path,
                    "name",
                    "name is REQUIRED: the name of the header, query parameter or cookie that carries the API key.",
                );
                None
            }
            "httpAuthSecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "HTTPAuthSecurityScheme",
                    &["description", "scheme", "bearerFormat"],
                    &[],
                );
                self.required_string(
                    body,
                    &path,
                    "scheme",
                    "scheme is REQUIRED: the HTTP authentication scheme for the Authorization header (RFC 7235), for example Bearer or Basic.",
                );
                self.optional_string(body, &path, "bearerFormat");
                None
            }
            "oauth2SecurityScheme" => Some(self.oauth2(body, &path)),
            "openIdConnectSecurityScheme" => {
                self.members(
                    body,
                    &path,
                    "OpenIdConnectSecurityScheme",
                    &["description", "openIdConnectUrl"],
                    &[],
                );
                if let Some(url) = self.required_string(
                    body,
                    &path,
                    "openIdConnectUrl",
                    "openIdConnectUrl is REQUIRED: the OpenID Connect discovery URL.",
                ) {
                    self.secure_url(&member(&path, "openIdConnectUrl"), url);
                }
                None
            }
            _ => {
                self.members(
                    body,
                    &path,
                    "MutualTlsSecurityScheme",
                    &["description"],
                    &[],
                );
                None
            }
        }
    }

    pub(super) fn oauth2(&mut self, body: &Map<String, Value>, path: &str) -> BTreeSet<String> {
        let mut scopes = BTreeSet::new();
        self.members(
            body,
            path,
            "OAuth2SecurityScheme",
            &["description", "flows", "oauth2MetadataUrl"],
            &[],
        );
        if let Some(url) = self.optional_string(body, path, "oauth2MetadataUrl") {
            self.secure_url(&member(path, "oauth2MetadataUrl"), url);
        }
        let flows_path = member(path, "flows");
        let Some(flows) = field(body, "flows") else {
            self.error(
                &flows_path,
                "flows is REQUIRED: the OAuth 2.0 flow this scheme uses.",
            );
            return scopes;
        };
        let Some(flows) = self.object(flows, &flows_path) else {
            return scopes;
        };
        self.members(flows, &flows_path, "OAuthFlows", FLOW_KINDS, &[]);
        let present: Vec<&str> = FLOW_KINDS
            .iter()
            .copied()
            .filter(|kind| field(flows, kind).is_some())
            .collect();
        match present.len() {
            0 => self.error(
                &flows_path,
                "OAuthFlows MUST set exactly one flow: authorizationCode, clientCredentials, deviceCode (or the deprecated implicit or password).",
            ),
            1 => {}
            _ => self.error(
                &flows_path,
                "OAuthFlows holds exactly one flow: declare one OAuth 2.0 scheme per flow.",
            ),
        }
        for kind in present {
            let path = member(&flows_path, kind);
            let Some(flow) = field(flows, kind).and_then(|flow| self.object(flow, &path)) else {
                continue;
            };
            let (required, all): (&[&str], &[&str]) = match kind {
                "authorizationCode" => (
                    &["authorizationUrl", "tokenUrl", "scopes"],
                    &[
                        "authorizationUrl",
                        "tokenUrl",
                        "refreshUrl",
                        "scopes",
                        "pkceRequired",
                    ],
                ),
                "clientCredentials" => (
                    &["tokenUrl", "scopes"],
                    &["tokenUrl", "refreshUrl", "scopes"],
                ),
                "deviceCode" => (
                    &["deviceAuthorizationUrl", "tokenUrl", "scopes"],
                    &["deviceAuthorizationUrl", "tokenUrl", "refreshUrl", "scopes"],
                ),
                "implicit" => (&[], &["authorizationUrl", "refreshUrl", "scopes"]),
                _ => (&[], &["tokenUrl", "refreshUrl", "scopes"]),
            };
            if matches!(kind, "implicit" | "password") {
                self.warning(
                    &path,
                    format!(
                        "The {kind} flow is deprecated: use the authorization code flow with PKCE, or the device code flow."
                    ),
                );
            }
            self.members(flow, &path, "this OAuth flow", all, &[]);
            for name in required {
                if field(flow, name).is_none() {
                    self.error(
                        &member(&path, name),
                        format!("{name} is REQUIRED in the {kind} flow."),
                    );
                }
            }
            for name in [
                "authorizationUrl",
                "tokenUrl",
                "refreshUrl",
                "deviceAuthorizationUrl",
            ] {
                if all.contains(&name)
                    && let Some(url) = self.optional_string(flow, &path, name)
                {
                    self.secure_url(&member(&path, name), url);
                }
            }
            self.optional_bool(flow, &path, "pkceRequired");
            if let Some(declared) = field(flow, "scopes") {
                let scopes_path = member(&path, "scopes");
                if let Some(declared) = self.object(declared, &scopes_path) {
                    for (scope, description) in declared {
                        if !description.is_string() {
                            self.error(
                                &member(&scopes_path, scope),
                                "scopes maps each scope name to a description string.",
                            );
                        }
                        scopes.insert(scope.clone());
                    }
                }
            }
        }
        scopes
    }

    /// A URL of the security machinery: absolute, and https unless on this machine.
    pub(super) fn secure_url(&mut self, path: &str, text: &str) {
        match Url::parse(text) {
            Ok(url) if url.scheme() == "https" || (url.scheme() == "http" && is_local(&url)) => {}
            Ok(url) if url.scheme() == "http" => self.warning(
                path,
                "This URL carries credentials or their metadata and should use TLS (https).",
            ),
            Ok(_) | Err(_) => self.error(path, "This must be an absolute https URL."),
        }
    }

    /// `securityRequirements` of the card or of a skill: an OR-list of AND-sets of schemes,
    /// each naming a declared scheme.
    pub(super) fn requirements(&mut self, value: &Value, path: &str) {
        let Some(requirements) = self.array(value, path) else {
            return;
        };
        for (index, requirement) in requirements.iter().enumerate() {
            let path = format!("{path}[{index}]");
            let Some(requirement) = self.object(requirement, &path) else {
                continue;
            };
            let Some(schemes) = field(requirement, "schemes") else {
                if requirement.values().any(Value::is_array) {
                    self.error(
                        &path,
                        "This is the v0.3 shape of a security requirement ({\"NAME\": [SCOPES]}); in A2A 1.0 it is {\"schemes\": {\"NAME\": {\"list\": [SCOPES]}}}.",
                    );
                } else if requirement.is_empty() {
                    self.info(
                        &path,
                        "An empty requirement is an alternative that needs no authentication at all.",
                    );
                } else {
                    self.members(requirement, &path, "SecurityRequirement", &["schemes"], &[]);
                }
                continue;
            };
            self.members(requirement, &path, "SecurityRequirement", &["schemes"], &[]);
            let schemes_path = member(&path, "schemes");
            let Some(schemes) = self.object(schemes, &schemes_path) else {
                continue;
            };
            if schemes.is_empty() {
                self.info(
                    &schemes_path,
                    "An empty requirement is an alternative that needs no authentication at all.",
                );
            }
            for (name, scopes) in schemes {
                let at = member(&schemes_path, name);
                let wanted = match scopes {
                    Value::Array(_) => {
                        self.error(
                            &at,
                            "Scopes are written {\"list\": [SCOPES]} in A2A 1.0, not as a bare array (the v0.3 shape).",
                        );
                        self.string_list(scopes, &at)
                    }
                    Value::Object(list) => {
                        self.members(list, &at, "StringList", &["list"], &[]);
                        field(list, "list")
                            .map(|list| self.string_list(list, &member(&at, "list")))
                            .unwrap_or_default()
                    }
                    other => {
                        self.error(
                            &at,
                            format!(
                                "Each scheme maps to {{\"list\": [SCOPES]}}, not {}.",
                                kind(other)
                            ),
                        );
                        Vec::new()
                    }
                };
                match self.schemes.get(name) {
                    None => self.error(
                        &at,
                        format!(
                            "A security requirement names schemes by their key in securitySchemes, and {name} is not declared there."
                        ),
                    ),
                    Some(Some(declared)) => {
                        let unknown: Vec<&str> = wanted
                            .iter()
                            .map(String::as_str)
                            .filter(|scope| !declared.contains(*scope))
                            .collect();
                        if !unknown.is_empty() {
                            self.warning(
                                &at,
                                format!(
                                    "The scheme's OAuth flow does not declare the scope(s) {}.",
                                    unknown.join(", ")
                                ),
                            );
                        }
                    }
                    Some(None) => {}
                }
            }
        }
    }

    pub(super) fn security_summary(&mut self, card: &Map<String, Value>, extended_card: bool) {
        let has_requirements = field(card, "securityRequirements")
            .and_then(Value::as_array)
            .is_some_and(|requirements| !requirements.is_empty());
        if !self.schemes.is_empty() && !has_requirements {
            self.info(
                "securityRequirements",
                "The card declares security schemes but no securityRequirements, so it does not say which of them a call needs.",
            );
        }
        if extended_card && self.schemes.is_empty() {
            self.warning(
                "capabilities.extendedAgentCard",
                "The extended agent card MUST require authentication with a scheme from the public card's securitySchemes, and this card declares none.",
            );
        }
    }
}
