//! Turns: one run of the executor for one incoming message ([`run`]), and the [`Engine`]
//! that starts them, applies their updates to the stored task and publishes the resulting
//! events.
//!
//! Every change to a task happens under its lock ([`locks`]): load, apply, save with
//! compare-and-swap, publish, then release. The executor runs on its own tokio task, tracked
//! and admitted by [`admission`]; the request that started the turn watches a `TurnView` to
//! know when to answer.

mod admission;
mod apply;
mod background;
mod cancel;
mod engine;
mod finish;
mod lifecycle;
mod locks;
mod run;
mod running;
mod sends;
mod shutdown;
mod start;
mod stuck;
mod subscribe;
mod view;

use self::admission::Ticket;
pub(crate) use self::engine::{Engine, Events, RequestExtras, StartedTurn, store_failure};
pub(crate) use self::sends::SendKey;
pub(crate) use self::start::{Queueing, TurnRequest};
pub(crate) use self::subscribe::Subscription;
pub(crate) use self::view::TurnView;
