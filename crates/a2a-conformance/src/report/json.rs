//! The report as one JSON object (`--json`); its schema is `docs/a2a-test-report.schema.json`.

use super::Report;

/// The identifier of the report's JSON shape; a new one when a field changes meaning or goes.
pub const SCHEMA: &str = "https://a2a-rs.invalid/schemas/a2a-test-report/v1";

/// The report as pretty-printed JSON.
#[must_use]
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|error| {
        format!("{{\"error\": \"the report cannot be written as JSON: {error}\"}}")
    })
}
