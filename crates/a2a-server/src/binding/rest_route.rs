//! The HTTP+JSON route table (spec §1, §5.2): our own matcher on path segments, because
//! routers that read `:` as a parameter marker cannot tell `/tasks/{id}` from
//! `/tasks/{id}:cancel`.

use crate::percent;
use a2a_types::jsonrpc::Method as RpcMethod;
use http::Method;

/// One HTTP+JSON operation, with the values its path carries (decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Operation {
    /// `POST /message:send`.
    SendMessage,
    /// `POST /message:stream`.
    SendStreamingMessage,
    /// `GET /tasks`.
    ListTasks,
    /// `GET /tasks/{id}`.
    GetTask { task_id: String },
    /// `POST /tasks/{id}:cancel`.
    CancelTask { task_id: String },
    /// `GET|POST /tasks/{id}:subscribe`.
    SubscribeToTask { task_id: String },
    /// `POST /tasks/{id}/pushNotificationConfigs`.
    CreatePushConfig { task_id: String },
    /// `GET /tasks/{id}/pushNotificationConfigs/{configId}`.
    GetPushConfig { task_id: String, config_id: String },
    /// `GET /tasks/{id}/pushNotificationConfigs`.
    ListPushConfigs { task_id: String },
    /// `DELETE /tasks/{id}/pushNotificationConfigs/{configId}`.
    DeletePushConfig { task_id: String, config_id: String },
    /// `GET /extendedAgentCard`.
    GetExtendedAgentCard,
}

impl Operation {
    /// The operation, as JSON-RPC names it.
    pub(super) const fn method(&self) -> RpcMethod {
        match self {
            Self::SendMessage => RpcMethod::SendMessage,
            Self::SendStreamingMessage => RpcMethod::SendStreamingMessage,
            Self::ListTasks => RpcMethod::ListTasks,
            Self::GetTask { .. } => RpcMethod::GetTask,
            Self::CancelTask { .. } => RpcMethod::CancelTask,
            Self::SubscribeToTask { .. } => RpcMethod::SubscribeToTask,
            Self::CreatePushConfig { .. } => RpcMethod::CreateTaskPushNotificationConfig,
            Self::GetPushConfig { .. } => RpcMethod::GetTaskPushNotificationConfig,
            Self::ListPushConfigs { .. } => RpcMethod::ListTaskPushNotificationConfigs,
            Self::DeletePushConfig { .. } => RpcMethod::DeleteTaskPushNotificationConfig,
            Self::GetExtendedAgentCard => RpcMethod::GetExtendedAgentCard,
        }
    }

    /// The task the path names, if any.
    pub(super) fn task_id(&self) -> Option<&str> {
        match self {
            Self::GetTask { task_id }
            | Self::CancelTask { task_id }
            | Self::SubscribeToTask { task_id }
            | Self::CreatePushConfig { task_id }
            | Self::GetPushConfig { task_id, .. }
            | Self::ListPushConfigs { task_id }
            | Self::DeletePushConfig { task_id, .. } => Some(task_id),
            Self::SendMessage
            | Self::SendStreamingMessage
            | Self::ListTasks
            | Self::GetExtendedAgentCard => None,
        }
    }
}

/// A matched request: the operation, and the tenant when the path had a `/{tenant}` prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Route {
    pub(super) tenant: Option<String>,
    pub(super) operation: Operation,
}

/// Why no operation matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Miss {
    /// No route has this path (404).
    NotFound,
    /// The path is a route, but not for this method (405 with `Allow`).
    WrongMethod(Vec<Method>),
}

/// Matches `path` (what follows the endpoint's path, without its leading `/`, still
/// percent-encoded). A path is first read without a tenant, then with its first segment as
/// the tenant; a route that accepts the method wins over one that only matches the path.
pub(super) fn resolve(path: &str, method: &Method) -> Result<Route, Miss> {
    let segments: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').collect()
    };
    let plain = Resource::parse(&segments).map(|resource| (None, resource));
    let tenanted = segments
        .split_first()
        .filter(|(tenant, _)| !tenant.is_empty())
        .and_then(|(tenant, rest)| {
            Resource::parse(rest).map(|resource| (Some(percent::decode(tenant, false)), resource))
        });
    let candidates = [plain, tenanted];
    let found = candidates.iter().flatten().find_map(|(tenant, resource)| {
        resource.operation(method).map(|operation| Route {
            tenant: tenant.clone(),
            operation,
        })
    });
    if let Some(route) = found {
        return Ok(route);
    }
    match candidates.iter().flatten().next() {
        Some((_, resource)) => Err(Miss::WrongMethod(resource.allowed())),
        None => Err(Miss::NotFound),
    }
}

