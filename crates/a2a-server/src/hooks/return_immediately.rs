//! Whether a SendMessage that does not say answers at once: the [`ReturnImmediatelyHook`].

use a2a_types::SendMessageRequest;

use crate::handler::CallContext;

/// Decides, request by request, whether a `SendMessage` that does not say so itself answers
/// at once (`true`: with the task as soon as it exists, the work going on) or waits until the
/// task is terminal or interrupted (`false`); `None` leaves it to the server's default
/// ([`ServerConfig::default_return_immediately`](crate::ServerConfig::default_return_immediately)).
///
/// The order is: the request's `returnImmediately: true`, then its v0.3 `blocking` flag,
/// then this hook, then the server's default. So a caller that asks for either answer gets
/// it; the hook settles the calls that leave it open (for example by tenant, caller or
/// message metadata). It is asked for SendMessage only: streams and push are unaffected.
///
/// Any `Fn(&CallContext, &SendMessageRequest) -> Option<bool>` is one.
pub trait ReturnImmediatelyHook: Send + Sync + 'static {
    /// Whether `request` answers at once; `None` for the server's default.
    fn return_immediately(&self, call: &CallContext, request: &SendMessageRequest) -> Option<bool>;
}

impl<F> ReturnImmediatelyHook for F
where
    F: Fn(&CallContext, &SendMessageRequest) -> Option<bool> + Send + Sync + 'static,
{
    fn return_immediately(&self, call: &CallContext, request: &SendMessageRequest) -> Option<bool> {
        self(call, request)
    }
}
