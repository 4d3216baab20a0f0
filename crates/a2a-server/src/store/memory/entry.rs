//! A stored task's text: its compact JSON with its id and context id found in it, and the
//! views of an entry that reads need.

use std::sync::Arc;

use a2a_types::Task;

use super::super::StoreError;
use super::{Entry, Log, Spans};

/// What serde writes before a task's id: the id is the first field of a task.
const BEFORE_ID: &str = "{\"id\":\"";
/// What serde writes between the id and the context id, the second field (left out when
/// the context is empty).
const BEFORE_CONTEXT: &str = "\",\"contextId\":\"";

/// A task's text as an entry keeps it: its compact JSON, with where its ids are.
pub(super) struct Text {
    pub(super) text: Arc<str>,
    pub(super) spans: Spans,
}

impl Text {
    /// Encodes `task`. The id and context id are found in the JSON when it holds them
    /// verbatim (checked byte by byte), else written before it.
    pub(super) fn of(task: &Task) -> Result<Self, StoreError> {
        let json =
            serde_json::to_string(task).map_err(|error| StoreError::Backend(Box::new(error)))?;
        let id = task.id.as_str();
        let context = task.context_id.as_str();
        let (Ok(id_len), Ok(context_len)) = (u32::try_from(id.len()), u32::try_from(context.len()))
        else {
            return Err(StoreError::Limit {
                what: "a task id or context id over 4 GiB".to_owned(),
            });
        };
        let verbatim = json
            .strip_prefix(BEFORE_ID)
            .and_then(|rest| rest.strip_prefix(id))
            .and_then(|rest| {
                if context.is_empty() {
                    rest.strip_prefix('"')
                } else {
                    rest.strip_prefix(BEFORE_CONTEXT)?
                        .strip_prefix(context)?
                        .strip_prefix('"')
                }
            })
            .is_some();
        let text: Arc<str> = if verbatim {
            json.into()
        } else {
            let mut text = String::with_capacity(id.len() + context.len() + json.len());
            text.push_str(id);
            text.push_str(context);
            text.push_str(&json);
            text.into()
        };
        Ok(Self {
            text,
            spans: Spans {
                id_len,
                context_len,
                before: !verbatim,
            },
        })
    }
}

impl Spans {
    /// Where the id starts in the text.
    fn id_at(self) -> usize {
        if self.before { 0 } else { BEFORE_ID.len() }
    }

    /// Where the context id starts in the text.
    fn context_at(self) -> usize {
        let after_id = self.id_at() + self.id_len as usize;
        if self.before {
            after_id
        } else {
            after_id + BEFORE_CONTEXT.len()
        }
    }

    /// Where the JSON starts in the text.
    fn json_at(self) -> usize {
        if self.before {
            self.id_len as usize + self.context_len as usize
        } else {
            0
        }
    }
}

impl Entry {
    /// The task's id.
    pub(super) fn id(&self) -> &str {
        let at = self.spans.id_at();
        self.text
            .get(at..at + self.spans.id_len as usize)
            .unwrap_or_default()
    }

    /// The task's context id.
    pub(super) fn context_id(&self) -> &str {
        let at = self.spans.context_at();
        self.text
            .get(at..at + self.spans.context_len as usize)
            .unwrap_or_default()
    }

    /// The task's last whole body, to decode outside the lock.
    pub(super) fn body(&self) -> Body {
        Body {
            text: Arc::clone(&self.text),
            at: self.spans.json_at(),
        }
    }

    /// The sequence of the last event dropped from the log (all of them when it was
    /// compacted).
    pub(super) fn compacted_to(&self) -> u64 {
        self.log
            .as_ref()
            .map_or(self.last_sequence, |log| log.compacted_to)
    }

    /// The events still in the log, the first at `compacted_to() + 1`.
    pub(super) fn kept_events(&self) -> &[Box<[u8]>] {
        self.log.as_ref().map_or(&[], |log| &log.events)
    }

    /// Copies of the artifact chunks logged after the body (with `append`).
    pub(super) fn chunks_after_body(&self) -> Vec<Box<[u8]>> {
        self.log.as_ref().map_or_else(Vec::new, |log| {
            let skip = usize::try_from(log.whole_to.saturating_sub(log.compacted_to))
                .unwrap_or(usize::MAX);
            log.events.iter().skip(skip).cloned().collect()
        })
    }

    /// The log to append to, made (empty, after every event so far) when it was compacted.
    pub(super) fn log_mut(&mut self) -> &mut Log {
        let last_sequence = self.last_sequence;
        self.log.get_or_insert_with(|| {
            Box::new(Log {
                compacted_to: last_sequence,
                events: Vec::new(),
                whole_to: last_sequence,
            })
        })
    }
}

/// A task's body, shared with its entry: the JSON is `text[at..]`.
#[derive(Debug, Clone)]
pub(super) struct Body {
    text: Arc<str>,
    at: usize,
}

impl Body {
    pub(super) fn json(&self) -> &str {
        self.text.get(self.at..).unwrap_or_default()
    }
}
