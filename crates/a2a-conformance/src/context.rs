//! What a check is given.
//!
//! What a check is given: the card as fetched, the interface under test and its wire, every
//! v1.0 interface (for equivalence), whether the agent offers the conformance behaviours, the
//! push receiver, and the per-call timeout; with the small steps many checks share.

use std::sync::Arc;
use std::time::Duration;

use a2a_types::{AgentCard, ProtocolBinding};
use serde_json::{Value, json};

use crate::outcome::Outcome;
use crate::receiver::Receiver;
use crate::wire::{CallOptions, Exchange, HttpPeer, Op, StreamRecord, Wire};

/// The URI of our extension by which an agent's card says it behaves by `messageId` prefix
/// as the conformance agent does (`tck-input-required-…` waits for input,
/// `test-resubscribe-message-id-…` works for a few seconds, …), so checks that need such
/// behaviour can run.
pub const BEHAVIOURS_EXTENSION: &str = "urn:a2a-rs:conformance-behaviours:v1";

/// The card as the well-known URI served it.
#[derive(Debug, Clone)]
pub(crate) struct CardFetch {
    pub(crate) url: url::Url,
    pub(crate) status: u16,
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: String,
    pub(crate) json: Option<Value>,
    pub(crate) card: Option<AgentCard>,
}

/// One interface of the card, with the wire that speaks its binding.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) binding: ProtocolBinding,
    pub(crate) version: String,
    pub(crate) url: String,
    pub(crate) tenant: Option<String>,
    pub(crate) wire: Box<dyn Wire>,
}

impl Target {
    /// `JSONRPC 1.0`, `GRPC 1.0`, `HTTP+JSON 0.3`.
    pub(crate) fn label(&self) -> String {
        format!("{} {}", self.binding, self.version)
    }
}

/// Everything one check may use.
#[derive(Debug)]
pub struct Context {
    pub(crate) card: Arc<CardFetch>,
    pub(crate) target: Option<Arc<Target>>,
    pub(crate) targets: Arc<Vec<Arc<Target>>>,
    pub(crate) behaviours: bool,
    pub(crate) receiver: Option<Arc<Receiver>>,
    pub(crate) timeout: Duration,
    pub(crate) http: HttpPeer,
}

