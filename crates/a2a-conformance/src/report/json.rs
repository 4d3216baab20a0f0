//! The report as one JSON object (`--json`).
//!
//! The report as one JSON object (`--json`); its schema is `docs/a2a-test-report.schema.json`.

use super::model::Report;

/// The report as pretty-printed JSON.
#[must_use]
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|error| {
        format!("{{\"error\": \"the report cannot be written as JSON: {error}\"}}")
    })
}
