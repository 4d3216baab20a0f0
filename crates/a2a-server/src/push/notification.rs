//! What names one delivery to its webhook: the `A2A-Notification-Id` header and its value.
//!
//! Deliveries are at least once: an instance that dies between a POST and recording it
//! leaves that event to be sent again, by another instance or after a restart. Every attempt
//! at one event carries the same id, so a webhook that keeps the ids it has taken drops the
//! repeat and takes each event once.

use a2a_types::TaskId;

/// The header carrying a delivery's id: `<task id>:<event sequence number>`, the same on
/// every attempt at that event.
pub const NOTIFICATION_ID_HEADER: &str = "A2A-Notification-Id";

/// The id of the delivery of event `sequence` of `task_id`.
pub(crate) fn notification_id(task_id: &TaskId, sequence: u64) -> String {
    format!("{task_id}:{sequence}")
}
