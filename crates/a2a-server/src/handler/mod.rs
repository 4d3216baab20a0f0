//! The transport-agnostic request handler: one method per A2A operation, request in,
//! response out. The bindings call it; so can in-process callers and tests.

mod call;
mod cancel_task;
mod extended_card;
mod get_task;
mod headers;
mod list_tasks;
mod negotiate;
mod page_token;
mod policy;
mod push_config;
mod request;
mod send_key;
mod send_message;
mod send_streaming;
mod setup;
mod stream;
mod stream_event;
mod stream_hooks;
mod stream_registry;
mod subscribe;

use std::sync::Arc;

use a2a_types::AgentCard;

pub use self::call::{CallContext, parse_extension_list};
pub(crate) use self::headers::CredentialNames;
pub use self::headers::RequestHeaders;
use self::request::{history_length, tenant_of, trim_history};
pub use self::send_key::{DUPLICATE_SEND_METADATA, IDEMPOTENCY_KEY_HEADER};
pub use self::stream_event::{EventStream, StreamEvent};
use crate::auth::Authenticator;
use crate::turn::Engine;

/// Serves the eleven A2A operations for one agent.
///
/// A call is negotiated once where it enters ([`RequestHandler::negotiate`]: the protocol
/// version, the activated extensions); the operations trust it, check what their request
/// must satisfy, and ask the engine. Errors are `A2aError`s ready for any binding.
#[derive(Debug, Clone)]
pub struct RequestHandler {
    inner: Arc<Inner>,
}

struct Inner {
    engine: Arc<Engine>,
    card: Arc<AgentCard>,
    extended_card: Option<Arc<AgentCard>>,
    /// Made at the first ListTasks: its key may come from the store (see
    /// [`RequestHandler::page_tokens`]).
    page_tokens: tokio::sync::OnceCell<page_token::PageTokens>,
    authenticator: Authenticator,
    /// The headers and cookies of the cards' credentials, kept from hooks and executors.
    credential_names: CredentialNames,
    /// Decides the owner of each call (see [`crate::hooks::OwnerHook`]).
    owner: Option<Arc<dyn crate::hooks::OwnerHook>>,
    /// Allows or refuses each access to a task (see [`crate::hooks::Authorizer`]).
    authorizer: Option<Arc<dyn crate::hooks::Authorizer>>,
    /// Settles SendMessage calls that leave `returnImmediately` open (see
    /// [`crate::hooks::ReturnImmediatelyHook`]).
    return_immediately: Option<Arc<dyn crate::hooks::ReturnImmediatelyHook>>,
    /// Told about each stream (see [`crate::hooks::StreamHooks`]).
    stream_hooks: Option<Arc<dyn crate::hooks::StreamHooks>>,
    /// The open streams of each task.
    streams: stream_registry::StreamRegistry,
}
