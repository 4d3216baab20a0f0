//! An instance killed mid-stream: two `a2a serve` instances share one PostgreSQL schema;
//! ten turns run on `a`, each watched by five subscribers on `a` and pushing to a webhook,
//! when `a` is killed with SIGKILL. Every subscriber resumes on `b` with `Last-Event-ID` and,
//! over both connections, sees each event of its task once and in order, up to the failure
//! `b` records once `a`'s leases expire; the webhook gets every event, and an event sent
//! again (its POST was in flight at the kill) carries the same notification id.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::database::Database;
use crate::support::{Server, eventually, user_message};
use a2a_test_support::sse::{End, Event, Sse};

const TASKS: usize = 10;
const SUBSCRIBERS_PER_TASK: usize = 5;
const LEASE_TTL: Duration = Duration::from_millis(1500);
/// The agent: a line every 100 ms for 30 s, so every turn is still running at the kill.
const SLOW_LINES: &str =
    "i=0; while [ $i -lt 300 ]; do echo \"line $i\"; i=$((i+1)); sleep 0.1; done";

fn instance(store: &str, id: &str) -> Server {
    Server::start(&[
        "--store",
        store,
        "--instance-id",
        id,
        "--lease-ttl",
        "1500ms",
        "--push-notifications",
        "--allow-local-webhooks",
        "--push-timeout",
        "5s",
        "--push-claim-ttl",
        "8s",
        "--push-retry-backoff",
        "100ms",
        "--log-level",
        "warn",
        "--agent",
        "exec",
        "--",
        "sh",
        "-c",
        SLOW_LINES,
    ])
}

/// One delivery as the webhook took it: its `A2A-Notification-Id` and its body.
type Delivery = (String, Value);

/// A webhook of the test's own: every delivery it was sent, in order.
async fn webhook() -> (String, Arc<Mutex<Vec<Delivery>>>) {
    let hits: Arc<Mutex<Vec<Delivery>>> = Arc::default();
    let sink = Arc::clone(&hits);
    let router = axum::Router::new().route(
        "/hook",
        axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let sink = Arc::clone(&sink);
                async move {
                    let id = headers
                        .get("a2a-notification-id")
                        .and_then(|id| id.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    sink.lock().unwrap().push((id, body));
                    StatusCode::OK
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, hits)
}

async fn subscribe(
    http: &reqwest::Client,
    server: &str,
    task_id: &str,
    last_event_id: Option<u64>,
) -> Sse {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask",
                      "params": {"id": task_id}});
    let mut request = http
        .post(format!("{server}/"))
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&body);
    if let Some(id) = last_event_id {
        request = request.header("Last-Event-ID", id.to_string());
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200, "SubscribeToTask on {server}");
    Sse::new(response, true)
}

/// What one subscriber saw: every event over both connections, and when it resumed.
#[derive(Debug, Default)]
struct Watch {
    events: Vec<Event>,
    resumed_after: Option<Duration>,
    first_connection_end: Option<String>,
}

