//! The inspector's push inbox over real sockets: an `A2aServer` agent that signs its
//! deliveries posts them to a `PushInbox` served on 127.0.0.1, which lists each with its
//! token and signature checks and answers as a webhook receiver must.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

use std::sync::Arc;
use std::time::Duration;

use a2a_client::ClientError;
use a2a_client::transport::{HttpTransport, ResponseBody, Transport};

use a2a_inspect::push::{Delivery, PushInbox, SignatureCheck, TokenCheck};
use a2a_server::auth::Authentication;
use a2a_server::push::signing::{PushSigner, SIGNATURE_HEADER};
use a2a_server::{
    A2aServer, AgentExecutor, ExecutorError, RequestContext, ServerConfig, TaskUpdater,
};
use a2a_types::{AgentCard, AgentInterface, Artifact, ProtocolBinding};
use serde_json::{Value, json};

/// Works, adds an artifact with the message's text, completes.
struct Steps;

#[async_trait::async_trait]
impl AgentExecutor for Steps {
    async fn execute(
        &self,
        context: RequestContext,
        updater: TaskUpdater,
    ) -> Result<(), ExecutorError> {
        updater.working(()).await?;
        updater
            .add_artifact(Artifact::from_text(context.text()))
            .await?;
        updater.complete(()).await?;
        Ok(())
    }
}

/// An agent on 127.0.0.1 that signs its push deliveries with `signer` and publishes the
/// key at `/.well-known/jwks.json`; its base URL.
async fn agent(signer: PushSigner) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut card = AgentCard::new("Signer", "Signs its deliveries", "1.0.0").with_interface(
        AgentInterface::new(format!("{base}/a2a"), ProtocolBinding::JsonRpc),
    );
    card.capabilities.push_notifications = Some(true);
    let mut config = ServerConfig::default();
    config.push.allow_local_webhooks = true;
    config.push.poll_interval = Duration::from_millis(50);
    let server = A2aServer::builder(card, Steps)
        .config(config)
        .authentication(Authentication::disabled())
        .push_signer(signer)
        .build()
        .unwrap();
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

/// A transport that counts the requests it passes on.
#[derive(Debug)]
struct Counting {
    inner: HttpTransport,
    urls: Arc<std::sync::Mutex<Vec<String>>>,
}

#[async_trait::async_trait]
impl Transport for Counting {
    async fn send(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<ResponseBody>, ClientError> {
        self.urls.lock().unwrap().push(request.uri().to_string());
        self.inner.send(request).await
    }
}

/// The inbox's webhook served on 127.0.0.1; its base URL.
async fn serve(inbox: &PushInbox) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = inbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

/// Sends a message whose push config points at `hook` with `token`; the task's id.
async fn send(agent: &str, hook: &str, token: &str) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {
            "message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello push"}]},
            "configuration": {"taskPushNotificationConfig": {"url": hook, "token": token}}
        }
    });
    let answer: Value = reqwest::Client::new()
        .post(format!("{agent}/a2a"))
        .header("A2A-Version", "1.0")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    answer["result"]["task"]["id"].as_str().unwrap().to_owned()
}

