//! The headers every request carries, on every binding (as metadata on gRPC).

use http::HeaderMap;
use http::header::{HeaderName, HeaderValue};

use crate::ProtocolVersion;
use crate::auth::Applied;
use crate::binding::{A2A_EXTENSIONS, A2A_VERSION, LAST_EVENT_ID};
use crate::client::A2aClient;
use crate::error::ClientError;

/// `X-A2A-Extensions`, the v0.3 name of `A2A-Extensions` (lower-case, as `HeaderName` wants).
const V03_EXTENSIONS: &str = "x-a2a-extensions";

impl A2aClient {
    /// The headers of a request to `url`: the client's static headers, its header function's,
    /// its credentials (only to the agent's origin; an API key may go into `url`'s query),
    /// the per-call headers, then `A2A-Extensions`, `Last-Event-ID` when resuming, and
    /// `A2A-Version`, which nothing replaces (to a v0.3 agent: `X-A2A-Extensions`, and no
    /// `A2A-Version`).
    pub(super) async fn request_headers(
        &self,
        url: &mut url::Url,
        last_event_id: Option<&str>,
    ) -> Result<(HeaderMap, Applied), ClientError> {
        if let Some(invalid) = &self.call.invalid {
            return Err(ClientError::config(invalid.clone()));
        }
        let inner = &self.inner;
        let mut headers = inner.headers.clone();
        if let Some(header_fn) = &inner.header_fn {
            headers.extend(header_fn());
        }
        let applied = match &inner.auth {
            // Credentials never go to an origin other than the agent's.
            Some(auth) if url.origin() == inner.auth_origin => {
                auth.apply(url, &mut headers).await?
            }
            Some(_) | None => Applied::Nothing,
        };
        headers.extend(self.call.headers.clone());
        crate::trace::inject_current(&mut headers);
        let mut extensions: Vec<&str> = Vec::new();
        for uri in inner.extensions.iter().chain(&self.call.extensions) {
            if !extensions.contains(&uri.as_str()) {
                extensions.push(uri);
            }
        }
        let v03 = inner.endpoint.version == ProtocolVersion::V0_3;
        if !extensions.is_empty() {
            let value = HeaderValue::from_str(&extensions.join(", "))
                .map_err(|_| ClientError::config("an extension URI is not a valid header value"))?;
            // v0.3 names the header `X-A2A-Extensions`.
            let name = if v03 {
                HeaderName::from_static(V03_EXTENSIONS)
            } else {
                A2A_EXTENSIONS
            };
            headers.insert(name, value);
        }
        if let Some(id) = last_event_id {
            let value = HeaderValue::from_str(id).map_err(|_| {
                ClientError::invalid_response("the server sent an unusable event id")
            })?;
            headers.insert(LAST_EVENT_ID, value);
        }
        if v03 {
            // A v0.3 client sends no version: agents read a request without one as v0.3.
            headers.remove(A2A_VERSION);
        } else {
            headers.insert(
                A2A_VERSION,
                HeaderValue::from_static(a2a_types::PROTOCOL_VERSION),
            );
        }
        Ok((headers, applied))
    }
}
