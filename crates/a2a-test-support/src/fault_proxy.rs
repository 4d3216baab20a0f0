//! A TCP proxy of the tests' own, put between a server and its database to make the link
//! fail on cue: it passes bytes through, can hold each chunk back for a set time in each
//! direction (a slow link), and can cut the link (every open connection dropped at once, new
//! ones closed as soon as they are accepted) until it is restored. Loopback only.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use a2a_test_support::fault_proxy::FaultProxy;
//! let proxy = FaultProxy::start("127.0.0.1:5432".parse().unwrap()).await?;
//! // point the server under test at proxy.addr() instead of the database
//! proxy.cut(); // the database is gone
//! proxy.restore(); // and back
//! proxy.set_delay(std::time::Duration::from_millis(50)); // 50 ms each way from now on
//! # Ok(())
//! # }
//! ```

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What the accept loop and every connection share.
#[derive(Debug)]
struct Link {
    target: SocketAddr,
    /// The delay each way, in microseconds.
    delay_us: AtomicU64,
    down: AtomicBool,
    /// Cancelled by [`FaultProxy::cut`]: every connection opened before it holds a child.
    open: Mutex<CancellationToken>,
    accepted: AtomicU64,
    refused: AtomicU64,
}

impl Link {
    fn delay(&self) -> Duration {
        Duration::from_micros(self.delay_us.load(Ordering::Relaxed))
    }

    fn connection_token(&self) -> CancellationToken {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .child_token()
    }
}

/// The proxy: listening on a `127.0.0.1` port of its own until dropped.
#[derive(Debug)]
pub struct FaultProxy {
    addr: SocketAddr,
    link: Arc<Link>,
    accept: JoinHandle<()>,
}

impl FaultProxy {
    /// Starts a proxy to `target`.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub async fn start(target: SocketAddr) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let link = Arc::new(Link {
            target,
            delay_us: AtomicU64::new(0),
            down: AtomicBool::new(false),
            open: Mutex::new(CancellationToken::new()),
            accepted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        });
        let accept = tokio::spawn(accept_loop(listener, link.clone()));
        Ok(Self { addr, link, accept })
    }

    /// Where the proxy listens.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Holds every chunk back for `each_way` in each direction, from now on (chunks already
    /// queued keep the delay they were given).
    pub fn set_delay(&self, each_way: Duration) {
        let micros = u64::try_from(each_way.as_micros()).unwrap_or(u64::MAX);
        self.link.delay_us.store(micros, Ordering::Relaxed);
    }

    /// Cuts the link: every open connection is dropped, and each new one is closed as soon
    /// as it is accepted, until [`FaultProxy::restore`].
    pub fn cut(&self) {
        self.link.down.store(true, Ordering::SeqCst);
        let mut open = self
            .link
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        open.cancel();
        *open = CancellationToken::new();
    }

    /// Lets connections through again.
    pub fn restore(&self) {
        self.link.down.store(false, Ordering::SeqCst);
    }

    /// How many connections were passed through so far.
    #[must_use]
    pub fn accepted(&self) -> u64 {
        self.link.accepted.load(Ordering::Relaxed)
    }

    /// How many connections were closed at once because the link was cut.
    #[must_use]
    pub fn refused(&self) -> u64 {
        self.link.refused.load(Ordering::Relaxed)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

async fn accept_loop(listener: TcpListener, link: Arc<Link>) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            // Out of descriptors, say: try again shortly rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if link.down.load(Ordering::SeqCst) {
            link.refused.fetch_add(1, Ordering::Relaxed);
            drop(client);
            continue;
        }
        link.accepted.fetch_add(1, Ordering::Relaxed);
        let token = link.connection_token();
        tokio::spawn(connection(client, link.clone(), token));
    }
}

/// One connection: two directions, each a reader and a writer, so a delayed chunk does not
/// hold back the ones read after it (the link is slow, not narrow).
async fn connection(client: TcpStream, link: Arc<Link>, token: CancellationToken) {
    let Ok(server) = TcpStream::connect(link.target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let upstream = direction(client_read, server_write, link.clone(), token.clone());
    let downstream = direction(server_read, client_write, link, token.clone());
    tokio::select! {
        () = token.cancelled() => {}
        _ = async { tokio::join!(upstream, downstream) } => {}
    }
    // Dropping the halves closes both sockets.
}

async fn direction(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    link: Arc<Link>,
    token: CancellationToken,
) {
    let (queue, mut queued) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reader = async move {
        let mut buffer = vec![0_u8; 16 * 1024];
        loop {
            match from.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let due = Instant::now() + link.delay();
                    if queue.send((due, buffer[..read].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping the queue's sender lets the writer finish what is queued.
    };
    let writer = async move {
        while let Some((due, chunk)) = queued.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&chunk).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::select! {
        () = token.cancelled() => {}
        _ = async { tokio::join!(reader, writer) } => {}
    }
}
