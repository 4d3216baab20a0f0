//! Hooks and executors see the request: its headers without the credentials, over the
//! socket.

use a2a_server::auth::Authentication;
use a2a_server::hooks::Authorizer;
use a2a_server::{
    A2aServer, AgentExecutor, CallContext, ExecutorError, RequestContext, TaskUpdater,
};
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use a2a_types::{Artifact, Message};
use reqwest::Method;
use serde_json::{Value, json};

use crate::auth::secured_card;
use crate::support::{TestServer, send_params, standard_card};

/// Completes every task with what it saw of the request, as JSON.
struct SeesHeaders;

#[async_trait::async_trait]
impl AgentExecutor for SeesHeaders {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        let seen = json!({
            "trace": context.headers.get("x-trace"),
            "authorization": context.headers.get("authorization"),
            "apiKey": context.headers.get("x-api-key"),
            "session": context.headers.cookie("session"),
            "owner": context.owner,
            "caller": context.caller.as_ref().map(|caller| caller.identity().to_owned()),
        });
        updater
            .complete_with_artifacts([Artifact::from_text(seen.to_string())], ())
            .await?;
        Ok(())
    }
}

/// Refuses to start tasks for requests that say `X-Read-Only: yes`.
struct ReadOnlyHeader;

#[async_trait::async_trait]
impl Authorizer for ReadOnlyHeader {
    async fn check_create(&self, call: &CallContext, _message: &Message) -> bool {
        call.headers.get("x-read-only") != Some("yes")
    }
}

/// A JSON-RPC call with `headers`; the whole response.
async fn call(server: &TestServer, headers: &[(&str, &str)], method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut all = vec![("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let response = server
        .send(
            Method::POST,
            "/a2a",
            &all,
            Some(body.to_string().into_bytes()),
        )
        .await;
    serde_json::from_slice(&response.body).unwrap()
}

fn seen(response: &Value) -> Value {
    let text = response["result"]["task"]["artifacts"][0]["parts"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no artifact: {response}"));
    serde_json::from_str(text).unwrap()
}

#[tokio::test]
async fn an_owner_derived_from_a_session_cookie_keeps_each_sessions_tasks_apart() {
    // What seed 001's `owner(request)` does: the session says who the caller is.
    let builder = A2aServer::builder(standard_card(), SeesHeaders)
        .owner(|call: &CallContext| {
            call.headers
                .cookie("session")
                .map(|session| format!("user-of-{session}"))
        })
        .authorizer(ReadOnlyHeader);
    let server = TestServer::start_with(builder).await;
    let alice = [
        ("Cookie", "theme=dark; session=s-alice"),
        ("X-Trace", "t-1"),
        ("Authorization", "Bearer not-for-the-agent"),
    ];
    let sent = call(&server, &alice, "SendMessage", send_params("hi", json!({}))).await;
    let seen = seen(&sent);
    assert_eq!(seen["owner"], "user-of-s-alice", "{seen}");
    assert_eq!(seen["session"], "s-alice");
    assert_eq!(seen["trace"], "t-1");
    assert_eq!(
        seen["authorization"],
        Value::Null,
        "credentials are taken out"
    );
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();

    let bob = [("Cookie", "session=s-bob")];
    let hidden = call(&server, &bob, "GetTask", json!({"id": task})).await;
    assert_eq!(hidden["error"]["code"], -32001, "{hidden}");
    let own = call(&server, &alice, "GetTask", json!({"id": task})).await;
    assert_eq!(own["result"]["id"], task.as_str(), "{own}");

    // The authorizer reads the headers too.
    let refused = call(
        &server,
        &[("Cookie", "session=s-alice"), ("X-Read-Only", "yes")],
        "SendMessage",
        send_params("no", json!({})),
    )
    .await;
    assert!(refused["error"].is_object(), "{refused}");
}

#[tokio::test]
async fn the_executor_sees_the_caller_and_headers_but_not_the_api_key() {
    let card = secured_card(
        &[(
            "key",
            SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
        )],
        &[&[("key", &[])]],
    );
    let builder = A2aServer::builder(card, SeesHeaders)
        .authentication(Authentication::required().named_api_key("alice", "key-of-alice"));
    let server = TestServer::start_secured(builder).await;
    let sent = call(
        &server,
        &[("X-API-Key", "key-of-alice"), ("X-Trace", "t-2")],
        "SendMessage",
        send_params("hi", json!({})),
    )
    .await;
    let seen = seen(&sent);
    assert_eq!(seen["apiKey"], Value::Null, "{seen}");
    assert_eq!(seen["trace"], "t-2");
    assert!(
        seen["caller"]
            .as_str()
            .is_some_and(|caller| caller.contains("alice")),
        "{seen}"
    );
}
