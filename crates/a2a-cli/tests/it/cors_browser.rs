//! `a2a serve --cors` as a browser meets it: a page on another origin calls the agent with
//! the API key the card asks for, in Debian's headless Chromium (see `inspect.rs` for how
//! the browser is driven, and when the test is skipped).

use serde_json::{Value, json};

use crate::inspect::{BROWSER_TURN, Browser};
use crate::support::Server;

/// A `fetch` of a JSON-RPC SendMessage from the page, with the headers given; resolves to
/// the status, the A2A headers the page could read and the body, or to `{error}` when the
/// browser refused the call.
const FETCH: &str = r#"
const [url, headers] = arguments;
return (async () => {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "A2A-Version": "1.0", ...headers },
      body: JSON.stringify({
        jsonrpc: "2.0", id: 1, method: "SendMessage",
        params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER",
                             parts: [{ text: "hi from a page" }] } },
      }),
    });
    return {
      status: response.status,
      wwwAuthenticate: response.headers.get("WWW-Authenticate"),
      body: await response.json(),
    };
  } catch (error) {
    return { error: String(error) };
  }
})();
"#;

/// Opens `page`'s well-known card, so that scripts run with `page`'s origin.
async fn open_page_of(browser: &Browser, page: &Server) {
    browser
        .client()
        .goto(&format!("{}/.well-known/agent-card.json", page.url))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_a_listed_origin_calls_the_agent_with_its_api_key_header_and_others_are_refused()
{
    let _turn = BROWSER_TURN.lock().await;
    // Two pages' origins: loopback on two other ports.
    let listed = Server::start(&["--agent", "echo"]);
    let other = Server::start(&["--agent", "echo"]);
    let agent = Server::start(&[
        "--agent",
        "echo",
        "--api-key",
        "page-key",
        "--api-key-header",
        "X-Team-Key",
        "--cors-origins",
        &listed.url,
    ]);
    let Some(browser) = Browser::start().await else {
        return;
    };
    open_page_of(&browser, &listed).await;
    let answer = browser
        .js(
            FETCH,
            &[json!(agent.url), json!({"X-Team-Key": "page-key"})],
        )
        .await;
    assert_eq!(answer["status"], 200, "{answer}");
    assert_eq!(
        answer["body"]["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    // Without the key the page reads the refusal and the scheme it names.
    let refused: Value = browser.js(FETCH, &[json!(agent.url), json!({})]).await;
    assert_eq!(refused["status"], 401, "{refused}");
    assert!(
        refused["wwwAuthenticate"].as_str().is_some(),
        "WWW-Authenticate is exposed: {refused}"
    );
    // A page on an origin that is not listed never gets its call out.
    open_page_of(&browser, &other).await;
    let blocked = browser
        .js(
            FETCH,
            &[json!(agent.url), json!({"X-Team-Key": "page-key"})],
        )
        .await;
    assert!(
        blocked["error"]
            .as_str()
            .is_some_and(|error| error.contains("Failed to fetch")),
        "{blocked}"
    );
    browser.close().await;
    // The preflight itself was refused, not only left unanswered.
    let preflight = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, &agent.url)
        .header("Origin", &other.url)
        .header("Access-Control-Request-Method", "POST")
        .header("Access-Control-Request-Headers", "x-team-key")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 403);
}
