//! Health checks for orchestrators and load balancers: `GET /healthz` (the process is up) and
//! `GET /readyz` (send it traffic), at the root of the router whatever the base path.
//!
//! Both answer without authentication (they reveal nothing about tasks or callers), are never
//! listed in the agent card, and win over every A2A route for `GET` and `HEAD`: an HTTP+JSON
//! endpoint at `/` would otherwise read `/healthz` as a tenant. A JSON-RPC endpoint at one of
//! these paths still gets its `POST`s.
//!
//! | path | 200 | 503 |
//! |---|---|---|
//! | `/healthz` | always: `{"status":"ok"}` | never |
//! | `/readyz` | `{"status":"ready"}` | `{"status":"draining"}` once [`A2aServer::shutdown`](crate::A2aServer::shutdown) began; `{"status":"store unreachable"}` when [`TaskStore::ping`](crate::store::TaskStore::ping) fails or takes longer than [`READINESS_STORE_LIMIT`] |

use std::time::Duration;

use axum::response::{IntoResponse as _, Response};
use http::{Method, StatusCode, header};

/// The liveness path: 200 while the process serves requests at all.
pub const HEALTHZ_PATH: &str = "/healthz";

/// The readiness path: 200 when the server takes new work and its task store answers.
pub const READYZ_PATH: &str = "/readyz";

/// How long `/readyz` waits for the task store before it answers 503: shorter than the
/// usual probe timeout (Kubernetes waits 1 s by default), so a probe gets an answer rather
/// than a timeout.
pub const READINESS_STORE_LIMIT: Duration = Duration::from_millis(800);

/// Whether a server should get traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Readiness {
    /// It takes new work and its task store answers.
    Ready,
    /// Shutdown began: running turns finish, new ones are refused.
    Draining,
    /// The task store did not answer its ping in time.
    StoreUnreachable,
}

impl Readiness {
    /// The `status` member of the `/readyz` body.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Draining => "draining",
            Self::StoreUnreachable => "store unreachable",
        }
    }

    /// The HTTP status `/readyz` answers: 200 when ready, else 503.
    #[must_use]
    pub const fn http_status(self) -> StatusCode {
        match self {
            Self::Ready => StatusCode::OK,
            Self::Draining | Self::StoreUnreachable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// The readiness of a server that is `draining` or not, over a store answering `ping`:
/// draining first, then the store, given [`READINESS_STORE_LIMIT`] to answer. A store that
/// fails or is late is logged at warn as `what` (the store's name in the log).
pub async fn check<E: std::fmt::Display>(
    draining: bool,
    what: &str,
    ping: impl Future<Output = Result<(), E>>,
) -> Readiness {
    if draining {
        return Readiness::Draining;
    }
    match tokio::time::timeout(READINESS_STORE_LIMIT, ping).await {
        Ok(Ok(())) => Readiness::Ready,
        Ok(Err(error)) => {
            tracing::warn!(error = %error, "readiness: the {what} does not answer");
            Readiness::StoreUnreachable
        }
        Err(_elapsed) => {
            tracing::warn!("readiness: the {what} did not answer in time");
            Readiness::StoreUnreachable
        }
    }
}

/// Which health check a request is, if any: only `GET` and `HEAD` of the exact paths.
pub(crate) fn probe(method: &Method, path: &str) -> Option<Probe> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    match path {
        HEALTHZ_PATH => Some(Probe::Live),
        READYZ_PATH => Some(Probe::Ready),
        _ => None,
    }
}

/// A health check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// `/healthz`.
    Live,
    /// `/readyz`.
    Ready,
}

/// The answer to `/healthz`: 200 `{"status":"ok"}`.
#[must_use]
pub fn live_response() -> Response {
    response(StatusCode::OK, "ok")
}

/// The answer to `/readyz` for `readiness`.
#[must_use]
pub fn ready_response(readiness: Readiness) -> Response {
    response(readiness.http_status(), readiness.as_str())
}

/// The answer to a health check: `{"status": …}` with `status`, never cached.
fn response(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(serde_json::json!({ "status": text })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_of_the_exact_paths_are_health_checks() {
        assert_eq!(probe(&Method::GET, "/healthz"), Some(Probe::Live));
        assert_eq!(probe(&Method::HEAD, "/readyz"), Some(Probe::Ready));
        assert_eq!(probe(&Method::POST, "/healthz"), None);
        assert_eq!(probe(&Method::GET, "/healthz/"), None);
        assert_eq!(probe(&Method::GET, "/t/healthz"), None);
    }

    #[test]
    fn only_a_ready_server_answers_200() {
        assert_eq!(Readiness::Ready.http_status(), StatusCode::OK);
        assert_eq!(Readiness::Draining.http_status(), 503);
        assert_eq!(Readiness::StoreUnreachable.http_status(), 503);
    }
}
