//! The v0.3 stream elements (JSON-RPC and REST) for 1.0 events.

use a2a_types::v03;
use a2a_types::{A2aError, StreamResponse};
use serde_json::Value;

use super::{proto, rejected};

/// One v0.3 stream element for a 1.0 event. A status update is `final` where the stream
/// ends: a terminal state, or an interrupted one (input or auth required), after which a
/// message stream closes too.
pub(crate) fn stream_event(response: &StreamResponse) -> v03::StreamEvent {
    let mut event = match response {
        StreamResponse::StatusUpdate(update) => {
            let state = update.status.state;
            v03::StreamEvent::StatusUpdate(v03::TaskStatusUpdateEvent::from_v1(
                update.clone(),
                state.is_terminal() || state.is_interrupted(),
            ))
        }
        other => v03::StreamEvent::from(other.clone()),
    };
    rejected::stream_event(&mut event);
    event
}

/// A v0.3 REST stream element (the v0.3 protobuf JSON `StreamResponse`) for a 1.0 event.
///
/// # Errors
/// Internal when the event cannot be encoded.
pub(crate) fn rest_stream_event(response: &StreamResponse) -> Result<Value, A2aError> {
    let event = serde_json::to_value(stream_event(response)).map_err(|_| A2aError::internal())?;
    proto::stream_event(&event)
}
