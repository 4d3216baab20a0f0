//! The state behind an [`EventStream`](super::EventStream): it reads the open connection and,
//! when that breaks before the task is final, subscribes again and drops what repeats.

use std::time::Duration;

use a2a_types::{ErrorKind, GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskId};

use super::connection::{Connection, Item};
use super::seen::{SeenIds, View};
use crate::A2aClient;
use crate::binding::Call;
use crate::error::ClientError;

/// What a re-subscription gave.
pub(super) enum Reconnected {
    /// A new connection is open.
    Open,
    /// The task finished meanwhile: its final snapshot, when it shows something new.
    Finished(Option<Box<StreamResponse>>),
}

/// The state behind an [`EventStream`].
pub(super) struct Resumer {
    pub(super) client: A2aClient,
    /// When the stream is closed whatever happens (the longest stream duration).
    pub(super) deadline: Option<tokio::time::Instant>,
    pub(super) idle: Duration,
    pub(super) connection: Option<Connection>,
    pub(super) task_id: Option<TaskId>,
    pub(super) tenant: String,
    pub(super) ids: SeenIds,
    pub(super) view: View,
    /// Re-subscriptions in a row without a new event.
    pub(super) attempts: u32,
    /// The open connection is a re-subscription and has not delivered anything new yet.
    pub(super) after_resume: bool,
    pub(super) last_error: Option<ClientError>,
    pub(super) finished: bool,
}

impl Resumer {
    pub(super) async fn next(&mut self) -> Option<Result<StreamResponse, ClientError>> {
        loop {
            if self.finished {
                return None;
            }
            let Some(connection) = self.connection.as_mut() else {
                match self.reconnect().await {
                    Ok(Reconnected::Open) => continue,
                    Ok(Reconnected::Finished(last)) => {
                        self.finished = true;
                        return last.map(|last| Ok(*last));
                    }
                    Err(error) => {
                        self.finished = true;
                        return Some(Err(error));
                    }
                }
            };
            match connection.next(&self.client, self.idle).await {
                Some(Ok(item)) => {
                    if let Some(response) = self.accept(item) {
                        return Some(Ok(response));
                    }
                }
                Some(Err(error)) => {
                    self.connection = None;
                    if self.view.is_final() {
                        // Whatever broke after the end does not matter.
                        self.finished = true;
                        return None;
                    }
                    if !self.may_resume() || !error.is_retryable() {
                        self.finished = true;
                        return Some(Err(error));
                    }
                    tracing::debug!(error = %error, "the stream broke; resubscribing");
                    self.last_error = Some(error);
                }
                None => {
                    self.connection = None;
                    if self.view.is_final() || !self.may_resume() {
                        // Spec §8.3: a stream that ends early is for the caller to re-check,
                        // not an error.
                        self.finished = true;
                        return None;
                    }
                    tracing::debug!("the stream ended before the task did; resubscribing");
                }
            }
        }
    }

    fn may_resume(&self) -> bool {
        self.client.resume_policy().is_enabled() && self.task_id.is_some()
    }

    /// Decides whether `item` is new; records it when it is.
    fn accept(&mut self, item: Item) -> Option<StreamResponse> {
        let seen = item.id.as_deref().is_some_and(|id| self.ids.contains(id));
        let repeated = self.after_resume
            && match &item.response {
                // A snapshot is compared by content whether or not it carries an id: one
                // from a server that ignores Last-Event-ID may repeat what was shown.
                StreamResponse::Task(snapshot) => !self.view.snapshot_adds(snapshot),
                StreamResponse::StatusUpdate(event) => {
                    item.id.is_none() && self.view.repeats_status(&event.status)
                }
                StreamResponse::Message(_) | StreamResponse::ArtifactUpdate(_) => false,
            };
        if let Some(id) = &item.id
            && !seen
        {
            // Even a dropped event moves the resume point on.
            self.ids.record(id);
        }
        if seen || repeated {
            tracing::trace!(id = ?item.id, "dropped an event delivered before");
            return None;
        }
        if self.task_id.is_none() {
            // Events in KubeMQ's shapes may name no task: nothing to resume then.
            self.task_id = item
                .response
                .task_id()
                .filter(|id| !id.as_str().is_empty())
                .cloned();
        }
        self.view.apply(&item.response);
        self.after_resume = false;
        self.attempts = 0;
        self.last_error = None;
        Some(item.response)
    }

    /// Subscribes again, with backoff, until a connection opens, the task turns out to have
    /// finished, or the attempts run out.
    async fn reconnect(&mut self) -> Result<Reconnected, ClientError> {
        let Some(task_id) = self.task_id.clone() else {
            return Err(self.interrupted());
        };
        let policy = self.client.resume_policy().clone();
        // What the last refusal's `Retry-After` asked for: the next attempt waits that long
        // at least.
        let mut asked: Option<Duration> = None;
        loop {
            if self.attempts >= policy.max_attempts {
                return Err(self.interrupted());
            }
            let wait = self
                .client
                .wait_after(policy.delay(self.attempts), asked.take());
            tokio::time::sleep(wait).await;
            self.attempts += 1;
            let call = Call::SubscribeToTask(SubscribeToTaskRequest {
                tenant: self.tenant.clone(),
                id: task_id.clone(),
            });
            let opened = self
                .client
                .open_stream_failed(&call, self.ids.last.as_deref())
                .await
                .map_err(|failed| {
                    asked = failed.retry_after;
                    failed.error
                });
            match opened {
                Ok(connection) => {
                    self.connection = Some(connection);
                    self.after_resume = true;
                    return Ok(Reconnected::Open);
                }
                // Spec §8.4: a task that finished meanwhile cannot be subscribed to; its
                // final state comes from GetTask. v0.3 agents (the Python SDK's) answer
                // InvalidParams instead; the snapshot tells whether it was that.
                Err(ClientError::Agent(error))
                    if error.kind() == ErrorKind::UnsupportedOperation
                        || (error.kind() == ErrorKind::InvalidParams
                            && self.client.protocol_version() == crate::ProtocolVersion::V0_3) =>
                {
                    return self.final_snapshot(task_id).await;
                }
                Err(error) if error.is_retryable() => {
                    tracing::debug!(error = %error, attempt = self.attempts, "resubscribing failed");
                    self.last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
    }

    async fn final_snapshot(&mut self, task_id: TaskId) -> Result<Reconnected, ClientError> {
        let task = self
            .client
            .get_task(GetTaskRequest {
                tenant: self.tenant.clone(),
                id: task_id,
                history_length: None,
            })
            .await?;
        if !task.status.state.is_terminal() && !task.status.state.is_interrupted() {
            // Subscribing was refused for another reason (streaming switched off).
            return Err(self.interrupted());
        }
        let last = self
            .view
            .snapshot_adds(&task)
            .then(|| Box::new(StreamResponse::Task(task)));
        Ok(Reconnected::Finished(last))
    }

    fn interrupted(&mut self) -> ClientError {
        ClientError::StreamInterrupted {
            source: self.last_error.take().map(Box::new),
        }
    }
}