/// Waits (up to 10 s) until the inbox lists a delivery that `done` accepts.
async fn wait_for(inbox: &PushInbox, done: impl Fn(&Delivery) -> bool) -> Vec<Delivery> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let deliveries = inbox.deliveries();
        if deliveries.iter().any(&done) {
            return deliveries;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no such delivery yet: {deliveries:#?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// POSTs `body` to `url` with the given extra headers; the status code.
async fn post(url: &str, headers: &[(&str, &str)], body: &str) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/a2a+json")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status().as_u16()
}

fn completed(task_id: &str) -> String {
    json!({"statusUpdate": {"taskId": task_id, "contextId": "ctx",
        "status": {"state": "TASK_STATE_COMPLETED"}}})
    .to_string()
}

#[tokio::test]
async fn a_real_agents_signed_deliveries_are_listed_verified_with_the_token_ok() {
    let signer = PushSigner::generate().unwrap();
    let agent = agent(signer.clone()).await;
    let inbox = PushInbox::new(50);
    let token = inbox.token_for("c1");
    assert_eq!(inbox.token_for("c1"), token, "the token is remembered");
    assert_ne!(inbox.token_for("c2"), token, "each connection has its own");
    inbox.set_jwks_url("c1", format!("{agent}/.well-known/jwks.json"));
    let webhook = serve(&inbox).await;
    let mut events = inbox.subscribe();

    let task_id = send(&agent, &format!("{webhook}/webhook/c1"), &token).await;
    let deliveries = wait_for(&inbox, |delivery| {
        delivery.state.as_deref() == Some("TASK_STATE_COMPLETED")
    })
    .await;

    assert!(deliveries.len() >= 2, "{deliveries:#?}");
    for delivery in &deliveries {
        assert_eq!(delivery.checks.token, TokenCheck::Ok, "{delivery:#?}");
        assert_eq!(
            delivery.checks.signature,
            SignatureCheck::Verified,
            "{delivery:#?}"
        );
        assert_eq!(delivery.checks.key_id.as_deref(), Some(signer.kid()));
        assert!(
            delivery.accepted && delivery.detail.is_none(),
            "{delivery:#?}"
        );
        assert_eq!(delivery.connection.as_deref(), Some("c1"));
        assert_eq!(delivery.task_id.as_deref(), Some(task_id.as_str()));
        let token_header = delivery
            .headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("x-a2a-notification-token"))
            .expect("the token header is listed");
        assert_eq!(token_header.1, "<redacted>");
        assert!(
            delivery
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(SIGNATURE_HEADER))
        );
    }
    assert!(
        deliveries
            .iter()
            .any(|delivery| delivery.body.get("artifactUpdate").is_some()),
        "{deliveries:#?}"
    );

    // As the page reads them: the contract's names and values, and never the token.
    let listed = serde_json::to_value(&deliveries).unwrap();
    assert_eq!(listed[0]["checks"]["token"], "ok");
    assert_eq!(listed[0]["checks"]["signature"], "verified");
    assert_eq!(listed[0]["accepted"], true);
    assert_eq!(listed[0]["connection"], "c1");
    assert_eq!(listed[0]["taskId"], task_id.as_str());
    assert!(listed[0]["headers"][0].is_array());
    assert!(!listed.to_string().contains(&token));

    // Subscribers saw the same deliveries, in order.
    let first = events.recv().await.unwrap();
    assert_eq!(first.id, deliveries[0].id);
}

#[tokio::test]
async fn a_wrong_token_is_answered_401_and_listed_as_a_mismatch() {
    let signer = PushSigner::generate().unwrap();
    let agent = agent(signer.clone()).await;
    let inbox = PushInbox::new(50);
    let token = inbox.token_for("c1");
    inbox.set_jwks_url("c1", agent.clone());
    let webhook = serve(&inbox).await;
    let hook = format!("{webhook}/webhook/c1");

    // The real agent, registered with a token the inspector did not give.
    send(&agent, &hook, "not-the-inspectors-token").await;
    // A refused delivery is not retried, but each later event is still posted.
    let deliveries = wait_for(&inbox, |delivery| {
        delivery.state.as_deref() == Some("TASK_STATE_COMPLETED")
    })
    .await;
    for delivery in &deliveries {
        assert_eq!(delivery.checks.token, TokenCheck::Mismatch, "{delivery:#?}");
        assert_eq!(delivery.checks.signature, SignatureCheck::Verified);
        assert!(!delivery.accepted);
        assert!(
            delivery
                .detail
                .as_deref()
                .is_some_and(|detail| detail.contains("not the one")),
            "{delivery:#?}"
        );
    }

    // The answers themselves.
    let body = completed("t-1");
    let signature = signer.sign(body.as_bytes()).unwrap();
    let wrong = [
        (SIGNATURE_HEADER, signature.as_str()),
        ("X-A2A-Notification-Token", "wrong"),
    ];
    assert_eq!(post(&hook, &wrong, &body).await, 401);
    let absent = [(SIGNATURE_HEADER, signature.as_str())];
    assert_eq!(post(&hook, &absent, &body).await, 401);
    let right = [
        (SIGNATURE_HEADER, signature.as_str()),
        ("A2A-Notification-Token", token.as_str()),
    ];
    assert_eq!(post(&hook, &right, &body).await, 200);
    let direct: Vec<(TokenCheck, bool)> = inbox
        .deliveries()
        .iter()
        .filter(|delivery| delivery.task_id.as_deref() == Some("t-1"))
        .map(|delivery| (delivery.checks.token, delivery.accepted))
        .collect();
    assert_eq!(
        direct,
        [
            (TokenCheck::Mismatch, false),
            (TokenCheck::Absent, false),
            (TokenCheck::Ok, true)
        ]
    );
}

