//! [`ToolPolicy`]: which tools run freely, which need a person's approval and which are
//! refused, by glob patterns over tool names.

use globset::{Glob, GlobMatcher};

/// What happens when the model calls a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The tool runs.
    Allow,
    /// A person must approve the call first.
    Ask,
    /// The call is refused; the model is told so.
    Deny,
}

/// Rules over tool names, checked in this order: a name matching a deny pattern is denied,
/// then one matching an approval pattern needs approval, and every other tool runs.
#[derive(Debug, Clone, Default)]
pub struct ToolPolicy {
    deny: Vec<GlobMatcher>,
    ask: Vec<GlobMatcher>,
}

/// A pattern that is not a valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool pattern {pattern:?}: {reason}")]
pub struct PatternError {
    /// The pattern.
    pub pattern: String,
    /// Why it is invalid.
    pub reason: String,
}

impl ToolPolicy {
    /// Every tool runs.
    #[must_use]
    pub fn allow_all() -> Self {
        Self::default()
    }

    /// Tools matching `pattern` (`*` and `?` wildcards, `{a,b}` alternatives) need approval.
    ///
    /// # Errors
    /// [`PatternError`] when the pattern is not a valid glob.
    pub fn ask(mut self, pattern: &str) -> Result<Self, PatternError> {
        self.ask.push(matcher(pattern)?);
        Ok(self)
    }

    /// Tools matching `pattern` are refused.
    ///
    /// # Errors
    /// [`PatternError`] when the pattern is not a valid glob.
    pub fn deny(mut self, pattern: &str) -> Result<Self, PatternError> {
        self.deny.push(matcher(pattern)?);
        Ok(self)
    }

    /// The decision for tool `name`.
    #[must_use]
    pub fn decide(&self, name: &str) -> Decision {
        if self.deny.iter().any(|glob| glob.is_match(name)) {
            Decision::Deny
        } else if self.ask.iter().any(|glob| glob.is_match(name)) {
            Decision::Ask
        } else {
            Decision::Allow
        }
    }
}

fn matcher(pattern: &str) -> Result<GlobMatcher, PatternError> {
    Glob::new(pattern)
        .map(|glob| glob.compile_matcher())
        .map_err(|error| PatternError {
            pattern: pattern.to_owned(),
            reason: error.kind().to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_wins_over_ask_and_the_rest_runs() {
        let policy = ToolPolicy::allow_all()
            .ask("write_*")
            .and_then(|policy| policy.deny("write_secret*"))
            .and_then(|policy| policy.ask("{rm,delete}"));
        let Ok(policy) = policy else {
            panic!("valid patterns");
        };
        assert_eq!(policy.decide("read_file"), Decision::Allow);
        assert_eq!(policy.decide("write_file"), Decision::Ask);
        assert_eq!(policy.decide("write_secrets"), Decision::Deny);
        assert_eq!(policy.decide("rm"), Decision::Ask);
        assert_eq!(policy.decide("rmdir"), Decision::Allow);
    }

    #[test]
    fn a_bad_pattern_is_refused() {
        assert!(ToolPolicy::allow_all().ask("[a-").is_err());
    }
}
