//! Connection hygiene of `a2a serve`, `a2a gateway` and `a2a webhook` over real sockets
//! (issue 20 item 9): connections that send half a request head, nothing at all, or a body
//! that stalls are closed within their timeouts while normal callers are answered; idle
//! kept-alive connections outlive the header timeout but not the keep-alive timeout; a
//! client that stops reading a stream is disconnected after the write timeout; the
//! connection and TLS handshake caps hold and free up.
//!
//! Time bounds are generous (the timeout plus [`MARGIN`]); lower bounds only where a cap must
//! have made a caller wait.

use std::time::{Duration, Instant};

use a2a_test_support::tls::Pki;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::{Server, a2a, run};

/// Added to every timeout before a test calls a connection still open.
const MARGIN: Duration = Duration::from_secs(3);
const CARD: &str = "/.well-known/agent-card.json";
const GET_CARD: &[u8] = b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n\r\n";
const HALF_HEAD: &[u8] = b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-";
/// A head announcing 100 bytes of body, and the first of them.
const SLOW_BODY: &[u8] = b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 100\r\n\r\n{";
const DELIVERY: &str = r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-01T00:00:00.000Z"}}}"#;

/// `host:port` of a server's `listening on` URL.
fn address(server: &Server) -> String {
    server.url.split_once("://").unwrap().1.to_owned()
}

/// A connection that has sent `bytes`.
async fn open(address: &str, bytes: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(address).await.unwrap();
    if !bytes.is_empty() {
        stream.write_all(bytes).await.unwrap();
    }
    stream
}

/// Reads until the server closes `stream` (end of stream or reset) and returns what was
/// read; panics unless that happens within `limit` of `since`.
async fn closed_within(
    stream: &mut TcpStream,
    since: Instant,
    limit: Duration,
    what: &str,
) -> String {
    let mut read = Vec::new();
    let mut buffer = [0; 4096];
    loop {
        let left = limit.checked_sub(since.elapsed()).unwrap_or_default();
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_elapsed) => panic!(
                "{what}: still open after {limit:?}; read {:?}",
                String::from_utf8_lossy(&read)
            ),
            Ok(Ok(0) | Err(_)) => return String::from_utf8_lossy(&read).into_owned(),
            Ok(Ok(count)) => read.extend_from_slice(&buffer[..count]),
        }
    }
}

/// Reads one response with a Content-Length body from `stream`, within `limit`.
async fn response(stream: &mut TcpStream, limit: Duration) -> String {
    let reading = async {
        let mut read = Vec::new();
        let mut buffer = [0; 4096];
        loop {
            let text = String::from_utf8_lossy(&read).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    return text;
                }
            }
            let count = stream.read(&mut buffer).await.unwrap();
            assert!(count > 0, "closed mid-response: {text:?}");
            read.extend_from_slice(&buffer[..count]);
        }
    };
    tokio::time::timeout(limit, reading)
        .await
        .expect("no complete response in time")
}

#[tokio::test]
async fn serve_closes_stalled_connections_and_keeps_serving() {
    // The keep-alive timeout from the environment, the others as flags.
    let mut command = a2a();
    command.env("A2A_KEEP_ALIVE_TIMEOUT", "3s");
    let server = Server::start_command(
        command,
        &["--header-read-timeout", "1s", "--body-read-timeout", "1s"],
    );
    let address = address(&server);
    let http = reqwest::Client::new();

    let started = Instant::now();
    let mut nothing = open(&address, b"").await;
    let mut half = open(&address, HALF_HEAD).await;
    let mut slow = open(&address, SLOW_BODY).await;
    // A normal caller is answered meanwhile.
    let card = http
        .get(format!("{}{CARD}", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);

    let limit = Duration::from_secs(1) + MARGIN;
    let read = closed_within(
        &mut nothing,
        started,
        limit,
        "a connection that sent nothing",
    )
    .await;
    assert_eq!(read, "");
    let read = closed_within(&mut half, started, limit, "half a head").await;
    assert_eq!(read, "");
    let read = closed_within(&mut slow, started, limit, "a stalled body").await;
    assert!(read.starts_with("HTTP/1.1 408"), "{read}");

    // An idle kept-alive connection outlives the header timeout…
    let mut kept = open(&address, GET_CARD).await;
    let first = response(&mut kept, MARGIN).await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    kept.write_all(GET_CARD).await.unwrap();
    let second = response(&mut kept, MARGIN).await;
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");
    // …and is closed after the keep-alive timeout.
    let idle = Instant::now();
    let read = closed_within(
        &mut kept,
        idle,
        Duration::from_secs(3) + MARGIN,
        "an idle connection",
    )
    .await;
    assert_eq!(read, "");
    assert!(
        idle.elapsed() >= Duration::from_secs(2),
        "closed after {:?}",
        idle.elapsed()
    );

    // A body trickled faster than the body timeout is read whole.
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"none"}}"#;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut trickle = open(&address, head.as_bytes()).await;
    for chunk in body.chunks(body.len() / 3 + 1) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trickle.write_all(chunk).await.unwrap();
    }
    let answer = response(&mut trickle, MARGIN).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("jsonrpc"), "{answer}");
}