#[tokio::test]
async fn a_tampered_signature_is_answered_401_and_listed_as_invalid() {
    let signer = PushSigner::generate().unwrap();
    let agent = agent(signer.clone()).await;
    let inbox = PushInbox::new(50);
    let token = inbox.token_for("c1");
    inbox.set_jwks_url("c1", format!("{agent}/.well-known/jwks.json"));
    let fetched = Arc::default();
    let counting = Counting {
        inner: HttpTransport::new().unwrap(),
        urls: Arc::clone(&fetched),
    };
    inbox.set_transport("c1", Arc::new(counting));
    let webhook = serve(&inbox).await;
    let hook = format!("{webhook}/webhook/c1");

    let body = completed("t-1");
    let signature = signer.sign(body.as_bytes()).unwrap();
    let headers = [
        (SIGNATURE_HEADER, signature.as_str()),
        ("X-A2A-Notification-Token", token.as_str()),
    ];
    assert_eq!(post(&hook, &headers, &body).await, 200);
    // The same signature over a changed body.
    let tampered = body.replace("COMPLETED", "FAILED");
    assert_eq!(post(&hook, &headers, &tampered).await, 401);
    // A signature by a key the agent does not publish.
    let stranger = PushSigner::generate().unwrap();
    let foreign = stranger.sign(body.as_bytes()).unwrap();
    let foreign_headers = [
        (SIGNATURE_HEADER, foreign.as_str()),
        ("X-A2A-Notification-Token", token.as_str()),
    ];
    assert_eq!(post(&hook, &foreign_headers, &body).await, 401);
    // The keys were fetched once, through the connection's transport (an unknown key id
    // does not fetch them again within seconds of the last fetch).
    assert_eq!(
        *fetched.lock().unwrap(),
        [format!("{agent}/.well-known/jwks.json")]
    );

    let listed = inbox.deliveries();
    let checks: Vec<(SignatureCheck, bool)> = listed
        .iter()
        .map(|delivery| (delivery.checks.signature, delivery.accepted))
        .collect();
    assert_eq!(
        checks,
        [
            (SignatureCheck::Verified, true),
            (SignatureCheck::Invalid, false),
            (SignatureCheck::Invalid, false)
        ]
    );
    assert_eq!(listed[1].checks.token, TokenCheck::Ok);
    assert_eq!(listed[1].state.as_deref(), Some("TASK_STATE_FAILED"));
    assert!(
        listed[1]
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("does not verify")),
        "{:#?}",
        listed[1]
    );
    assert_eq!(
        serde_json::to_value(&listed[1]).unwrap()["checks"]["signature"],
        "invalid"
    );
}

