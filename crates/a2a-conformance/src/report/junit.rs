//! The report as JUnit XML (`--junit FILE`).
//!
//! The report as JUnit XML (`--junit FILE`), for CI systems: one test case per result, a
//! `failure` for a FAIL, `skipped` for a SKIP.

use std::fmt::Write as _;

use super::model::Report;
use crate::outcome::Verdict;

/// XML text with `&`, `<`, `>` and quotes escaped.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            // XML 1.0 allows no other control characters.
            c if c.is_control() && !matches!(c, '\n' | '\r' | '\t') => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The report as a JUnit `testsuites` document.
#[must_use]
pub fn junit(report: &Report) -> String {
    let total = report.summary.total;
    let seconds = |millis: u64| format!("{:.3}", millis as f64 / 1000.0);
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"a2a test\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">",
        report.results.len(),
        total.fail,
        total.skip,
        seconds(report.duration_ms)
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\" timestamp=\"{}\">",
        escape(&report.agent),
        report.results.len(),
        total.fail,
        total.skip,
        seconds(report.duration_ms),
        escape(&report.started_at)
    );
    for result in &report.results {
        let name = match &result.interface {
            Some(interface) => format!("{} [{interface}]", result.rule),
            None => result.rule.clone(),
        };
        let area = result.rule.split('.').next().unwrap_or_default();
        let _ = write!(
            xml,
            "    <testcase classname=\"a2a.{}\" name=\"{}\" time=\"{}\"",
            escape(area),
            escape(&name),
            seconds(result.duration_ms)
        );
        let outcome = &result.outcome;
        let reason = outcome.reason.as_deref().unwrap_or_default();
        match outcome.verdict {
            Verdict::Pass => xml.push_str("/>\n"),
            Verdict::Skip => {
                let _ = writeln!(
                    xml,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    escape(reason)
                );
            }
            Verdict::Fail => {
                let mut body = format!(
                    "{} ({}, spec §{})\n",
                    result.checks,
                    result.level.as_str(),
                    result.section
                );
                for (label, text) in [
                    ("sent", &outcome.sent),
                    ("received", &outcome.received),
                    ("expected", &outcome.expected),
                ] {
                    if let Some(text) = text {
                        let _ = writeln!(body, "{label}: {text}");
                    }
                }
                let _ = writeln!(
                    xml,
                    ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                    escape(reason),
                    result.level.as_str(),
                    escape(&body)
                );
            }
        }
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}
