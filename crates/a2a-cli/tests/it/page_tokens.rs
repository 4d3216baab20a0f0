//! ListTasks page tokens across instances and restarts: servers over one SQL store share the
//! signing key through the database; memory stores share one only through --page-token-key.

use serde_json::json;

use crate::support::{Server, TempFile};

/// Three tasks, then the first page of one; its next page token.
async fn first_page(server: &Server) -> (String, String) {
    for index in 0..3 {
        server
            .send(&format!("m-{index}-{}", uuid()), "hi", json!({}))
            .await;
    }
    let page = server.call("ListTasks", json!({"pageSize": 1})).await;
    let token = page["nextPageToken"].as_str().unwrap().to_owned();
    assert!(!token.is_empty(), "{page}");
    (page["tasks"][0]["id"].as_str().unwrap().to_owned(), token)
}

/// The page after `token`: its first task id (empty for an empty page), or the error
/// reason.
async fn next_page(server: &Server, token: &str) -> Result<String, String> {
    let response = server
        .rpc("ListTasks", json!({"pageSize": 1, "pageToken": token}))
        .await;
    match response.get("result") {
        // An empty page is an empty id: the token was still recognised.
        Some(page) => Ok(page["tasks"][0]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned()),
        None => Err(response["error"]["data"][0]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned()),
    }
}

fn uuid() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

#[tokio::test]
async fn a_page_token_from_one_instance_pages_on_another_and_after_a_restart() {
    let folder = TempFile::new("placeholder", "");
    let database = folder.path.with_file_name("tasks.db");
    let store = format!("sqlite://{}", database.display());
    let a = Server::start(&["--store", &store]);
    let b = Server::start(&["--store", &store]);
    let (first, token) = first_page(&a).await;
    let on_a = next_page(&a, &token).await.unwrap();
    assert_ne!(on_a, first);
    assert_eq!(
        next_page(&b, &token).await,
        Ok(on_a.clone()),
        "on another instance"
    );
    drop(a);
    drop(b);
    let restarted = Server::start(&["--store", &store]);
    assert_eq!(
        next_page(&restarted, &token).await,
        Ok(on_a),
        "after a restart"
    );
    // Still bound to its filters: another page size is another query.
    let response = restarted
        .rpc("ListTasks", json!({"pageSize": 2, "pageToken": token}))
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
}

#[tokio::test]
async fn memory_stores_share_tokens_only_through_the_configured_key() {
    let key = ["--page-token-key", "a-shared-key-of-24-bytes"];
    let a = Server::start(&key);
    let (_, token) = first_page(&a).await;
    // Another process with the same key accepts the token (its tasks differ, so the page
    // is its own; what matters is that the token is recognised).
    let same_key = Server::start(&key);
    for _ in 0..3 {
        same_key
            .send(&format!("n-{}", uuid()), "hi", json!({}))
            .await;
    }
    assert!(next_page(&same_key, &token).await.is_ok());
    let other_key = Server::start(&[]);
    assert_eq!(
        next_page(&other_key, &token).await,
        Err("INVALID_PARAMS".to_owned())
    );
}