#[tokio::test]
async fn unsigned_unkeyed_and_malformed_deliveries_are_told_apart() {
    let signer = PushSigner::generate().unwrap();
    let inbox = PushInbox::new(3);
    let token = inbox.token_for("c1");
    let webhook = serve(&inbox).await;
    let hook = format!("{webhook}/webhook/c1");
    let with_token = [("X-A2A-Notification-Token", token.as_str())];
    let body = completed("t-9");

    // Not signed: accepted, listed as unsigned.
    assert_eq!(post(&hook, &with_token, &body).await, 200);
    // Signed, but the inspector knows no keys for c1: accepted, listed as no_key.
    let signature = signer.sign(body.as_bytes()).unwrap();
    let signed = [
        ("X-A2A-Notification-Token", token.as_str()),
        (SIGNATURE_HEADER, signature.as_str()),
    ];
    assert_eq!(post(&hook, &signed, &body).await, 200);
    // Not JSON: 400, listed with the body as text.
    assert_eq!(post(&hook, &with_token, "not json").await, 400);
    // JSON but not a StreamResponse: 400.
    assert_eq!(post(&hook, &with_token, r#"{"hello": 1}"#).await, 400);
    // On /webhook the token names the connection; an unknown token is refused.
    assert_eq!(
        post(&format!("{webhook}/webhook"), &with_token, &body).await,
        200
    );
    let stranger = [("X-A2A-Notification-Token", "nobody-was-given-this")];
    assert_eq!(
        post(&format!("{webhook}/webhook"), &stranger, &body).await,
        401
    );

    // Only the last three are kept.
    let listed = inbox.deliveries();
    assert_eq!(
        listed
            .iter()
            .map(|delivery| delivery.id)
            .collect::<Vec<_>>(),
        [4, 5, 6]
    );
    let not_stream = &listed[0];
    assert!(!not_stream.accepted);
    assert!(
        not_stream
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("StreamResponse")),
        "{not_stream:#?}"
    );
    assert_eq!(listed[1].connection.as_deref(), Some("c1"));
    assert_eq!(listed[1].checks.token, TokenCheck::Ok);
    assert!(listed[1].accepted);
    assert_eq!(listed[2].connection, None);
    assert_eq!(listed[2].checks.token, TokenCheck::Mismatch);
    assert!(!listed[2].accepted);

    // As the page reads them.
    let all = serde_json::to_value(&listed).unwrap();
    assert_eq!(all[0]["checks"]["signature"], "unsigned");
}

#[tokio::test]
async fn every_kind_of_delivery_is_broadcast_as_it_arrives() {
    let signer = PushSigner::generate().unwrap();
    let inbox = PushInbox::new(10);
    let token = inbox.token_for("c1");
    let webhook = serve(&inbox).await;
    let hook = format!("{webhook}/webhook/c1");
    let mut events = inbox.subscribe();
    let with_token = [("X-A2A-Notification-Token", token.as_str())];
    let body = completed("t-9");
    let signature = signer.sign(body.as_bytes()).unwrap();
    let signed = [
        ("X-A2A-Notification-Token", token.as_str()),
        (SIGNATURE_HEADER, signature.as_str()),
    ];

    assert_eq!(post(&hook, &with_token, &body).await, 200);
    assert_eq!(post(&hook, &signed, &body).await, 200);
    assert_eq!(post(&hook, &with_token, "not json").await, 400);

    let unsigned = events.recv().await.unwrap();
    assert_eq!(unsigned.checks.signature, SignatureCheck::Unsigned);
    assert_eq!(unsigned.state.as_deref(), Some("TASK_STATE_COMPLETED"));
    let unkeyed = events.recv().await.unwrap();
    assert_eq!(unkeyed.checks.signature, SignatureCheck::NoKey);
    assert!(unkeyed.accepted);
    assert!(
        unkeyed
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("publishes its keys")),
        "{unkeyed:#?}"
    );
    assert_eq!(
        serde_json::to_value(&unkeyed).unwrap()["checks"]["signature"],
        "no_key"
    );
    let text = events.recv().await.unwrap();
    assert_eq!(text.body, json!("not json"));
    assert!(!text.accepted);
    assert!(
        text.detail
            .as_deref()
            .is_some_and(|detail| detail.contains("not JSON")),
        "{text:#?}"
    );
}

#[tokio::test]
async fn deliveries_signed_with_ed25519_and_p384_keys_verify() {
    // The card-signature tests' keys.
    let keys = [
        (
            include_str!("../../a2a-signature/tests/keys/ed25519.pem"),
            "EdDSA",
        ),
        (
            include_str!("../../a2a-signature/tests/keys/p384.pem"),
            "ES384",
        ),
    ];
    for (pem, alg) in keys {
        let signer = PushSigner::from_pkcs8_pem(pem).unwrap();
        assert_eq!(signer.alg(), alg);
        let agent = agent(signer.clone()).await;
        let inbox = PushInbox::new(50);
        let token = inbox.token_for("c1");
        inbox.set_jwks_url("c1", format!("{agent}/.well-known/jwks.json"));
        let webhook = serve(&inbox).await;
        send(&agent, &format!("{webhook}/webhook/c1"), &token).await;
        let deliveries = wait_for(&inbox, |delivery| {
            delivery.state.as_deref() == Some("TASK_STATE_COMPLETED")
        })
        .await;
        for delivery in &deliveries {
            assert_eq!(
                delivery.checks.signature,
                SignatureCheck::Verified,
                "{alg}: {delivery:#?}"
            );
            assert_eq!(delivery.checks.key_id.as_deref(), Some(signer.kid()));
        }
    }
}
