//! [`settle`]: a leg's outcome written to its task (the output artifact, the pending
//! actions, the stop or the failure), in the words the task shows.

use a2a_server::{ExecutorError, TaskUpdater};
use a2a_types::{Artifact, Message, Part, Role};

use crate::answers::{self, RECONCILED_KEY};
use crate::engine::{LegError, Outcome};
use crate::reconcile;
use crate::run::{CallState, Run, StopReason};
use crate::settings::{Failure, OutputKind, Settings};

/// The id of the artifact holding a run's output.
pub const OUTPUT_ARTIFACT_ID: &str = "output";

/// What a failed task says: the hook's words, else the failure's code only.
pub(crate) fn failure_text(settings: &Settings, failure: &Failure) -> String {
    if let Some(message) = &settings.failure_message {
        return message(failure);
    }
    match failure {
        Failure::Model(code) => format!("agent run failed ({code})"),
        Failure::InvalidOutput => "agent run failed (invalid_output)".to_owned(),
        Failure::Store => "could not update the task".to_owned(),
    }
}

/// Writes a leg's `outcome` to the task: the output artifact, the pending actions, the
/// stop, or the failure.
pub(crate) async fn settle(
    settings: &Settings,
    outcome: Result<Outcome, LegError>,
    run: &Run,
    updater: TaskUpdater,
) -> Result<(), ExecutorError> {
    match outcome {
        Ok(Outcome::Completed) => {
            let text = run.output.clone().unwrap_or_default();
            let part = match settings.output {
                OutputKind::Text => Part::text(text),
                OutputKind::Json => match parse_json_output(&text) {
                    Some(value) => Part::data(value).with_media_type("application/json"),
                    None => {
                        updater
                            .fail(failure_text(settings, &Failure::InvalidOutput))
                            .await?;
                        return Ok(());
                    }
                },
            };
            let artifact = Artifact::new(vec![part])
                .with_id(OUTPUT_ARTIFACT_ID)
                .with_name("output");
            updater.complete_with_artifacts(vec![artifact], ()).await?;
        }
        Ok(Outcome::Suspended) => {
            updater.require_input(ask_message(settings, run)).await?;
        }
        Ok(Outcome::Stopped(reason)) => {
            let text = match reason {
                StopReason::Drained => "The agent paused because its server is shutting down; send any message to resume.".to_owned(),
                StopReason::ToolReconciliationRequired => format!("The run stopped during a tool call that may have had effects; an operator must settle it: send each call's result in a data part {{{RECONCILED_KEY}: [{{toolCallId, output}}]}}."),
                other => format!("The run stopped ({other})."),
            };
            let message = Message::new(
                Role::Agent,
                vec![
                    Part::text(text),
                    reconcile::stopped_part(
                        run,
                        reason.as_str(),
                        reason == StopReason::ToolReconciliationRequired,
                    ),
                ],
            );
            updater.require_input(message).await?;
        }
        Ok(Outcome::Canceled) => {}
        Err(LegError::Model(error)) => {
            tracing::warn!(code = %error.code, detail = %error.detail, "agent run failed: model call");
            updater
                .fail(failure_text(settings, &Failure::Model(error.code)))
                .await?;
        }
        Err(LegError::Store(error)) => {
            tracing::error!(error = %error, source = ?std::error::Error::source(&error), "agent run failed: run store");
            updater
                .fail(failure_text(settings, &Failure::Store))
                .await?;
        }
    }
    Ok(())
}

/// The status message of a run that waits: what it waits for, in words and as the
/// `{actions}` part.
pub(crate) fn ask_message(settings: &Settings, run: &Run) -> Message {
    // "approve write_file (2 calls), run get_location": each tool once, in order.
    let mut asks: Vec<(String, usize)> = Vec::new();
    for open in run.pending() {
        let ask = match open.state {
            CallState::AwaitingApproval { .. } => format!("approve {}", open.call.name),
            CallState::Ready | CallState::Started { .. } | CallState::AwaitingClient => {
                format!("run {}", open.call.name)
            }
        };
        match asks.iter_mut().find(|(known, _)| *known == ask) {
            Some((_, count)) => *count += 1,
            None => asks.push((ask, 1)),
        }
    }
    let names: Vec<String> = asks
        .into_iter()
        .map(|(ask, count)| {
            if count == 1 {
                ask
            } else {
                format!("{ask} ({count} calls)")
            }
        })
        .collect();
    Message::new(
        Role::Agent,
        vec![
            Part::text(format!("Waiting for you to {}.", names.join(", "))),
            answers::actions_part(run, settings.approvals.as_ref()),
        ],
    )
}

fn parse_json_output(text: &str) -> Option<serde_json::Value> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    serde_json::from_str(inner.trim()).ok()
}
