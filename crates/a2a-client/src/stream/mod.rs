//! [`EventStream`]: the events of SendStreamingMessage and SubscribeToTask, resumed across
//! broken connections without losing or repeating an event.
//!
//! When a connection ends or fails before the task reached a terminal or interrupted state
//! (or a direct message ended the stream), the stream subscribes to the task again
//! (spec §8.4), sending `Last-Event-ID` when the server numbered its events. What the new
//! connection repeats is dropped: by event id when the server sends ids; otherwise the
//! re-subscription's task snapshot is dropped when it shows nothing that was not delivered
//! already, and status updates identical to the last delivered status are dropped. gRPC
//! streams carry no ids, so theirs are always compared by content.

mod connection;
mod events;
mod open;
mod resume;
mod seen;

pub(crate) use self::connection::Connection;
pub use self::events::{EventStream, RawEventStream};
