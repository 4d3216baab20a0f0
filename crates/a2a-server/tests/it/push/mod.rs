//! Push notifications end to end (issue 8): configs over both bindings and inline, webhooks
//! on 127.0.0.1 (local webhooks allowed), every event in order, retries of 5xx and timeouts
//! only, 410 removing the config, hostile URLs refused at registration, the capability gate.

pub mod receiver;
mod v03;

use std::time::Duration;

use a2a_server::config::PushOptions;
use a2a_server::{A2aServer, RequestContext, ServerConfig, TaskUpdater};
use a2a_types::{AgentCard, Artifact};
use reqwest::Method;
use serde_json::{Value, json};

use self::receiver::{Receiver, Reply};
use crate::support::{FnExecutor, TestServer, standard_card, user_message};

/// Polls `check` until it gives a value (10 s at most).
pub async fn until<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn push_card() -> AgentCard {
    let mut card = standard_card();
    card.capabilities.push_notifications = Some(true);
    card
}

/// Fast retries and short timeouts, local webhooks allowed (they are on 127.0.0.1).
pub fn push_config() -> ServerConfig {
    let mut config = ServerConfig::default();
    let mut push = PushOptions::default();
    push.allow_local_webhooks = true;
    push.retry_backoff = Duration::from_millis(50);
    push.timeout = Duration::from_millis(400);
    push.poll_interval = Duration::from_millis(50);
    config.push = push;
    config
}

/// `working` → two artifacts → completed; `ask` asks for input.
async fn steps(
    context: RequestContext,
    updater: TaskUpdater,
) -> Result<(), a2a_server::ExecutorError> {
    if context.text() == "ask" {
        updater.require_input("more?").await?;
        return Ok(());
    }
    updater.working("on it").await?;
    updater.add_artifact(Artifact::from_text("one")).await?;
    updater.add_artifact(Artifact::from_text("two")).await?;
    updater.complete(()).await?;
    Ok(())
}

async fn server(config: ServerConfig) -> TestServer {
    TestServer::start_with(A2aServer::builder(push_card(), FnExecutor(steps)).config(config)).await
}

/// A task waiting for input; its id.
async fn ask(server: &TestServer) -> String {
    let result = server
        .call("SendMessage", json!({"message": user_message("ask")}))
        .await;
    result["task"]["id"].as_str().unwrap().to_owned()
}

/// A follow-up to the waiting `task`, which completes it.
async fn follow_up(server: &TestServer, task: &str) {
    let follow_up = json!({"message": {
        "messageId": crate::support::uuid(), "role": "ROLE_USER",
        "parts": [{"text": "go"}], "taskId": task
    }});
    server.call("SendMessage", follow_up).await;
}

/// SendMessage with an inline webhook; the task's id.
async fn send_with_webhook(server: &TestServer, url: &str, text: &str) -> String {
    let mut params = json!({"message": user_message(text)});
    params["configuration"] = json!({
        "taskPushNotificationConfig": {"url": url, "token": "tok-1",
            "authentication": {"scheme": "Bearer", "credentials": "cred-1"}}
    });
    let result = server.call("SendMessage", params).await;
    result["task"]["id"].as_str().unwrap().to_owned()
}

/// The kind of each delivered StreamResponse and, for status updates, the state.
fn kinds(bodies: &[Value]) -> Vec<String> {
    bodies
        .iter()
        .map(|body| {
            if body.get("task").is_some() {
                format!(
                    "task:{}",
                    body["task"]["status"]["state"].as_str().unwrap_or_default()
                )
            } else if let Some(update) = body.get("statusUpdate") {
                format!(
                    "status:{}",
                    update["status"]["state"].as_str().unwrap_or_default()
                )
            } else if let Some(update) = body.get("artifactUpdate") {
                format!(
                    "artifact:{}",
                    update["artifact"]["parts"][0]["text"]
                        .as_str()
                        .unwrap_or_default()
                )
            } else {
                "other".to_owned()
            }
        })
        .collect()
}

