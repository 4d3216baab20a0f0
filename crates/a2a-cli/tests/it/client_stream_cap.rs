//! `--stream-max-duration`: a stream still open after that long is closed with a clear
//! error, even while the agent keeps it alive.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use a2a_types::{AgentCard, AgentInterface, ProtocolBinding};

use crate::client_mock::cli;

#[allow(clippy::disallowed_methods)] // plain threads serve it, no runtime
/// An agent on a real socket whose streams send one event, then stay open
/// (a heartbeat comment every 100 ms, so the idle timeout never fires) for a minute.
fn endless_stream_agent() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut card = AgentCard::new("Endless", "Streams forever", "1.0.0").with_interface(
        AgentInterface::new(format!("{base}/rest"), ProtocolBinding::HttpJson),
    );
    card.capabilities.streaming = Some(true);
    let card = serde_json::to_string(&card).unwrap();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let card = card.clone();
            thread::spawn(move || {
                let mut head = [0_u8; 8192];
                let read = stream.read(&mut head).unwrap_or(0);
                let head = String::from_utf8_lossy(&head[..read]).into_owned();
                if head.starts_with("GET") {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{card}",
                        card.len()
                    );
                    return;
                }
                let task = r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: {task}\n\n"
                );
                for _ in 0..600 {
                    thread::sleep(Duration::from_millis(100));
                    if stream.write_all(b": keep-alive\n\n").is_err() {
                        return;
                    }
                }
            });
        }
    });
    base
}

#[test]
fn stream_max_duration_closes_a_stream_that_never_ends() {
    let url = endless_stream_agent();
    let started = Instant::now();
    let run = cli(&[
        "send",
        &url,
        "hi",
        "--stream",
        "--json",
        "--stream-max-duration",
        "700ms",
    ]);
    assert!(started.elapsed() < Duration::from_secs(20), "{run:?}");
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("TASK_STATE_WORKING"), "{run:?}");
    assert!(run.stderr.contains("longest allowed time"), "{run:?}");
}

#[test]
fn help_shows_the_stream_cap_and_its_default() {
    let run = cli(&["send", "--help"]);
    let help = run.ok();
    assert!(help.contains("--stream-max-duration <DURATION>"), "{help}");
    assert!(help.contains("[default: 300s]"), "{help}");
    assert!(help.contains("A2A_STREAM_MAX_DURATION"), "{help}");
}

#[test]
fn the_stream_cap_is_also_read_from_its_variable() {
    let url = endless_stream_agent();
    let started = Instant::now();
    let run = crate::client_mock::cli_with_env(
        &["send", &url, "hi", "--stream", "--json"],
        &[("A2A_STREAM_MAX_DURATION", "700ms")],
    );
    assert!(started.elapsed() < Duration::from_secs(20), "{run:?}");
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("longest allowed time"), "{run:?}");
}
