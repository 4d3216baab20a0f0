//! [`CallContext`]: what a binding learned about a request before the handler sees it.

use std::sync::Arc;

use super::headers::RequestHeaders;
use crate::auth::CallerProfile;
use crate::store::TaskScope;

/// Service parameters and identity of one request, built once by the binding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallContext {
    /// The `A2A-Version` the client sent (header, `X-A2A-Version` or query), if any.
    pub version: Option<String>,
    /// Extension URIs from `A2A-Extensions` (trimmed, de-duplicated, in order).
    pub requested_extensions: Vec<String>,
    /// The requested extensions the agent declares, settled once by
    /// [`RequestHandler::negotiate`](super::RequestHandler::negotiate); what the executor
    /// sees and the response echoes.
    pub activated_extensions: Vec<String>,
    /// The tenant from the REST path or the JSON-RPC `tenant` parameter; empty when none.
    pub tenant: String,
    /// The identity owning the caller's tasks: the caller's
    /// [`identity`](CallerProfile::identity) when authentication is on, `None` when it is
    /// off (every caller of a tenant then shares its tasks).
    pub owner: Option<String>,
    /// The authenticated caller, when authentication is on.
    pub caller: Option<Arc<CallerProfile>>,
    /// The SSE `Last-Event-ID` of a reconnecting stream: SubscribeToTask then resumes after
    /// that event instead of starting with a snapshot.
    pub last_event_id: Option<u64>,
    /// The request's headers (gRPC: its metadata), without its credentials: what an owner
    /// hook or an authorizer may read besides [`caller`](Self::caller), such as a session
    /// cookie or the caller id a gateway forwards. Empty for in-process calls.
    pub headers: RequestHeaders,
}

impl CallContext {
    /// A call that speaks `version` and nothing else.
    pub fn new(version: impl Into<String>) -> Self {
        Self {
            version: Some(version.into()),
            ..Self::default()
        }
    }

    /// A call from a v1.0 client, for in-process use and tests.
    #[must_use]
    pub fn v1() -> Self {
        Self::new(a2a_types::PROTOCOL_VERSION)
    }

    /// Sets the tenant.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = tenant.into();
        self
    }

    /// Sets the authenticated caller, and the owner to its identity.
    #[must_use]
    pub fn with_caller(mut self, caller: Arc<CallerProfile>) -> Self {
        self.owner = Some(caller.identity().to_owned());
        self.caller = Some(caller);
        self
    }

    /// Sets the request's headers (credentials already taken out).
    #[must_use]
    pub fn with_headers(mut self, headers: RequestHeaders) -> Self {
        self.headers = headers;
        self
    }

    /// Sets the `Last-Event-ID` of a resumed stream.
    #[must_use]
    pub fn with_last_event_id(mut self, sequence: u64) -> Self {
        self.last_event_id = Some(sequence);
        self
    }

    /// Sets the requested extensions.
    #[must_use]
    pub fn with_extensions<I, S>(mut self, uris: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.requested_extensions = parse_extension_list(uris);
        self
    }

    /// The store scope of this call.
    #[must_use]
    pub fn scope(&self) -> TaskScope {
        TaskScope {
            tenant: self.tenant.clone(),
            owner: self.owner.clone(),
        }
    }
}

/// Splits comma-separated header values into URIs: trimmed, empty ones dropped, duplicates
/// removed, first occurrence kept.
pub fn parse_extension_list<I, S>(values: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut uris: Vec<String> = Vec::new();
    for value in values {
        for uri in value
            .into()
            .split(',')
            .map(str::trim)
            .filter(|uri| !uri.is_empty())
        {
            if !uris.iter().any(|known| known == uri) {
                uris.push(uri.to_owned());
            }
        }
    }
    uris
}