/// Follows `task_id` on `a` until that connection ends, then on `b` from the last event
/// seen, until the task's final event.
async fn watch(
    a: String,
    b: String,
    task_id: String,
    seen: Arc<Mutex<HashMap<String, usize>>>,
    killed: Arc<Mutex<Option<Instant>>>,
    key: String,
) -> Watch {
    let http = reqwest::Client::new();
    let mut watch = Watch::default();
    let mut stream = subscribe(&http, &a, &task_id, None).await;
    let mut on_b = false;
    loop {
        match stream.next().await {
            Ok(event) => {
                let last = event.is_final();
                watch.events.push(event);
                *seen.lock().unwrap().entry(key.clone()).or_default() += 1;
                if last {
                    return watch;
                }
            }
            Err(end) => {
                assert!(
                    !on_b,
                    "the stream on b ended before the final event: {end:?}; after {:?} (first \
                     connection: {:?})",
                    watch
                        .events
                        .iter()
                        .rev()
                        .take(3)
                        .map(|e| (e.id, e.summary()))
                        .collect::<Vec<_>>(),
                    watch.first_connection_end,
                );
                watch.first_connection_end = Some(match end {
                    End::Closed => "closed".to_owned(),
                    End::Broken(why) | End::Error(why) => why,
                });
                let last_id = watch.events.last().and_then(|event| event.id);
                stream = subscribe(&http, &b, &task_id, last_id).await;
                watch.resumed_after = killed.lock().unwrap().map(|at| at.elapsed());
                on_b = true;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribers_of_a_killed_instance_resume_on_the_other_and_miss_nothing() {
    let _one = crate::one_at_a_time().await;
    let Some(database) = Database::create("faults_kill").await else {
        return;
    };
    let store = database.url();
    let mut a = instance(&store, "a");
    let b = instance(&store, "b");
    let (hook, hits) = webhook().await;

    let mut tasks = Vec::new();
    for n in 0..TASKS {
        let params = json!({
            "message": user_message(&format!("kill-{n}"), &format!("job {n}")),
            "configuration": {"returnImmediately": true,
                              "taskPushNotificationConfig": {"url": hook}},
        });
        let task = a.call("SendMessage", params).await;
        tasks.push(task["task"]["id"].as_str().unwrap().to_owned());
    }
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let killed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let mut watchers = Vec::new();
    for task_id in &tasks {
        for n in 0..SUBSCRIBERS_PER_TASK {
            let key = format!("{task_id}/{n}");
            watchers.push((
                task_id.clone(),
                tokio::spawn(watch(
                    a.url.clone(),
                    b.url.clone(),
                    task_id.clone(),
                    seen.clone(),
                    killed.clone(),
                    key,
                )),
            ));
        }
    }
    // Every subscriber is live, mid-turn: it has seen the task and at least two lines.
    let subscribers = TASKS * SUBSCRIBERS_PER_TASK;
    eventually(Duration::from_secs(20), || async {
        let seen = seen.lock().unwrap();
        (seen.len() == subscribers && seen.values().all(|count| *count >= 3)).then_some(())
    })
    .await
    .expect("every subscriber saw events before the kill");

    *killed.lock().unwrap() = Some(Instant::now());
    let kill = Instant::now();
    a.kill();

    let mut per_task: BTreeMap<String, Vec<Watch>> = BTreeMap::new();
    for (task_id, watcher) in watchers {
        let watched = tokio::time::timeout(Duration::from_secs(30), watcher)
            .await
            .expect("every subscriber reached the final event within 30 s")
            .unwrap();
        per_task.entry(task_id).or_default().push(watched);
    }
    let all_done = kill.elapsed();

    let (mut events_seen, mut lost, mut repeated, mut resumed) = (0, 0, 0, 0);
    let mut slowest_resume = Duration::ZERO;
    for (task_id, watches) in &per_task {
        let mut truth: BTreeMap<u64, String> = BTreeMap::new();
        for watched in watches {
            let ids: Vec<u64> = watched
                .events
                .iter()
                .map(|event| event.id.expect("every event has an id"))
                .collect();
            events_seen += ids.len();
            for pair in ids.windows(2) {
                if pair[1] <= pair[0] {
                    repeated += 1;
                } else if pair[1] != pair[0] + 1 {
                    lost += usize::try_from(pair[1] - pair[0] - 1).unwrap();
                }
            }
            // The first event is the task as it stood, under the id of the last event it
            // includes; the others are the log's own.
            for event in watched.events.iter().skip(1) {
                let summary = event.summary();
                let known = truth
                    .entry(event.id.unwrap())
                    .or_insert_with(|| summary.clone());
                assert_eq!(*known, summary, "subscribers of {task_id} disagree");
            }
            assert_eq!(
                watched.events.last().map(Event::summary).as_deref(),
                Some("status:TASK_STATE_FAILED"),
                "{task_id} ends failed, taken over by b"
            );
            if let Some(after) = watched.resumed_after {
                resumed += 1;
                slowest_resume = slowest_resume.max(after);
            }
        }
        let _ = truth;
    }
    assert_eq!(resumed, subscribers, "every subscriber resumed on b");
    assert_eq!((lost, repeated), (0, 0), "no event lost, none seen twice");

    // The webhook got every event of each task, ending with the failure. Deliveries are at
    // least once: an event whose POST was in flight when `a` died (or whose answer came
    // after the push timeout) is sent again, under the same notification id, so the webhook
    // takes it once.
    let failed = |body: &Value| {
        body.pointer("/statusUpdate/status/state") == Some(&json!("TASK_STATE_FAILED"))
    };
    let delivered = eventually(Duration::from_secs(30), || async {
        let hits = hits.lock().unwrap().clone();
        let done = hits.iter().filter(|(_, body)| failed(body)).count();
        (done >= TASKS).then_some(())
    })
    .await;
    let push_done = kill.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let hits = hits.lock().unwrap().clone();
    assert!(
        delivered.is_some(),
        "every task's failure was pushed: {} deliveries",
        hits.len()
    );
    let mut taken: HashMap<String, Value> = HashMap::new();
    let mut repeats: HashMap<String, usize> = HashMap::new();
    for (id, body) in &hits {
        let (task_id, _) = id
            .rsplit_once(':')
            .expect("a notification id names task and event");
        match taken.get(id) {
            Some(first) => {
                assert_eq!(first, body, "a repeat of {id} is the same event");
                *repeats.entry(task_id.to_owned()).or_default() += 1;
            }
            None => {
                taken.insert(id.clone(), body.clone());
            }
        }
    }
    let mut per_webhook: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for id in taken.keys() {
        let (task_id, sequence) = id.rsplit_once(':').unwrap();
        per_webhook
            .entry(task_id)
            .or_default()
            .push(sequence.parse().unwrap());
    }
    assert_eq!(per_webhook.len(), TASKS, "every webhook got deliveries");
    for (task_id, sequences) in &mut per_webhook {
        sequences.sort_unstable();
        let expected: Vec<u64> = (1..=sequences.len() as u64).collect();
        assert_eq!(
            *sequences, expected,
            "every event of {task_id} pushed, none missing"
        );
        let last = taken[&format!("{task_id}:{}", sequences.len())].clone();
        assert!(
            failed(&last),
            "the last push of {task_id} is its failure: {last}"
        );
    }
    let pushed_twice: usize = repeats.values().sum();
    let most_for_one = repeats.values().max().copied().unwrap_or(0);

    eprintln!(
        "FIGURES instance killed: {TASKS} turns, {subscribers} subscribers, {events_seen} events \
         seen, {lost} lost, {repeated} repeated; {resumed} subscribers resumed on b, the last \
         {} ms after the kill; every turn failed by b and every subscriber done {} ms after the \
         kill (lease {} ms); {} deliveries of {} events, {pushed_twice} sent again (same \
         notification id and body; at most {most_for_one} for one webhook), the last failure pushed {} ms after the kill",
        slowest_resume.as_millis(),
        all_done.as_millis(),
        LEASE_TTL.as_millis(),
        hits.len(),
        taken.len(),
        push_done.as_millis(),
    );
    drop(b);
    database.finish().await;
}
