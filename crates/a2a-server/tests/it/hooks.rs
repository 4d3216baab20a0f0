//! The hooks for framework users over the socket: the owner hook, the authorizer and the
//! global event subscribers.

use std::sync::{Arc, Mutex};

use a2a_server::A2aServer;
use a2a_server::CallContext;
use a2a_server::auth::Authentication;
use a2a_server::hooks::{Authorizer, EventSubscriber, ObservedEvent};
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use a2a_types::{Message, StreamResponse, Task};
use serde_json::{Value, json};

use crate::auth::secured_card;
use crate::support::{BindingEcho, TestServer, eventually, send_params, standard_card};

const ALICE: &str = "key-of-alice";
const BOB: &str = "key-of-bob";

/// A server where alice and bob each have an API key.
async fn two_callers(
    builder: impl FnOnce(a2a_server::A2aServerBuilder) -> a2a_server::A2aServerBuilder,
) -> TestServer {
    let card = secured_card(
        &[(
            "key",
            SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
        )],
        &[&[("key", &[])]],
    );
    let base = A2aServer::builder(card, BindingEcho).authentication(
        Authentication::required()
            .named_api_key("alice", ALICE)
            .named_api_key("bob", BOB),
    );
    TestServer::start_secured(builder(base)).await
}

/// Calls a JSON-RPC method as the caller with `key`; returns the whole response.
async fn call_as(server: &TestServer, key: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    server
        .http
        .post(server.url("/a2a"))
        .header("A2A-Version", "1.0")
        .header("X-API-Key", key)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn task_of(server: &TestServer, key: &str, text: &str) -> String {
    let response = call_as(server, key, "SendMessage", send_params(text, json!({}))).await;
    response["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no task: {response}"))
        .to_owned()
}

#[tokio::test]
async fn without_an_owner_hook_each_caller_owns_its_tasks() {
    let server = two_callers(|builder| builder).await;
    let task = task_of(&server, ALICE, "mine").await;
    let seen = call_as(&server, BOB, "GetTask", json!({"id": task})).await;
    assert_eq!(seen["error"]["code"], -32001, "{seen}");
}

