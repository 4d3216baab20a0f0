//! One test per rule: a clean card has no errors, and each broken card names what broke,
//! where, at the right level.

use a2a_types::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill, ProtocolBinding};
use serde_json::{Value, json};

use super::{Level, card_findings};

/// The card `a2a serve --agent echo` serves on 127.0.0.1, built the way the command builds it.
fn echo_card() -> Value {
    let url = "http://127.0.0.1:8080";
    let mut card = AgentCard::new(
        "Echo",
        "Answers every message with an artifact holding its text.",
        "0.1.0",
    )
    .with_skill(AgentSkill::new(
        "echo",
        "Echo",
        "Repeats the message text as an artifact",
    ))
    .with_interface(AgentInterface::new(url, ProtocolBinding::JsonRpc))
    .with_interface(AgentInterface::new(url, ProtocolBinding::HttpJson));
    card.capabilities = AgentCapabilities {
        streaming: Some(true),
        ..AgentCapabilities::default()
    };
    card.default_input_modes = vec!["text/plain".to_owned()];
    card.default_output_modes = vec!["text/plain".to_owned()];
    serde_json::to_value(card).unwrap()
}

/// The spec's sample card, every top-level member set (with a real base64url signature).
fn full_card() -> Value {
    json!({
      "name": "Recipe Agent",
      "description": "Finds and adapts recipes.",
      "supportedInterfaces": [
        {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://agent.example.com/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
        {"url": "grpc.example.com:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
      ],
      "provider": {"organization": "Example Inc.", "url": "https://example.com"},
      "version": "2.3.0",
      "documentationUrl": "https://example.com/docs",
      "iconUrl": "https://example.com/icon.png",
      "capabilities": {
        "streaming": true, "pushNotifications": true, "extendedAgentCard": true,
        "extensions": [{"uri": "https://example.com/ext/citations/v1", "description": "citations", "required": false}]
      },
      "securitySchemes": {
        "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
        "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://idp.example.com/.well-known/openid-configuration"}},
        "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
            "tokenUrl": "https://idp.example.com/token", "scopes": {"read": "Read recipes"}}}}}
      },
      "securityRequirements": [
        {"schemes": {"bearer": {}}},
        {"schemes": {"oidc": {"list": ["openid"]}}},
        {"schemes": {"oauth": {"list": ["read"]}}}
      ],
      "defaultInputModes": ["text/plain", "application/json"],
      "defaultOutputModes": ["text/plain"],
      "skills": [{"id": "find", "name": "Find recipe", "description": "Search recipes", "tags": ["cooking"],
                  "examples": ["vegan lasagna"], "inputModes": ["text/plain"], "outputModes": ["text/plain"]}],
      "signatures": [{"protected": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrMSJ9", "signature": "c2lnbmF0dXJl"}]
    })
}

/// The findings at `path`, as (level, message).
fn at(card: &Value, path: &str) -> Vec<(Level, String)> {
    card_findings(card)
        .into_iter()
        .filter(|finding| finding.path == path)
        .map(|finding| (finding.level, finding.message))
        .collect()
}

/// Asserts one finding of `level` at `path` whose message contains `words`.
#[track_caller]
fn assert_finding(card: &Value, level: Level, path: &str, words: &str) {
    let found = at(card, path);
    assert!(
        found
            .iter()
            .any(|(found_level, message)| *found_level == level && message.contains(words)),
        "no {level:?} at {path:?} saying {words:?}; all findings: {:#?}",
        card_findings(card)
    );
}

fn errors(card: &Value) -> Vec<String> {
    card_findings(card)
        .into_iter()
        .filter(|finding| finding.level == Level::Error)
        .map(|finding| format!("{}: {}", finding.path, finding.message))
        .collect()
}

