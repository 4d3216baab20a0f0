//! [`Answer`]: what a unary gRPC call returned, as `a2a-types`; and [`Reply`], how each
//! operation's result type takes it out (or decodes itself from JSON on the HTTP bindings).

use a2a_types::{
    AgentCard, Empty, ListTaskPushNotificationConfigsResponse, ListTasksResponse,
    SendMessageResponse, Task, TaskPushNotificationConfig,
};
use serde::de::DeserializeOwned;

/// The result of one unary gRPC call.
#[derive(Debug)]
pub(crate) enum Answer {
    SendMessage(SendMessageResponse),
    Task(Task),
    Tasks(ListTasksResponse),
    PushConfig(TaskPushNotificationConfig),
    PushConfigs(ListTaskPushNotificationConfigsResponse),
    Deleted,
    Card(AgentCard),
}

/// The result type of a unary operation: decoded from JSON on the HTTP bindings, taken from
/// an [`Answer`] on gRPC.
pub(crate) trait Reply: DeserializeOwned + Sized {
    /// The result, when `answer` is of this type's operation.
    fn from_answer(answer: Answer) -> Option<Self>;
}

impl Reply for SendMessageResponse {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::SendMessage(response) => Some(response),
            Answer::Task(_)
            | Answer::Tasks(_)
            | Answer::PushConfig(_)
            | Answer::PushConfigs(_)
            | Answer::Deleted
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for Task {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::Task(task) => Some(task),
            Answer::SendMessage(_)
            | Answer::Tasks(_)
            | Answer::PushConfig(_)
            | Answer::PushConfigs(_)
            | Answer::Deleted
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for ListTasksResponse {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::Tasks(tasks) => Some(tasks),
            Answer::SendMessage(_)
            | Answer::Task(_)
            | Answer::PushConfig(_)
            | Answer::PushConfigs(_)
            | Answer::Deleted
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for TaskPushNotificationConfig {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::PushConfig(config) => Some(config),
            Answer::SendMessage(_)
            | Answer::Task(_)
            | Answer::Tasks(_)
            | Answer::PushConfigs(_)
            | Answer::Deleted
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for ListTaskPushNotificationConfigsResponse {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::PushConfigs(configs) => Some(configs),
            Answer::SendMessage(_)
            | Answer::Task(_)
            | Answer::Tasks(_)
            | Answer::PushConfig(_)
            | Answer::Deleted
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for Empty {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::Deleted => Some(Empty::default()),
            Answer::SendMessage(_)
            | Answer::Task(_)
            | Answer::Tasks(_)
            | Answer::PushConfig(_)
            | Answer::PushConfigs(_)
            | Answer::Card(_) => None,
        }
    }
}

impl Reply for AgentCard {
    fn from_answer(answer: Answer) -> Option<Self> {
        match answer {
            Answer::Card(card) => Some(card),
            Answer::SendMessage(_)
            | Answer::Task(_)
            | Answer::Tasks(_)
            | Answer::PushConfig(_)
            | Answer::PushConfigs(_)
            | Answer::Deleted => None,
        }
    }
}
