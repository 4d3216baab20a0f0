//! ListTasks over the socket: order, filters, paging and page tokens (opaque, bound
//! to their filters).

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::support::{TestServer, send_params, serve};

/// A server holding `count` tasks: even ones completed, odd ones waiting for input; the first
/// three share context `ctx-a`.
async fn server_with_tasks(count: usize) -> (TestServer, Vec<String>) {
    let server = serve(|context, updater| async move {
        let number: usize = context.text().parse().unwrap();
        if number.is_multiple_of(2) {
            updater.complete("done").await?;
        } else {
            updater.require_input("more?").await?;
        }
        Ok(())
    })
    .await;
    let mut ids = Vec::new();
    for number in 0..count {
        let extra = if number < 3 {
            json!({"contextId": "ctx-a"})
        } else {
            json!({})
        };
        let result = server
            .call("SendMessage", send_params(&number.to_string(), extra))
            .await;
        ids.push(result["task"]["id"].as_str().unwrap().to_owned());
    }
    (server, ids)
}

fn ids(page: &Value) -> Vec<String> {
    page["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| task["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn list_orders_newest_status_first_and_pages_through_every_task_once() {
    let (server, created) = server_with_tasks(12).await;
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = server
            .call("ListTasks", json!({"pageSize": 5, "pageToken": token}))
            .await;
        assert_eq!(page["totalSize"], 12);
        assert_eq!(page["pageSize"], 5);
        seen.extend(ids(&page));
        token = page["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(seen.len(), 12);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 12);
    let mut newest_first = created.clone();
    newest_first.reverse();
    // Tasks made within one millisecond tie on the timestamp; the set must still match and
    // the first page must start with the newest.
    assert_eq!(
        seen.iter().collect::<HashSet<_>>(),
        newest_first.iter().collect::<HashSet<_>>()
    );
}

#[tokio::test]
async fn list_filters_by_context_and_state_and_omits_artifacts_unless_asked() {
    let (server, _) = server_with_tasks(6).await;
    let in_context = server
        .call("ListTasks", json!({"contextId": "ctx-a"}))
        .await;
    assert_eq!(in_context["totalSize"], 3);
    let waiting = server
        .call("ListTasks", json!({"status": "TASK_STATE_INPUT_REQUIRED"}))
        .await;
    assert_eq!(waiting["totalSize"], 3);
    let short = server
        .call("ListTasks", json!({"status": "INPUT_REQUIRED"}))
        .await;
    assert_eq!(short["totalSize"], 3);
    for task in waiting["tasks"].as_array().unwrap() {
        assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        assert!(task.get("artifacts").is_none());
    }
    let empty = server
        .call("ListTasks", json!({"contextId": "nobody"}))
        .await;
    assert_eq!(
        empty,
        json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0})
    );
    let future = server
        .call_err(
            "ListTasks",
            json!({"statusTimestampAfter": "2999-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(future["code"], -32602);
    let all_after_epoch = server
        .call(
            "ListTasks",
            json!({"statusTimestampAfter": "2000-01-01T00:00:00Z", "historyLength": 0}),
        )
        .await;
    assert_eq!(all_after_epoch["totalSize"], 6);
    assert!(all_after_epoch["tasks"][0].get("history").is_none());
}

#[tokio::test]
async fn page_sizes_default_cap_and_refuse_negatives() {
    let (server, _) = server_with_tasks(2).await;
    assert_eq!(server.call("ListTasks", json!({})).await["pageSize"], 50);
    assert_eq!(
        server.call("ListTasks", json!({"pageSize": 0})).await["pageSize"],
        50
    );
    assert_eq!(
        server.call("ListTasks", json!({"pageSize": 150})).await["pageSize"],
        100
    );
    let error = server.call_err("ListTasks", json!({"pageSize": -1})).await;
    assert_eq!(error["code"], -32602);
}

#[tokio::test]
async fn page_tokens_are_bound_to_their_filters_and_refuse_tampering() {
    let (server, _) = server_with_tasks(6).await;
    let page = server.call("ListTasks", json!({"pageSize": 2})).await;
    let token = page["nextPageToken"].as_str().unwrap().to_owned();
    assert!(!token.is_empty());
    let changed = server
        .call_err(
            "ListTasks",
            json!({"pageSize": 2, "pageToken": token, "status": "COMPLETED"}),
        )
        .await;
    assert_eq!(changed["code"], -32602);
    for forged in ["2", "eyJ0IjoxfQ", "not a token"] {
        let error = server
            .call_err("ListTasks", json!({"pageSize": 2, "pageToken": forged}))
            .await;
        assert_eq!(error["code"], -32602, "{forged}");
    }
    let next = server
        .call("ListTasks", json!({"pageSize": 2, "pageToken": token}))
        .await;
    assert_eq!(ids(&next).len(), 2);
}