#[tokio::test]
async fn every_event_reaches_the_webhook_in_order_with_the_configured_headers() {
    let receiver = Receiver::start(vec![]).await;
    let server = server(push_config()).await;
    let task = send_with_webhook(&server, &receiver.url("/hook"), "go").await;
    let all = until("every event", || async {
        let bodies = receiver.bodies();
        kinds(&bodies)
            .last()
            .is_some_and(|kind| kind == "status:TASK_STATE_COMPLETED")
            .then_some(bodies)
    })
    .await;
    assert_eq!(
        kinds(&all),
        [
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING",
            "artifact:one",
            "artifact:two",
            "status:TASK_STATE_COMPLETED"
        ],
        "{all:#?}"
    );
    for body in &all {
        let task_id = body
            .pointer("/task/id")
            .or_else(|| body.pointer("/statusUpdate/taskId"))
            .or_else(|| body.pointer("/artifactUpdate/taskId"));
        assert_eq!(
            task_id.and_then(Value::as_str),
            Some(task.as_str()),
            "{body}"
        );
    }
    let headers = receiver.headers();
    let ids: Vec<String> = (1..=all.len()).map(|n| format!("{task}:{n}")).collect();
    let sent_ids: Vec<&str> = headers
        .iter()
        .map(|header| header.get("a2a-notification-id").unwrap().to_str().unwrap())
        .collect();
    assert_eq!(sent_ids, ids, "each delivery names its task and event");
    for header in &headers {
        assert_eq!(header.get("authorization").unwrap(), "Bearer cred-1");
        assert_eq!(header.get("x-a2a-notification-token").unwrap(), "tok-1");
        assert_eq!(header.get("a2a-notification-token").unwrap(), "tok-1");
        assert_eq!(header.get("content-type").unwrap(), "application/json");
    }
    // Nothing more, nothing twice.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.bodies().len(), all.len());
}

#[tokio::test]
async fn a_503_twice_then_200_delivers_once_and_a_400_is_not_retried() {
    let flaky = Receiver::start(vec![Reply::Status(503), Reply::Status(503)]).await;
    let server = server(push_config()).await;
    send_with_webhook(&server, &flaky.url("/hook"), "ask").await;
    let hits = until("the third attempt", || async {
        let hits = flaky.hits();
        hits.iter().any(|hit| hit.status == 200).then_some(hits)
    })
    .await;
    let statuses: Vec<u16> = hits.iter().map(|hit| hit.status).collect();
    assert_eq!(&statuses[..3], &[503, 503, 200], "{statuses:?}");
    // The same event each time, and delivered once.
    assert_eq!(hits[0].body, hits[2].body);

    let refusing = Receiver::start(vec![Reply::Status(400); 8]).await;
    send_with_webhook(&server, &refusing.url("/hook"), "ask").await;
    until("the refused attempts", || async {
        (refusing.hits().len() >= 2).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let hits = refusing.hits();
    // Each event once (a snapshot and the INPUT_REQUIRED status), none retried.
    let mut bodies: Vec<&Value> = hits.iter().map(|hit| &hit.body).collect();
    let count = bodies.len();
    bodies.dedup();
    assert_eq!(bodies.len(), count, "a 400 was retried: {hits:#?}");
}

#[tokio::test]
async fn a_retry_after_is_waited_for_before_the_next_attempt() {
    let busy = Receiver::start(vec![Reply::Busy(503, 1), Reply::Busy(429, 1)]).await;
    let server = server(push_config()).await;
    send_with_webhook(&server, &busy.url("/hook"), "ask").await;
    let hits = until("the attempt after two refusals", || async {
        let hits = busy.hits();
        hits.iter().any(|hit| hit.status == 200).then_some(hits)
    })
    .await;
    let statuses: Vec<u16> = hits.iter().map(|hit| hit.status).collect();
    assert_eq!(&statuses[..3], &[503, 429, 200], "{statuses:?}");
    // The backoff alone would be 50 ms, then 100 ms.
    for pair in hits[..3].windows(2) {
        let gap = pair[1].at - pair[0].at;
        assert!(gap >= Duration::from_secs(1), "retried after {gap:?}");
    }
    assert_eq!(hits[0].body, hits[2].body, "the same event each time");
}

#[tokio::test]
async fn a_410_removes_the_config_and_a_hanging_receiver_is_retried_after_its_timeout() {
    let gone = Receiver::start(vec![Reply::Status(410)]).await;
    let server = server(push_config()).await;
    let task = send_with_webhook(&server, &gone.url("/hook"), "ask").await;
    until("the 410", || async {
        (!gone.hits().is_empty()).then_some(())
    })
    .await;
    let listed = until("the config removed", || async {
        let listed = server
            .call("ListTaskPushNotificationConfigs", json!({"taskId": task}))
            .await;
        listed["configs"]
            .as_array()
            .is_none_or(Vec::is_empty)
            .then_some(listed)
    })
    .await;
    assert_eq!(listed["configs"].as_array().map_or(0, Vec::len), 0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(gone.hits().len(), 1, "nothing more after 410");

    let hanging = Receiver::start(vec![Reply::Hang(Duration::from_secs(5))]).await;
    send_with_webhook(&server, &hanging.url("/hook"), "ask").await;
    let hits = until("a retry after the timeout", || async {
        let hits = hanging.hits();
        hits.iter().any(|hit| hit.status == 200).then_some(hits)
    })
    .await;
    assert_eq!(hits[0].status, 0, "the first attempt hung: {hits:?}");
    assert!(
        hits[1].at - hits[0].at >= Duration::from_millis(400),
        "{hits:?}"
    );
    assert_eq!(hits[0].body, hits[1].body, "the same event again");
}

#[tokio::test]
async fn configs_are_created_read_listed_and_deleted_on_both_bindings() {
    let receiver = Receiver::start(vec![]).await;
    let server = server(push_config()).await;
    let task = send_with_webhook(&server, &receiver.url("/first"), "ask").await;
    let created = server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": receiver.url("/second"), "token": "t2"}),
        )
        .await;
    let id = created["id"]
        .as_str()
        .expect("an id is generated")
        .to_owned();
    assert_eq!(created["taskId"], task.as_str());
    let got = server
        .call(
            "GetTaskPushNotificationConfig",
            json!({"taskId": task, "id": id}),
        )
        .await;
    assert_eq!(got["url"], receiver.url("/second"));
    let rest = server
        .send_v1(
            Method::GET,
            &format!("/rest/tasks/{task}/pushNotificationConfigs"),
        )
        .await;
    assert_eq!(rest.status, 200);
    assert_eq!(rest.json()["configs"].as_array().map(Vec::len), Some(2));
    let page = server
        .call(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task, "pageSize": 1}),
        )
        .await;
    assert_eq!(page["configs"].as_array().map(Vec::len), Some(1));
    let token = page["nextPageToken"].as_str().unwrap().to_owned();
    let next = server
        .call(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task, "pageSize": 1, "pageToken": token}),
        )
        .await;
    assert_eq!(next["configs"].as_array().map(Vec::len), Some(1));
    assert_eq!(next["nextPageToken"].as_str().unwrap_or_default(), "");
    let deleted = server
        .send_v1(
            Method::DELETE,
            &format!("/rest/tasks/{task}/pushNotificationConfigs/{id}"),
        )
        .await;
    assert_eq!(
        deleted.status,
        200,
        "{}",
        String::from_utf8_lossy(&deleted.body)
    );
    let again = server
        .call_err(
            "GetTaskPushNotificationConfig",
            json!({"taskId": task, "id": id}),
        )
        .await;
    assert_eq!(again["code"], -32001);
    let unknown_task = server
        .call_err(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": "nope", "url": receiver.url("/x")}),
        )
        .await;
    assert_eq!(unknown_task["code"], -32001);
}

