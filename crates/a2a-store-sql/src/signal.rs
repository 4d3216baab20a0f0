//! Cluster signals on the wire between instances: a compact JSON object per PostgreSQL
//! notification, naming the instance that sent it so that it can skip its own (it already
//! delivered them locally).

use a2a_server::cluster::ClusterSignal;
use a2a_types::TaskId;
use serde::{Deserialize, Serialize};

/// PostgreSQL's limit on a notification payload is 8000 bytes.
const MAX_PAYLOAD: usize = 7999;

#[derive(Debug, Serialize, Deserialize)]
struct Wire {
    /// The sending instance.
    #[serde(rename = "i")]
    instance: String,
    #[serde(rename = "k")]
    kind: Kind,
    #[serde(rename = "t")]
    task_id: String,
    #[serde(rename = "s", default, skip_serializing_if = "is_zero")]
    last_sequence: u64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
enum Kind {
    #[serde(rename = "e")]
    Events,
    #[serde(rename = "c")]
    Cancel,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// The payload of `signal` sent by `instance`; `None` for a signal this version cannot
/// send across instances (a variant newer than it, or an id too long for a notification).
pub(crate) fn encode(instance: &str, signal: &ClusterSignal) -> Option<String> {
    let (kind, task_id, last_sequence) = match signal {
        ClusterSignal::Events {
            task_id,
            last_sequence,
        } => (Kind::Events, task_id, *last_sequence),
        ClusterSignal::Cancel { task_id } => (Kind::Cancel, task_id, 0),
        // `ClusterSignal` is non-exhaustive: a signal added later stays local until this
        // crate learns to encode it.
        _ => return None,
    };
    let wire = Wire {
        instance: instance.to_owned(),
        kind,
        task_id: task_id.as_str().to_owned(),
        last_sequence,
    };
    serde_json::to_string(&wire)
        .ok()
        .filter(|payload| payload.len() <= MAX_PAYLOAD)
}

/// The sender and signal of a payload; `None` for a payload this version does not know.
pub(crate) fn decode(payload: &str) -> Option<(String, ClusterSignal)> {
    let wire: Wire = serde_json::from_str(payload).ok()?;
    let task_id = TaskId::new(wire.task_id);
    let signal = match wire.kind {
        Kind::Events => ClusterSignal::Events {
            task_id,
            last_sequence: wire.last_sequence,
        },
        Kind::Cancel => ClusterSignal::Cancel { task_id },
    };
    Some((wire.instance, signal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_survive_the_round_trip() {
        let signals = [
            ClusterSignal::Events {
                task_id: TaskId::new("task \"1\" ☀"),
                last_sequence: 42,
            },
            ClusterSignal::Cancel {
                task_id: TaskId::new("t"),
            },
        ];
        for signal in signals {
            let payload = encode("instance-a", &signal).unwrap();
            assert_eq!(
                decode(&payload),
                Some(("instance-a".to_owned(), signal)),
                "{payload}"
            );
        }
        assert_eq!(
            encode(
                "a",
                &ClusterSignal::Cancel {
                    task_id: TaskId::new("t")
                }
            )
            .unwrap(),
            r#"{"i":"a","k":"c","t":"t"}"#
        );
    }

    #[test]
    fn unknown_payloads_are_ignored() {
        assert_eq!(decode("not json"), None);
        assert_eq!(decode(r#"{"i":"a","k":"x","t":"t"}"#), None);
    }

    #[test]
    fn ids_too_long_for_a_notification_are_not_sent() {
        let signal = ClusterSignal::Cancel {
            task_id: TaskId::new("x".repeat(8000)),
        };
        assert_eq!(encode("a", &signal), None);
    }
}
