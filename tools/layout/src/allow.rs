//! The allow list: exceptions to the rules, each with the reason written beside it.

use std::path::{Path, PathBuf};

use crate::rules::{Problem, Rule};

/// One exception: `<rule> <path> -- <reason>`.
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) rule: Rule,
    pub(crate) path: PathBuf,
    pub(crate) line: usize,
}

/// Reads the list; a line without a known rule, a path or a reason is an error.
pub(crate) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let line_no = at + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, reason) = line.split_once(" -- ").unwrap_or((line, ""));
        if reason.trim().is_empty() {
            return Err(format!(
                "allow list line {line_no}: an entry needs its reason after ` -- `"
            ));
        }
        let mut words = head.split_whitespace();
        let (Some(rule), Some(path), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "allow list line {line_no}: expected `<rule> <path> -- <reason>`"
            ));
        };
        let Some(rule) = Rule::from_name(rule) else {
            return Err(format!(
                "allow list line {line_no}: no rule `{rule}` (size, circle, facade)"
            ));
        };
        entries.push(Entry {
            rule,
            path: PathBuf::from(path),
            line: line_no,
        });
    }
    Ok(entries)
}

/// Drops the allowed problems; returns what is left and the entries nothing matched.
pub(crate) fn apply(problems: Vec<Problem>, entries: &[Entry]) -> (Vec<Problem>, Vec<&Entry>) {
    let matches = |entry: &Entry, problem: &Problem| {
        entry.rule == problem.rule && Path::new(&entry.path) == problem.path
    };
    let unused = entries
        .iter()
        .filter(|e| !problems.iter().any(|p| matches(e, p)))
        .collect();
    let left = problems
        .into_iter()
        .filter(|p| !entries.iter().any(|e| matches(e, p)))
        .collect();
    (left, unused)
}