#[test]
fn the_echo_agents_card_has_no_errors_and_notes_plain_http_on_this_machine() {
    let card = echo_card();
    assert_eq!(errors(&card), Vec::<String>::new());
    assert_finding(
        &card,
        Level::Info,
        "supportedInterfaces[0].url",
        "production MUST use TLS",
    );
    // AgentSkill::new leaves the tags empty.
    assert_finding(
        &card,
        Level::Warning,
        "skills[0].tags",
        "at least one keyword",
    );
}

#[test]
fn the_security_a2a_serve_declares_has_no_errors() {
    use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};

    let mut card: AgentCard = serde_json::from_value(echo_card()).unwrap();
    for (name, scheme) in [
        (
            "apiKey",
            SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
        ),
        ("bearer", SecurityScheme::bearer("")),
        (
            "oidc",
            SecurityScheme::open_id_connect(
                "http://127.0.0.1:9000/.well-known/openid-configuration",
            ),
        ),
        ("mtls", SecurityScheme::mutual_tls()),
    ] {
        card.security_schemes.insert(name.to_owned(), scheme);
        card.security_requirements
            .push(SecurityRequirement::scheme(name, ["a2a.read"]));
    }
    card.capabilities.extended_agent_card = Some(true);
    let card = serde_json::to_value(card).unwrap();
    assert_eq!(errors(&card), Vec::<String>::new());
    assert!(at(&card, "capabilities.extendedAgentCard").is_empty());
}

#[test]
fn the_spec_sample_card_is_clean() {
    let findings = card_findings(&full_card());
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn a_card_is_a_json_object() {
    assert_finding(&json!([]), Level::Error, "", "JSON object");
}

#[test]
fn every_required_member_is_named_when_missing() {
    let card = json!({});
    for (path, words) in [
        (
            "name",
            "name is REQUIRED: a human-readable name for the agent.",
        ),
        ("description", "description is REQUIRED"),
        ("supportedInterfaces", "MUST declare every protocol binding"),
        ("version", "not the protocol version"),
        ("capabilities", "capabilities is REQUIRED"),
        ("defaultInputModes", "media types the agent accepts"),
        ("defaultOutputModes", "media types the agent produces"),
        ("skills", "skills is REQUIRED"),
    ] {
        assert_finding(&card, Level::Error, path, words);
    }
}

#[test]
fn required_strings_must_be_set_and_be_strings() {
    let mut card = full_card();
    card["name"] = json!("");
    card["version"] = json!(2);
    assert_finding(&card, Level::Error, "name", "MUST be set");
    assert_finding(
        &card,
        Level::Error,
        "version",
        "must be a string, not a number",
    );
}

#[test]
fn a_protocol_version_in_the_agent_version_is_noted() {
    let mut card = full_card();
    card["version"] = json!("1.0");
    assert_finding(
        &card,
        Level::Info,
        "version",
        "looks like a protocol version",
    );
}

#[test]
fn an_empty_interface_list_leaves_nothing_to_call() {
    let mut card = full_card();
    card["supportedInterfaces"] = json!([]);
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces",
        "nothing to call",
    );
}

#[test]
fn each_interface_states_url_binding_and_version() {
    let mut card = full_card();
    card["supportedInterfaces"][0] = json!({"tenant": 5});
    for name in ["url", "protocolBinding", "protocolVersion"] {
        assert_finding(
            &card,
            Level::Error,
            &format!("supportedInterfaces[0].{name}"),
            "is REQUIRED",
        );
    }
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[0].tenant",
        "string",
    );
}

#[test]
fn binding_names_are_exact() {
    let mut card = full_card();
    card["supportedInterfaces"][0]["protocolBinding"] = json!("jsonrpc");
    card["supportedInterfaces"][1]["protocolBinding"] = json!("rest");
    card["supportedInterfaces"][2]["protocolBinding"] = json!("websocket");
    card["supportedInterfaces"][3]["protocolBinding"] = json!("urn:example:binding");
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[0].protocolBinding",
        "Write JSONRPC, not jsonrpc",
    );
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[1].protocolBinding",
        "Write HTTP+JSON, not rest",
    );
    assert_finding(
        &card,
        Level::Warning,
        "supportedInterfaces[2].protocolBinding",
        "SHOULD be identified by a URI",
    );
    assert_finding(
        &card,
        Level::Info,
        "supportedInterfaces[3].protocolBinding",
        "custom binding",
    );
}

