//! The loopback HTTP client of the load clients, and the check of its responses' status.

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
