//! `a2a inspect` in a real browser: Debian's headless Chromium driven through `chromedriver`
//! (WebDriver) with `fantoccini`, against real `a2a serve` and `a2a gateway` processes.
//!
//! WebDriver rather than CDP: chromedriver ships with Debian's chromium, fantoccini speaks
//! it over plain HTTP on loopback (no TLS stack), and the W3C commands (find, click, send
//! keys, screenshot) are all these tests need.
//!
//! Without `chromium` and `chromedriver` the tests are skipped with a printed reason, except
//! under CI (`CI=true`), where they fail. `A2A_INSPECT_SCREENSHOTS=DIR` saves PNGs of the
//! main views to `DIR/inspect-*.png` (the docs use them).

use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::actions::RunServer;
use crate::support::{Server, TempFile, a2a, eventually, user_message};

/// One browser at a time: the machine has few cores, and Chromium is heavy.
pub static BROWSER_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// How long a page may take to show what a test waits for.
const PATIENCE: Duration = Duration::from_secs(20);

/// The Chromium binary and its driver, or why the tests cannot run.
fn tools() -> Result<(PathBuf, PathBuf), String> {
    let find = |names: &[&str]| {
        names.iter().find_map(|name| {
            let output = Command::new("which").arg(name).output().ok()?;
            let path = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            (output.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
    };
    let chromium = find(&["chromium", "chromium-browser", "google-chrome"])
        .ok_or("no chromium on PATH (apt-get install chromium)")?;
    let driver = find(&["chromedriver"])
        .ok_or("no chromedriver on PATH (apt-get install chromium-driver)")?;
    Ok((chromium, driver))
}

/// A free loopback port (closed again at once, for a child process to take).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `chromedriver` with one headless Chromium session; both are killed on drop.
pub struct Browser {
    client: Option<Client>,
    driver: Child,
    profile: TempFile,
}

impl Browser {
    /// Starts a browser, or `None` (with the reason printed) where there is none outside CI.
    pub async fn start() -> Option<Self> {
        let (chromium, driver_path) = match tools() {
            Ok(tools) => tools,
            Err(reason) => {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "the browser tests need Chromium under CI: {reason}"
                );
                eprintln!("skipped: {reason}");
                return None;
            }
        };
        let port = free_port();
        // Its own process group, so that Chromium's processes go with it on drop.
        let driver = Command::new(driver_path)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        // Chromium's profile goes in the temp file's directory, removed on drop.
        let profile = TempFile::new("chromium-profile", "");
        let profile_dir = profile.path.parent().unwrap().to_str().unwrap().to_owned();
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("chrome"));
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chromium,
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--hide-scrollbars",
                    "--window-size=1280,800",
                    format!("--user-data-dir={profile_dir}"),
                ],
            }),
        );
        let webdriver = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            let attempt = ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities.clone())
                .connect(&webdriver)
                .await;
            match attempt {
                Ok(client) => break client,
                Err(error) if started.elapsed() > PATIENCE => {
                    panic!("chromedriver gave no session: {error}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        let browser = Self {
            client: Some(client),
            driver,
            profile,
        };
        browser.size(1280, 800).await;
        Some(browser)
    }

    pub fn client(&self) -> &Client {
        self.client.as_ref().unwrap()
    }

    /// Sets the viewport (not the window) to `width`×`height` CSS pixels.
    async fn size(&self, width: u32, height: u32) {
        let client = self.client();
        client.set_window_size(width, height).await.unwrap();
        // The window's frame takes some of it; grow the window by the difference.
        let inner = client
            .execute("return [window.innerWidth, window.innerHeight]", vec![])
            .await
            .unwrap();
        let inner_width = u32::try_from(inner[0].as_u64().unwrap_or(u64::from(width))).unwrap();
        let inner_height = u32::try_from(inner[1].as_u64().unwrap_or(u64::from(height))).unwrap();
        if (inner_width, inner_height) != (width, height) {
            client
                .set_window_size(
                    width + width.saturating_sub(inner_width),
                    height + height.saturating_sub(inner_height),
                )
                .await
                .unwrap();
        }
    }

    async fn goto(&self, url: &str) {
        self.client().goto(url).await.unwrap();
        self.until(
            "document.readyState === 'complete' && document.body.dataset.view",
            &[],
        )
        .await;
    }

    /// Runs `script` (a function body receiving `arguments`) and returns its value.
    pub async fn js(&self, script: &str, args: &[Value]) -> Value {
        self.client().execute(script, args.to_vec()).await.unwrap()
    }

    /// Polls the JavaScript expression `condition` until it is truthy; returns its value.
    async fn until(&self, condition: &str, args: &[Value]) -> Value {
        let script = format!("return ({condition}) || null;");
        let started = Instant::now();
        loop {
            let value = self.js(&script, args).await;
            if !value.is_null() && value != json!(false) && value != json!("") {
                return value;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "the page never showed `{condition}` {args:?}; page text:\n{}",
                self.page_text().await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for an element matching `css` that is displayed; returns its text.
    async fn visible(&self, css: &str) -> String {
        let value = self
            .until(
                "(() => { const node = document.querySelector(arguments[0]); \
                 return node && node.offsetParent !== null ? node.innerText || ' ' : null; })()",
                &[json!(css)],
            )
            .await;
        value.as_str().unwrap_or_default().to_owned()
    }

    /// Waits until `css`'s text contains `text`; returns the whole text.
    async fn text_contains(&self, css: &str, text: &str) -> String {
        let value = self
            .until(
                "(() => { const node = document.querySelector(arguments[0]); \
                 return node && node.innerText.includes(arguments[1]) ? node.innerText : null; })()",
                &[json!(css), json!(text)],
            )
            .await;
        value.as_str().unwrap_or_default().to_owned()
    }

    async fn page_text(&self) -> String {
        self.client()
            .execute("return document.body.innerText", vec![])
            .await
            .map(|value| value.as_str().unwrap_or_default().to_owned())
            .unwrap_or_else(|error| format!("(no page text: {error})"))
    }

    async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.client()
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|error| panic!("no {css}: {error}"))
    }

    async fn click(&self, css: &str) {
        self.find(css).await.click().await.unwrap();
    }

    /// Replaces the value of the input `css` with `text`.
    async fn fill(&self, css: &str, text: &str) {
        let input = self.find(css).await;
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    async fn choose(&self, css: &str, value: &str) {
        self.find(css).await.select_by_value(value).await.unwrap();
    }

    /// Opens a view by its tab.
    async fn tab(&self, view: &str) {
        self.click(&format!("#tab-{view}")).await;
        self.until(
            "document.body.dataset.view === arguments[0]",
            &[json!(view)],
        )
        .await;
    }

    /// Connects the page to `url` with the auth form as the test left it, and waits for the
    /// answer: a new connection in the picker, or the error panel.
    async fn connect(&self, url: &str) {
        const CONNECTIONS: &str =
            "document.querySelectorAll('#connection-select option:not([value=\"\"])').length";
        self.tab("connect").await;
        let before = self.js(&format!("return {CONNECTIONS}"), &[]).await;
        self.fill("#connect-url", url).await;
        self.click("#connect-button").await;
        self.until(
            &format!(
                "{CONNECTIONS} > arguments[0] || !document.getElementById('connect-error').hidden"
            ),
            &[before],
        )
        .await;
    }

    /// At a narrow (420 px) viewport, the current view reads in one column: no sideways
    /// scrolling. Saves the screenshot `narrow-NAME`, then restores 1280×800.
    async fn fits_narrow(&self, name: &str) {
        self.size(420, 800).await;
        let overflow = self
            .js(
                "return document.documentElement.scrollWidth - window.innerWidth",
                &[],
            )
            .await;
        self.shot(&format!("narrow-{name}")).await;
        assert!(
            overflow.as_i64().unwrap_or(0) <= 0,
            "{name}: the page scrolls sideways at 420 px by {overflow}"
        );
        self.size(1280, 800).await;
    }

    /// Connects to the agent at `url`, waits for its card, and opens the chat.
    async fn chat_with(&self, url: &str) {
        self.connect(url).await;
        self.visible("[data-testid=card-name]").await;
        self.tab("chat").await;
    }

    /// Reloads the page, as a person pressing F5 would.
    async fn reload(&self) {
        self.client().refresh().await.unwrap();
        self.until(
            "document.readyState === 'complete' && document.body.dataset.view",
            &[],
        )
        .await;
    }

    /// Types `text` in the chat box and presses Enter.
    /// Starts a task on the conformance agent that waits for input (it picks its behaviour
    /// by the message id) from the chat, once the card is shown; returns the task's id.
    async fn ask_for_input(&self, message_id: &str, text: &str) -> String {
        self.visible("[data-testid=card-name]").await;
        self.tab("chat").await;
        self.click("#chat-extras summary").await;
        self.fill("#chat-message-id", message_id).await;
        self.say(text).await;
        self.visible("[data-testid=turn][data-state=TASK_STATE_INPUT_REQUIRED]")
            .await;
        let task_id = self
            .js(
                "return document.querySelector('[data-testid=turn]').dataset.taskId",
                &[],
            )
            .await;
        task_id.as_str().unwrap().to_owned()
    }

    /// Connects to the conformance agent at `url`, starts a task that waits for input (as
    /// [`ask_for_input`](Self::ask_for_input)) and opens its timeline; the task's id.
    async fn waiting_timeline(&self, url: &str, message_id: &str, text: &str) -> String {
        self.connect(url).await;
        let task_id = self.ask_for_input(message_id, text).await;
        self.tab("tasks").await;
        self.click(&format!(
            "[data-testid=task-link][data-task-id='{task_id}']"
        ))
        .await;
        self.text_contains("#timeline-events", "input required")
            .await;
        task_id
    }

    async fn say(&self, text: &str) {
        let input = self.find("#chat-input").await;
        input.send_keys(text).await.unwrap();
        input
            .send_keys(&char::from(Key::Enter).to_string())
            .await
            .unwrap();
    }

    /// Saves a PNG of the page as `DIR/inspect-NAME.png` when `A2A_INSPECT_SCREENSHOTS`
    /// names a directory (a relative one is taken from the workspace root, as cargo runs
    /// tests in the crate's directory).
    async fn shot(&self, name: &str) {
        let Ok(dir) = std::env::var("A2A_INSPECT_SCREENSHOTS") else {
            return;
        };
        // Let transitions and the last frames settle.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let png = self.client().screenshot().await.unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let path = root.join(&dir).join(format!("inspect-{name}.png"));
        std::fs::write(&path, png).unwrap();
        eprintln!("saved {}", path.display());
    }

    pub async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = client.close().await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = Pid::from_raw(-i32::try_from(self.driver.id()).unwrap());
        let _ = signal::kill(group, Signal::SIGKILL);
        let _ = self.driver.wait();
        let _ = &self.profile;
    }
}

/// `a2a inspect` on a free loopback port.
fn inspector() -> Server {
    let mut command = a2a();
    command.args(["inspect", "--bind", "127.0.0.1:0"]);
    Server::spawn(command, "a2a inspect")
}

/// `a2a gateway` on a free loopback port, its registry in memory.
fn gateway() -> Server {
    let mut command = a2a();
    command.args([
        "gateway",
        "--shutdown-grace",
        "1s",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite::memory:",
    ]);
    Server::spawn(command, "a2a gateway")
}

/// The card name `server` publishes.
async fn card_name(server: &Server) -> String {
    server.get("/.well-known/agent-card.json").await["name"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A browser on a fresh inspector's page; `None` when the test is skipped.
async fn open() -> Option<(Browser, Server)> {
    let browser = Browser::start().await?;
    let inspect = inspector();
    browser.goto(&inspect.url).await;
    Some((browser, inspect))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_to_a_served_agent_shows_its_card() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&[]);
    let Some((browser, inspect)) = open().await else {
        return;
    };
    browser.connect(&agent.url).await;
    let name = card_name(&agent).await;
    assert_eq!(browser.visible("[data-testid=card-name]").await, name);
    let card = browser.visible("#card-view").await;
    for section in [
        "INTERFACES",
        "CAPABILITIES",
        "SECURITY",
        "SKILLS",
        "FINDINGS",
    ] {
        assert!(
            card.to_uppercase().contains(section),
            "{section} missing:\n{card}"
        );
    }
    assert!(card.contains("JSONRPC"), "{card}");
    assert!(card.contains(&agent.url), "{card}");
    // The connection is offered in the header's picker, and the tabs answer the arrow keys.
    let picker = browser.visible("#connection-select").await;
    assert!(picker.contains(&name), "{picker}");
    browser
        .find("#tab-connect")
        .await
        .send_keys(&char::from(Key::Right).to_string())
        .await
        .unwrap();
    browser
        .until(
            "document.activeElement.id === 'tab-chat' && document.body.dataset.view === 'chat'",
            &[],
        )
        .await;
    browser.tab("connect").await;
    // The page asked nothing of anybody but the inspector (the agent is the inspector's to
    // call, not the page's).
    let requested = browser
        .js(
            "return performance.getEntriesByType('resource').map((entry) => entry.name)",
            &[],
        )
        .await;
    let requested: Vec<String> = serde_json::from_value(requested).unwrap();
    assert!(
        requested.iter().any(|url| url.contains("/assets/")),
        "{requested:?}"
    );
    let origin = inspect.url.trim_end_matches('/');
    let foreign: Vec<&String> = requested
        .iter()
        .filter(|url| !url.starts_with(&format!("{origin}/")))
        .collect();
    assert!(
        foreign.is_empty(),
        "requests off the inspector's origin: {foreign:?}"
    );
    browser.shot("connect").await;
    browser.fits_narrow("connect").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_answer_grows_chunk_by_chunk_in_the_chat() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&[]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser.chat_with(&agent.url).await;
    assert_eq!(
        browser.js("return document.activeElement.id", &[]).await,
        "chat-input",
        "the chat opens with the message box focused"
    );
    let text = "streamed answers arrive one word at a time";
    browser.say(text).await;
    browser
        .visible("[data-testid=turn][data-state=TASK_STATE_COMPLETED]")
        .await;
    let artifact = browser
        .text_contains("[data-testid=turn] [data-testid=artifact]", text)
        .await;
    assert!(artifact.contains(text), "{artifact}");
    // One chunk per word reached the page, appended to the one artifact.
    let chunks = browser
        .js(
            "return Number(document.querySelector('[data-testid=artifact]').dataset.chunks)",
            &[],
        )
        .await;
    assert_eq!(chunks, json!(text.split(' ').count()), "chunks seen");
    // The appended words read as one flowing text: one text part, not one line per word.
    let shown = browser
        .js(
            "return [...document.querySelectorAll('[data-testid=artifact] .part')].map((part) => part.textContent)",
            &[],
        )
        .await;
    assert_eq!(
        shown,
        json!([text]),
        "appended text chunks join into one text"
    );
    assert_eq!(
        browser
            .js(
                "return document.querySelectorAll('[data-testid=artifact]').length",
                &[]
            )
            .await,
        json!(1)
    );
    browser
        .say("and a second question in the same context")
        .await;
    browser
        .until(
            "document.querySelectorAll('[data-testid=turn][data-state=TASK_STATE_COMPLETED]').length === 2",
            &[],
        )
        .await;
    browser.shot("chat").await;
    // Narrow window: still one readable column.
    browser.size(420, 800).await;
    let overflow = browser
        .js(
            "return document.documentElement.scrollWidth - window.innerWidth",
            &[],
        )
        .await;
    assert!(
        overflow.as_i64().unwrap_or(0) <= 0,
        "the page scrolls sideways at 420 px by {overflow}"
    );
    browser.shot("narrow").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_and_a_json_data_part_go_with_the_message() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&[]);
    let Some((browser, inspect)) = open().await else {
        return;
    };
    browser.chat_with(&agent.url).await;
    browser.click("#chat-extras summary").await;
    // Data that is not JSON is refused on the page, and nothing is sent.
    browser.fill("#chat-data", "{not json").await;
    browser.say("never sent").await;
    let refusal = browser.visible("#chat-error").await;
    assert!(refusal.contains("not valid JSON"), "{refusal}");
    // The text typed is kept for another try.
    let kept = browser
        .js("return document.getElementById('chat-input').value", &[])
        .await;
    assert_eq!(kept, "never sent");
    browser.find("#chat-input").await.clear().await.unwrap();
    // A file from disk and a JSON data part, beside the text.
    let file = TempFile::new("note.txt", "a file's words");
    browser
        .find("#chat-file")
        .await
        .send_keys(file.path())
        .await
        .unwrap();
    browser.fill("#chat-data", r#"{"colour": "blue"}"#).await;
    browser.say("with attachments").await;
    browser
        .visible("[data-testid=turn][data-state=TASK_STATE_COMPLETED]")
        .await;
    let sent = browser.visible("[data-testid=user-message]").await;
    assert!(sent.contains("note.txt"), "{sent}");
    // On the wire: the text, the file's bytes in base64 with its name and type, the data.
    let wire = inspect.get("/api/wire").await;
    let calls = wire["calls"].as_array().unwrap();
    assert!(
        calls.iter().all(|call| !call["requestBody"]
            .as_str()
            .unwrap_or_default()
            .contains("never sent")),
        "the refused message was not sent"
    );
    let body = calls
        .iter()
        .find(|call| call["operation"] == "SendStreamingMessage")
        .and_then(|call| call["requestBody"].as_str())
        .unwrap();
    let body: Value = serde_json::from_str(body).unwrap();
    let parts = body["params"]["message"]["parts"].as_array().unwrap();
    let text = parts.iter().find_map(|part| part["text"].as_str());
    assert_eq!(text, Some("with attachments"), "{parts:?}");
    let file_part = parts.iter().find(|part| part.get("raw").is_some()).unwrap();
    assert_eq!(file_part["filename"], "note.txt");
    assert_eq!(file_part["mediaType"], "text/plain");
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(file_part["raw"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, b"a file's words");
    let data = parts.iter().find_map(|part| part.get("data")).unwrap();
    assert_eq!(data, &json!({"colour": "blue"}));
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_required_question_is_answered_and_the_task_completes() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&["--agent", "conformance"]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser.connect(&agent.url).await;
    let task_id = Value::from(
        browser
            .ask_for_input(
                "tck-input-required-browser",
                "start something that needs me",
            )
            .await,
    );
    let interrupt = browser.visible("[data-testid=interrupt]").await;
    assert!(interrupt.contains("waiting for your answer"), "{interrupt}");
    let target = browser.visible("#chat-target").await;
    assert!(
        target.contains(task_id.as_str().unwrap()),
        "the reply box continues the task: {target}"
    );
    assert_eq!(
        browser.js("return document.activeElement.id", &[]).await,
        "chat-input",
        "the reply box has the focus"
    );
    browser.say("here is what you asked for").await;
    browser
        .until(
            "(() => { const turns = document.querySelectorAll('[data-testid=turn]'); \
             const last = turns[turns.length - 1]; \
             return turns.length === 2 && last.dataset.state === 'TASK_STATE_COMPLETED' \
               && last.dataset.taskId === arguments[0]; })()",
            std::slice::from_ref(&task_id),
        )
        .await;
    let task = agent.call("GetTask", json!({"id": task_id})).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_timeline_lists_its_events_with_ids_and_survives_a_reload() {
    let _turn = BROWSER_TURN.lock().await;
    // The conformance agent asks for input on this message id: the timeline opens while the
    // task waits, and follows it live when the reply completes it.
    let agent = Server::start(&["--agent", "conformance"]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser
        .waiting_timeline(
            &agent.url,
            "tck-input-required-timeline",
            "ask me something",
        )
        .await;
    assert_eq!(
        browser.visible("#timeline-live").await,
        "Following…",
        "the timeline stays open while the task waits"
    );
    // The reply, from the chat; the timeline gets its events as they happen.
    browser.tab("chat").await;
    browser.say("here it is").await;
    browser
        .until(
            "document.querySelectorAll('[data-testid=turn][data-state=TASK_STATE_COMPLETED]').length === 1",
            &[],
        )
        .await;
    browser.tab("tasks").await;
    browser.text_contains("#timeline-state", "completed").await;
    let seqs = browser
        .until(
            "(() => { const seqs = [...document.querySelectorAll('[data-testid=timeline-event]')].map((node) => node.dataset.seq); \
             return seqs.length >= 3 && seqs.every((seq) => /^[0-9]+$/.test(seq)) ? seqs.map(Number) : null; })()",
            &[],
        )
        .await;
    let seqs: Vec<u64> = serde_json::from_value(seqs).unwrap();
    assert!(
        seqs.windows(2).all(|pair| pair[0] < pair[1]),
        "ids in order: {seqs:?}"
    );
    let timeline = browser.visible("#timeline-events").await;
    assert!(
        timeline.contains("→ completed"),
        "the transition as it happened: {timeline}"
    );
    assert!(timeline.contains(&format!("#{}", seqs[0])), "{timeline}");
    browser.shot("tasks").await;
    // After a reload the page reopens the timeline, resumes after the last id it kept, and
    // shows each event once.
    browser.reload().await;
    browser.visible("[data-testid=timeline-event]").await;
    // The resumed stream has nothing after the last kept id: it stops, and Subscribe is
    // offered again.
    browser
        .until(
            "!document.getElementById('timeline-subscribe').disabled",
            &[],
        )
        .await;
    let after = browser
        .js(
            "return [...document.querySelectorAll('[data-testid=timeline-event]')].map((node) => Number(node.dataset.seq))",
            &[],
        )
        .await;
    let after: Vec<u64> = serde_json::from_value(after).unwrap();
    assert_eq!(after, seqs, "the same events, once each, after the reload");
    // The wire view shows the calls behind it, newest first, with their SSE frames.
    browser.tab("wire").await;
    browser
        .click("#wire-body tr[data-operation=SendStreamingMessage] [data-testid=wire-call]")
        .await;
    let detail = browser.visible("[data-testid=sse-frames]").await;
    assert!(detail.contains("statusUpdate"), "{detail}");
    // Every call is listed, those made while the reloaded page loaded too.
    let ids = browser
        .js(
            "return [...document.querySelectorAll('#wire-body tr')].map((row) => Number(row.dataset.id))",
            &[],
        )
        .await;
    let ids: Vec<u64> = serde_json::from_value(ids).unwrap();
    let newest = ids.first().copied().unwrap_or(0);
    assert_eq!(
        ids,
        (1..=newest).rev().collect::<Vec<_>>(),
        "no call missing"
    );
    browser.shot("wire").await;
    browser.fits_narrow("wire").await;
    browser.tab("tasks").await;
    browser.fits_narrow("tasks").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_task_is_canceled_from_its_timeline() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&["--agent", "conformance"]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    let task_id = browser
        .waiting_timeline(&agent.url, "tck-input-required-cancel", "wait for me")
        .await;
    browser
        .until("!document.getElementById('timeline-cancel').disabled", &[])
        .await;
    browser.click("#timeline-cancel").await;
    // The cancel's answer and the live timeline both say so; a finished task cannot be
    // canceled again.
    browser.text_contains("#timeline-state", "canceled").await;
    browser
        .text_contains("#timeline-events", "→ canceled")
        .await;
    browser
        .until("document.getElementById('timeline-cancel').disabled", &[])
        .await;
    let task = agent.call("GetTask", json!({"id": task_id.as_str()})).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_CANCELED", "{task}");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_list_pages_and_filters_by_context_and_state() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&[]);
    for index in 0..23 {
        agent
            .send(&format!("page-{index}"), "one of many", json!({}))
            .await;
    }
    for index in 0..2 {
        let mut message = user_message(&format!("in-context-{index}"), "in one context");
        message["contextId"] = json!("ctx-paging");
        agent.call("SendMessage", json!({"message": message})).await;
    }
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser.connect(&agent.url).await;
    browser.visible("[data-testid=card-name]").await;
    browser.tab("tasks").await;
    const ROWS: &str = "document.querySelectorAll('#tasks-body tr').length";
    // 25 tasks, 20 to a page.
    browser.until(&format!("{ROWS} === 20"), &[]).await;
    browser.click("#tasks-next").await;
    browser.until(&format!("{ROWS} === 5"), &[]).await;
    assert_eq!(
        browser
            .js("return document.getElementById('tasks-next').hidden", &[])
            .await,
        json!(true),
        "the last page offers no next one"
    );
    browser.click("#tasks-first").await;
    browser.until(&format!("{ROWS} === 20"), &[]).await;
    // One context's tasks only.
    browser.fill("#tasks-context", "ctx-paging").await;
    browser.click("#tasks-load").await;
    browser.until(&format!("{ROWS} === 2"), &[]).await;
    // And a state none of them is in.
    browser.choose("#tasks-status", "TASK_STATE_CANCELED").await;
    browser.click("#tasks-load").await;
    browser.until(&format!("{ROWS} === 0"), &[]).await;
    browser
        .text_contains("#tasks-count", "No tasks match")
        .await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_delivery_from_a_local_agent_is_listed_with_its_checks() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&["--push-notifications", "--allow-local-webhooks"]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser.chat_with(&agent.url).await;
    browser.click("#chat-push").await;
    browser.click("#chat-stream").await;
    browser.say("deliver this to the inspector").await;
    browser
        .visible("[data-testid=turn][data-state=TASK_STATE_COMPLETED]")
        .await;
    browser.tab("push").await;
    let delivery = browser
        .visible("[data-testid=delivery][data-accepted=true]")
        .await;
    assert!(delivery.contains("token ok"), "{delivery}");
    assert!(delivery.contains("accepted"), "{delivery}");
    // The body of the first delivery, unfolded.
    browser
        .click("[data-testid=delivery]:last-child summary")
        .await;
    browser
        .text_contains("[data-testid=delivery]:last-child", "TASK_STATE_")
        .await;
    browser.shot("push").await;
    browser.fits_narrow("push").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_lists_its_agents_and_one_opens() {
    let _turn = BROWSER_TURN.lock().await;
    let gateway = gateway();
    let _agent = Server::start(&[
        "--register",
        &gateway.url,
        "--agent-id",
        "echo-browser",
        "--heartbeat-interval",
        "250ms",
    ]);
    // A second agent registers, then dies without deregistering: the registry keeps it
    // until its heartbeat's time to live runs out, but it no longer answers.
    let mut gone = Server::start(&[
        "--register",
        &gateway.url,
        "--agent-id",
        "echo-killed",
        "--heartbeat-interval",
        "250ms",
    ]);
    let both = eventually(Duration::from_secs(10), || async {
        let listed = gateway.get("/agents").await.to_string();
        (listed.contains("echo-browser") && listed.contains("echo-killed")).then_some(())
    })
    .await;
    assert!(both.is_some(), "both agents register");
    gone.kill();
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    browser.connect(&gateway.url).await;
    browser
        .until("!document.getElementById('tab-agents').hidden", &[])
        .await;
    browser.tab("agents").await;
    // Each row says whether its agent answers through the gateway.
    let row = browser
        .visible("[data-testid=agent-row][data-agent-id=echo-browser] [data-testid=liveness][data-status=live]")
        .await;
    assert!(row.contains("live"), "{row}");
    let dead = browser
        .visible("[data-testid=agent-row][data-agent-id=echo-killed] [data-testid=liveness][data-status=unreachable]")
        .await;
    assert!(dead.contains("cannot reach the agent"), "{dead}");
    browser.shot("agents").await;
    browser.fits_narrow("agents").await;
    browser
        .click("[data-testid=open-agent][data-agent-id=echo-browser]")
        .await;
    browser
        .until("document.body.dataset.view === 'connect'", &[])
        .await;
    let card = browser
        .text_contains("#card-view", "/a2a/echo-browser")
        .await;
    assert!(card.contains("JSONRPC"), "{card}");
    browser.tab("chat").await;
    browser.say("through the gateway").await;
    browser
        .text_contains("[data-testid=artifact]", "through the gateway")
        .await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_url_shows_a_clear_message() {
    let _turn = BROWSER_TURN.lock().await;
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    let closed = format!("http://127.0.0.1:{}", free_port());
    browser.connect(&closed).await;
    let panel = browser.visible("[data-testid=connect-error]").await;
    assert_eq!(
        browser
            .js(
                "return document.querySelector('[data-testid=connect-error]').dataset.kind",
                &[]
            )
            .await,
        "unreachable"
    );
    assert!(panel.contains("unreachable"), "{panel}");
    let message = browser
        .visible("[data-testid=connect-error] [data-testid=error-message]")
        .await;
    assert!(message.len() > 20, "a sentence, not a code: {message:?}");
    assert!(
        browser
            .js("return document.getElementById('card-view').hidden", &[])
            .await
            == json!(true)
    );
    browser.shot("unreachable").await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_shows_a_clear_message_and_the_right_key_connects() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&["--api-key", "right-key"]);
    let Some((browser, _inspect)) = open().await else {
        return;
    };
    // Without a key, and with a wrong one: the page says the agent refused, in words.
    for key in [None, Some("wrong-key")] {
        browser.tab("connect").await;
        match key {
            None => browser.choose("#auth-kind", "none").await,
            Some(key) => {
                browser.choose("#auth-kind", "api_key").await;
                browser.fill("#auth-value", key).await;
            }
        }
        browser.connect(&agent.url).await;
        let message = refusal(&browser).await;
        assert!(message.contains("401"), "{key:?}: {message}");
        browser.shot("unauthorized").await;
    }
    browser.tab("connect").await;
    browser.choose("#auth-kind", "api_key").await;
    browser.fill("#auth-value", "right-key").await;
    browser.connect(&agent.url).await;
    browser
        .until(
            "document.getElementById('connect-error').hidden && !document.getElementById('card-view').hidden",
            &[],
        )
        .await;
    // The key was checked when connecting.
    let checked = browser
        .visible("[data-testid=credentials][data-status=accepted]")
        .await;
    assert!(checked.contains("ListTasks"), "{checked}");
    browser.tab("chat").await;
    browser.say("with the right key").await;
    browser
        .text_contains("[data-testid=artifact]", "with the right key")
        .await;
    assert!(
        !browser.page_text().await.contains("right-key"),
        "the key is never shown"
    );
    browser.close().await;
}

/// The refusal the page shows for the last connect: at connect time when the inspector
/// probes with the credentials, else on the first message.
async fn refusal(browser: &Browser) -> String {
    let refused_at_connect = browser
        .js(
            "return !document.getElementById('connect-error').hidden",
            &[],
        )
        .await;
    if refused_at_connect == json!(true) {
        let kind = browser
            .js(
                "return document.getElementById('connect-error').dataset.kind",
                &[],
            )
            .await;
        assert_eq!(kind, "unauthorized");
        return browser.visible("#connect-error").await;
    }
    browser.tab("chat").await;
    browser.say("may I?").await;
    browser
        .visible(
            "[data-testid=turn][data-state=error]:last-child .error-panel[data-kind=unauthorized]",
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_of_a2a_inspect_url_connects_with_the_command_line_key() {
    let _turn = BROWSER_TURN.lock().await;
    let agent = Server::start(&["--api-key", "command-line-key"]);
    let Some(browser) = Browser::start().await else {
        return;
    };
    let mut command = a2a();
    command.args([
        "inspect",
        "--bind",
        "127.0.0.1:0",
        &agent.url,
        "--api-key",
        "command-line-key",
    ]);
    let inspect = Server::spawn(command, "a2a inspect URL");
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("url", &agent.url)
        .finish();
    browser.goto(&format!("{}/?{query}", inspect.url)).await;
    assert_eq!(
        browser.visible("[data-testid=card-name]").await,
        card_name(&agent).await
    );
    // The query is gone: a reload does not connect a second time.
    assert_eq!(browser.js("return location.search", &[]).await, "");
    browser.tab("chat").await;
    browser.say("the key came from the command line").await;
    browser
        .text_contains(
            "[data-testid=artifact]",
            "the key came from the command line",
        )
        .await;
    browser.close().await;
}

/// A plain test: the run agent has a runtime of its own, which may not be dropped inside
/// another.
#[test]
fn a_run_waiting_for_approval_shows_buttons_and_the_approved_call_runs() {
    let agent = RunServer::start(true);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ran = runtime.block_on(async {
        let _turn = BROWSER_TURN.lock().await;
        let Some((browser, _inspect)) = open().await else {
            return false;
        };
        browser.connect(&agent.url).await;
        assert_eq!(
            browser.visible("[data-testid=card-name]").await,
            "Files agent"
        );
        browser.tab("chat").await;
        browser.say("write approved.txt").await;
        let approvals = browser.visible("[data-testid=approvals]").await;
        assert!(approvals.contains("write_file"), "{approvals}");
        assert!(approvals.contains("approved.txt"), "{approvals}");
        assert_eq!(
            browser
                .js("return document.activeElement.dataset.testid", &[])
                .await,
            "approve",
            "the first decision has the focus"
        );
        browser.shot("approval").await;
        browser.click("[data-testid=approve]").await;
        browser
            .text_contains("[data-testid=turn]:last-child", "Done: wrote approved.txt")
            .await;
        browser.close().await;
        true
    });
    // Without a browser (and outside CI, which requires one) nothing was asked of the agent.
    if ran {
        assert_eq!(agent.file("approved.txt").as_deref(), Some("A"));
    }
}
