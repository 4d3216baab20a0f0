//! `a2a inspect URL`: starts, prints its address and the page to open, serves the page and
//! its API, applies the command line's credentials to URL, and stops on SIGTERM.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::support::{Server, a2a};

#[tokio::test]
async fn inspect_serves_the_page_and_uses_the_command_line_credentials() {
    let agent = Server::start(&["--api-key", "inspect-key-1"]);
    let mut child = a2a()
        .args([
            "inspect",
            &agent.url,
            "--bind",
            "127.0.0.1:0",
            "--api-key",
            "inspect-key-1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, receive) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let listening = receive.recv_timeout(Duration::from_secs(20)).unwrap();
    let base = listening
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {listening:?}"))
        .to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    let open = receive.recv_timeout(Duration::from_secs(5)).unwrap();
    let expected: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("url", &agent.url)
        .finish();
    assert_eq!(open, format!("open {base}/?{expected}"));

    let http = reqwest::Client::new();
    let page = http.get(format!("{base}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'self'")
    );
    assert!(page.text().await.unwrap().contains("<html"));
    let info: Value = http
        .get(format!("{base}/api/info"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["webhook"], format!("{base}/webhook"));
    assert!(info["version"].is_string());

    // The page connects without credentials; the command line's apply to its URL.
    let connected = http
        .post(format!("{base}/api/connect"))
        .header("X-Inspector", "1")
        .json(&json!({"url": agent.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(connected.status(), 200);
    let tasks = http
        .get(format!("{base}/api/connections/c1/tasks"))
        .send()
        .await
        .unwrap();
    let status = tasks.status();
    assert_eq!(status, 200, "{}", tasks.text().await.unwrap());

    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    signal::kill(pid, Signal::SIGTERM).unwrap();
    let mut stopped = None;
    for _ in 0..100 {
        if let Ok(Some(status)) = child.try_wait() {
            stopped = Some(status);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    assert!(
        stopped.is_some_and(|status| status.success()),
        "{stopped:?}"
    );
}
