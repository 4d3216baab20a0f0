//! How the client commands reach an agent the card does not lead to directly: `--host` and
//! `--port` over the card's interface URL, redirects of the card followed unless
//! `--no-redirects`, and `--connect-timeout`.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use crate::client_mock::{cli, cli_with_input};
use crate::support::Server;

/// An echo agent whose card sends clients to port 1 of loopback, where nothing listens.
fn agent_behind_a_wrong_card() -> (Server, String) {
    let server = Server::start(&["--agent", "echo", "--public-url", "http://127.0.0.1:1"]);
    let port = server
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    (server, port)
}

#[test]
fn host_and_port_send_every_client_command_where_the_card_does_not_point() {
    let (server, port) = agent_behind_a_wrong_card();
    let lost = cli(&["send", &server.url, "hi"]);
    assert_ne!(lost.code, Some(0), "the card's address is unreachable");
    let reach = ["--host", "127.0.0.1", "--port", &port];
    let send = cli(&[&["send", &server.url, "hi", "--json"][..], &reach].concat());
    let lines = send.json_lines();
    let task = &lines[0]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{lines:?}");
    let id = task["id"].as_str().unwrap();
    let get = cli(&[&["get", &server.url, id, "--json"][..], &reach].concat());
    assert_eq!(get.json_lines()[0]["id"], id);
    // A scheme may lead the host; the port may be part of it.
    let host = format!("http://127.0.0.1:{port}");
    let list = cli(&["list", &server.url, "--json", "--host", &host]);
    assert!(list.ok().contains(id), "{}", list.stdout);
    let chat = cli_with_input(
        &[&["chat", &server.url][..], &reach].concat(),
        "hello there\n",
    );
    assert_eq!(chat.ok(), "agent: hello there\n");
    // A port alone names no host to use it on.
    let alone = cli(&["send", &server.url, "hi", "--port", &port]);
    assert_eq!(alone.code, Some(2), "{}", alone.stderr);
}

/// A host that answers every request with `302 Location: TARGET`, for as long as the test
/// runs.
fn redirecting_to(target: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    format!("http://{address}")
}

#[test]
fn a_moved_card_is_followed_unless_no_redirects_refuses_it() {
    let server = Server::start(&["--agent", "echo"]);
    let moved = redirecting_to(format!("{}/.well-known/agent-card.json", server.url));
    let card = cli(&["card", &moved, "--json"]);
    assert!(card.ok().contains("supportedInterfaces"), "{}", card.stdout);
    let send = cli(&["send", &moved, "hi", "--json"]);
    assert_eq!(
        send.json_lines()[0]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    for command in [&["card", &moved][..], &["send", &moved, "hi"]] {
        let refused = cli(&[command, &["--no-redirects"]].concat());
        assert_ne!(refused.code, Some(0), "{command:?}");
        assert!(refused.stderr.contains("redirect"), "{}", refused.stderr);
    }
}

/// A loopback listener whose accept queue is full, so a new connection is never set up:
/// the kernel drops its SYNs.
fn a_listener_that_never_connects() -> (tokio::net::TcpListener, Vec<TcpStream>) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    let mut held = Vec::new();
    while let Ok(stream) = TcpStream::connect_timeout(&address, Duration::from_millis(300)) {
        held.push(stream);
        assert!(held.len() < 64, "the accept queue never filled");
    }
    (listener, held)
}

#[tokio::test]
async fn connect_timeout_bounds_the_connection_to_an_agent_that_never_accepts() {
    let (listener, _held) = a_listener_that_never_connects();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let run = tokio::task::spawn_blocking(move || {
        cli(&[
            "card",
            &url,
            "--connect-timeout",
            "300ms",
            "--timeout",
            "120s",
        ])
    })
    .await
    .unwrap();
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("timed out connecting"),
        "{}",
        run.stderr
    );
}
