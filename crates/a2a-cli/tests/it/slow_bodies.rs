//! The minimum body rate of `a2a serve` and `a2a gateway` over real sockets: request bodies
//! dripped a byte every 5 s (each byte well inside the body read timeout) are cut with 408
//! once the grace is over, while normal callers are answered at once.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::{Server, a2a};

/// How many connections drip at once.
const DRIPPERS: usize = 300;
/// The gap between two dripped bytes.
const DRIP_EVERY: Duration = Duration::from_secs(5);
/// Every dripping connection must be closed within this of its start.
const ALL_CLOSED_WITHIN: Duration = Duration::from_secs(40);
/// A normal call must be answered within this.
const NORMAL_CALL_LIMIT: Duration = Duration::from_secs(2);

/// Raises this process's open-file limit (inherited by the servers it starts) so that the
/// dripping connections fit, on both ends.
fn raise_open_file_limit(needed: u64) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    if soft < needed {
        let raised = needed.min(hard);
        setrlimit(Resource::RLIMIT_NOFILE, raised, hard).unwrap();
        assert!(
            raised >= needed,
            "the open-file limit ({hard}) is below {needed}"
        );
    }
}

/// Sends `head`, then a byte of body every [`DRIP_EVERY`] until the server closes the
/// connection; what was read and when, after `since`, it closed.
async fn drip(address: String, head: String, since: Instant) -> (String, Duration) {
    let mut stream = TcpStream::connect(&address).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let reading = async {
        let mut read = Vec::new();
        let mut buffer = [0; 1024];
        loop {
            match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => return String::from_utf8_lossy(&read).into_owned(),
                Ok(count) => read.extend_from_slice(&buffer[..count]),
            }
        }
    };
    let writing = async {
        loop {
            if writer.write_all(b" ").await.is_err() {
                // The server is gone: the reader sees it too.
                std::future::pending::<()>().await;
            }
            tokio::time::sleep(DRIP_EVERY).await;
        }
    };
    tokio::select! {
        read = reading => (read, since.elapsed()),
        () = writing => unreachable!(),
    }
}

/// `host:port` of a server's URL.
fn address(server: &Server) -> String {
    server.url.split_once("://").unwrap().1.to_owned()
}

/// Starts `count` drippers of `head` on `server`, calls `normal` every 500 ms until they are
/// all closed, and checks both: every dripper was answered 408 and closed within
/// [`ALL_CLOSED_WITHIN`], every normal call within [`NORMAL_CALL_LIMIT`].
async fn drip_and_call<F, Fut>(server: &Server, head: String, count: usize, normal: F) -> String
where
    F: Fn() -> Fut,
    Fut: Future<Output = u16>,
{
    let started = Instant::now();
    let drippers: Vec<_> = (0..count)
        .map(|_| tokio::spawn(drip(address(server), head.clone(), started)))
        .collect();
    let all = futures::future::join_all(drippers);
    tokio::pin!(all);
    let mut slowest_normal = Duration::ZERO;
    let mut normal_calls = 0;
    let closed = loop {
        tokio::select! {
            closed = &mut all => break closed,
            () = tokio::time::sleep(Duration::from_millis(500)) => {
                let call = Instant::now();
                let status = tokio::time::timeout(NORMAL_CALL_LIMIT, normal())
                    .await
                    .expect("a normal call was answered in time");
                assert_eq!(status, 200);
                slowest_normal = slowest_normal.max(call.elapsed());
                normal_calls += 1;
                assert!(
                    started.elapsed() < ALL_CLOSED_WITHIN + Duration::from_secs(5),
                    "dripping connections still open after {ALL_CLOSED_WITHIN:?}"
                );
            }
        }
    };
    let mut first = Duration::MAX;
    let mut last = Duration::ZERO;
    for result in closed {
        let (read, at) = result.unwrap();
        assert!(read.starts_with("HTTP/1.1 408"), "{read}");
        first = first.min(at);
        last = last.max(at);
    }
    assert!(last <= ALL_CLOSED_WITHIN, "the last closed after {last:?}");
    format!(
        "{count} dripping connections answered 408 and closed between {first:?} and {last:?}; \
         {normal_calls} normal calls meanwhile, the slowest {slowest_normal:?}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_cuts_bodies_below_the_minimum_rate_and_keeps_answering() {
    raise_open_file_limit(4 * DRIPPERS as u64 + 256);
    let server = Server::start(&["--body-min-rate", "1024", "--body-min-rate-grace", "10s"]);
    let head = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                A2A-Version: 1.0\r\nContent-Length: 1000\r\n\r\n{"
        .to_owned();
    let http = reqwest::Client::new();
    let url = server.url.clone();
    let report = drip_and_call(&server, head, DRIPPERS, || async {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"messageId": a2a_types::MessageId::generate().into_string(),
                "role": "ROLE_USER", "parts": [{"text": "hi"}]}}});
        http.post(format!("{url}/"))
            .header("A2A-Version", "1.0")
            .json(&body)
            .send()
            .await
            .map_or(0, |response| response.status().as_u16())
    })
    .await;
    eprintln!("a2a serve: {report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_cuts_bodies_below_the_minimum_rate() {
    let mut command = a2a();
    command.args([
        "gateway",
        "--bind",
        "127.0.0.1:0",
        "--store",
        "sqlite::memory:",
        "--shutdown-grace",
        "1s",
        "--registry-key",
        "k",
        "--body-min-rate",
        "1024",
        "--body-min-rate-grace",
        "2s",
    ]);
    let gateway = Server::spawn(command, "a2a gateway");
    let head = "POST /agents/register HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer k\r\n\
                Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        .to_owned();
    let url = gateway.url.clone();
    let report = drip_and_call(&gateway, head, 20, || async {
        reqwest::get(format!("{url}/healthz"))
            .await
            .map_or(0, |response| response.status().as_u16())
    })
    .await;
    eprintln!("a2a gateway: {report}");
}