#[tokio::test]
async fn serve_disconnects_a_client_that_stops_reading_a_stream() {
    // About 40 MB of output, as 60 KB lines (one artifact chunk each): far more than the
    // socket buffers between the server and a client that reads nothing hold.
    let script = "head -c 40000000 /dev/zero | tr '\\0' y | fold -w 60000";
    let server = Server::start(&[
        "--write-timeout",
        "1000",
        "--agent",
        "exec",
        "--",
        "sh",
        "-c",
        script,
    ]);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"go"}]}}}"#;
    let request = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nAccept: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket
        .connect(address(&server).parse().unwrap())
        .await
        .unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    // Reads nothing for a while: the server's writes fill the buffers and wait.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let since = Instant::now();
    let mut taken = 0_usize;
    let mut buffer = vec![0; 64 * 1024];
    loop {
        match tokio::time::timeout(Duration::from_secs(1) + MARGIN, stream.read(&mut buffer)).await
        {
            Err(_elapsed) => panic!("still open and silent after {:?}", since.elapsed()),
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(count)) => taken += count,
        }
        assert!(
            since.elapsed() < Duration::from_secs(20),
            "the stream went on: {taken} bytes read"
        );
    }
    assert!(
        taken < 30_000_000,
        "the connection was cut, not finished: {taken} bytes read"
    );
    // The server goes on serving others.
    let mut other = open(&address(&server), GET_CARD).await;
    assert!(
        response(&mut other, MARGIN)
            .await
            .starts_with("HTTP/1.1 200")
    );
}

#[tokio::test]
async fn the_connection_cap_holds_and_frees_up() {
    let server = Server::start(&["--max-connections", "2", "--header-read-timeout", "30s"]);
    let address = address(&server);
    let first = open(&address, b"").await;
    let _second = open(&address, b"").await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    // The third connection is not refused, but waits unanswered…
    let mut third = open(
        &address,
        b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .await;
    let mut buffer = [0; 64];
    let early = tokio::time::timeout(Duration::from_millis(1500), third.read(&mut buffer)).await;
    assert!(early.is_err(), "answered beyond the cap: {early:?}");
    // …until a connection closes.
    drop(first);
    let answer = response(&mut third, MARGIN).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let log = server.log();
    assert!(log.contains("connection limit is reached"), "{log}");
}

#[tokio::test]
async fn tls_handshakes_are_capped_and_timed_out() {
    let pki = Pki::new("alice").files();
    let server = Server::start(&[
        "--tls-cert",
        &pki.server_cert,
        "--tls-key",
        &pki.server_key,
        "--tls-handshake-timeout",
        "3s",
        "--max-tls-handshakes",
        "1",
    ]);
    let address = address(&server);
    let ca = reqwest::Certificate::from_pem(&std::fs::read(&pki.ca).unwrap()).unwrap();
    let https = reqwest::Client::builder()
        .add_root_certificate(ca)
        .build()
        .unwrap();

    // A client that never says hello holds the only handshake slot until its timeout.
    let started = Instant::now();
    let mut silent = open(&address, b"").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let asked = Instant::now();
    let card = https
        .get(format!("{}{CARD}", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_secs(1),
        "handshake did not wait for the slot: {waited:?}"
    );
    let read = closed_within(
        &mut silent,
        started,
        Duration::from_secs(3) + MARGIN,
        "a silent TLS client",
    )
    .await;
    assert_eq!(read, "");
}

#[tokio::test]
async fn the_gateway_closes_stalled_connections() {
    let mut command = a2a();
    command.args([
        "gateway",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite::memory:",
        "--shutdown-grace",
        "1s",
        "--header-read-timeout",
        "1s",
        "--body-read-timeout",
        "1s",
    ]);
    let gateway = Server::spawn(command, "a2a gateway");
    let address = address(&gateway);
    let started = Instant::now();
    let mut half = open(&address, HALF_HEAD).await;
    let mut nothing = open(&address, b"").await;
    let health = reqwest::get(format!("{}/healthz", gateway.url))
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let limit = Duration::from_secs(1) + MARGIN;
    assert_eq!(
        closed_within(&mut half, started, limit, "half a head").await,
        ""
    );
    assert_eq!(
        closed_within(&mut nothing, started, limit, "nothing").await,
        ""
    );
}

#[tokio::test]
async fn the_webhook_receiver_closes_stalled_connections() {
    let mut command = a2a();
    command.args([
        "webhook",
        "--listen",
        "127.0.0.1:0",
        "--header-read-timeout",
        "1s",
        "--body-read-timeout",
        "1s",
    ]);
    let webhook = Server::spawn(command, "a2a webhook");
    let address = address(&webhook);
    let started = Instant::now();
    let mut half = open(&address, HALF_HEAD).await;
    let mut slow = open(&address, SLOW_BODY).await;
    let delivered = reqwest::Client::new()
        .post(format!("{}/hook", webhook.url))
        .header("Content-Type", "application/json")
        .body(DELIVERY)
        .send()
        .await
        .unwrap();
    assert_eq!(delivered.status(), 200);
    let limit = Duration::from_secs(1) + MARGIN;
    assert_eq!(
        closed_within(&mut half, started, limit, "half a head").await,
        ""
    );
    let read = closed_within(&mut slow, started, limit, "a stalled body").await;
    assert!(read.starts_with("HTTP/1.1 408"), "{read}");
}

#[test]
fn zero_limits_are_usage_errors() {
    let cases: [&[&str]; 4] = [
        &[
            "serve",
            "--store",
            "memory",
            "--no-auth",
            "--max-connections",
            "0",
        ],
        &[
            "serve",
            "--store",
            "memory",
            "--no-auth",
            "--header-read-timeout",
            "0",
        ],
        &[
            "gateway",
            "--store",
            "sqlite::memory:",
            "--keep-alive-timeout",
            "0",
        ],
        &[
            "webhook",
            "--listen",
            "127.0.0.1:0",
            "--body-read-timeout",
            "0s",
        ],
    ];
    for args in cases {
        let output = run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("more than 0"), "{args:?}: {stderr}");
    }
}
