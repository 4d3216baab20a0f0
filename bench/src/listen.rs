//! Serving a benchmark app on loopback the way `a2a serve` does, announced with its line.

use std::io::Write as _;
use std::net::SocketAddr;

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
