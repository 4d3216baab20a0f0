//! Authentication over real sockets: fail closed, API keys in a
//! header, query parameter or cookie, OR-of-AND requirements with scopes, the caller's
//! profile in the executor, 401/403 shapes on both bindings, the extended card, and
//! build-time refusal of schemes nothing checks. Real signed JWTs are in `auth_tokens`;
//! the isolation matrix is in `auth/isolation.rs`; mangled credentials in `auth/fuzz.rs`.

mod fuzz;
mod isolation;
mod mtls;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use a2a_server::auth::token::{TokenError, TokenVerifier, VerifiedToken};
use a2a_server::auth::{Authentication, CallerProfile, CredentialKind};
use a2a_server::{A2aServer, RequestContext, TaskUpdater};
use a2a_types::card::{ApiKeyLocation, SecurityRequirement, SecurityScheme};
use a2a_types::{AgentCard, Artifact};
use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{RawResponse, TestServer, standard_card, user_message};

/// A verifier for tests that maps token strings to what they say; the real JWT and
/// introspection verifiers are tested against real tokens in `auth_tokens`.
#[derive(Debug, Default)]
pub struct KnownTokens(HashMap<&'static str, VerifiedToken>);

impl KnownTokens {
    pub fn with(mut self, token: &'static str, subject: &str, scopes: &[&str]) -> Self {
        let mut verified = VerifiedToken::default();
        verified.issuer = Some("https://issuer.test".into());
        verified.subject = (!subject.is_empty()).then(|| subject.to_owned());
        verified.scopes = scopes.iter().map(|scope| (*scope).to_owned()).collect();
        verified
            .claims
            .insert("sub".into(), Value::String(subject.to_owned()));
        self.0.insert(token, verified);
        self
    }
}

#[async_trait::async_trait]
impl TokenVerifier for KnownTokens {
    async fn verify(&self, token: &str) -> Result<VerifiedToken, TokenError> {
        self.0.get(token).cloned().ok_or(TokenError::Signature)
    }
}

/// The standard card with `schemes`, and `requirements` as given (each a list of
/// (scheme, scopes)).
pub fn secured_card(
    schemes: &[(&str, SecurityScheme)],
    requirements: &[&[(&str, &[&str])]],
) -> AgentCard {
    let mut card = standard_card();
    for (name, scheme) in schemes {
        card.security_schemes
            .insert((*name).to_owned(), scheme.clone());
    }
    for requirement in requirements {
        let mut iter = requirement.iter();
        let Some((first, scopes)) = iter.next() else {
            continue;
        };
        let mut built = SecurityRequirement::scheme(*first, scopes.iter().copied());
        for (name, scopes) in iter {
            built = built.and(*name, scopes.iter().copied());
        }
        card.security_requirements.push(built);
    }
    card
}

/// Records the caller each turn saw.
#[derive(Clone, Default)]
pub struct Callers(Arc<Mutex<Vec<Option<Arc<CallerProfile>>>>>);

#[async_trait::async_trait]
impl a2a_server::AgentExecutor for Callers {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), a2a_server::ExecutorError> {
        self.0.lock().unwrap().push(context.caller.clone());
        if context.text() == "ask" {
            updater.require_input("more?").await?;
        } else {
            updater
                .complete_with_artifacts(vec![Artifact::from_text(context.text())], ())
                .await?;
        }
        Ok(())
    }
}

impl Callers {
    pub fn last(&self) -> Option<Arc<CallerProfile>> {
        self.0.lock().unwrap().last().cloned().flatten()
    }
}

pub fn send_body(text: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "SendMessage",
        "params": {"message": user_message(text)}
    }))
    .unwrap()
}

