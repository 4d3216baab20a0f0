//! Unknown enum values over the socket: read as `*_UNSPECIFIED` where the protocol allows it
//! (a message's role, the ListTasks status filter), refused everywhere else.

use reqwest::Method;
use serde_json::json;

use crate::support::{send_params, serve, uuid};

#[tokio::test]
async fn an_unrecognized_list_tasks_status_is_no_filter_on_json_rpc_and_rest() {
    let server = serve(|context, updater| async move {
        if context.text() == "finish" {
            updater.complete("done").await?;
        } else {
            updater.require_input("more?").await?;
        }
        Ok(())
    })
    .await;
    server
        .call("SendMessage", send_params("finish", json!({})))
        .await;
    server
        .call("SendMessage", send_params("wait", json!({})))
        .await;

    let page = server
        .call("ListTasks", json!({"status": "UNRECOGNIZED"}))
        .await;
    assert_eq!(page["totalSize"], 2, "{page}");
    let page = server.call("ListTasks", json!({"status": 42})).await;
    assert_eq!(page["totalSize"], 2, "{page}");
    let page = server
        .call("ListTasks", json!({"status": "TASK_STATE_COMPLETED"}))
        .await;
    assert_eq!(page["totalSize"], 1, "{page}");

    let rest = server
        .send_v1(Method::GET, "/rest/tasks?status=UNRECOGNIZED")
        .await;
    assert_eq!(rest.status, 200, "{}", rest.json());
    assert_eq!(rest.json()["totalSize"], 2);
    let rest = server
        .send_v1(
            Method::GET,
            "/rest/tasks?status=TASK_STATE_COMPLETED,UNRECOGNIZED",
        )
        .await;
    assert_eq!(rest.status, 200, "{}", rest.json());
    assert_eq!(rest.json()["totalSize"], 2);

    // Still not an enum at all: refused.
    let error = server
        .call_err("ListTasks", json!({"status": {"state": "x"}}))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
}

#[tokio::test]
async fn an_unknown_role_reads_as_unspecified_and_is_refused_as_not_a_user_role() {
    let server = serve(|_context, updater| async move {
        updater.complete("done").await?;
        Ok(())
    })
    .await;
    let message = json!({"messageId": uuid(), "role": "ROLE_ROBOT", "parts": [{"text": "hi"}]});
    let error = server
        .call_err("SendMessage", json!({"message": message}))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    let text = error.to_string();
    assert!(text.contains("message.role"), "{text}");
    assert!(text.contains("ROLE_USER"), "{text}");
    assert!(!text.contains("ROLE_ROBOT"), "{text}");
}