#[test]
fn protocol_versions_are_major_minor_without_patch() {
    let mut card = full_card();
    card["supportedInterfaces"][0]["protocolVersion"] = json!("1.0.1");
    card["supportedInterfaces"][1]["protocolVersion"] = json!("v1");
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[0].protocolVersion",
        "patch numbers MUST NOT appear",
    );
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[1].protocolVersion",
        "Major.Minor",
    );
}

#[test]
fn a_card_without_a_1x_interface_is_flagged() {
    let mut card = full_card();
    card["supportedInterfaces"] = json!([
        {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    ]);
    assert_finding(
        &card,
        Level::Warning,
        "supportedInterfaces",
        "protocol version 1.x",
    );
}

#[test]
fn interface_urls_are_absolute_and_https_in_production() {
    let mut card = full_card();
    card["supportedInterfaces"][0]["url"] = json!("/a2a");
    card["supportedInterfaces"][1]["url"] = json!("http://agent.example.com/rest");
    card["supportedInterfaces"][2]["url"] = json!("not a host");
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[0].url",
        "absolute http(s) URL",
    );
    assert_finding(
        &card,
        Level::Warning,
        "supportedInterfaces[1].url",
        "MUST use TLS",
    );
    assert_finding(
        &card,
        Level::Error,
        "supportedInterfaces[2].url",
        "host:port",
    );
}

#[test]
fn a_repeated_interface_is_flagged() {
    let mut card = full_card();
    let first = card["supportedInterfaces"][0].clone();
    card["supportedInterfaces"][1] = first;
    assert_finding(
        &card,
        Level::Warning,
        "supportedInterfaces[1]",
        "repeats supportedInterfaces[0]",
    );
}

#[test]
fn a_provider_has_organization_and_url() {
    let mut card = full_card();
    card["provider"] = json!({"url": "example"});
    assert_finding(&card, Level::Error, "provider.organization", "REQUIRED");
    assert_finding(&card, Level::Warning, "provider.url", "absolute URL");
}

#[test]
fn capabilities_are_booleans() {
    let mut card = full_card();
    card["capabilities"]["streaming"] = json!("yes");
    assert_finding(
        &card,
        Level::Error,
        "capabilities.streaming",
        "true or false",
    );
}

#[test]
fn extensions_are_identified_by_a_versioned_uri() {
    let mut card = full_card();
    card["capabilities"]["extensions"] = json!([
        {"required": true},
        {"uri": "https://example.com/ext/citations"},
        {"uri": "https://example.com/ext/citations"}
    ]);
    assert_finding(
        &card,
        Level::Warning,
        "capabilities.extensions[0].uri",
        "required extension",
    );
    assert_finding(
        &card,
        Level::Warning,
        "capabilities.extensions[1].uri",
        "SHOULD include a version",
    );
    assert_finding(
        &card,
        Level::Warning,
        "capabilities.extensions[2].uri",
        "declared twice",
    );
}

#[test]
fn a_security_scheme_sets_exactly_one_kind() {
    let mut card = full_card();
    card["securitySchemes"]["bearer"] = json!({});
    card["securitySchemes"]["oidc"]["httpAuthSecurityScheme"] = json!({"scheme": "Basic"});
    assert_finding(&card, Level::Error, "securitySchemes.bearer", "sets none");
    assert_finding(&card, Level::Error, "securitySchemes.oidc", "sets several");
}