#[tokio::test]
async fn hostile_webhooks_and_header_injection_are_refused_at_registration() {
    let mut config = push_config();
    config.push.allow_local_webhooks = false;
    let server = server(config).await;
    let task = ask(&server).await;
    let hostile = [
        "http://127.0.0.1/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.0.0.5/hook",
        "https://192.168.1.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://2130706433/hook",
        "https://0177.0.0.1/hook",
        "https://0x7f.1/hook",
        "https://100.64.0.1/hook",
        "https://[fd00:ec2::254]/hook",
        "https://224.0.0.1/hook",
        "https://0.0.0.0/hook",
        "http://hooks.example.com/plain-http",
        "ftp://hooks.example.com/",
        "https://user:pw@hooks.example.com/",
    ];
    for url in hostile {
        let error = server
            .call_err(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": url}),
            )
            .await;
        assert_eq!(error["code"], -32602, "{url}: {error}");
    }
    let inline = server
        .jsonrpc(
            "SendMessage",
            json!({"message": user_message("x"), "configuration": {"taskPushNotificationConfig": {"url": "https://10.1.2.3/"}}}),
        )
        .await;
    assert_eq!(inline["error"]["code"], -32602, "{inline}");
    let mut local = push_config();
    local.push.allow_local_webhooks = true;
    let server = self::server(local).await;
    let task = ask(&server).await;
    let injected = server
        .call_err(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": "http://127.0.0.1:9/hook", "token": "a\r\nX-Evil: 1"}),
        )
        .await;
    assert_eq!(injected["code"], -32602, "{injected}");
}

#[tokio::test]
async fn without_the_capability_every_push_operation_is_refused() {
    let server =
        TestServer::start_with(A2aServer::builder(standard_card(), FnExecutor(steps))).await;
    let error = server
        .call_err("ListTaskPushNotificationConfigs", json!({"taskId": "t"}))
        .await;
    assert_eq!(error["code"], -32003);
    let inline = server
        .jsonrpc(
            "SendMessage",
            json!({"message": user_message("x"), "configuration": {"taskPushNotificationConfig": {"url": "https://hooks.example.com/"}}}),
        )
        .await;
    assert_eq!(inline["error"]["code"], -32003);
}

