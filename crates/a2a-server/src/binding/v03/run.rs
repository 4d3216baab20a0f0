//! Running a v0.3 operation through the 1.0 handler.

use a2a_types::v03::{self, Method};
use a2a_types::{
    A2aError, GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsRequest,
    SubscribeToTaskRequest,
};
use serde_json::Value;

use super::super::dispatch::Params;
use super::marker::{mark_push_request, unmark_result};
use super::rejected;
use crate::handler::{CallContext, EventStream, RequestHandler};

/// What a v0.3 operation produced: its v0.3 JSON-RPC `result`, or the 1.0 events of a
/// streaming method (written as v0.3 elements by the SSE framing).
pub(super) enum Answer {
    Result(Value),
    Stream(EventStream),
}

/// Runs the v0.3 `method` with its v0.3 JSON-RPC `params` through the 1.0 handler. The
/// call's version was judged by the caller ([`speaks_v03`](super::version::speaks_v03)); the extensions are settled
/// here, as `negotiate` does for 1.0.
pub(super) async fn run(
    handler: &RequestHandler,
    method: Method,
    params: Value,
    call: &mut CallContext,
) -> Result<Answer, A2aError> {
    call.activated_extensions = handler.activated_extensions(call)?;
    handler.settle_owner(call);
    let params = match params {
        Value::Null if method == Method::GetAuthenticatedExtendedCard => params,
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(_) => params,
        _ => return Err(A2aError::invalid_params("params must be a JSON object")),
    };
    if method == Method::PushConfigGet && params.get("pushNotificationConfigId").is_none() {
        return first_push_config(handler, params, call).await;
    }
    let mut request = v03::translate::params_to_v1(method, params)?;
    // A webhook registered over v0.3, inline or on its own, is remembered as v0.3 so its
    // deliveries are v0.3 too.
    match method {
        Method::PushConfigSet => mark_push_request(&mut request),
        Method::MessageSend | Method::MessageStream => {
            v03::translate::complete_message(&mut request);
            if let Some(config) = request
                .get_mut("configuration")
                .and_then(|configuration| configuration.get_mut("taskPushNotificationConfig"))
            {
                mark_push_request(config);
            }
        }
        Method::TasksGet
        | Method::TasksCancel
        | Method::TasksResubscribe
        | Method::PushConfigGet
        | Method::PushConfigList
        | Method::PushConfigDelete
        | Method::GetAuthenticatedExtendedCard => {}
    }
    match method {
        Method::MessageStream => {
            let request = Params::Tree(request).decode_message(handler)?;
            Ok(Answer::Stream(
                handler.send_streaming_message(call, request).await?,
            ))
        }
        Method::TasksResubscribe => {
            let request: SubscribeToTaskRequest = Params::Tree(request).decode()?;
            Ok(Answer::Stream(
                handler.subscribe_to_task(call, request).await?,
            ))
        }
        Method::MessageSend
        | Method::TasksGet
        | Method::TasksCancel
        | Method::PushConfigSet
        | Method::PushConfigGet
        | Method::PushConfigList
        | Method::PushConfigDelete
        | Method::GetAuthenticatedExtendedCard => {
            let outcome = handler
                .run_unary(call, method.to_v1(), Params::Tree(request))
                .await?;
            let result = serde_json::to_value(&outcome).map_err(|error| {
                tracing::error!(error = %error, "could not encode a response");
                A2aError::internal()
            })?;
            let mut result = v03::translate::result_from_v1(method, result)?;
            unmark_result(&mut result);
            rejected::result(&mut result);
            Ok(Answer::Result(result))
        }
    }
}

/// `tasks/pushNotificationConfig/get` without a config id (allowed in v0.3, absent from
/// 1.0): the task's first config, or TaskNotFound naming the task when it has none.
async fn first_push_config(
    handler: &RequestHandler,
    params: Value,
    call: &CallContext,
) -> Result<Answer, A2aError> {
    let Some(task_id) = params.get("id").and_then(Value::as_str) else {
        return Err(A2aError::invalid_field("id", "is required"));
    };
    let request = ListTaskPushNotificationConfigsRequest {
        tenant: String::new(),
        task_id: task_id.into(),
        page_size: 1,
        page_token: String::new(),
    };
    let page = handler
        .list_task_push_notification_configs(call, request)
        .await?;
    let Some(first) = page.configs.into_iter().next() else {
        // The same answer as a 1.0 Get of a config the task does not have.
        let request = GetTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: task_id.into(),
            id: "-".into(),
        };
        handler
            .get_task_push_notification_config(call, request)
            .await?;
        return Err(A2aError::task_not_found(task_id));
    };
    let mut result = serde_json::to_value(v03::TaskPushNotificationConfig::from(first))
        .map_err(|_| A2aError::internal())?;
    unmark_result(&mut result);
    Ok(Answer::Result(result))
}