#[test]
fn a_v03_security_scheme_is_named_as_such() {
    let mut card = full_card();
    card["securitySchemes"]["bearer"] = json!({"type": "http", "scheme": "bearer"});
    assert_finding(
        &card,
        Level::Warning,
        "securitySchemes.bearer.type",
        "v0.3 shape",
    );
    assert_finding(&card, Level::Error, "securitySchemes.bearer", "exactly one");
}

#[test]
fn an_api_key_scheme_has_location_and_name() {
    let mut card = full_card();
    card["securitySchemes"]["key"] = json!({"apiKeySecurityScheme": {"in": "header"}});
    card["securitySchemes"]["query"] =
        json!({"apiKeySecurityScheme": {"location": "body", "name": "k"}});
    let scheme = "securitySchemes.key.apiKeySecurityScheme";
    assert_finding(
        &card,
        Level::Error,
        &format!("{scheme}.location"),
        "REQUIRED",
    );
    assert_finding(&card, Level::Error, &format!("{scheme}.name"), "REQUIRED");
    assert_finding(
        &card,
        Level::Warning,
        &format!("{scheme}.in"),
        "renamed location",
    );
    assert_finding(
        &card,
        Level::Error,
        "securitySchemes.query.apiKeySecurityScheme.location",
        "query, header or cookie",
    );
}

#[test]
fn an_http_scheme_names_its_scheme() {
    let mut card = full_card();
    card["securitySchemes"]["bearer"] = json!({"httpAuthSecurityScheme": {"bearerFormat": "JWT"}});
    assert_finding(
        &card,
        Level::Error,
        "securitySchemes.bearer.httpAuthSecurityScheme.scheme",
        "RFC 7235",
    );
}

#[test]
fn an_oauth2_scheme_has_exactly_one_complete_flow() {
    let mut card = full_card();
    let flows = "securitySchemes.oauth.oauth2SecurityScheme.flows";
    card["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"] = json!({
        "clientCredentials": {"tokenUrl": "https://idp.example.com/token", "scopes": {"read": "r"}},
        "authorizationCode": {"tokenUrl": "http://idp.example.com/token"},
        "implicit": {"scopes": {}}
    });
    assert_finding(&card, Level::Error, flows, "exactly one flow");
    assert_finding(
        &card,
        Level::Error,
        &format!("{flows}.authorizationCode.authorizationUrl"),
        "REQUIRED in the authorizationCode flow",
    );
    assert_finding(
        &card,
        Level::Error,
        &format!("{flows}.authorizationCode.scopes"),
        "REQUIRED",
    );
    assert_finding(
        &card,
        Level::Warning,
        &format!("{flows}.authorizationCode.tokenUrl"),
        "https",
    );
    assert_finding(
        &card,
        Level::Warning,
        &format!("{flows}.implicit"),
        "deprecated",
    );

    card["securitySchemes"]["oauth"]["oauth2SecurityScheme"] = json!({});
    assert_finding(
        &card,
        Level::Error,
        "securitySchemes.oauth.oauth2SecurityScheme.flows",
        "flows is REQUIRED",
    );
}

#[test]
fn an_openid_connect_scheme_has_its_discovery_url() {
    let mut card = full_card();
    card["securitySchemes"]["oidc"] = json!({"openIdConnectSecurityScheme": {}});
    assert_finding(
        &card,
        Level::Error,
        "securitySchemes.oidc.openIdConnectSecurityScheme.openIdConnectUrl",
        "discovery URL",
    );
}

#[test]
fn requirements_name_declared_schemes() {
    let mut card = full_card();
    card["securityRequirements"] = json!([{"schemes": {"google": {"list": ["openid"]}}}]);
    assert_finding(
        &card,
        Level::Error,
        "securityRequirements[0].schemes.google",
        "google is not declared",
    );
}

