//! The isolation matrix (issue 7): two callers and two tenants ×
//! every operation × both bindings. A task belongs to (tenant, caller); anyone else gets
//! TaskNotFound on every operation and never sees it listed. Zero leaks.

use a2a_server::A2aServer;
use a2a_server::auth::Authentication;
use a2a_types::card::{ApiKeyLocation, SecurityScheme};
use reqwest::Method;
use serde_json::{Value, json};

use super::secured_card;
use crate::support::{BindingEcho, RawResponse, TestServer, user_message};

const ALICE: &str = "key-of-alice";
const BOB: &str = "key-of-bob";
const TENANTS: [&str; 2] = ["t1", "t2"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    JsonRpc,
    Rest,
}

struct Matrix {
    server: TestServer,
}

impl Matrix {
    async fn start() -> Self {
        let mut config = a2a_server::ServerConfig::default();
        config.push.allow_local_webhooks = true;
        Self::start_with(config).await
    }

    async fn start_with(config: a2a_server::ServerConfig) -> Self {
        let mut card = secured_card(
            &[(
                "key",
                SecurityScheme::api_key(ApiKeyLocation::Header, "X-API-Key"),
            )],
            &[&[("key", &[])]],
        );
        card.capabilities.streaming = Some(true);
        card.capabilities.extended_agent_card = Some(true);
        card.capabilities.push_notifications = Some(true);
        let extended = card.clone();
        let server = TestServer::start_secured(
            A2aServer::builder(card, BindingEcho)
                .config(config)
                .extended_card(extended)
                .authentication(
                    Authentication::required()
                        .named_api_key("alice", ALICE)
                        .named_api_key("bob", BOB),
                ),
        )
        .await;
        Self { server }
    }

