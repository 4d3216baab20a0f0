//! Human output of the client commands, as text: pure functions from protocol values to
//! strings, so every layout is unit-tested here and [`crate::output`] only writes.

pub(crate) mod actions;
pub(crate) mod card;
pub(crate) mod list;
mod parts;
mod stream;
mod style;
pub(crate) mod task;

pub(crate) use self::stream::{Layout, StreamPrinter};
pub(crate) use self::style::Style;
pub(crate) use self::style::state_name;
