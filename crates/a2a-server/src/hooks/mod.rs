//! Hooks for framework users: policy and observation plugged into the one request path, so
//! every binding (JSON-RPC, HTTP+JSON, gRPC, v0.3) gets them. Each is set once on the
//! [`A2aServerBuilder`](crate::A2aServerBuilder):
//!
//! - [`OwnerHook`] ([`owner`](crate::A2aServerBuilder::owner)) decides who owns the tasks a
//!   call creates and sees;
//! - [`Authorizer`] ([`authorizer`](crate::A2aServerBuilder::authorizer)) allows or refuses
//!   reading, writing and creating each task;
//! - [`ReturnImmediatelyHook`] ([`return_immediately`](crate::A2aServerBuilder::return_immediately))
//!   decides per request whether a SendMessage that does not say answers at once or waits;
//! - [`EventSubscriber`] ([`event_subscriber`](crate::A2aServerBuilder::event_subscriber))
//!   sees every stored event of every task, for audit and metrics, without slowing a turn;
//! - [`StreamHooks`] ([`stream_hooks`](crate::A2aServerBuilder::stream_hooks)) is told when
//!   a stream opens, sends an event and ends; a task's streams can be counted and closed
//!   ([`RequestHandler::close_streams`](crate::RequestHandler::close_streams));
//! - [`FailureMessage`] ([`failure_message`](crate::A2aServerBuilder::failure_message))
//!   rewords what a failed task says;
//! - [`ExtensionHandler`] ([`extension_handler`](crate::A2aServerBuilder::extension_handler))
//!   runs before and after the executor for the card's extension it is matched with by URI;
//! - [`Clock`] and [`IdSource`] ([`clock`](crate::A2aServerBuilder::clock),
//!   [`id_source`](crate::A2aServerBuilder::id_source)) give the timestamps and generated ids
//!   the server writes, so a user's tests can be deterministic.
//!
//! ```
//! use a2a_server::hooks::{Authorizer, EventSubscriber, ObservedEvent};
//! use a2a_server::CallContext;
//! use a2a_types::{Message, Task};
//!
//! /// Only callers of the `staff` tenant may start tasks.
//! struct StaffOnly;
//!
//! #[async_trait::async_trait]
//! impl Authorizer for StaffOnly {
//!     async fn check_create(&self, call: &CallContext, _message: &Message) -> bool {
//!         call.tenant == "staff"
//!     }
//! }
//!
//! /// Counts events, for a dashboard.
//! struct Audit(std::sync::atomic::AtomicU64);
//!
//! #[async_trait::async_trait]
//! impl EventSubscriber for Audit {
//!     async fn on_event(&self, _event: ObservedEvent) {
//!         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
//!     }
//! }
//! # let _ = (StaffOnly, Audit(Default::default()));
//! ```

mod authorizer;
mod builder;
mod clock;
mod deps;
mod extension;
mod failure;
mod ids;
mod owner;
mod return_immediately;
mod set;
mod stream;
mod subscriber;

pub use self::authorizer::Authorizer;
pub(crate) use self::authorizer::{Access, create_refused};
pub use self::clock::Clock;
pub(crate) use self::deps::Deps;
pub use self::deps::SystemDeps;
pub use self::extension::ExtensionHandler;
pub(crate) use self::extension::with_extensions;
pub use self::failure::{FailureMessage, TaskFailure};
pub use self::ids::IdSource;
pub use self::owner::OwnerHook;
pub use self::return_immediately::ReturnImmediatelyHook;
pub(crate) use self::set::Hooks;
pub use self::stream::StreamHooks;
pub use self::subscriber::{EventSubscriber, ObservedEvent, SUBSCRIBER_QUEUE_CAPACITY};
pub(crate) use self::subscriber::{Subscriber, observe};
