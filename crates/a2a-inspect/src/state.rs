//! The state every handler shares: the connections, the wire log, the push inbox and the
//! settings; handlers read it, only [`crate::app`] builds it.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use a2a_client::transport::Transport;
use axum::extract::State;

use crate::connection::{Auth, Connection};
use crate::error::ApiError;
use crate::push::PushInbox;
use crate::wire::WireLog;

/// What every handler shares.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) connections: RwLock<BTreeMap<u64, Arc<Connection>>>,
    pub(crate) next_connection: AtomicU64,
    pub(crate) wire: Arc<WireLog>,
    pub(crate) push: PushInbox,
    pub(crate) http: Arc<dyn Transport>,
    /// `http://host:port` the page is served at; the webhook is under it.
    pub(crate) base_url: RwLock<Option<String>>,
    /// Credentials to use for a URL when the page connects to it without its own.
    pub(crate) presets: Vec<(String, Auth)>,
    pub(crate) request_timeout: Duration,
    /// The largest `POST …/send` body.
    pub(crate) max_message_bytes: usize,
}

impl Shared {
    pub(crate) fn connection(&self, id: &str) -> Result<Arc<Connection>, ApiError> {
        let number = id
            .strip_prefix('c')
            .and_then(|number| number.parse::<u64>().ok());
        let connections = self
            .connections
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        number
            .and_then(|number| connections.get(&number))
            .cloned()
            .ok_or_else(|| ApiError::unknown_connection(id))
    }

    pub(crate) fn base_url(&self) -> String {
        self.base_url
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| "http://127.0.0.1".to_owned())
    }
}

/// A URL without its trailing slash, for comparing.
pub(crate) fn normalise(url: &str) -> String {
    url.trim().trim_end_matches('/').to_owned()
}

pub(crate) type AppState = State<Arc<Shared>>;
