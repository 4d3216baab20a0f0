//! The task that hears other instances' signals: LISTEN on the schema's channel, decode
//! each notification, hand it to the local broadcast. It reconnects after a lost
//! connection (notifications sent meanwhile are lost: signals are hints) and stops with
//! the store.

use std::time::Duration;

use a2a_server::cluster::ClusterSignal;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::signal;

/// The first wait before reconnecting; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Connects and LISTENs (so that signals published after `start` returns are heard), then
/// hands the listener to a background task.
pub(super) async fn start(
    pool: PgPool,
    channel: String,
    instance_id: String,
    signals: broadcast::Sender<ClusterSignal>,
    shutdown: CancellationToken,
) -> Result<(), sqlx::Error> {
    let listener = listen(&pool, &channel).await?;
    tokio::spawn(async move {
        let task = Listening {
            pool,
            channel,
            instance_id,
            signals,
        };
        tokio::select! {
            () = shutdown.cancelled() => {}
            () = task.run(listener) => {}
        }
    });
    Ok(())
}

struct Listening {
    pool: PgPool,
    channel: String,
    instance_id: String,
    signals: broadcast::Sender<ClusterSignal>,
}

impl Listening {
    async fn run(self, mut listener: PgListener) {
        loop {
            self.deliver_until_error(&mut listener).await;
            listener = self.reconnect().await;
        }
    }

    async fn deliver_until_error(&self, listener: &mut PgListener) {
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => self.deliver(notification.payload()),
                Ok(None) => {
                    tracing::warn!(
                        channel = %self.channel,
                        "lost the PostgreSQL listener connection; cluster signals sent meanwhile are lost"
                    );
                }
                Err(error) => {
                    tracing::warn!(%error, channel = %self.channel, "PostgreSQL listener failed");
                    return;
                }
            }
        }
    }

    async fn reconnect(&self) -> PgListener {
        let mut backoff = FIRST_BACKOFF;
        loop {
            tokio::time::sleep(backoff).await;
            match listen(&self.pool, &self.channel).await {
                Ok(listener) => {
                    tracing::info!(channel = %self.channel, "PostgreSQL listener reconnected");
                    return listener;
                }
                Err(error) => {
                    tracing::warn!(%error, channel = %self.channel, "PostgreSQL listener cannot reconnect");
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    fn deliver(&self, payload: &str) {
        match signal::decode(payload) {
            // This instance delivered its own signals when it published them.
            Some((from, _)) if from == self.instance_id => {}
            Some((_, signal)) => {
                // No receiver is fine: nobody on this instance is interested.
                let _ = self.signals.send(signal);
            }
            None => tracing::debug!(payload, "ignoring an unknown cluster signal"),
        }
    }
}

async fn listen(pool: &PgPool, channel: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    // The pool is this listener's alone; closing the store cancels the task instead.
    listener.ignore_pool_close_event(true);
    listener.listen(channel).await?;
    Ok(listener)
}