#[tokio::test]
async fn owner_hook_decides_who_owns_and_shares_tasks() {
    // Every caller is one team: bob sees, continues and cancels alice's task.
    let server =
        two_callers(|builder| builder.owner(|_: &CallContext| Some("team".to_owned()))).await;
    let task = task_of(&server, ALICE, "ask").await;
    let seen = call_as(&server, BOB, "GetTask", json!({"id": task})).await;
    assert_eq!(seen["result"]["id"], task.as_str(), "{seen}");
    let listed = call_as(&server, BOB, "ListTasks", json!({})).await;
    assert_eq!(
        listed["result"]["tasks"][0]["id"],
        task.as_str(),
        "{listed}"
    );
    let canceled = call_as(&server, BOB, "CancelTask", json!({"id": task})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
}

#[tokio::test]
async fn owner_hook_sees_the_authenticated_caller() {
    // The hook keeps alice's own tasks private and pools everyone else's.
    let server = two_callers(|builder| {
        builder.owner(|call: &CallContext| match call.owner.as_deref() {
            Some(owner) if owner.contains("alice") => Some(owner.to_owned()),
            _ => Some("others".to_owned()),
        })
    })
    .await;
    let task = task_of(&server, ALICE, "private").await;
    let seen = call_as(&server, BOB, "GetTask", json!({"id": task})).await;
    assert_eq!(seen["error"]["code"], -32001, "{seen}");
    let own = call_as(&server, ALICE, "GetTask", json!({"id": task})).await;
    assert_eq!(own["result"]["id"], task.as_str(), "{own}");
}

/// Read-only tasks whose first message says "locked"; hidden tasks whose first message says
/// "hidden"; no new task from a message saying "forbidden".
struct Policy;

fn first_text(task: &Task) -> String {
    task.history
        .first()
        .map(|message| message.text())
        .unwrap_or_default()
}

#[async_trait::async_trait]
impl Authorizer for Policy {
    async fn check_read(&self, _call: &CallContext, task: &Task) -> bool {
        first_text(task) != "hidden"
    }

    async fn check_write(&self, _call: &CallContext, task: &Task) -> bool {
        first_text(task) != "locked"
    }

    async fn check_create(&self, _call: &CallContext, message: &Message) -> bool {
        message.text() != "forbidden"
    }
}

async fn serve_with_policy() -> TestServer {
    let mut card = standard_card();
    card.capabilities.streaming = Some(true);
    TestServer::start_with(A2aServer::builder(card, BindingEcho).authorizer(Policy)).await
}

#[tokio::test]
async fn authorizer_refusing_a_create_answers_authorization() {
    let server = serve_with_policy().await;
    let refused = server
        .call_err("SendMessage", send_params("forbidden", json!({})))
        .await;
    assert_eq!(refused["code"], -32000, "{refused}");
    assert!(refused.to_string().contains("AUTHORIZATION"), "{refused}");
    // A create the policy allows goes through.
    server
        .call("SendMessage", send_params("allowed", json!({})))
        .await;
}

#[tokio::test]
async fn authorizer_refusing_a_read_hides_the_task_from_get_subscribe_and_list() {
    let server = serve_with_policy().await;
    let hidden = server
        .call("SendMessage", send_params("hidden", json!({})))
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let shown = server
        .call("SendMessage", send_params("shown", json!({})))
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let get = server.call_err("GetTask", json!({"id": hidden})).await;
    assert_eq!(get["code"], -32001, "{get}");
    let subscribe = server
        .call_err("SubscribeToTask", json!({"id": hidden}))
        .await;
    assert_eq!(subscribe["code"], -32001, "{subscribe}");
    let listed = server.call("ListTasks", json!({})).await;
    let ids: Vec<&str> = listed["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| task["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![shown.as_str()]);
}

#[tokio::test]
async fn authorizer_refusing_a_write_keeps_the_task_from_cancel_and_follow_ups() {
    let server = serve_with_policy().await;
    let locked = server
        .call("SendMessage", send_params("locked", json!({})))
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancel = server.call_err("CancelTask", json!({"id": locked})).await;
    assert_eq!(cancel["code"], -32001, "{cancel}");
    let follow_up = server
        .call_err(
            "SendMessage",
            send_params("more", json!({"taskId": locked})),
        )
        .await;
    assert_eq!(follow_up["code"], -32001, "{follow_up}");
    // Reading stays allowed.
    let task = server.call("GetTask", json!({"id": locked})).await;
    assert_eq!(task["id"], locked.as_str());
}

#[tokio::test]
async fn authorizer_refusal_is_forbidden_under_the_forbidden_cross_owner_answer() {
    let mut config = a2a_server::ServerConfig::default();
    config.cross_owner = a2a_server::config::CrossOwner::Forbidden;
    let server = TestServer::start_with(
        A2aServer::builder(standard_card(), BindingEcho)
            .config(config)
            .authorizer(Policy),
    )
    .await;
    let hidden = server
        .call("SendMessage", send_params("hidden", json!({})))
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let get = server.call_err("GetTask", json!({"id": hidden})).await;
    assert!(get.to_string().contains("AUTHORIZATION"), "{get}");
}

/// Keeps every event it sees.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<ObservedEvent>>>);

#[async_trait::async_trait]
impl EventSubscriber for Recorder {
    async fn on_event(&self, event: ObservedEvent) {
        self.0.lock().unwrap().push(event);
    }
}

impl Recorder {
    fn of_task(&self, task_id: &str) -> Vec<ObservedEvent> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|event| event.task_id.as_str() == task_id)
            .cloned()
            .collect()
    }
}

#[tokio::test]
async fn event_subscriber_sees_every_stored_event_of_every_task_in_order() {
    let recorder = Recorder::default();
    let audit = Recorder::default();
    let server = TestServer::start_with(
        A2aServer::builder(standard_card(), BindingEcho)
            .event_subscriber(recorder.clone())
            .event_subscriber(audit.clone()),
    )
    .await;
    let mut tasks = Vec::new();
    for text in ["one", "two"] {
        let task = server
            .call("SendMessage", send_params(text, json!({})))
            .await;
        tasks.push(task["task"]["id"].as_str().unwrap().to_owned());
    }
    for task_id in &tasks {
        let completed = |events: &[ObservedEvent]| {
            events.iter().any(|event| match &event.event.response {
                StreamResponse::StatusUpdate(update) => update.status.state.is_terminal(),
                StreamResponse::Task(task) => task.status.state.is_terminal(),
                _ => false,
            })
        };
        eventually("the subscriber to see the task complete", || {
            let done = completed(&recorder.of_task(task_id));
            async move { done }
        })
        .await;
        let events = recorder.of_task(task_id);
        let sequences: Vec<u64> = events.iter().map(|event| event.event.sequence).collect();
        let expected: Vec<u64> = (1..=sequences.len() as u64).collect();
        assert_eq!(sequences, expected, "every stored event, in order, once");
        assert!(
            events
                .iter()
                .any(|event| matches!(event.event.response, StreamResponse::ArtifactUpdate(_))),
            "the artifact is seen too"
        );
        eventually("the second subscriber to see the same", || {
            let same = audit.of_task(task_id).len() == events.len();
            async move { same }
        })
        .await;
    }
}

