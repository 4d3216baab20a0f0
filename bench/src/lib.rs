//! Pieces shared by the load benchmark's binaries (see `bench/README.md`): canned A2A
//! payloads shaped like the ones `a2a serve` sends, an SSE event counter for the stream
//! clients, the batch runner of the closed-loop clients, their JSON-RPC `SendMessage`, and
//! small helpers.

use std::io::Write as _;
use std::net::SocketAddr;

pub mod batch;
pub mod canned;
pub mod jsonrpc;
pub mod sse;

/// The header every A2A request of the benchmark carries.
pub const VERSION_HEADER: (&str, &str) = ("A2A-Version", "1.0");

/// Prints the line `run.sh` waits for, `listening on http://ADDR`, the same one as
/// `a2a serve`, and flushes it at once.
///
/// # Errors
/// When stdout is closed.
pub fn announce(address: SocketAddr) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{address}")?;
    stdout.flush()
}

/// Serves `app` on `bind` as `a2a serve` and `a2a gateway` do (`TCP_NODELAY`: without it
/// small responses wait for delayed ACKs), after printing the line of [`announce`].
///
/// # Errors
/// When the address cannot be bound or announced, or serving stops.
pub async fn serve(bind: &str, app: axum::Router) -> std::io::Result<()> {
    use axum::serve::ListenerExt as _;

    let listener = tokio::net::TcpListener::bind(bind).await?;
    announce(listener.local_addr()?)?;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await
}

/// An HTTP client for loopback load: no proxy, `TCP_NODELAY`, up to `idle` kept-alive
/// connections.
///
/// # Errors
/// When the client cannot be built.
pub fn http_client(idle: usize) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(idle)
        .build()
}

/// `response` when its status is a success.
///
/// # Errors
/// Naming the status and the body, when it is not.
pub async fn successful(response: reqwest::Response) -> anyhow::Result<reqwest::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let text = response.text().await.unwrap_or_default();
    anyhow::bail!("HTTP {status}: {text}")
}

/// Whether `needle` occurs in `haystack`.
#[must_use]
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len().max(1))
        .any(|window| window == needle)
}

/// The `p`-th percentile (0–100) of `sorted`, nearest rank; 0 for an empty slice.
#[must_use]
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_is_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&values, 50.0), 50.0);
        assert_eq!(percentile(&values, 99.0), 99.0);
        assert_eq!(percentile(&values, 100.0), 100.0);
        assert_eq!(percentile(&values, 0.0), 1.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
