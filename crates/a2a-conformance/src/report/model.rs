//! The report's values.
//!
//! One result per rule and interface, the interfaces found, the counts by level.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::context::Target;
use crate::outcome::{Outcome, Verdict};
use crate::rule::{Level, Rule};

/// The identifier of the report's JSON shape (`docs/a2a-test-report.schema.json`); a new
/// one when a field changes meaning or goes.
pub const SCHEMA: &str = "https://a2a-rs.invalid/schemas/a2a-test-report/v1";

/// One interface of the card, and whether it was checked.
#[derive(Debug, Clone, Serialize)]
pub struct InterfaceInfo {
    /// `JSONRPC`, `HTTP+JSON`, `GRPC` or a custom binding.
    pub binding: String,
    /// Its `protocolVersion`.
    pub version: String,
    /// Its URL.
    pub url: String,
    /// True when rules ran on it.
    pub checked: bool,
    /// Why not, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One rule checked on one interface (or on the card).
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The rule's id.
    pub rule: String,
    /// Its level.
    pub level: Level,
    /// The spec section.
    pub section: String,
    /// What it checks.
    pub checks: String,
    /// `JSONRPC 1.0` and the like; absent for card rules and cross-interface rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// The interface's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The verdict and its details.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// How long the check took.
    pub duration_ms: u64,
}

impl CheckResult {
    pub(crate) fn new(
        rule: &Rule,
        target: Option<&Target>,
        outcome: Outcome,
        took: Duration,
    ) -> Self {
        Self {
            rule: rule.id.to_owned(),
            level: rule.level,
            section: rule.section.to_owned(),
            checks: rule.checks.to_owned(),
            interface: target.map(Target::label),
            url: target.map(|target| target.url.clone()),
            outcome,
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// Counts of one level (or of all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Skipped.
    pub skip: usize,
}

impl Counts {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::Skip => self.skip += 1,
        }
    }
}

/// The counts of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// All results.
    pub total: Counts,
    /// By level: `MUST`, `SHOULD`, `MAY`.
    pub by_level: BTreeMap<&'static str, Counts>,
}

/// The report of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The schema of this JSON document ([`SCHEMA`]).
    pub schema: &'static str,
    /// The URL the run was given.
    pub agent: String,
    /// Where the card was read.
    pub card_url: String,
    /// The card's name, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// How long it took.
    pub duration_ms: u64,
    /// The card's interfaces.
    pub interfaces: Vec<InterfaceInfo>,
    /// The counts.
    pub summary: Summary,
    /// One result per rule and interface, in rule order.
    pub results: Vec<CheckResult>,
}

impl Report {
    pub(crate) fn new(
        agent: &str,
        card_url: &str,
        agent_name: Option<String>,
        started_at: String,
        took: Duration,
        interfaces: Vec<InterfaceInfo>,
        results: Vec<CheckResult>,
    ) -> Self {
        let mut summary = Summary::default();
        for level in [Level::Must, Level::Should, Level::May] {
            summary.by_level.insert(level.as_str(), Counts::default());
        }
        for result in &results {
            summary.total.add(result.outcome.verdict);
            summary
                .by_level
                .entry(result.level.as_str())
                .or_default()
                .add(result.outcome.verdict);
        }
        Self {
            schema: SCHEMA,
            agent: agent.to_owned(),
            card_url: card_url.to_owned(),
            agent_name,
            started_at,
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            interfaces,
            summary,
            results,
        }
    }

    /// True when a MUST rule failed (with `strict`, a SHOULD rule too).
    #[must_use]
    pub fn failed(&self, strict: bool) -> bool {
        self.results.iter().any(|result| {
            result.outcome.verdict == Verdict::Fail
                && (result.level == Level::Must || (strict && result.level == Level::Should))
        })
    }
}
