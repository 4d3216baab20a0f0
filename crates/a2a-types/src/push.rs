//! Push-notification configuration: [`TaskPushNotificationConfig`] and its
//! [`AuthenticationInfo`]. Their `Debug` output hides credentials and tokens.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::wire::{empty_as_none, is_unset, nullable};
use crate::{PushConfigId, TaskId};

/// A webhook registered for a task (proto `TaskPushNotificationConfig`, the single
/// push-config type of v1.0).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// Routing tenant; empty when unset.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    pub tenant: String,
    /// The config id; assigned by the server when absent.
    #[serde(
        default,
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub id: Option<PushConfigId>,
    /// The owning task; unset when embedded in `SendMessageConfiguration`.
    #[serde(
        default,
        alias = "task_id",
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub task_id: Option<TaskId>,
    /// The webhook URL; required.
    pub url: String,
    /// An opaque token sent with each delivery.
    #[serde(
        default,
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

impl TaskPushNotificationConfig {
    /// A config for `url` with nothing else set.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            tenant: String::new(),
            id: None,
            task_id: None,
            url: url.into(),
            token: None,
            authentication: None,
        }
    }
}

impl fmt::Debug for TaskPushNotificationConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskPushNotificationConfig")
            .field("tenant", &self.tenant)
            .field("id", &self.id)
            .field("task_id", &self.task_id)
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("authentication", &self.authentication)
            .finish()
    }
}

/// Credentials the agent presents to a webhook (proto `AuthenticationInfo`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthenticationInfo {
    /// An HTTP authentication scheme such as `Bearer`; required.
    pub scheme: String,
    /// The value placed after the scheme in `Authorization`.
    #[serde(
        default,
        skip_serializing_if = "is_unset",
        deserialize_with = "empty_as_none"
    )]
    pub credentials: Option<String>,
}

impl fmt::Debug for AuthenticationInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthenticationInfo")
            .field("scheme", &self.scheme)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_secrets() {
        let mut config = TaskPushNotificationConfig::new("https://hook.example/x");
        config.token = Some("tok-secret".into());
        config.authentication = Some(AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: Some("cred-secret".into()),
        });
        let debug = format!("{config:?}");
        assert!(!debug.contains("secret"), "{debug}");
        assert!(debug.contains("hook.example"));
    }
}