/// A path of the route table, before the method is considered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resource {
    MessageSend,
    MessageStream,
    Tasks,
    Task(String),
    TaskCancel(String),
    TaskSubscribe(String),
    PushConfigs(String),
    PushConfig(String, String),
    ExtendedAgentCard,
}

impl Resource {
    fn parse(segments: &[&str]) -> Option<Self> {
        let literal = |segment: &str| percent::decode(segment, false);
        let resource = match segments {
            [single] => match literal(single).as_str() {
                "message:send" => Self::MessageSend,
                "message:stream" => Self::MessageStream,
                "tasks" => Self::Tasks,
                "extendedAgentCard" => Self::ExtendedAgentCard,
                _ => return None,
            },
            [tasks, task] if literal(tasks) == "tasks" => {
                // The verb is the text after the last raw `:`; an id that itself ends in
                // `:cancel` must escape its colon as `%3A`.
                if let Some(id) = task.strip_suffix(":cancel") {
                    Self::TaskCancel(id_segment(id)?)
                } else if let Some(id) = task.strip_suffix(":subscribe") {
                    Self::TaskSubscribe(id_segment(id)?)
                } else {
                    Self::Task(id_segment(task)?)
                }
            }
            [tasks, task, configs]
                if literal(tasks) == "tasks" && literal(configs) == "pushNotificationConfigs" =>
            {
                Self::PushConfigs(id_segment(task)?)
            }
            [tasks, task, configs, config]
                if literal(tasks) == "tasks" && literal(configs) == "pushNotificationConfigs" =>
            {
                Self::PushConfig(id_segment(task)?, id_segment(config)?)
            }
            _ => return None,
        };
        Some(resource)
    }

    fn operation(&self, method: &Method) -> Option<Operation> {
        let (get, post, delete) = (
            method == Method::GET,
            method == Method::POST,
            method == Method::DELETE,
        );
        let operation = match self {
            Self::MessageSend if post => Operation::SendMessage,
            Self::MessageStream if post => Operation::SendStreamingMessage,
            Self::Tasks if get => Operation::ListTasks,
            Self::Task(task_id) if get => Operation::GetTask {
                task_id: task_id.clone(),
            },
            Self::TaskCancel(task_id) if post => Operation::CancelTask {
                task_id: task_id.clone(),
            },
            // The proto binds GET, the spec prose POST; both are served.
            Self::TaskSubscribe(task_id) if get || post => Operation::SubscribeToTask {
                task_id: task_id.clone(),
            },
            Self::PushConfigs(task_id) if get => Operation::ListPushConfigs {
                task_id: task_id.clone(),
            },
            Self::PushConfigs(task_id) if post => Operation::CreatePushConfig {
                task_id: task_id.clone(),
            },
            Self::PushConfig(task_id, config_id) if get => Operation::GetPushConfig {
                task_id: task_id.clone(),
                config_id: config_id.clone(),
            },
            Self::PushConfig(task_id, config_id) if delete => Operation::DeletePushConfig {
                task_id: task_id.clone(),
                config_id: config_id.clone(),
            },
            Self::ExtendedAgentCard if get => Operation::GetExtendedAgentCard,
            Self::MessageSend
            | Self::MessageStream
            | Self::Tasks
            | Self::Task(_)
            | Self::TaskCancel(_)
            | Self::TaskSubscribe(_)
            | Self::PushConfigs(_)
            | Self::PushConfig(..)
            | Self::ExtendedAgentCard => return None,
        };
        Some(operation)
    }

    /// The methods this path accepts, derived from [`Resource::operation`] so the two cannot
    /// disagree.
    fn allowed(&self) -> Vec<Method> {
        [Method::GET, Method::POST, Method::DELETE]
            .into_iter()
            .filter(|method| self.operation(method).is_some())
            .collect()
    }
}

