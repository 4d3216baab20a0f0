//! The agent registry over its KubeMQ-compatible HTTP API, the same suite on SQLite
//! and PostgreSQL, plus signed cards (spec §11.5).
//!
//! - `records`: registering, what is refused, listing and reading, the proxy's directory.
//! - `liveness`: heartbeats, deregistering and expiry.
//! - `capacity`: `max_agents`, racing registrations and fast churn.
//! - `signatures`: signed agent cards.
//! - `sqlite_file`: what only a SQLite file shows.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod support;

#[path = "registry/capacity.rs"]
mod capacity;
#[path = "registry/liveness.rs"]
mod liveness;
#[path = "registry/records.rs"]
mod records;
#[path = "registry/signatures.rs"]
mod signatures;
#[path = "registry/sqlite.rs"]
mod sqlite_file;

use std::sync::Arc;

use a2a_gateway::registry::RegistryOptions;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::support::ManualClock;

/// A time the registry answered, which must be RFC 3339 in UTC with milliseconds and `Z`.
fn time(value: &Value) -> DateTime<Utc> {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"));
    // RFC 3339, UTC, milliseconds, `Z`.
    assert!(
        text.ends_with('Z') && text.len() == "2026-01-01T00:00:00.000Z".len(),
        "{text}"
    );
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

/// Registry options that read the time from `clock`.
pub(crate) fn with_clock(clock: &Arc<ManualClock>) -> RegistryOptions {
    RegistryOptions::new().clock(Arc::clone(clock) as Arc<dyn a2a_gateway::registry::Clock>)
}
