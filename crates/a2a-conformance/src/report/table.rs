//! The report as a table for a terminal.
//!
//! The report as a table for a terminal: one row per result (rule, level, interface,
//! verdict), the reason under each failure and skip with what was sent, what came back and
//! what was expected, then the counts by level.

use std::fmt::Write as _;

use super::model::Report;
use crate::outcome::Verdict;

/// The report as text; `color` adds ANSI colours to the verdicts.
#[must_use]
pub fn table(report: &Report, color: bool) -> String {
    let paint = |verdict: Verdict| {
        let word = verdict.as_str();
        if !color {
            return word.to_owned();
        }
        let code = match verdict {
            Verdict::Pass => "32",
            Verdict::Fail => "31",
            Verdict::Skip => "33",
        };
        format!("\u{1b}[{code}m{word}\u{1b}[0m")
    };
    let rule_width = report
        .results
        .iter()
        .map(|result| result.rule.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let interface_width = report
        .results
        .iter()
        .map(|result| result.interface.as_deref().map_or(1, str::len))
        .max()
        .unwrap_or(9)
        .max(9);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{} ({})",
        report.agent_name.as_deref().unwrap_or("agent"),
        report.card_url
    );
    for interface in &report.interfaces {
        let _ = writeln!(
            text,
            "  {} {} {}{}",
            interface.binding,
            interface.version,
            interface.url,
            interface
                .note
                .as_deref()
                .map(|note| format!(" (not checked: {note})"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        text,
        "\n{:rule_width$}  {:6}  {:interface_width$}  RESULT",
        "RULE", "LEVEL", "INTERFACE"
    );
    for result in &report.results {
        let _ = writeln!(
            text,
            "{:rule_width$}  {:6}  {:interface_width$}  {}",
            result.rule,
            result.level.as_str(),
            result.interface.as_deref().unwrap_or("-"),
            paint(result.outcome.verdict)
        );
        let outcome = &result.outcome;
        if outcome.verdict == Verdict::Pass {
            continue;
        }
        if let Some(reason) = &outcome.reason {
            let _ = writeln!(text, "    {reason}");
        }
        if outcome.verdict == Verdict::Fail {
            let _ = writeln!(
                text,
                "    rule: {} (spec §{})",
                result.checks, result.section
            );
            for (label, value) in [
                ("sent", &outcome.sent),
                ("received", &outcome.received),
                ("expected", &outcome.expected),
            ] {
                if let Some(value) = value {
                    let _ = writeln!(text, "    {label}: {}", value.replace('\n', "\n      "));
                }
            }
        }
    }
    let _ = writeln!(text);
    for (level, counts) in &report.summary.by_level {
        let _ = writeln!(
            text,
            "{level:6}  {} passed, {} failed, {} skipped",
            counts.pass, counts.fail, counts.skip
        );
    }
    let _ = writeln!(
        text,
        "total   {} passed, {} failed, {} skipped in {:.1} s",
        report.summary.total.pass,
        report.summary.total.fail,
        report.summary.total.skip,
        report.duration_ms as f64 / 1000.0
    );
    text
}