/// A fresh message id with a prefix the conformance agent routes by.
pub(crate) fn message_id(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

/// A user message with one text part.
pub(crate) fn user_message(prefix: &str, text: &str) -> Value {
    json!({
        "messageId": message_id(prefix),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    })
}

/// An id no agent has handed out.
pub(crate) fn unknown_id() -> String {
    format!("a2a-test-unknown-{}", uuid::Uuid::new_v4())
}

impl Context {
    /// The card, typed; checks that need one only run when it decoded.
    pub(crate) fn card(&self) -> Result<&AgentCard, Outcome> {
        self.card
            .card
            .as_ref()
            .ok_or_else(|| Outcome::skip("the agent card could not be read"))
    }

    /// The interface under test.
    pub(crate) fn target(&self) -> Result<&Target, Outcome> {
        self.target
            .as_deref()
            .ok_or_else(|| Outcome::skip("no interface to check"))
    }

    /// The options of an ordinary call: the interface's version, the timeout.
    pub(crate) fn options(&self) -> CallOptions {
        CallOptions {
            version: self.target.as_ref().map(|target| target.version.clone()),
            extensions: None,
            timeout: self.timeout,
            raw_body: None,
        }
    }

    /// One unary call with the ordinary options.
    pub(crate) async fn call(&self, op: Op, params: Value) -> Result<Exchange, Outcome> {
        let options = self.options();
        Ok(self.target()?.wire.call(op, params, &options).await)
    }

    /// One unary call with `options`.
    pub(crate) async fn call_with(
        &self,
        op: Op,
        params: Value,
        options: &CallOptions,
    ) -> Result<Exchange, Outcome> {
        Ok(self.target()?.wire.call(op, params, options).await)
    }

    /// One stream, read to its end.
    pub(crate) async fn stream(&self, op: Op, params: Value) -> Result<StreamRecord, Outcome> {
        let options = self.options();
        Ok(self.target()?.wire.stream(op, params, &options).await)
    }

    /// `SendMessage` with a text message whose id starts with `prefix`, and `configuration`.
    pub(crate) async fn send(
        &self,
        prefix: &str,
        text: &str,
        configuration: Option<Value>,
    ) -> Result<Exchange, Outcome> {
        let mut params = json!({"message": user_message(prefix, text)});
        if let Some(configuration) = configuration {
            params["configuration"] = configuration;
        }
        self.call(Op::SendMessage, params).await
    }

    /// The task of a send of "work for a while" with `returnImmediately`: a task the agent
    /// is still working on (empty when the answer holds none).
    pub(crate) async fn running_task(&self) -> Result<Value, Outcome> {
        let sent = self
            .send(
                "test-resubscribe-message-id",
                "work for a while",
                Some(json!({"returnImmediately": true})),
            )
            .await?;
        Ok(sent
            .ok("SendMessage")?
            .get("task")
            .cloned()
            .unwrap_or_default())
    }

    /// A task of this agent, made by an ordinary blocking send; a skip when the agent
    /// answers with a direct message (it then makes no tasks to check).
    pub(crate) async fn task(&self) -> Result<(Exchange, Value), Outcome> {
        let exchange = self.send("a2a-test", "Hello from a2a test", None).await?;
        let answer = exchange.ok("SendMessage")?;
        if answer.get("message").is_some() && answer.get("task").is_none() {
            return Err(Outcome::skip(
                "the agent answered a plain message with a direct Message, so there is no task to check",
            ));
        }
        match answer.get("task") {
            Some(task) if task.get("id").and_then(Value::as_str).is_some() => {
                let task = task.clone();
                Ok((exchange, task))
            }
            _ => Err(
                Outcome::fail("SendMessage answered neither a task with an id nor a message")
                    .with(&exchange)
                    .expected("{\"task\": {\"id\": …}} or {\"message\": …}"),
            ),
        }
    }

    /// A task of this agent in a terminal state; a skip when the ordinary send leaves it
    /// interrupted.
    pub(crate) async fn terminal_task(&self) -> Result<Value, Outcome> {
        let (_, task) = self.task().await?;
        if is_terminal(&task) {
            Ok(task)
        } else {
            Err(Outcome::skip(format!(
                "the agent's task is {}, not terminal, after a blocking send",
                state(&task)
            )))
        }
    }

    /// A skip unless the card advertises the conformance behaviours.
    pub(crate) fn behaviours(&self) -> Result<(), Outcome> {
        if self.behaviours {
            Ok(())
        } else {
            Err(Outcome::skip(format!(
                "needs an agent that behaves by messageId prefix; the card does not declare the extension {BEHAVIOURS_EXTENSION}"
            )))
        }
    }

    /// A skip unless the card declares streaming.
    pub(crate) fn streaming(&self) -> Result<(), Outcome> {
        if self.card()?.capabilities.supports_streaming() {
            Ok(())
        } else {
            Err(Outcome::skip(
                "the card does not declare capabilities.streaming",
            ))
        }
    }

    /// A skip unless the card declares push notifications.
    pub(crate) fn push(&self) -> Result<(), Outcome> {
        if self.card()?.capabilities.supports_push_notifications() {
            Ok(())
        } else {
            Err(Outcome::skip(
                "the card does not declare capabilities.pushNotifications",
            ))
        }
    }
}

/// A task's `status.state`, or `no state`.
pub(crate) fn state(task: &Value) -> &str {
    task.pointer("/status/state")
        .and_then(Value::as_str)
        .unwrap_or("no state")
}

/// Whether a task is in a terminal state.
pub(crate) fn is_terminal(task: &Value) -> bool {
    matches!(
        state(task),
        "TASK_STATE_COMPLETED"
            | "TASK_STATE_FAILED"
            | "TASK_STATE_CANCELED"
            | "TASK_STATE_REJECTED"
    )
}

/// A task's id.
pub(crate) fn id_of(task: &Value) -> String {
    task.get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