    /// Calls `method` with `params` (plus the tenant) as the holder of `key`; the JSON
    /// body, or for a stream the first SSE event's data.
    async fn call(
        &self,
        binding: Binding,
        key: Option<&str>,
        tenant: &str,
        method: &str,
        params: Value,
    ) -> RawResponse {
        let mut headers = vec![
            ("A2A-Version", "1.0"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if let Some(key) = key {
            headers.push(("X-API-Key", key));
        }
        match binding {
            Binding::JsonRpc => {
                let mut params = params;
                params["tenant"] = json!(tenant);
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
                headers.push(("Content-Type", "application/json"));
                self.server
                    .send(
                        Method::POST,
                        "/a2a",
                        &headers,
                        Some(serde_json::to_vec(&body).unwrap()),
                    )
                    .await
            }
            Binding::Rest => {
                let id = params["id"].as_str().unwrap_or_default().to_owned();
                let task_id = params["taskId"].as_str().unwrap_or(&id).to_owned();
                let (verb, path, body) = match method {
                    "SendMessage" => (Method::POST, "message:send".to_owned(), Some(params)),
                    "GetTask" => (Method::GET, format!("tasks/{id}"), None),
                    "ListTasks" => (Method::GET, "tasks".to_owned(), None),
                    "CancelTask" => (Method::POST, format!("tasks/{id}:cancel"), Some(json!({}))),
                    "SubscribeToTask" => (Method::GET, format!("tasks/{id}:subscribe"), None),
                    "CreateTaskPushNotificationConfig" => (
                        Method::POST,
                        format!("tasks/{task_id}/pushNotificationConfigs"),
                        Some(params),
                    ),
                    "GetTaskPushNotificationConfig" => (
                        Method::GET,
                        format!("tasks/{task_id}/pushNotificationConfigs/{id}"),
                        None,
                    ),
                    "ListTaskPushNotificationConfigs" => (
                        Method::GET,
                        format!("tasks/{task_id}/pushNotificationConfigs"),
                        None,
                    ),
                    "DeleteTaskPushNotificationConfig" => (
                        Method::DELETE,
                        format!("tasks/{task_id}/pushNotificationConfigs/{id}"),
                        None,
                    ),
                    "GetExtendedAgentCard" => (Method::GET, "extendedAgentCard".to_owned(), None),
                    other => panic!("no route for {other}"),
                };
                if body.is_some() {
                    headers.push(("Content-Type", "application/json"));
                }
                let body = body.map(|body| serde_json::to_vec(&body).unwrap());
                self.server
                    .send(verb, &format!("/rest/{tenant}/{path}"), &headers, body)
                    .await
            }
        }
    }

    /// A task of `key`'s caller in `tenant`, waiting for input (so it can still be
    /// followed up, subscribed to and canceled).
    async fn task_of(&self, binding: Binding, key: &str, tenant: &str) -> String {
        let response = self
            .call(
                binding,
                Some(key),
                tenant,
                "SendMessage",
                json!({"message": user_message("ask")}),
            )
            .await;
        let body = response.json();
        let task = match binding {
            Binding::JsonRpc => &body["result"]["task"],
            Binding::Rest => &body["task"],
        };
        assert_eq!(
            task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{body}"
        );
        task["id"].as_str().unwrap().to_owned()
    }
}

/// The response is TaskNotFound, as the binding writes it (another caller's task is never
/// revealed to exist).
fn assert_not_found(binding: Binding, response: &RawResponse, what: &str) {
    let text = String::from_utf8_lossy(&response.body).into_owned();
    match binding {
        Binding::JsonRpc => {
            assert_eq!(response.status, 200, "{what}: {text}");
            assert_eq!(response.json()["error"]["code"], -32001, "{what}: {text}");
        }
        Binding::Rest => {
            assert_eq!(response.status, 404, "{what}: {text}");
            assert!(text.contains("TASK_NOT_FOUND"), "{what}: {text}");
        }
    }
}

fn listed_ids(binding: Binding, response: &RawResponse) -> Vec<String> {
    let body = response.json();
    let tasks = match binding {
        Binding::JsonRpc => body["result"]["tasks"].clone(),
        Binding::Rest => body["tasks"].clone(),
    };
    tasks
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|task| task["id"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn no_caller_or_tenant_reaches_another_ones_task_on_any_operation() {
    let matrix = Matrix::start().await;
    let mut checked = 0;
    for binding in [Binding::JsonRpc, Binding::Rest] {
        // Alice owns one task per tenant; Bob owns one in t1.
        let alice_t1 = matrix.task_of(binding, ALICE, "t1").await;
        let alice_t2 = matrix.task_of(binding, ALICE, "t2").await;
        let bob_t1 = matrix.task_of(binding, BOB, "t1").await;
        let owned = [
            (ALICE, "t1", &alice_t1),
            (ALICE, "t2", &alice_t2),
            (BOB, "t1", &bob_t1),
        ];
        // Each owner registers a webhook for each of their tasks.
        let mut configs = std::collections::HashMap::new();
        for (owner, tenant, task) in owned {
            let created = matrix
                .call(
                    binding,
                    Some(owner),
                    tenant,
                    "CreateTaskPushNotificationConfig",
                    json!({"taskId": task, "url": "http://127.0.0.1:9/hook"}),
                )
                .await;
            let body = created.json();
            let config = match binding {
                Binding::JsonRpc => body["result"].clone(),
                Binding::Rest => body,
            };
            let id = config["id"]
                .as_str()
                .unwrap_or_else(|| panic!("{config}"))
                .to_owned();
            configs.insert(task.clone(), id);
        }
        for (owner, owner_tenant, task) in owned {
            for key in [ALICE, BOB] {
                for tenant in TENANTS {
                    let what =
                        format!("{binding:?} task of {owner}@{owner_tenant} as {key}@{tenant}");
                    let listed = matrix
                        .call(binding, Some(key), tenant, "ListTasks", json!({}))
                        .await;
                    assert_eq!(listed.status, 200, "{what}");
                    let visible = listed_ids(binding, &listed).contains(task);
                    let is_owner = key == owner && tenant == owner_tenant;
                    assert_eq!(visible, is_owner, "{what}: listed");
                    if is_owner {
                        let got = matrix
                            .call(binding, Some(key), tenant, "GetTask", json!({"id": task}))
                            .await;
                        assert_eq!(got.status, 200, "{what}");
                        continue;
                    }
                    let operations = [
                        ("GetTask", json!({"id": task})),
                        (
                            "SendMessage",
                            json!({"message": {
                                "messageId": crate::support::uuid(), "role": "ROLE_USER",
                                "parts": [{"text": "follow-up"}], "taskId": task
                            }}),
                        ),
                        ("CancelTask", json!({"id": task})),
                        ("SubscribeToTask", json!({"id": task})),
                    ];
                    for (method, params) in operations {
                        let response = matrix
                            .call(binding, Some(key), tenant, method, params)
                            .await;
                        assert_not_found(binding, &response, &format!("{what}: {method}"));
                        checked += 1;
                    }
                    // Push configs belong to the task's owner: for anyone else the
                    // task, and so its configs, do not exist.
                    let config_id = &configs[task.as_str()];
                    let push_operations = [
                        (
                            "CreateTaskPushNotificationConfig",
                            json!({"taskId": task, "url": "http://127.0.0.1:9/intruder"}),
                        ),
                        ("ListTaskPushNotificationConfigs", json!({"taskId": task})),
                        (
                            "GetTaskPushNotificationConfig",
                            json!({"taskId": task, "id": config_id}),
                        ),
                        (
                            "DeleteTaskPushNotificationConfig",
                            json!({"taskId": task, "id": config_id}),
                        ),
                    ];
                    for (method, params) in push_operations {
                        let response = matrix
                            .call(binding, Some(key), tenant, method, params)
                            .await;
                        assert_not_found(binding, &response, &format!("{what}: {method}"));
                        checked += 1;
                    }
                }
            }
        }
        // Every task is still the owner's, untouched: INPUT_REQUIRED, not canceled, and the
        // follow-ups above never reached it; its one webhook is still there.
        for (owner, tenant, task) in owned {
            let listed = matrix
                .call(
                    binding,
                    Some(owner),
                    tenant,
                    "ListTaskPushNotificationConfigs",
                    json!({"taskId": task}),
                )
                .await;
            let body = listed.json();
            let list = match binding {
                Binding::JsonRpc => body["result"].clone(),
                Binding::Rest => body,
            };
            assert_eq!(list["configs"].as_array().map(Vec::len), Some(1), "{list}");
            let got = matrix
                .call(binding, Some(owner), tenant, "GetTask", json!({"id": task}))
                .await;
            let body = got.json();
            let task_json = match binding {
                Binding::JsonRpc => body["result"].clone(),
                Binding::Rest => body,
            };
            assert_eq!(
                task_json["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
                "{binding:?}"
            );
            assert_eq!(
                task_json["history"].as_array().map_or(0, Vec::len),
                2,
                "{task_json}"
            );
        }
        // The owner can still cancel: the refusals above were about who, not what.
        let canceled = matrix
            .call(
                binding,
                Some(ALICE),
                "t1",
                "CancelTask",
                json!({"id": alice_t1}),
            )
            .await;
        assert_eq!(
            canceled.status,
            200,
            "{}",
            String::from_utf8_lossy(&canceled.body)
        );
    }
    assert_eq!(checked, 2 * 3 * 3 * 8);
}

#[tokio::test]
async fn the_extended_card_needs_a_caller_on_both_bindings() {
    let matrix = Matrix::start().await;
    for binding in [Binding::JsonRpc, Binding::Rest] {
        for key in [ALICE, BOB] {
            let card = matrix
                .call(binding, Some(key), "t1", "GetExtendedAgentCard", json!({}))
                .await;
            assert_eq!(card.status, 200, "{binding:?}");
        }
        let anonymous = matrix
            .call(binding, None, "t1", "GetExtendedAgentCard", json!({}))
            .await;
        assert_eq!(anonymous.status, 401, "{binding:?}");
        let forged = matrix
            .call(
                binding,
                Some("key-of-mallory"),
                "t1",
                "GetExtendedAgentCard",
                json!({}),
            )
            .await;
        assert_eq!(forged.status, 401, "{binding:?}");
    }
}

#[tokio::test]
async fn the_forbidden_option_says_403_for_another_callers_task_of_the_same_tenant() {
    // The `cross_owner = forbidden` option (Apache Camel's AuthorizationError): existence is
    // revealed within the tenant, never across tenants, and a task that does not exist is
    // still not found.
    let mut config = a2a_server::ServerConfig::default();
    config.cross_owner = a2a_server::config::CrossOwner::Forbidden;
    let matrix = Matrix::start_with(config).await;
    for binding in [Binding::JsonRpc, Binding::Rest] {
        let task = matrix.task_of(binding, ALICE, "t1").await;
        for method in ["GetTask", "CancelTask", "SubscribeToTask"] {
            let other = matrix
                .call(binding, Some(BOB), "t1", method, json!({"id": task}))
                .await;
            let text = String::from_utf8_lossy(&other.body).into_owned();
            match binding {
                Binding::JsonRpc => {
                    assert_eq!(other.json()["error"]["code"], -32000, "{method}: {text}");
                }
                Binding::Rest => assert_eq!(other.status, 403, "{method}: {text}"),
            }
            assert!(text.contains("AUTHORIZATION"), "{method}: {text}");
            let elsewhere = matrix
                .call(binding, Some(BOB), "t2", method, json!({"id": task}))
                .await;
            assert_not_found(binding, &elsewhere, &format!("{binding:?} {method} in t2"));
        }
        let follow_up = json!({"message": {
            "messageId": crate::support::uuid(), "role": "ROLE_USER",
            "parts": [{"text": "follow-up"}], "taskId": task
        }});
        let refused = matrix
            .call(binding, Some(BOB), "t1", "SendMessage", follow_up)
            .await;
        assert!(
            String::from_utf8_lossy(&refused.body).contains("AUTHORIZATION"),
            "{binding:?}"
        );
        let none = matrix
            .call(
                binding,
                Some(BOB),
                "t1",
                "GetTask",
                json!({"id": "no-such-task"}),
            )
            .await;
        assert_not_found(binding, &none, &format!("{binding:?} unknown task"));
        let own = matrix
            .call(binding, Some(ALICE), "t1", "GetTask", json!({"id": task}))
            .await;
        assert_eq!(own.status, 200);
    }
}
