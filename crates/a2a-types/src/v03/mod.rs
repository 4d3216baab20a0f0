//! The A2A v0.3 wire model (JSON-RPC JSON), and its conversions to and from the v1.0 model.
//!
//! v0.3 agents and clients are still common; a v1.0 peer that speaks to them reads and
//! writes these types at its edge and works with the v1.0 types inside. The shapes follow
//! the v0.3 JSON schema: camelCase members, `kind` discriminators on messages, parts,
//! tasks and update events, the v0.3 enum spellings (`input-required`, `user`), nested
//! push configs, the v0.3 agent card and error codes.
//!
//! ```
//! use a2a_types::{SendMessageRequest, v03};
//!
//! // The params of a v0.3 `message/send`, as a v0.3 client sends them.
//! let params: v03::MessageSendParams = serde_json::from_str(r#"{
//!     "message": {
//!         "kind": "message", "messageId": "m-1", "role": "user",
//!         "parts": [{"kind": "text", "text": "What is the weather in Paris?"}]
//!     },
//!     "configuration": {"blocking": false, "historyLength": 5}
//! }"#)?;
//!
//! let request = SendMessageRequest::try_from(params)?;
//! assert_eq!(request.message.text(), "What is the weather in Paris?");
//! assert_eq!(request.return_immediately(), Some(true));
//!
//! // And the answer goes back in the v0.3 shape.
//! let task = a2a_types::Task::new("t-1".into(), "c-1".into(), a2a_types::TaskState::Working);
//! let json = serde_json::to_value(v03::SendMessageResult::from(
//!     a2a_types::SendMessageResponse::Task(task),
//! ))?;
//! assert_eq!(json["kind"], "task");
//! assert_eq!(json["status"]["state"], "working");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! v0.3 is frozen, so none of its enums is `#[non_exhaustive]`.
//!
//! # Conversions
//!
//! * v0.3 → v1.0 (a server reading requests, a client reading a v0.3 agent's answers) is
//!   `TryFrom`: base64 file bytes, timestamps and push authentication are checked, and a
//!   failure is a [`ConversionError`] naming the member at fault (it converts into an
//!   invalid-params [`A2aError`](crate::A2aError)).
//! * v1.0 → v0.3 (a server writing answers, a client writing requests) is `From`: it
//!   cannot fail, and what v0.3 cannot express is dropped or reshaped as named below.
//! * What has no counterpart on the other side is named on each conversion. The main
//!   cases: v1.0 `tenant` is dropped; a v1.0 `historyLength` of 0 ("no history") is left out
//!   and a v0.3 `0` ("all history") becomes unset; `blocking` is the inverse of
//!   `returnImmediately`; v0.3's `final` is derived from the state (terminal) unless the
//!   caller sets it ([`TaskStatusUpdateEvent::from_v1`]); non-object v1.0 data parts are
//!   wrapped as `{"value": …}`; filenames and media types of text and data parts are lost;
//!   v0.3 push authentication keeps its first scheme; an OAuth scheme with several flows
//!   becomes one v1.0 scheme per flow; errors v0.3 lacks get the nearest v0.3 code
//!   ([`ErrorCode::from_kind`]).
//! * [`translate`] does the same per JSON-RPC method on JSON values (params, results,
//!   stream elements), for a server answering v0.3 through a v1.0 dispatcher, a client
//!   calling a v0.3 agent, or a gateway between the two; [`dual_protocol_card`] builds a
//!   card both generations of clients read.

mod card;
mod convert;
mod error;
mod message;
mod method;
mod params;
mod task;
pub mod translate;
mod v1_card;

pub use self::card::{
    AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, ApiKeySecurityScheme,
    HttpAuthSecurityScheme, MutualTlsSecurityScheme, OAuth2SecurityScheme, OAuthFlows,
    OpenIdConnectSecurityScheme, PROTOCOL_VERSION, SecurityRequirements, SecurityScheme,
    dual_protocol_card,
};
pub use self::convert::ConversionError;
pub use self::error::{ErrorCode, JsonRpcError};
pub use self::message::{
    Artifact, DataPart, FileContent, FilePart, FileWithBytes, FileWithUri, Message, Part, Role,
    TextPart, WRAPPED_DATA_MEMBER,
};
pub use self::method::{Method, UnknownMethod};
pub use self::params::{
    DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams, MessageSendConfiguration, MessageSendParams,
    PushNotificationAuthenticationInfo, PushNotificationConfig, TaskIdParams,
    TaskPushNotificationConfig, TaskQueryParams, list_result_to_v1,
};
/// The header that carries a push config's `token` to the webhook in v0.3.
pub const NOTIFICATION_TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// The header that lists activated extensions in v0.3 (v1.0: `A2A-Extensions`).
pub const EXTENSIONS_HEADER: &str = "X-A2A-Extensions";

/// The protocol version a request without an `A2A-Version` header speaks.
pub const HEADERLESS_VERSION: &str = "0.3";

pub use self::task::{
    SendMessageResult, StreamEvent, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
pub use self::v1_card::v1_only_card;