/// A resolver whose answer changes after its first `first` lookups: `before` until then,
/// `after` from then on (`None` is a name that does not resolve).
#[derive(Debug)]
struct ChangingDns {
    first: std::sync::atomic::AtomicUsize,
    before: Option<[u8; 4]>,
    after: Option<[u8; 4]>,
}

impl ChangingDns {
    fn new(first: usize, before: Option<[u8; 4]>, after: Option<[u8; 4]>) -> Self {
        Self {
            first: std::sync::atomic::AtomicUsize::new(first),
            before,
            after,
        }
    }
}

#[async_trait::async_trait]
impl a2a_server::push::address::Resolve for ChangingDns {
    async fn resolve(&self, _host: &str, port: u16) -> std::io::Result<Vec<std::net::SocketAddr>> {
        let left = self.first.load(std::sync::atomic::Ordering::SeqCst);
        let answer = if left > 0 {
            self.first
                .store(left - 1, std::sync::atomic::Ordering::SeqCst);
            self.before
        } else {
            self.after
        };
        match answer {
            Some(ip) => Ok(vec![std::net::SocketAddr::from((ip, port))]),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such name",
            )),
        }
    }
}

/// The push server with webhook names resolved by `resolver`.
async fn resolving_with(resolver: std::sync::Arc<ChangingDns>) -> TestServer {
    let builder = A2aServer::builder(push_card(), FnExecutor(steps))
        .config(push_config())
        .webhook_resolver(resolver);
    TestServer::start_with(builder).await
}

#[tokio::test]
async fn a_name_rebound_after_registration_is_refused_at_delivery() {
    // The address is checked again before every delivery. The name resolves to
    // the receiver (loopback, allowed here) when registered, then to the metadata address.
    // The control: a name that stays honest is delivered to.
    for (honest, delivered) in [(usize::MAX, true), (1, false)] {
        let receiver = Receiver::start(vec![]).await;
        // The receiver (loopback, allowed here) while honest, then the metadata address.
        let resolver = std::sync::Arc::new(ChangingDns::new(
            honest,
            Some([127, 0, 0, 1]),
            Some([169, 254, 169, 254]),
        ));
        let server = resolving_with(resolver).await;
        let port = receiver.url("").rsplit(':').next().unwrap().to_owned();
        let task = ask(&server).await;
        let created = server
            .call(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": format!("http://rebind.test:{port}/hook")}),
            )
            .await;
        assert!(
            created["id"].is_string(),
            "registered while the name was honest: {created}"
        );
        // A follow-up logs new events; their delivery must not reach anyone.
        follow_up(&server, &task).await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(
            !receiver.hits().is_empty(),
            delivered,
            "{:?}",
            receiver.hits()
        );
    }
}

#[tokio::test]
async fn a_webhook_name_that_does_not_resolve_yet_is_accepted_and_checked_at_delivery() {
    // Registration accepts a name that does not resolve (DNS may be down or
    // split-horizon); the check before each delivery still guards, and a lookup failure
    // there is retried like a connection failure.
    let receiver = Receiver::start(vec![]).await;
    let port = receiver.url("").rsplit(':').next().unwrap().to_owned();
    // Two registrations fail to resolve, then so does the first delivery attempt.
    let resolver = std::sync::Arc::new(ChangingDns::new(3, None, Some([127, 0, 0, 1])));
    let server = resolving_with(resolver).await;
    let task = ask(&server).await;
    let url = format!("http://not-yet.test:{port}/hook");
    let created = server
        .call(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": url}),
        )
        .await;
    assert_eq!(created["url"], url, "accepted over JSON-RPC: {created}");
    let response = server
        .send(
            Method::POST,
            &format!("/rest/tasks/{task}/pushNotificationConfigs"),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
            Some(
                json!({"url": url, "id": "rest-hook"})
                    .to_string()
                    .into_bytes(),
            ),
        )
        .await;
    assert_eq!(
        response.status,
        201,
        "accepted over HTTP+JSON: {}",
        String::from_utf8_lossy(&response.body)
    );
    follow_up(&server, &task).await;
    // Both webhooks get every event of the follow-up once the name resolves.
    until("the final status at both webhooks", || async {
        let completed = receiver
            .hits()
            .iter()
            .filter(|hit| {
                hit.status == 200 && hit.body.to_string().contains("TASK_STATE_COMPLETED")
            })
            .count();
        (completed == 2).then_some(())
    })
    .await;
}