/// A JSON-RPC SendMessage with `headers`, at `path` (`/a2a` plus a query, if any).
pub async fn jsonrpc_send(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
) -> RawResponse {
    let mut all = vec![("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    server
        .send(Method::POST, path, &all, Some(send_body("hello")))
        .await
}

/// An HTTP+JSON ListTasks with `headers`.
pub async fn rest_list(server: &TestServer, headers: &[(&str, &str)]) -> RawResponse {
    let mut all = vec![("A2A-Version", "1.0")];
    all.extend_from_slice(headers);
    server.send(Method::GET, "/rest/tasks", &all, None).await
}

/// The reason of a JSON-RPC error or of an HTTP+JSON google.rpc.Status.
pub fn reason(response: &RawResponse) -> String {
    let body = response.json();
    let details = body
        .pointer("/error/data")
        .or_else(|| body.pointer("/error/details"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    details
        .iter()
        .find_map(|detail| detail.get("reason").and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

fn message(response: &RawResponse) -> String {
    response.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn with_nothing_configured_every_operation_is_refused_but_the_card_is_public() {
    // Authentication is on by default and fails closed: the default builder, a card with
    // no scheme.
    let server = TestServer::start_secured(A2aServer::builder(
        standard_card(),
        crate::support::BindingEcho,
    ))
    .await;
    let rpc = jsonrpc_send(&server, "/a2a", &[]).await;
    assert_eq!(rpc.status, 401);
    assert_eq!(rpc.json()["error"]["code"], -32000);
    assert_eq!(rpc.json()["id"], Value::Null, "the body is never read");
    assert_eq!(reason(&rpc), "AUTHENTICATION");
    assert!(
        rpc.header("www-authenticate")
            .unwrap()
            .starts_with("Bearer realm=\"Test agent\"")
    );
    assert!(
        message(&rpc).contains("accepts no credentials"),
        "{}",
        message(&rpc)
    );

    let rest = rest_list(&server, &[("Authorization", "Bearer anything")]).await;
    assert_eq!(rest.status, 401);
    assert_eq!(reason(&rest), "AUTHENTICATION");
    assert!(rest.header("www-authenticate").is_some());

    let card = server
        .send(Method::GET, "/.well-known/agent-card.json", &[], None)
        .await;
    assert_eq!(card.status, 200);
}

#[tokio::test]
async fn an_api_key_is_read_where_the_scheme_says() {
    // An API key in a header, query parameter or cookie, each by the scheme's name.
    let cases = [
        (ApiKeyLocation::Header, "X-Agent-Key"),
        (ApiKeyLocation::Query, "key"),
        (ApiKeyLocation::Cookie, "agent_key"),
    ];
    for (location, name) in cases {
        let card = secured_card(
            &[("key", SecurityScheme::api_key(location, name))],
            &[&[("key", &[])]],
        );
        let server = TestServer::start_secured(
            A2aServer::builder(card, crate::support::BindingEcho)
                .authentication(Authentication::required().api_key("k-123")),
        )
        .await;
        let cookie = format!("other=1; {name}=k-123");
        let (path, headers): (String, Vec<(&str, &str)>) = match location {
            ApiKeyLocation::Header => ("/a2a".into(), vec![(name, "k-123")]),
            ApiKeyLocation::Query => (format!("/a2a?{name}=k-123"), vec![]),
            _ => ("/a2a".into(), vec![("Cookie", cookie.as_str())]),
        };
        let ok = jsonrpc_send(&server, &path, &headers).await;
        assert_eq!(
            ok.status,
            200,
            "{location:?}: {}",
            String::from_utf8_lossy(&ok.body)
        );
        assert!(ok.json()["result"]["task"].is_object(), "{location:?}");

        let wrong = match location {
            ApiKeyLocation::Header => jsonrpc_send(&server, "/a2a", &[(name, "k-124")]).await,
            ApiKeyLocation::Query => {
                jsonrpc_send(&server, &format!("/a2a?{name}=k-124"), &[]).await
            }
            _ => jsonrpc_send(&server, "/a2a", &[("Cookie", &format!("{name}=k-124"))]).await,
        };
        assert_eq!(wrong.status, 401, "{location:?}");
        assert!(
            message(&wrong).contains("API key is not valid"),
            "{}",
            message(&wrong)
        );
        assert!(
            !String::from_utf8_lossy(&wrong.body).contains("k-12"),
            "no secret echoed"
        );

        let missing = jsonrpc_send(&server, "/a2a", &[]).await;
        assert_eq!(missing.status, 401);
        assert!(message(&missing).contains(name), "{}", message(&missing));
        let challenge = missing.header("www-authenticate").unwrap().to_owned();
        assert!(challenge.starts_with("ApiKey realm="), "{challenge}");
        assert!(challenge.contains(name), "{challenge}");
    }
}

#[tokio::test]
async fn requirements_are_alternatives_of_schemes_that_must_all_pass() {
    // Requirements are alternatives of schemes that must all pass: [key AND token] OR
    // [cookie key].
    let card = secured_card(
        &[
            (
                "key",
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            ),
            ("token", SecurityScheme::bearer("")),
            (
                "cookie",
                SecurityScheme::api_key(ApiKeyLocation::Cookie, "session"),
            ),
        ],
        &[&[("key", &[]), ("token", &[])], &[("cookie", &[])]],
    );
    let server = TestServer::start_secured(
        A2aServer::builder(card, crate::support::BindingEcho).authentication(
            Authentication::required()
                .api_key("the-key")
                .bearer_token("the-token"),
        ),
    )
    .await;
    let both = [
        ("X-API-Key", "the-key"),
        ("Authorization", "Bearer the-token"),
    ];
    let cases: [(&[(&str, &str)], u16); 6] = [
        (&both, 200),
        (&[("X-API-Key", "the-key")], 401),
        (&[("Authorization", "Bearer the-token")], 401),
        (&[("Cookie", "session=the-key")], 200),
        (&[("Cookie", "session=the-token")], 401),
        (
            &[("X-API-Key", "the-key"), ("Authorization", "Bearer wrong")],
            401,
        ),
    ];
    for (headers, status) in cases {
        assert_eq!(
            jsonrpc_send(&server, "/a2a", headers).await.status,
            status,
            "{headers:?}"
        );
        assert_eq!(
            rest_list(&server, headers).await.status,
            status,
            "REST {headers:?}"
        );
    }
}

#[tokio::test]
async fn scopes_are_required_per_requirement_and_a_shortfall_is_403() {
    let card = secured_card(
        &[("oauth", SecurityScheme::bearer("JWT"))],
        &[&[("oauth", &["tasks:write"])]],
    );
    let tokens = KnownTokens::default()
        .with("writer", "alice", &["tasks:read", "tasks:write"])
        .with("reader", "bob", &["tasks:read"]);
    let server = TestServer::start_secured(
        A2aServer::builder(card, crate::support::BindingEcho)
            .authentication(Authentication::required().token_verifier(tokens)),
    )
    .await;
    let ok = jsonrpc_send(&server, "/a2a", &[("Authorization", "Bearer writer")]).await;
    assert_eq!(ok.status, 200);

    let short = jsonrpc_send(&server, "/a2a", &[("Authorization", "Bearer reader")]).await;
    assert_eq!(short.status, 403);
    assert_eq!(reason(&short), "AUTHORIZATION");
    let challenge = short.header("www-authenticate").unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"tasks:write\""), "{challenge}");
    let rest = rest_list(&server, &[("Authorization", "Bearer reader")]).await;
    assert_eq!(rest.status, 403);

    let forged = jsonrpc_send(&server, "/a2a", &[("Authorization", "Bearer forged")]).await;
    assert_eq!(forged.status, 401);
    assert!(
        forged
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
    assert!(
        message(&forged).contains("signature is invalid"),
        "{}",
        message(&forged)
    );
}

#[tokio::test]
async fn the_executor_sees_the_caller_and_a_token_names_the_caller_over_a_key() {
    // One requirement combining a key and a token: the token's subject,
    // whatever the order of the schemes.
    for order in [["key", "oauth"], ["oauth", "key"]] {
        let schemes = [
            (
                "key",
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            ),
            ("oauth", SecurityScheme::bearer("JWT")),
        ];
        let card = secured_card(&schemes, &[&[(order[0], &[]), (order[1], &[])]]);
        let callers = Callers::default();
        let server = TestServer::start_secured(
            A2aServer::builder(card, callers.clone()).authentication(
                Authentication::required()
                    .api_key("the-key")
                    .token_verifier(KnownTokens::default().with("t", "alice", &["a", "b"])),
            ),
        )
        .await;
        let ok = jsonrpc_send(
            &server,
            "/a2a",
            &[("X-API-Key", "the-key"), ("Authorization", "Bearer t")],
        )
        .await;
        assert_eq!(ok.status, 200, "{order:?}");
        let caller = callers.last().expect("the executor saw a caller");
        assert_eq!(caller.kind, CredentialKind::IssuedToken, "{order:?}");
        assert_eq!(caller.subject.as_deref(), Some("alice"));
        assert_eq!(caller.issuer.as_deref(), Some("https://issuer.test"));
        assert_eq!(caller.scopes, ["a", "b"]);
        assert_eq!(caller.claims["sub"], "alice");
        assert_eq!(caller.scheme, "oauth");
    }
}

#[tokio::test]
async fn a_token_naming_nobody_is_refused() {
    // A token must name its caller: no sub, username or client_id/azp is refused.
    let card = secured_card(
        &[("oauth", SecurityScheme::bearer("JWT"))],
        &[&[("oauth", &[])]],
    );
    let server = TestServer::start_secured(
        A2aServer::builder(card, crate::support::BindingEcho).authentication(
            Authentication::required().token_verifier(KnownTokens::default().with("anon", "", &[])),
        ),
    )
    .await;
    let refused = jsonrpc_send(&server, "/a2a", &[("Authorization", "Bearer anon")]).await;
    assert_eq!(refused.status, 401);
    assert!(
        message(&refused).contains("names no subject"),
        "{}",
        message(&refused)
    );
}

#[tokio::test]
async fn the_extended_card_is_for_authenticated_callers_only() {
    // The extended card is behind authentication like every operation; the public card
    // stays public.
    let mut card = secured_card(
        &[(
            "key",
            SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
        )],
        &[&[("key", &[])]],
    );
    card.capabilities.extended_agent_card = Some(true);
    let mut extended = card.clone();
    extended.description = "the extended card".into();
    let server = TestServer::start_secured(
        A2aServer::builder(card, crate::support::BindingEcho)
            .extended_card(extended)
            .authentication(Authentication::required().api_key("the-key")),
    )
    .await;
    let rpc = |headers: Vec<(&'static str, &'static str)>| {
        let body = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard", "params": {}
        }))
        .unwrap();
        let mut all = vec![("A2A-Version", "1.0"), ("Content-Type", "application/json")];
        all.extend(headers);
        let server = &server;
        async move { server.send(Method::POST, "/a2a", &all, Some(body)).await }
    };
    let anonymous = rpc(vec![]).await;
    assert_eq!(anonymous.status, 401);
    let known = rpc(vec![("X-API-Key", "the-key")]).await;
    assert_eq!(known.json()["result"]["description"], "the extended card");
    let rest = server.send_v1(Method::GET, "/rest/extendedAgentCard").await;
    assert_eq!(rest.status, 401);
    let rest = server
        .send(
            Method::GET,
            "/rest/extendedAgentCard",
            &[("A2A-Version", "1.0"), ("X-API-Key", "the-key")],
            None,
        )
        .await;
    assert_eq!(rest.status, 200);
    let public = server
        .send(Method::GET, "/.well-known/agent-card.json", &[], None)
        .await;
    assert_eq!(public.status, 200);
    assert!(!String::from_utf8_lossy(&public.body).contains("the-key"));
}

#[test]
fn schemes_nothing_can_check_are_refused_at_build() {
    let build = |card: AgentCard, auth: Authentication| {
        A2aServer::builder(card, crate::support::BindingEcho)
            .authentication(auth)
            .build()
            .err()
            .map(|error| error.to_string())
    };
    let key = (
        "key",
        SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
    );
    let no_key = build(
        secured_card(std::slice::from_ref(&key), &[&[("key", &[])]]),
        Authentication::required(),
    );
    assert!(no_key.unwrap().contains("configure an API key"));
    let unknown = build(
        secured_card(std::slice::from_ref(&key), &[&[("nope", &[])]]),
        Authentication::required().api_key("k"),
    );
    assert!(unknown.unwrap().contains("`nope`"));
    let oidc = build(
        secured_card(
            &[(
                "oidc",
                SecurityScheme::open_id_connect("https://id.test/.well-known/openid-configuration"),
            )],
            &[],
        ),
        Authentication::required(),
    );
    assert!(oidc.unwrap().contains("token verifier"));
    let mut basic = SecurityScheme::bearer("");
    if let a2a_types::card::SecuritySchemeKind::HttpAuth(http) = &mut basic.scheme {
        http.scheme = "Basic".into();
    }
    let basic = build(
        secured_card(&[("basic", basic)], &[]),
        Authentication::required().bearer_token("t"),
    );
    assert!(basic.unwrap().contains("not supported"));
    let empty = build(
        secured_card(&[key], &[]),
        Authentication::required().api_key(""),
    );
    assert!(empty.unwrap().contains("empty"));
    assert!(
        A2aServer::builder(standard_card(), crate::support::BindingEcho)
            .authentication(Authentication::disabled())
            .build()
            .is_ok()
    );
}

#[tokio::test]
async fn secrets_never_reach_debug_output() {
    let auth = Authentication::required()
        .api_key("key-secret-1")
        .bearer_token("token-secret-2")
        .named_api_key("alice", "key-secret-3");
    let text = format!("{auth:?}");
    assert!(!text.contains("secret"), "{text}");
    let builder =
        A2aServer::builder(standard_card(), crate::support::BindingEcho).authentication(auth);
    assert!(!format!("{builder:?}").contains("secret"));
}
