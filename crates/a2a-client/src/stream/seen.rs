//! What a stream has delivered: the event ids seen and the task as its events build it, by
//! which a resumed connection's repeats are told apart.

use std::collections::HashSet;

use a2a_types::{Artifact, StreamResponse, Task, TaskState, TaskStatus};

/// The ids already delivered: numbers compared by value (the server's task sequence), other
/// ids by equality.
#[derive(Debug, Default)]
pub(super) struct SeenIds {
    pub(super) last: Option<String>,
    highest_number: Option<u64>,
    others: HashSet<String>,
}

impl SeenIds {
    pub(super) fn contains(&self, id: &str) -> bool {
        match (id.parse::<u64>(), self.highest_number) {
            (Ok(number), Some(highest)) => number <= highest,
            (Ok(_), None) | (Err(_), _) => self.others.contains(id),
        }
    }

    pub(super) fn record(&mut self, id: &str) {
        self.last = Some(id.to_owned());
        match id.parse::<u64>() {
            Ok(number) => {
                self.highest_number = Some(self.highest_number.map_or(number, |h| h.max(number)));
            }
            Err(_) => {
                self.others.insert(id.to_owned());
            }
        }
    }
}

/// What the caller has been shown: the task as its delivered events build it.
#[derive(Debug, Default)]
pub(super) struct View {
    task: Option<Task>,
    state: Option<TaskState>,
    last_status: Option<TaskStatus>,
    ended_by_message: bool,
}

impl View {
    /// Nothing more will come: a direct message, or a terminal or interrupted state.
    pub(super) fn is_final(&self) -> bool {
        self.ended_by_message
            || self
                .state
                .is_some_and(|state| state.is_terminal() || state.is_interrupted())
    }

    pub(super) fn apply(&mut self, response: &StreamResponse) {
        match response {
            StreamResponse::Task(task) => {
                self.state = Some(task.status.state);
                self.last_status = Some(task.status.clone());
                self.task = Some(task.clone());
            }
            StreamResponse::Message(_) => self.ended_by_message = true,
            StreamResponse::StatusUpdate(event) => {
                self.state = Some(event.status.state);
                self.last_status = Some(event.status.clone());
                if let Some(task) = &mut self.task {
                    task.status = event.status.clone();
                }
            }
            StreamResponse::ArtifactUpdate(event) => {
                if let Some(task) = &mut self.task {
                    merge_artifact(&mut task.artifacts, &event.artifact, event.append);
                }
            }
        }
    }

    /// Whether a snapshot shows anything not delivered: another state or status message, or
    /// an artifact that is new or differs. History and timestamps are not compared.
    pub(super) fn snapshot_adds(&self, snapshot: &Task) -> bool {
        let Some(known) = &self.task else {
            return true;
        };
        if known.status.state != snapshot.status.state
            || known.status.message != snapshot.status.message
        {
            return true;
        }
        snapshot.artifacts.iter().any(|artifact| {
            !known.artifacts.iter().any(|seen| {
                seen.artifact_id == artifact.artifact_id && seen.parts == artifact.parts
            })
        })
    }

    /// Whether a status update only repeats the last delivered status.
    pub(super) fn repeats_status(&self, status: &TaskStatus) -> bool {
        self.last_status.as_ref() == Some(status)
    }
}

fn merge_artifact(artifacts: &mut Vec<Artifact>, artifact: &Artifact, append: bool) {
    match artifacts
        .iter_mut()
        .find(|known| known.artifact_id == artifact.artifact_id)
    {
        Some(known) if append => known.parts.extend(artifact.parts.iter().cloned()),
        Some(known) => *known = artifact.clone(),
        None => artifacts.push(artifact.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_types::{Part, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};

    fn status(state: TaskState) -> StreamResponse {
        StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus::new(state),
            metadata: None,
        })
    }

    fn artifact(id: &str, text: &str, append: bool) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact::new(vec![Part::text(text)]).with_id(id),
            append,
            last_chunk: false,
            metadata: None,
        })
    }

    #[test]
    fn numeric_ids_compare_by_value() {
        let mut ids = SeenIds::default();
        ids.record("3");
        assert!(ids.contains("2") && ids.contains("3"));
        assert!(!ids.contains("4"));
        ids.record("a");
        assert!(ids.contains("a") && !ids.contains("b"));
        assert_eq!(ids.last.as_deref(), Some("a"));
    }

    #[test]
    fn a_snapshot_adds_nothing_when_it_matches_what_was_delivered() {
        let mut view = View::default();
        let task = Task::new("t".into(), "c".into(), TaskState::Working);
        view.apply(&StreamResponse::Task(task.clone()));
        view.apply(&artifact("a1", "one ", false));
        view.apply(&artifact("a1", "two", true));
        let mut snapshot = task.clone();
        snapshot.artifacts =
            vec![Artifact::new(vec![Part::text("one "), Part::text("two")]).with_id("a1")];
        assert!(!view.snapshot_adds(&snapshot));
        snapshot
            .artifacts
            .push(Artifact::from_text("new").with_id("a2"));
        assert!(view.snapshot_adds(&snapshot));
        let mut done = task;
        done.status = TaskStatus::new(TaskState::Completed);
        assert!(view.snapshot_adds(&done));
    }

    #[test]
    fn streams_are_final_after_messages_and_terminal_or_interrupted_states() {
        for (state, last) in [
            (TaskState::Working, false),
            (TaskState::Completed, true),
            (TaskState::InputRequired, true),
            (TaskState::AuthRequired, true),
        ] {
            let mut view = View::default();
            view.apply(&status(state));
            assert_eq!(view.is_final(), last, "{state:?}");
        }
        let mut view = View::default();
        view.apply(&StreamResponse::Message(a2a_types::Message::agent_text(
            "hi",
        )));
        assert!(view.is_final());
    }
}
