//! Rules on push notifications.
//!
//! Rules on push notifications: config create, get, list and delete (idempotent), and
//! deliveries to the run's own receiver: that one arrives, its body, its credentials, and
//! none after the config is deleted.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::context::{Context, id_of, is_terminal, unknown_id, user_message};
use crate::expect::{self, Expected};
use crate::outcome::{Checked, Outcome};
use crate::receiver::{Delivery, Receiver};
use crate::rule::{Rule, rule};
use crate::wire::{ErrorCode, Exchange, Op};

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[
    CRUD,
    DELETE_TWICE,
    UNKNOWN_CONFIG,
    DELIVERY,
    DELIVERY_CREDENTIALS,
    DELIVERY_SIGNATURE,
    NONE_AFTER_DELETE,
];

rule!(CRUD, "push.config-crud", Must, "3.1.7", V1, true,
    "A created push config comes back with an id; Get and List return it; Delete removes it, so Get then answers TaskNotFoundError." => crud);
rule!(DELETE_TWICE, "push.delete-idempotent", Must, "3.1.10", V1, true,
    "Deleting a push config that is already deleted succeeds." => delete_twice);
rule!(UNKNOWN_CONFIG, "push.get-unknown-config", Must, "3.1.8", V1, true,
    "Getting a push config id the task does not have answers TaskNotFoundError." => unknown_config);
rule!(DELIVERY, "push.delivery", Must, "4.3.3", V1, true,
    "A webhook registered with SendMessage receives at least one POST whose body is one StreamResponse of that task." => delivery);
rule!(DELIVERY_CREDENTIALS, "push.delivery-credentials", Must, "4.3.3", V1, true,
    "Deliveries carry the config's authentication as Authorization: <scheme> <credentials>." => delivery_credentials);
rule!(DELIVERY_SIGNATURE, "push.delivery-signature", Should, "4.3.3", V1, true,
    "A delivery the agent signs (A2A-Notification-Signature) verifies against the JWK Set the agent publishes at /.well-known/jwks.json." => delivery_signature);
rule!(NONE_AFTER_DELETE, "push.no-delivery-after-delete", Must, "3.1.10", V1, true,
    "After its config is deleted, a webhook receives nothing more for the task." => none_after_delete);

/// The credentials the checks register, so deliveries can be told apart.
fn secret() -> String {
    format!("a2a-test-{}", uuid::Uuid::new_v4().simple())
}

fn receiver(context: &Context) -> Result<&Receiver, Outcome> {
    context
        .receiver
        .as_deref()
        .ok_or_else(|| Outcome::skip("no webhook receiver runs (--read-only)"))
}

/// A task to attach configs to: one waiting for input when the agent offers that, else
/// whatever an ordinary send makes.
async fn open_task(context: &Context) -> Result<Value, Outcome> {
    let prefix = if context.behaviours {
        "tck-input-required"
    } else {
        "a2a-test"
    };
    let exchange = context.send(prefix, "Hello from a2a test", None).await?;
    let answer = exchange.ok("SendMessage")?;
    answer.get("task").cloned().ok_or_else(|| {
        Outcome::skip("the agent answered with a direct Message, so there is no task")
    })
}

/// A refusal of the receiver's URL is the agent's (SSRF) policy, not a broken rule: a skip
/// that says how to give it a URL it accepts.
fn refused_url(exchange: &Exchange, url: &str) -> Outcome {
    let loopback =
        url.contains("://127.") || url.contains("://localhost") || url.contains("://[::1]");
    match &exchange.result {
        Err(error)
            if loopback
                && matches!(
                    error.code,
                    ErrorCode::JsonRpc(-32602)
                        | ErrorCode::Http(400)
                        | ErrorCode::Grpc(tonic::Code::InvalidArgument)
                ) =>
        {
            Outcome::skip(format!(
                "the agent refuses the receiver's loopback URL ({}); give --receiver-url an address it accepts",
                error.describe()
            ))
        }
        Err(error) => Outcome::fail(format!(
            "CreateTaskPushNotificationConfig failed: {}",
            error.describe()
        ))
        .with(exchange)
        .expected("the stored config"),
        Ok(_) => Outcome::pass(),
    }
}

async fn create(context: &Context, task_id: &str, url: &str) -> Result<(Exchange, Value), Outcome> {
    let exchange = context
        .call(
            Op::CreatePushConfig,
            json!({"taskId": task_id, "url": url, "token": secret(),
                   "authentication": {"scheme": "Bearer", "credentials": secret()}}),
        )
        .await?;
    match &exchange.result {
        Ok(config) => {
            let config = config.clone();
            Ok((exchange, config))
        }
        Err(_) => Err(refused_url(&exchange, url)),
    }
}

