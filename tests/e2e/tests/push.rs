//! Push delivery with two instances over one PostgreSQL database (issue 8): tasks run on
//! both, both dispatchers race for the same webhooks, and every event reaches the webhook
//! exactly once (a claimed webhook is worked by one instance at a time).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_e2e::{GatedAgent, Instance, Postgres, eventually, send};
use axum::http::StatusCode;
use serde_json::{Value, json};

const TASKS: usize = 24;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_each_event_exactly_once() {
    let Some(database) = Postgres::schema_for_test().await else {
        return;
    };
    let agent = GatedAgent::default();
    let a = Instance::start(&database, "a", agent.clone());
    let b = Instance::start(&database, "b", agent);

    let hits: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = Arc::clone(&hits);
    let router = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::body::Bytes| {
            let sink = Arc::clone(&sink);
            async move {
                sink.lock()
                    .unwrap()
                    .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });

    let mut tasks = Vec::new();
    for n in 0..TASKS {
        let instance = if n % 2 == 0 { &a } else { &b };
        let mut params = send(&format!("job {n}"), None);
        params["configuration"] = json!({"taskPushNotificationConfig": {"url": url}});
        let result = instance.call("SendMessage", params).await;
        assert_eq!(
            result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{result}"
        );
        tasks.push(result["task"]["id"].as_str().unwrap().to_owned());
    }

    let task_of = |body: &Value| -> String {
        body.pointer("/task/id")
            .or_else(|| body.pointer("/statusUpdate/taskId"))
            .or_else(|| body.pointer("/artifactUpdate/taskId"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let finished = |bodies: &[Value]| {
        bodies
            .iter()
            .filter(|body| {
                body.pointer("/statusUpdate/status/state") == Some(&json!("TASK_STATE_COMPLETED"))
            })
            .count()
    };
    let delivered = eventually(Duration::from_secs(30), || {
        let hits = Arc::clone(&hits);
        async move {
            let bodies = hits.lock().unwrap().clone();
            (finished(&bodies) >= TASKS).then_some(bodies)
        }
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "not every task finished delivering: {}",
            hits.lock().unwrap().len()
        )
    });
    // A moment for any duplicate to show up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let delivered_now = hits.lock().unwrap().clone();
    assert_eq!(delivered_now.len(), delivered.len(), "late deliveries");

    let mut per_task: HashMap<String, Vec<Value>> = HashMap::new();
    for body in delivered_now {
        per_task.entry(task_of(&body)).or_default().push(body);
    }
    assert_eq!(per_task.len(), TASKS, "{:?}", per_task.keys());
    for task in &tasks {
        let bodies = &per_task[task];
        let unique: std::collections::HashSet<String> =
            bodies.iter().map(Value::to_string).collect();
        assert_eq!(
            unique.len(),
            bodies.len(),
            "an event twice for {task}: {bodies:#?}"
        );
        assert_eq!(finished(bodies), 1, "{bodies:#?}");
    }
    a.kill();
    b.kill();
}