/// A decoded id segment; an empty one matches no route.
fn id_segment(segment: &str) -> Option<String> {
    let decoded = percent::decode(segment, false);
    (!decoded.is_empty()).then_some(decoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(path: &str, method: &Method) -> Result<Route, Miss> {
        resolve(path, method)
    }

    fn found(tenant: Option<&str>, operation: Operation) -> Result<Route, Miss> {
        Ok(Route {
            tenant: tenant.map(str::to_owned),
            operation,
        })
    }

    fn task(id: &str) -> String {
        id.to_owned()
    }

    #[test]
    fn every_route_matches_its_operation() {
        let cases = [
            (
                "message:send",
                Method::POST,
                found(None, Operation::SendMessage),
            ),
            (
                "message:stream",
                Method::POST,
                found(None, Operation::SendStreamingMessage),
            ),
            ("tasks", Method::GET, found(None, Operation::ListTasks)),
            (
                "tasks/t1",
                Method::GET,
                found(
                    None,
                    Operation::GetTask {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1:cancel",
                Method::POST,
                found(
                    None,
                    Operation::CancelTask {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1:subscribe",
                Method::POST,
                found(
                    None,
                    Operation::SubscribeToTask {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1:subscribe",
                Method::GET,
                found(
                    None,
                    Operation::SubscribeToTask {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1/pushNotificationConfigs",
                Method::POST,
                found(
                    None,
                    Operation::CreatePushConfig {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1/pushNotificationConfigs",
                Method::GET,
                found(
                    None,
                    Operation::ListPushConfigs {
                        task_id: task("t1"),
                    },
                ),
            ),
            (
                "tasks/t1/pushNotificationConfigs/c1",
                Method::GET,
                found(
                    None,
                    Operation::GetPushConfig {
                        task_id: task("t1"),
                        config_id: "c1".into(),
                    },
                ),
            ),
            (
                "tasks/t1/pushNotificationConfigs/c1",
                Method::DELETE,
                found(
                    None,
                    Operation::DeletePushConfig {
                        task_id: task("t1"),
                        config_id: "c1".into(),
                    },
                ),
            ),
            (
                "extendedAgentCard",
                Method::GET,
                found(None, Operation::GetExtendedAgentCard),
            ),
        ];
        for (path, method, expected) in cases {
            assert_eq!(op(path, &method), expected, "{method} {path}");
        }
    }

    #[test]
    fn tenant_prefixes_and_escapes_are_read() {
        let cases = [
            (
                "acme/message:send",
                Method::POST,
                found(Some("acme"), Operation::SendMessage),
            ),
            (
                "acme/tasks",
                Method::GET,
                found(Some("acme"), Operation::ListTasks),
            ),
            (
                "a%20b/tasks/t%2F1:cancel",
                Method::POST,
                found(
                    Some("a b"),
                    Operation::CancelTask {
                        task_id: task("t/1"),
                    },
                ),
            ),
            (
                "tasks/a:b",
                Method::GET,
                found(
                    None,
                    Operation::GetTask {
                        task_id: task("a:b"),
                    },
                ),
            ),
            (
                "tasks/t1%3Acancel",
                Method::GET,
                found(
                    None,
                    Operation::GetTask {
                        task_id: task("t1:cancel"),
                    },
                ),
            ),
            (
                "message%3Asend",
                Method::POST,
                found(None, Operation::SendMessage),
            ),
            // A method-accepting reading wins over a path-only one.
            (
                "tasks/message:send",
                Method::POST,
                found(Some("tasks"), Operation::SendMessage),
            ),
        ];
        for (path, method, expected) in cases {
            assert_eq!(op(path, &method), expected, "{method} {path}");
        }
    }

    #[test]
    fn unknown_paths_and_wrong_methods_miss() {
        let cases = [
            ("", Method::GET, Miss::NotFound),
            ("message:sendx", Method::POST, Miss::NotFound),
            ("message", Method::POST, Miss::NotFound),
            ("tasks/", Method::GET, Miss::NotFound),
            ("tasks/:cancel", Method::POST, Miss::NotFound),
            ("/tasks", Method::GET, Miss::NotFound),
            ("a/b/tasks", Method::GET, Miss::NotFound),
            (
                "tasks/t1/pushNotificationConfigs/c1/x",
                Method::GET,
                Miss::NotFound,
            ),
            (
                "message:send",
                Method::GET,
                Miss::WrongMethod(vec![Method::POST]),
            ),
            ("tasks", Method::POST, Miss::WrongMethod(vec![Method::GET])),
            (
                "tasks/t1:subscribe",
                Method::DELETE,
                Miss::WrongMethod(vec![Method::GET, Method::POST]),
            ),
            (
                "acme/tasks/t1/pushNotificationConfigs/c1",
                Method::POST,
                Miss::WrongMethod(vec![Method::GET, Method::DELETE]),
            ),
            (
                "tasks/t1",
                Method::PUT,
                Miss::WrongMethod(vec![Method::GET]),
            ),
        ];
        for (path, method, expected) in cases {
            assert_eq!(op(path, &method), Err(expected), "{method} {path}");
        }
    }
}
