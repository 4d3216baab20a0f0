//! One element of an event stream, and the stream of them.

use std::pin::Pin;

use a2a_types::{A2aError, StreamResponse};
use futures::Stream;

/// One element of an event stream: the event and, when it came from the task's event bus,
/// its sequence number within the task (the SSE `id:`).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEvent {
    /// The task's event sequence number; `None` for snapshots and replies made for this
    /// stream alone.
    pub sequence: Option<u64>,
    /// The event.
    pub response: StreamResponse,
}

/// The events of a stream. An `Err` item ends it: the binding sends it as an error frame.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, A2aError>> + Send>>;