/// Never returns from its first event.
struct Stuck;

#[async_trait::async_trait]
impl EventSubscriber for Stuck {
    async fn on_event(&self, _event: ObservedEvent) {
        std::future::pending::<()>().await;
    }
}

#[tokio::test]
async fn event_subscriber_that_hangs_never_blocks_a_turn() {
    let server = TestServer::start_with(
        A2aServer::builder(standard_card(), BindingEcho).event_subscriber(Stuck),
    )
    .await;
    // More events than the subscriber's queue holds: the extra ones are dropped for it.
    let turns = a2a_server::hooks::SUBSCRIBER_QUEUE_CAPACITY / 3 + 10;
    let started = std::time::Instant::now();
    for number in 0..turns {
        let task = server
            .call("SendMessage", send_params(&number.to_string(), json!({})))
            .await;
        assert_eq!(task["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

/// Records what the stream hooks are told, in order.
#[derive(Clone, Default)]
struct StreamLog(Arc<Mutex<Vec<String>>>);

impl a2a_server::hooks::StreamHooks for StreamLog {
    fn on_subscribe(&self, task_id: &a2a_types::TaskId, _call: &CallContext) {
        self.0.lock().unwrap().push(format!("subscribe {task_id}"));
    }

    fn on_unsubscribe(&self, task_id: &a2a_types::TaskId) {
        self.0
            .lock()
            .unwrap()
            .push(format!("unsubscribe {task_id}"));
    }

    fn on_event(&self, task_id: &a2a_types::TaskId, event: &a2a_server::handler::StreamEvent) {
        let kind = match &event.response {
            StreamResponse::Task(_) => "task",
            StreamResponse::Message(_) => "message",
            StreamResponse::StatusUpdate(_) => "status",
            StreamResponse::ArtifactUpdate(_) => "artifact",
        };
        self.0
            .lock()
            .unwrap()
            .push(format!("event {task_id} {kind}"));
    }
}

impl StreamLog {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

#[tokio::test]
async fn stream_hooks_see_subscribe_events_and_close_without_stopping_the_task() {
    use crate::streaming::{Binding, Sse, streaming_card};
    let log = StreamLog::default();
    let server = TestServer::start_with(
        A2aServer::builder(streaming_card(), BindingEcho).stream_hooks(log.clone()),
    )
    .await;
    let task = server
        .call("SendMessage", send_params("ask", json!({})))
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let task_id = a2a_types::TaskId::new(task.clone());
    let handler = server.server.handler();
    let mut first = Sse::open(Binding::JsonRpc.subscribe(&server, &task).await);
    let mut second = Sse::open(Binding::Rest.subscribe(&server, &task).await);
    assert!(first.next_event().await.is_some(), "the snapshot");
    assert!(second.next_event().await.is_some(), "the snapshot");
    assert_eq!(handler.stream_count(&task_id), 2);
    assert_eq!(
        log.lines()
            .iter()
            .filter(|line| **line == format!("event {task} task"))
            .count(),
        2
    );
    assert_eq!(handler.close_streams(&task_id), 2);
    assert!(first.next_event().await.is_none(), "closed");
    assert!(second.next_event().await.is_none(), "closed");
    eventually("both streams to be unsubscribed", || {
        let gone = log
            .lines()
            .iter()
            .filter(|line| **line == format!("unsubscribe {task}"))
            .count()
            == 2;
        async move { gone }
    })
    .await;
    assert_eq!(handler.stream_count(&task_id), 0);
    let subscribed = log
        .lines()
        .iter()
        .filter(|line| **line == format!("subscribe {task}"))
        .count();
    assert_eq!(subscribed, 2);
    // The task goes on: it still waits for input, and takes a new subscriber.
    let state = server.call("GetTask", json!({"id": task})).await["status"]["state"].clone();
    assert_eq!(state, "TASK_STATE_INPUT_REQUIRED");
    let mut again = Sse::open(Binding::JsonRpc.subscribe(&server, &task).await);
    assert!(again.next_event().await.is_some());
    assert_eq!(handler.stream_count(&task_id), 1);
}

#[tokio::test]
async fn stream_hooks_follow_a_streaming_message_from_its_first_event() {
    use crate::streaming::{Binding, Sse, stream_params, streaming_card};
    let log = StreamLog::default();
    let server = TestServer::start_with(
        A2aServer::builder(streaming_card(), BindingEcho).stream_hooks(log.clone()),
    )
    .await;
    let mut sse = Sse::open(
        Binding::JsonRpc
            .send_stream(&server, stream_params("hi"))
            .await,
    );
    let mut blocks = 0;
    while sse.next_event().await.is_some() {
        blocks += 1;
    }
    eventually("the stream to be unsubscribed", || {
        let done = log
            .lines()
            .last()
            .is_some_and(|line| line.starts_with("unsubscribe"));
        async move { done }
    })
    .await;
    let lines = log.lines();
    assert!(lines[0].starts_with("subscribe "), "{lines:?}");
    let events = lines
        .iter()
        .filter(|line| line.starts_with("event "))
        .count();
    assert_eq!(events, blocks, "{lines:?}");
    assert!(
        lines.iter().any(|line| line.ends_with(" artifact")),
        "{lines:?}"
    );
}

#[tokio::test]
async fn failure_message_hook_rewords_what_a_failed_task_says() {
    use a2a_server::hooks::TaskFailure;
    use a2a_server::{ExecutorError, RequestContext, TaskUpdater};
    let executor = crate::support::FnExecutor(
        |context: RequestContext, _updater: TaskUpdater| async move {
            match context.text().as_str() {
                "crash" => Err(ExecutorError::internal("connection to db-7 refused")),
                _ => Err(ExecutorError::failed("out of stock")),
            }
        },
    );
    let server = TestServer::start_with(
        A2aServer::builder(standard_card(), executor).failure_message(
            |task_id: &a2a_types::TaskId, failure: TaskFailure<'_>, default: &str| match failure {
                TaskFailure::Executor(ExecutorError::Internal(_)) => {
                    format!("Something went wrong with {task_id}; support has been told.")
                }
                _ => format!("Sorry: {default}"),
            },
        ),
    )
    .await;
    let crashed = server
        .call("SendMessage", send_params("crash", json!({})))
        .await;
    let task = &crashed["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED");
    let text = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(
        text,
        format!(
            "Something went wrong with {}; support has been told.",
            task["id"].as_str().unwrap()
        )
    );
    assert!(!crashed.to_string().contains("db-7"), "{crashed}");
    let failed = server
        .call("SendMessage", send_params("sell", json!({})))
        .await;
    assert_eq!(
        failed["task"]["status"]["message"]["parts"][0]["text"],
        "Sorry: out of stock"
    );
}

const LANGUAGE: &str = "https://example.com/ext/language/v1";

/// Puts the declared default language into the metadata; refuses the text "no".
struct Language(Arc<Mutex<Vec<String>>>);

#[async_trait::async_trait]
impl a2a_server::hooks::ExtensionHandler for Language {
    fn uri(&self) -> &str {
        LANGUAGE
    }

    async fn before(
        &self,
        extension: &a2a_types::card::AgentExtension,
        context: &mut a2a_server::RequestContext,
        _updater: &a2a_server::TaskUpdater,
    ) -> Result<(), a2a_server::ExecutorError> {
        self.0.lock().unwrap().push("before".into());
        if context.text() == "no" {
            return Err(
                a2a_types::A2aError::invalid_params("the language extension says no").into(),
            );
        }
        let language = extension
            .params
            .as_ref()
            .and_then(|params| params.get("default"))
            .cloned();
        context
            .metadata
            .get_or_insert_default()
            .insert("language".into(), language.unwrap_or_default());
        Ok(())
    }

    async fn after(
        &self,
        _extension: &a2a_types::card::AgentExtension,
        _context: &a2a_server::RequestContext,
        outcome: Result<(), a2a_server::ExecutorError>,
    ) -> Result<(), a2a_server::ExecutorError> {
        self.0
            .lock()
            .unwrap()
            .push(format!("after ok={}", outcome.is_ok()));
        outcome
    }
}

async fn serve_with_language(calls: Arc<Mutex<Vec<String>>>) -> TestServer {
    let mut card = standard_card();
    let mut params = a2a_types::Metadata::new();
    params.insert("default".into(), json!("fr"));
    card.capabilities
        .extensions
        .push(a2a_types::card::AgentExtension {
            uri: LANGUAGE.into(),
            params: Some(params),
            ..a2a_types::card::AgentExtension::default()
        });
    let executor = crate::support::FnExecutor(
        |context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| async move {
            let language = context
                .metadata
                .as_ref()
                .and_then(|metadata| metadata.get("language"))
                .and_then(|language| language.as_str())
                .unwrap_or("none")
                .to_owned();
            updater.complete(language.as_str()).await?;
            Ok(())
        },
    );
    TestServer::start_with(A2aServer::builder(card, executor).extension_handler(Language(calls)))
        .await
}

async fn send_with_extension(server: &TestServer, text: &str, extensions: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": send_params(text, json!({}))});
    server
        .http
        .post(server.url("/a2a"))
        .header("A2A-Version", "1.0")
        .header("A2A-Extensions", extensions)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn extension_handler_runs_around_the_executor_with_the_cards_declaration() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let server = serve_with_language(Arc::clone(&calls)).await;
    let answer = send_with_extension(&server, "hello", LANGUAGE).await;
    assert_eq!(
        answer["result"]["task"]["status"]["message"]["parts"][0]["text"], "fr",
        "{answer}"
    );
    assert_eq!(*calls.lock().unwrap(), vec!["before", "after ok=true"]);
    // Not activated: the handler stays out of it.
    let plain = server
        .call("SendMessage", send_params("hello", json!({})))
        .await;
    assert_eq!(
        plain["task"]["status"]["message"]["parts"][0]["text"],
        "none"
    );
    assert_eq!(calls.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn extension_handler_refusing_before_the_executor_refuses_the_request() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let server = serve_with_language(Arc::clone(&calls)).await;
    let refused = send_with_extension(&server, "no", LANGUAGE).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(*calls.lock().unwrap(), vec!["before"]);
}

#[test]
fn extension_handler_for_an_undeclared_extension_is_a_configuration_error() {
    let error = A2aServer::builder(standard_card(), BindingEcho)
        .authentication(Authentication::disabled())
        .extension_handler(Language(Arc::default()))
        .build()
        .unwrap_err();
    assert!(
        matches!(&error, a2a_server::ConfigError::UndeclaredExtension { uri } if uri == LANGUAGE),
        "{error}"
    );
}

/// Counts ids per kind: task-1, ctx-1, msg-1, …
#[derive(Default)]
struct CountingIds(Mutex<[u64; 3]>);

impl CountingIds {
    fn next(&self, kind: usize, prefix: &str) -> String {
        let mut counts = self.0.lock().unwrap();
        counts[kind] += 1;
        format!("{prefix}-{}", counts[kind])
    }
}

impl a2a_server::hooks::IdSource for CountingIds {
    fn task_id(&self) -> a2a_types::TaskId {
        a2a_types::TaskId::new(self.next(0, "task"))
    }

    fn context_id(&self) -> a2a_types::ContextId {
        a2a_types::ContextId::new(self.next(1, "ctx"))
    }

    fn message_id(&self) -> a2a_types::MessageId {
        a2a_types::MessageId::new(self.next(2, "msg"))
    }
}

#[tokio::test]
async fn clock_and_id_source_make_tasks_deterministic() {
    let noon = a2a_types::Timestamp::parse("2030-01-01T12:00:00Z").unwrap();
    let executor = crate::support::FnExecutor(
        |_context: a2a_server::RequestContext, updater: a2a_server::TaskUpdater| async move {
            updater.working("thinking").await?;
            updater.complete("done").await?;
            Ok(())
        },
    );
    let server = TestServer::start_with(
        A2aServer::builder(standard_card(), executor)
            .clock(move || noon)
            .id_source(CountingIds::default()),
    )
    .await;
    for round in 1..=2 {
        let answer = server
            .call("SendMessage", send_params("hi", json!({})))
            .await;
        let task = &answer["task"];
        assert_eq!(task["id"], format!("task-{round}"), "{answer}");
        assert_eq!(task["contextId"], format!("ctx-{round}"), "{answer}");
        assert_eq!(
            task["status"]["timestamp"], "2030-01-01T12:00:00Z",
            "{answer}"
        );
        // The agent's messages: "thinking" then "done", numbered in order.
        assert_eq!(
            task["status"]["message"]["messageId"],
            format!("msg-{}", round * 2),
            "{answer}"
        );
        let fetched = server.call("GetTask", json!({"id": task["id"]})).await;
        assert_eq!(fetched["status"]["timestamp"], "2030-01-01T12:00:00Z");
    }
}
