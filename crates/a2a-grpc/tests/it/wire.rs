//! The round trip every test uses: an a2a-types value to protobuf bytes and back.

use std::fmt::Debug;

use a2a_grpc::convert::ConvertError;
use a2a_grpc::proto;
use a2a_types::card::{
    AgentCardSignature, AgentExtension, AgentProvider, OAuthFlows, SecurityRequirement,
    SecurityScheme,
};
use a2a_types::*;
use prost::Message as _;
use serde::de::DeserializeOwned;

/// An a2a-types value with a protobuf counterpart.
pub(crate) trait Wire:
    Sized + DeserializeOwned + Clone + PartialEq + Debug + TryFrom<Self::Proto, Error = ConvertError>
{
    /// The generated message.
    type Proto: prost::Message + Default + From<Self>;

    /// `self` without what protobuf cannot carry (see `losses.rs`); most types lose nothing.
    fn carried(self) -> Self {
        self
    }
}

/// `value` to protobuf, encoded, decoded and converted back.
pub(crate) fn round_trip<T: Wire>(value: T) -> Result<T, ConvertError> {
    let bytes = T::Proto::from(value).encode_to_vec();
    let decoded = T::Proto::decode(bytes.as_slice()).expect("our own encoding decodes");
    T::try_from(decoded)
}

macro_rules! lossless {
    ($($name:ident),+ $(,)?) => {
        $(impl Wire for $name { type Proto = proto::$name; })+
    };
}

lossless!(
    Task,
    TaskStatus,
    Message,
    Part,
    Artifact,
    TaskStatusUpdateEvent,
    TaskArtifactUpdateEvent,
    StreamResponse,
    SendMessageResponse,
    GetTaskRequest,
    ListTasksRequest,
    ListTasksResponse,
    CancelTaskRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    GetTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    GetExtendedAgentCardRequest,
    AuthenticationInfo,
    AgentProvider,
    AgentExtension,
    AgentCardSignature,
    SecurityRequirement,
    OAuthFlows,
);

impl Wire for SendMessageConfiguration {
    type Proto = proto::SendMessageConfiguration;
    fn carried(mut self) -> Self {
        self.return_immediately = self.return_immediately() == Some(true);
        self.blocking = None;
        self.extra.clear();
        self
    }
}

impl Wire for SendMessageRequest {
    type Proto = proto::SendMessageRequest;
    fn carried(mut self) -> Self {
        self.configuration = self.configuration.map(Wire::carried);
        self
    }
}

impl Wire for AgentInterface {
    type Proto = proto::AgentInterface;
    fn carried(mut self) -> Self {
        self.extra.clear();
        self
    }
}

impl Wire for AgentCapabilities {
    type Proto = proto::AgentCapabilities;
    fn carried(mut self) -> Self {
        self.extra.clear();
        self
    }
}

impl Wire for AgentSkill {
    type Proto = proto::AgentSkill;
    fn carried(mut self) -> Self {
        self.extra.clear();
        self
    }
}

impl Wire for SecurityScheme {
    type Proto = proto::SecurityScheme;
    fn carried(mut self) -> Self {
        self.extra.clear();
        self
    }
}

impl Wire for AgentCard {
    type Proto = proto::AgentCard;
    fn carried(mut self) -> Self {
        self.extra.clear();
        self.capabilities = self.capabilities.carried();
        self.supported_interfaces = carried_each(self.supported_interfaces);
        self.skills = carried_each(self.skills);
        self.security_schemes = self
            .security_schemes
            .into_iter()
            .map(|(name, scheme)| (name, scheme.carried()))
            .collect();
        self
    }
}

fn carried_each<T: Wire>(values: Vec<T>) -> Vec<T> {
    values.into_iter().map(Wire::carried).collect()
}
