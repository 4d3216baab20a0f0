//! The A2A (Agent2Agent) protocol v1.0 wire model, in exact ProtoJSON.
//!
//! Every message, enum and oneof of the v1.0 data model is a Rust type here, written and
//! read the way the protocol's JSON bindings require: lowerCamelCase names, enums as their
//! proto names (numbers, short and v0.3 spellings accepted on input), implicit-presence
//! defaults omitted, `optional` fields kept whenever set, every oneof an enum that refuses
//! zero or two members. [`error`] holds the error catalogue with its mappings to JSON-RPC,
//! HTTP and gRPC, and [`jsonrpc`] the JSON-RPC 2.0 envelopes.
//!
//! ```
//! use a2a_types::{Message, SendMessageResponse, Task, TaskState};
//!
//! let message = Message::user_text("What is the weather in Paris?");
//! let json = serde_json::to_value(&message)?;
//! assert_eq!(json["role"], "ROLE_USER");
//! assert_eq!(json["parts"][0]["text"], "What is the weather in Paris?");
//!
//! // Decoding errors name the member at fault.
//! let body = r#"{"task": {"id": "t1", "status": {"state": "TASK_STATE_NAPPING"}}}"#;
//! let err = a2a_types::json::from_str::<SendMessageResponse>(body).unwrap_err();
//! assert_eq!(err.path(), "task.status.state");
//!
//! let body = r#"{"task": {"id": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}"#;
//! let SendMessageResponse::Task(task) = a2a_types::json::from_str(body)? else { panic!() };
//! assert!(task.status.state.is_terminal());
//! # let _: Task = task;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! None: everything is always built.
//!
//! # The a2a crates
//!
//! This crate is part of a2a, the A2A protocol in Rust: [`a2a-grpc`](https://docs.rs/a2a-grpc)
//! (the gRPC wire form), [`a2a-signature`](https://docs.rs/a2a-signature) (signed cards),
//! [`a2a-retry`](https://docs.rs/a2a-retry) (retry schedules),
//! [`a2a-server`](https://docs.rs/a2a-server) (the server framework),
//! [`a2a-store-sql`](https://docs.rs/a2a-store-sql) (SQLite and PostgreSQL stores),
//! [`a2a-client`](https://docs.rs/a2a-client) (the client),
//! [`a2a-run`](https://docs.rs/a2a-run) (agent runs with tools and approvals),
//! [`a2a-gateway`](https://docs.rs/a2a-gateway) (the registry and proxy),
//! [`a2a-inspect`](https://docs.rs/a2a-inspect) (the web inspector),
//! [`a2a-cli`](https://docs.rs/a2a-cli) (the `a2a` command).

mod artifact;
pub mod card;
mod enums;
pub mod error;
mod events;
mod ids;
pub mod json;
pub mod jsonrpc;
mod message;
mod oneof;
mod part;
mod push;
mod requests;
mod task;
mod timestamp;
pub mod v03;
mod wire;

pub use self::artifact::Artifact;
#[doc(inline)]
pub use self::card::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill, ProtocolBinding};
pub use self::enums::{Role, TaskState, UnknownEnumValue};
#[doc(inline)]
pub use self::error::{A2aError, ErrorKind};
pub use self::events::{
    ArtifactChunk, SendMessageResponse, StreamResponse, TaskArtifactUpdateEvent,
    TaskStatusUpdateEvent,
};
pub use self::ids::{ArtifactId, ContextId, MessageId, PushConfigId, TaskId};
pub use self::message::Message;
pub use self::part::{Part, PartContent};
pub use self::push::{AuthenticationInfo, TaskPushNotificationConfig};
pub use self::requests::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, Empty, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse,
    SendMessageConfiguration, SendMessageRequest, SubscribeToTaskRequest,
};
pub use self::task::{Task, TaskStatus};
pub use self::timestamp::{Timestamp, TimestampError};

/// A `google.protobuf.Struct`: string keys, any JSON values (metadata, params, headers).
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The protocol version this crate speaks, as sent in `A2A-Version`.
pub const PROTOCOL_VERSION: &str = "1.0";
