//! What a stream's opening, events and end are told to: the [`StreamHooks`].

use a2a_types::TaskId;

use crate::handler::CallContext;

/// Told about each stream of SendStreamingMessage and SubscribeToTask; every method does
/// nothing by default.
///
/// The methods run on the stream's own path (between two events), so they must be quick:
/// hand slow work to a task of your own. A SendStreamingMessage stream is subscribed to its
/// task once its first event names it. With these, [`RequestHandler::close_streams`]
/// ends a task's streams without stopping it, and [`RequestHandler::stream_count`] says how
/// many are open.
///
/// [`RequestHandler::close_streams`]: crate::RequestHandler::close_streams
/// [`RequestHandler::stream_count`]: crate::RequestHandler::stream_count
pub trait StreamHooks: Send + Sync + 'static {
    /// A stream of `task_id` opened for `call`.
    fn on_subscribe(&self, task_id: &TaskId, call: &CallContext) {
        let _ = (task_id, call);
    }

    /// A stream of `task_id` ended: its last event was sent, it was closed, or its client
    /// went away.
    fn on_unsubscribe(&self, task_id: &TaskId) {
        let _ = task_id;
    }

    /// `event` is about to be sent on a stream of `task_id`.
    fn on_event(&self, task_id: &TaskId, event: &crate::handler::StreamEvent) {
        let _ = (task_id, event);
    }
}
