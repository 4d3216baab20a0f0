//! Rules across bindings.
//!
//! Rules across bindings: the same task read over each v1.0 interface gives the same data.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::context::{Context, id_of, is_terminal, user_message};
use crate::outcome::{Checked, Outcome};
use crate::rule::{Rule, rule};
use crate::wire::Op;

/// The rules of this area.
pub(crate) const RULES: &[Rule] = &[SAME_TASK];

rule!(SAME_TASK, "equivalence.same-task", Must, "5.1", AcrossV1, true,
    "A task made over one interface, read with GetTask over every other, has the same id, contextId, state, artifacts and history." => same_task);

/// The members compared, as they should read on every binding.
fn comparable(task: &Value) -> Value {
    let artifacts: Vec<Value> = task
        .get("artifacts")
        .and_then(Value::as_array)
        .map(|artifacts| {
            artifacts
                .iter()
                .map(|artifact| json!({"artifactId": artifact.get("artifactId"), "parts": artifact.get("parts")}))
                .collect()
        })
        .unwrap_or_default();
    let history: Vec<Value> = task
        .get("history")
        .and_then(Value::as_array)
        .map(|history| {
            history
                .iter()
                .map(|message| json!({"messageId": message.get("messageId"), "role": message.get("role"), "parts": message.get("parts")}))
                .collect()
        })
        .unwrap_or_default();
    json!({
        "id": task.get("id"),
        "contextId": task.get("contextId"),
        "state": task.pointer("/status/state"),
        "artifacts": artifacts,
        "history": history,
    })
}

async fn same_task(context: Arc<Context>) -> Checked {
    let targets = Arc::clone(&context.targets);
    let [first, rest @ ..] = targets.as_slice() else {
        return Err(Outcome::skip("the card declares no v1.0 interface"));
    };
    if rest.is_empty() {
        return Err(Outcome::skip("the card declares only one v1.0 interface"));
    }
    let options = crate::wire::CallOptions {
        version: Some(first.version.clone()),
        extensions: None,
        timeout: context.timeout,
        raw_body: None,
    };
    let sent = first
        .wire
        .call(
            Op::SendMessage,
            json!({"message": user_message("tck-artifact-text", "Hello from a2a test")}),
            &options,
        )
        .await;
    let answer = sent.ok(&format!("SendMessage over {}", first.label()))?;
    let Some(task) = answer.get("task") else {
        return Err(Outcome::skip(
            "the agent answered with a direct Message, so there is no task to compare",
        ));
    };
    if !is_terminal(task) {
        return Err(Outcome::skip(
            "the task is not terminal, so it may change between reads",
        ));
    }
    let reference = first
        .wire
        .call(Op::GetTask, json!({"id": id_of(task)}), &options)
        .await;
    let expected = comparable(reference.ok(&format!("GetTask over {}", first.label()))?);
    for target in rest {
        let options = crate::wire::CallOptions {
            version: Some(target.version.clone()),
            ..options.clone()
        };
        let read = target
            .wire
            .call(Op::GetTask, json!({"id": id_of(task)}), &options)
            .await;
        let got = comparable(read.ok(&format!("GetTask over {}", target.label()))?);
        if got != expected {
            return Err(Outcome::fail(format!(
                "{} reads the task differently from {}",
                target.label(),
                first.label()
            ))
            .with(&read)
            .expected(expected.to_string()));
        }
    }
    Ok(Outcome::pass())
}
