//! The fixture directories named after a data-model type, in one table: a2a-types' golden
//! tests parse each fixture as its type, and a2a-grpc's round trips (which include this file
//! by path) carry it through protobuf.

/// `&[(directory, $each::<Type>), …]` for every data-model type with a protobuf message,
/// then the `$extra` entries. The types resolve where the macro is used.
macro_rules! fixture_types {
    ($each:ident $(, $extra:expr)* $(,)?) => {
        &[
            ("Task", $each::<Task>),
            ("TaskStatus", $each::<TaskStatus>),
            ("Message", $each::<Message>),
            ("Part", $each::<Part>),
            ("Artifact", $each::<Artifact>),
            ("TaskStatusUpdateEvent", $each::<TaskStatusUpdateEvent>),
            ("TaskArtifactUpdateEvent", $each::<TaskArtifactUpdateEvent>),
            ("StreamResponse", $each::<StreamResponse>),
            ("SendMessageResponse", $each::<SendMessageResponse>),
            ("SendMessageRequest", $each::<SendMessageRequest>),
            ("SendMessageConfiguration", $each::<SendMessageConfiguration>),
            ("GetTaskRequest", $each::<GetTaskRequest>),
            ("ListTasksRequest", $each::<ListTasksRequest>),
            ("ListTasksResponse", $each::<ListTasksResponse>),
            ("CancelTaskRequest", $each::<CancelTaskRequest>),
            ("SubscribeToTaskRequest", $each::<SubscribeToTaskRequest>),
            ("TaskPushNotificationConfig", $each::<TaskPushNotificationConfig>),
            ("GetTaskPushNotificationConfigRequest", $each::<GetTaskPushNotificationConfigRequest>),
            ("DeleteTaskPushNotificationConfigRequest", $each::<DeleteTaskPushNotificationConfigRequest>),
            ("ListTaskPushNotificationConfigsRequest", $each::<ListTaskPushNotificationConfigsRequest>),
            ("ListTaskPushNotificationConfigsResponse", $each::<ListTaskPushNotificationConfigsResponse>),
            ("GetExtendedAgentCardRequest", $each::<GetExtendedAgentCardRequest>),
            ("AuthenticationInfo", $each::<AuthenticationInfo>),
            ("AgentCard", $each::<AgentCard>),
            ("AgentInterface", $each::<AgentInterface>),
            ("AgentProvider", $each::<AgentProvider>),
            ("AgentCapabilities", $each::<AgentCapabilities>),
            ("AgentExtension", $each::<AgentExtension>),
            ("AgentSkill", $each::<AgentSkill>),
            ("AgentCardSignature", $each::<AgentCardSignature>),
            ("SecurityRequirement", $each::<SecurityRequirement>),
            ("SecurityScheme", $each::<SecurityScheme>),
            ("OAuthFlows", $each::<OAuthFlows>),
            $($extra,)*
        ]
    };
}
pub(crate) use fixture_types;