#[test]
fn requirements_use_the_1_0_shape() {
    let mut card = full_card();
    card["securityRequirements"] = json!([
        {"bearer": []},
        {"schemes": {"oidc": ["openid"]}}
    ]);
    assert_finding(&card, Level::Error, "securityRequirements[0]", "v0.3 shape");
    assert_finding(
        &card,
        Level::Error,
        "securityRequirements[1].schemes.oidc",
        "{\"list\": [SCOPES]}",
    );
}

#[test]
fn required_oauth_scopes_are_declared_by_the_flow() {
    let mut card = full_card();
    card["securityRequirements"][2]["schemes"]["oauth"]["list"] = json!(["read", "write"]);
    assert_finding(
        &card,
        Level::Warning,
        "securityRequirements[2].schemes.oauth",
        "scope(s) write",
    );
}

#[test]
fn skill_requirements_name_declared_schemes_too() {
    let mut card = full_card();
    card["skills"][0]["securityRequirements"] = json!([{"schemes": {"admin": {}}}]);
    assert_finding(
        &card,
        Level::Error,
        "skills[0].securityRequirements[0].schemes.admin",
        "not declared",
    );
}

#[test]
fn schemes_without_requirements_are_noted() {
    let mut card = full_card();
    card.as_object_mut().unwrap().remove("securityRequirements");
    assert_finding(
        &card,
        Level::Info,
        "securityRequirements",
        "does not say which of them",
    );
}

#[test]
fn an_extended_card_needs_a_declared_scheme() {
    let mut card = echo_card();
    card["capabilities"]["extendedAgentCard"] = json!(true);
    assert_finding(
        &card,
        Level::Warning,
        "capabilities.extendedAgentCard",
        "MUST require authentication",
    );
}

#[test]
fn modes_are_media_types_and_not_empty() {
    let mut card = full_card();
    card["defaultInputModes"] = json!([]);
    card["defaultOutputModes"] = json!(["text", 3]);
    card["skills"][0]["inputModes"] = json!(["image"]);
    assert_finding(
        &card,
        Level::Error,
        "defaultInputModes",
        "at least one element",
    );
    assert_finding(
        &card,
        Level::Warning,
        "defaultOutputModes[0]",
        "media types",
    );
    assert_finding(&card, Level::Error, "defaultOutputModes[1]", "string");
    assert_finding(&card, Level::Warning, "skills[0].inputModes[0]", "MIME");
}

#[test]
fn skills_have_id_name_description_and_tags() {
    let mut card = full_card();
    card["skills"] = json!([{}, {"id": "find", "name": "n", "description": "d", "tags": ["t"]},
        {"id": "find", "name": "n", "description": "d", "tags": ["t"]}]);
    for (name, words) in [
        ("id", "unique identifier"),
        ("name", "human-readable name for the skill"),
        ("description", "description of the skill"),
        ("tags", "keywords"),
    ] {
        assert_finding(&card, Level::Error, &format!("skills[0].{name}"), words);
    }
    assert_finding(
        &card,
        Level::Warning,
        "skills[2].id",
        "skills[1] has it too",
    );
}

#[test]
fn no_skills_is_a_warning() {
    let mut card = full_card();
    card["skills"] = json!([]);
    assert_finding(&card, Level::Warning, "skills", "declares no skill");
}

#[test]
fn signatures_carry_a_decodable_protected_header_with_alg_and_kid() {
    let mut card = full_card();
    // {"typ":"JWT"}
    card["signatures"] = json!([
        {"protected": "eyJ0eXAiOiJKV1QifQ", "signature": "not base64!"},
        {"protected": "%%%"},
        {"protected": "eyJhbGciOiJub25lIiwia2lkIjoiazEiLCJ0eXAiOiJKT1NFIn0", "signature": "c2ln"}
    ]);
    assert_finding(
        &card,
        Level::Error,
        "signatures[0].protected",
        "MUST contain alg",
    );
    assert_finding(
        &card,
        Level::Error,
        "signatures[0].protected",
        "MUST contain kid",
    );
    assert_finding(
        &card,
        Level::Info,
        "signatures[0].protected",
        "SHOULD be JOSE",
    );
    assert_finding(
        &card,
        Level::Error,
        "signatures[0].signature",
        "not base64url",
    );
    assert_finding(
        &card,
        Level::Error,
        "signatures[1].protected",
        "does not decode",
    );
    assert_finding(&card, Level::Error, "signatures[1].signature", "REQUIRED");
    assert_finding(
        &card,
        Level::Error,
        "signatures[2].protected",
        "alg is none",
    );
}