async fn crud(context: Arc<Context>) -> Checked {
    context.push()?;
    let receiver = receiver(&context)?;
    let task = open_task(&context).await?;
    let task_id = id_of(&task);
    let (_, url) = receiver.hook();
    let (created, config) = create(&context, &task_id, &url).await?;
    let Some(id) = config
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
    else {
        return Err(Outcome::fail("the created config has no id")
            .with(&created)
            .expected("the config with its id"));
    };
    if config.get("url").and_then(Value::as_str) != Some(&url) {
        return Err(Outcome::fail("the created config has another url")
            .with(&created)
            .expected(url));
    }
    let got = context
        .call(Op::GetPushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    if got
        .ok("GetTaskPushNotificationConfig")?
        .get("url")
        .and_then(Value::as_str)
        != Some(&url)
    {
        return Err(Outcome::fail("Get returns another url")
            .with(&got)
            .expected(url));
    }
    let listed = context
        .call(Op::ListPushConfigs, json!({"taskId": task_id}))
        .await?;
    let configs = listed
        .ok("ListTaskPushNotificationConfigs")?
        .get("configs")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !configs
        .iter()
        .any(|config| config.get("id").and_then(Value::as_str) == Some(id))
    {
        return Err(Outcome::fail("List does not return the created config")
            .with(&listed)
            .expected(format!("configs holding id {id}")));
    }
    let deleted = context
        .call(Op::DeletePushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    deleted.ok("DeleteTaskPushNotificationConfig")?;
    let gone = context
        .call(Op::GetPushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    expect::error(&context.target()?.binding, &gone, Expected::TaskNotFound)?;
    Ok(Outcome::pass())
}

async fn delete_twice(context: Arc<Context>) -> Checked {
    context.push()?;
    let receiver = receiver(&context)?;
    let task = open_task(&context).await?;
    let task_id = id_of(&task);
    let (_, url) = receiver.hook();
    let (_, config) = create(&context, &task_id, &url).await?;
    let id = config
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let first = context
        .call(Op::DeletePushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    first.ok("the first DeleteTaskPushNotificationConfig")?;
    let second = context
        .call(Op::DeletePushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    second.ok("the second DeleteTaskPushNotificationConfig of the same config")?;
    Ok(Outcome::pass())
}

async fn unknown_config(context: Arc<Context>) -> Checked {
    context.push()?;
    let task = open_task(&context).await?;
    let exchange = context
        .call(
            Op::GetPushConfig,
            json!({"taskId": id_of(&task), "id": unknown_id()}),
        )
        .await?;
    expect::error(
        &context.target()?.binding,
        &exchange,
        Expected::TaskNotFound,
    )?;
    Ok(Outcome::pass())
}

/// A send registering a webhook with Bearer `credentials`; the task, the deliveries.
async fn delivered(
    context: &Context,
    credentials: &str,
) -> Result<(Value, Vec<Delivery>, String), Outcome> {
    context.push()?;
    let receiver = receiver(context)?;
    let (hook, url) = receiver.hook();
    let params = json!({
        "message": user_message("a2a-test", "Hello from a2a test"),
        "configuration": {"taskPushNotificationConfig": {
            "url": url, "token": secret(),
            "authentication": {"scheme": "Bearer", "credentials": credentials}}},
    });
    let exchange = context.call(Op::SendMessage, params).await?;
    if exchange.result.is_err() {
        return Err(refused_url(&exchange, &url));
    }
    let answer = exchange.ok("SendMessage")?;
    let Some(task) = answer.get("task").cloned() else {
        return Err(Outcome::skip(
            "the agent answered with a direct Message, so no task notifies",
        ));
    };
    let deliveries = receiver
        .wait(&hook, context.timeout, |deliveries| !deliveries.is_empty())
        .await;
    if deliveries.is_empty() {
        return Err(Outcome::fail(format!(
            "no delivery reached the receiver within {} s",
            context.timeout.as_secs()
        ))
        .with(&exchange)
        .expected(format!("a POST to {url}")));
    }
    Ok((task, deliveries, url))
}

const PAYLOADS: [&str; 4] = ["task", "message", "statusUpdate", "artifactUpdate"];

async fn delivery(context: Arc<Context>) -> Checked {
    let (task, deliveries, url) = delivered(&context, &secret()).await?;
    for delivery in &deliveries {
        let shown = format!("POST {url}");
        let Ok(body) = serde_json::from_str::<Value>(&delivery.body) else {
            return Err(Outcome::fail("a delivery's body is not JSON")
                .with_text(&shown, &delivery.body)
                .expected("a StreamResponse"));
        };
        let set: Vec<_> = PAYLOADS
            .iter()
            .filter(|member| body.get(**member).is_some())
            .collect();
        if set.len() != 1 {
            return Err(Outcome::fail(format!(
                "a delivery sets {} of task, message, statusUpdate, artifactUpdate",
                set.len()
            ))
            .with_text(&shown, &delivery.body)
            .expected("exactly one"));
        }
        let task_id = body
            .pointer("/task/id")
            .or_else(|| body.pointer("/statusUpdate/taskId"))
            .or_else(|| body.pointer("/artifactUpdate/taskId"))
            .or_else(|| body.pointer("/message/taskId"));
        if task_id.and_then(Value::as_str) != Some(&id_of(&task)) {
            return Err(Outcome::fail("a delivery names another task")
                .with_text(&shown, &delivery.body)
                .expected(format!("task {}", id_of(&task))));
        }
    }
    Ok(Outcome::pass())
}

async fn delivery_credentials(context: Arc<Context>) -> Checked {
    let credentials = secret();
    let (_, deliveries, url) = delivered(&context, &credentials).await?;
    let wanted = format!("Bearer {credentials}");
    for delivery in &deliveries {
        let got = delivery
            .headers
            .get("authorization")
            .and_then(|value| value.to_str().ok());
        if !got.is_some_and(|got| got.eq_ignore_ascii_case(&wanted) || got == wanted) {
            let shown: Vec<_> = delivery
                .headers
                .keys()
                .map(http::HeaderName::as_str)
                .collect();
            return Err(Outcome::fail(if got.is_some() {
                "a delivery carries another Authorization value".to_owned()
            } else {
                "a delivery carries no Authorization header".to_owned()
            })
            .with_text(
                &format!("POST {url}"),
                &format!("headers: {}", shown.join(", ")),
            )
            .expected("Authorization: Bearer <the registered credentials>"));
        }
    }
    Ok(Outcome::pass())
}

async fn delivery_signature(context: Arc<Context>) -> Checked {
    let (_, deliveries, url) = delivered(&context, &secret()).await?;
    let signed: Vec<&Delivery> = deliveries
        .iter()
        .filter(|delivery| {
            delivery
                .headers
                .contains_key(a2a_client::push::SIGNATURE_HEADER)
        })
        .collect();
    if signed.is_empty() {
        return Err(Outcome::skip("the agent does not sign its deliveries"));
    }
    let keys = a2a_client::push::agent_jwks_url(context.card.url.as_str())
        .map_err(|error| Outcome::skip(format!("no JWK Set URL for the agent: {error}")))?;
    let verifier = a2a_client::push::PushVerifier::fetch(keys.as_str())
        .await
        .map_err(|error| {
            Outcome::fail(format!(
                "the deliveries are signed, but the agent's keys cannot be read: {error}"
            ))
            .expected(format!("a JWK Set at {keys}"))
        })?;
    for delivery in signed {
        if let Err(error) = verifier.verify_signature(&delivery.headers, delivery.body.as_bytes()) {
            return Err(
                Outcome::fail(format!("a delivery's signature does not verify: {error}"))
                    .with_text(&format!("POST {url}"), &delivery.body)
                    .expected(format!("a detached JWS by a key of {keys}")),
            );
        }
    }
    Ok(Outcome::pass())
}

async fn none_after_delete(context: Arc<Context>) -> Checked {
    context.push()?;
    context.behaviours()?;
    let receiver = receiver(&context)?;
    let task = context.running_task().await?;
    let task_id = id_of(&task);
    let (hook, url) = receiver.hook();
    let (_, config) = create(&context, &task_id, &url).await?;
    let id = config
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let deleted = context
        .call(Op::DeletePushConfig, json!({"taskId": task_id, "id": id}))
        .await?;
    deleted.ok("DeleteTaskPushNotificationConfig")?;
    let before = receiver.deliveries(&hook).len();
    // Wait for the task to end, then a little for any late delivery.
    let mut ended = false;
    for _ in 0..40 {
        let read = context.call(Op::GetTask, json!({"id": task_id})).await?;
        if read.result.as_ref().is_ok_and(is_terminal) {
            ended = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    if !ended {
        return Err(Outcome::skip("the task did not end within 10 s"));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = receiver.deliveries(&hook);
    if after.len() > before {
        return Err(Outcome::fail(format!(
            "{} deliveries arrived after the config was deleted",
            after.len() - before
        ))
        .with_text(
            &format!("POST {url}"),
            &after
                .last()
                .map(|delivery| delivery.body.clone())
                .unwrap_or_default(),
        )
        .expected("no delivery"));
    }
    Ok(Outcome::pass())
}
