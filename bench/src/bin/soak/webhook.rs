//! The webhook the soak's push sends name: a receiver on 127.0.0.1 that counts every
//! delivery, and the pushes still waiting for the delivery that says their task completed.
//! Each push send carries its number as the config's token, which the server sends back
//! in `X-A2A-Notification-Token`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;

use crate::tally::Tally;

/// The header the server puts the config's token in.
const TOKEN_HEADER: &str = "x-a2a-notification-token";

/// The pushes sent whose task's completion has not been delivered yet, by token, with
/// when they were sent.
#[derive(Debug, Default)]
pub(crate) struct Pushes {
    pending: Mutex<HashMap<u64, Instant>>,
}

impl Pushes {
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<u64, Instant>) -> R) -> R {
        f(&mut self.pending.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// A push send numbered `token` is about to go out (before it is sent: the delivery
    /// may come before the answer).
    pub(crate) fn expect(&self, token: u64) {
        self.with(|pending| pending.insert(token, Instant::now()));
    }

    /// The send `token` failed: no delivery is owed.
    pub(crate) fn forget(&self, token: u64) {
        self.with(|pending| pending.remove(&token));
    }

    /// How many deliveries are owed.
    pub(crate) fn pending(&self) -> usize {
        self.with(|pending| pending.len())
    }

    /// Counts as `push-missing` every push owed for longer than `grace` (all of them when
    /// `grace` is zero), and forgets them.
    pub(crate) fn expire(&self, grace: Duration, tally: &Tally) {
        let late: Vec<u64> = self.with(|pending| {
            let late: Vec<u64> = pending
                .iter()
                .filter(|(_, sent)| grace.is_zero() || sent.elapsed() > grace)
                .map(|(token, _)| *token)
                .collect();
            for token in &late {
                pending.remove(token);
            }
            late
        });
        for token in late {
            let error = anyhow::anyhow!("no completed delivery for push {token} within {grace:?}");
            tally.error("push-missing", &error);
        }
    }

    /// A delivery for `token` arrived with `body`: a terminal one settles the push.
    fn delivered(&self, token: Option<u64>, body: &[u8], tally: &Tally) {
        tally.push_received();
        let Some(token) = token else {
            tally.error("push", &anyhow::anyhow!("a delivery without a token"));
            return;
        };
        let completed = a2a_bench::contains(body, b"TASK_STATE_COMPLETED");
        let ended_otherwise = [
            "TASK_STATE_FAILED",
            "TASK_STATE_CANCELED",
            "TASK_STATE_REJECTED",
        ]
        .iter()
        .any(|state| a2a_bench::contains(body, state.as_bytes()));
        let settled =
            (completed || ended_otherwise) && self.with(|pending| pending.remove(&token)).is_some();
        if settled && ended_otherwise {
            let error = anyhow::anyhow!(
                "push {token}: the task did not complete: {}",
                String::from_utf8_lossy(body)
            );
            tally.error("push", &error);
        }
    }
}

/// What the receiver's handler shares.
#[derive(Debug)]
struct Receiver {
    pushes: Arc<Pushes>,
    tally: Arc<Tally>,
}

/// Serves the webhook on a 127.0.0.1 port the system picks; returns its URL.
///
/// # Errors
/// When no port can be bound.
pub(crate) async fn serve(pushes: Arc<Pushes>, tally: Arc<Tally>) -> anyhow::Result<String> {
    let receiver = Arc::new(Receiver { pushes, tally });
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(deliver))
        .with_state(receiver);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            eprintln!("soak: the webhook stopped: {error}");
        }
    });
    Ok(format!("http://{address}/hook"))
}

async fn deliver(
    State(receiver): State<Arc<Receiver>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let token = headers
        .get(TOKEN_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse().ok());
    receiver.pushes.delivered(token, &body, &receiver.tally);
    StatusCode::OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completed_delivery_settles_its_push() {
        let pushes = Pushes::default();
        let tally = Tally::default();
        pushes.expect(1);
        pushes.expect(2);
        pushes.delivered(
            Some(1),
            br#"{"statusUpdate":{"status":{"state":"TASK_STATE_WORKING"}}}"#,
            &tally,
        );
        assert_eq!(pushes.pending(), 2);
        pushes.delivered(
            Some(1),
            br#"{"task":{"status":{"state":"TASK_STATE_COMPLETED"}}}"#,
            &tally,
        );
        assert_eq!(pushes.pending(), 1);
        pushes.expire(Duration::ZERO, &tally);
        assert_eq!(pushes.pending(), 0);
        let interval = tally.take();
        assert_eq!(interval.pushes, 2);
        assert_eq!(interval.errors["push-missing"], 1);
    }

    #[test]
    fn a_failed_task_is_an_error() {
        let pushes = Pushes::default();
        let tally = Tally::default();
        pushes.expect(7);
        pushes.delivered(Some(7), br#"{"state":"TASK_STATE_FAILED"}"#, &tally);
        assert_eq!(pushes.pending(), 0);
        assert_eq!(tally.take().errors["push"], 1);
    }
}