#[test]
fn a_v03_card_is_recognised_and_its_members_named() {
    let card = json!({
        "name": "Old", "description": "A 0.3 agent", "version": "1.0.0",
        "url": "https://old.example.com/a2a", "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC", "supportsAuthenticatedExtendedCard": false,
        "security": [{"bearer": []}],
        "capabilities": {"streaming": true, "stateTransitionHistory": false},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]
    });
    assert_finding(
        &card,
        Level::Error,
        "",
        "v0.3 agent card (protocolVersion 0.3.0)",
    );
    assert_finding(&card, Level::Warning, "url", "supportedInterfaces");
    assert_finding(
        &card,
        Level::Warning,
        "protocolVersion",
        "its own protocolVersion",
    );
    assert_finding(&card, Level::Warning, "preferredTransport", "first entry");
    assert_finding(
        &card,
        Level::Warning,
        "supportsAuthenticatedExtendedCard",
        "capabilities.extendedAgentCard",
    );
    assert_finding(&card, Level::Warning, "security", "securityRequirements");
    assert_finding(
        &card,
        Level::Warning,
        "capabilities.stateTransitionHistory",
        "removed",
    );
}

#[test]
fn snake_case_members_are_errors_but_still_read() {
    let mut card = full_card();
    let modes = card
        .as_object_mut()
        .unwrap()
        .remove("defaultInputModes")
        .unwrap();
    card["default_input_modes"] = modes;
    assert_finding(
        &card,
        Level::Error,
        "default_input_modes",
        "write defaultInputModes",
    );
    assert!(at(&card, "defaultInputModes").is_empty());
}

#[test]
fn unknown_members_are_notes_with_quoted_keys() {
    let mut card = full_card();
    card["x-owner"] = json!("team");
    card["skills"][0]["weird key"] = json!(1);
    assert_finding(&card, Level::Info, "x-owner", "not a member of AgentCard");
    assert_finding(
        &card,
        Level::Info,
        "skills[0][\"weird key\"]",
        "not a member of AgentSkill",
    );
}

#[test]
fn secrets_in_the_card_are_flagged() {
    let mut card = full_card();
    card["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"]["clientCredentials"]["clientSecret"] =
        json!("s3cret");
    assert_finding(
        &card,
        Level::Warning,
        "securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.clientSecret",
        "SHOULD NOT contain secrets",
    );
}

#[test]
fn findings_serialize_as_the_page_reads_them() {
    let finding = card_findings(&json!({})).remove(0);
    let value = serde_json::to_value(finding).unwrap();
    assert_eq!(value["level"], "error");
    assert!(value["path"].is_string() && value["message"].is_string());
}

#[test]
fn v03_members_of_a_card_that_also_serves_v03_are_notes() {
    let card = json!({
        "name": "Both", "description": "Serves 1.0 and 0.3", "version": "1.0.0",
        "url": "https://agent.example.com/a2a", "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "supportedInterfaces": [
            {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]
    });
    assert_finding(
        &card,
        Level::Info,
        "preferredTransport",
        "kept for v0.3 clients",
    );
    assert_finding(&card, Level::Info, "url", "kept for v0.3 clients");
    assert!(
        card_findings(&card)
            .iter()
            .all(|finding| finding.level != Level::Warning
                || !["url", "protocolVersion", "preferredTransport"]
                    .contains(&finding.path.as_str())),
        "{:#?}",
        card_findings(&card)
    );
}
