//! What one check found.
//!
//! What one check found: PASS, FAIL or SKIP, and on a failure what was sent, what came back
//! and what was expected.

use serde::Serialize;
use serde_json::Value;

use crate::wire::Exchange;

/// The verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum Verdict {
    /// The agent did what the rule asks.
    Pass,
    /// It did not.
    Fail,
    /// The rule could not be checked here (the reason says why).
    Skip,
}

impl Verdict {
    /// `PASS`, `FAIL` or `SKIP`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::Skip => "SKIP",
        }
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// PASS, FAIL or SKIP.
    pub verdict: Verdict,
    /// Why it failed or was skipped; what was seen on a pass, when worth saying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The request that decided it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
    /// What came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<String>,
    /// What the rule expected instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

/// How much of a request or answer a report keeps.
const EXCERPT: usize = 600;

impl Outcome {
    fn new(verdict: Verdict, reason: Option<String>) -> Self {
        Self {
            verdict,
            reason,
            sent: None,
            received: None,
            expected: None,
        }
    }

    /// A pass.
    #[must_use]
    pub fn pass() -> Self {
        Self::new(Verdict::Pass, None)
    }

    /// A failure, saying what went wrong.
    #[must_use]
    pub fn fail(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Fail, Some(reason.into()))
    }

    /// A skip, saying why the rule cannot be checked.
    #[must_use]
    pub fn skip(reason: impl Into<String>) -> Self {
        Self::new(Verdict::Skip, Some(reason.into()))
    }

    /// The same outcome with what was expected.
    #[must_use]
    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// The same outcome with the request and answer of `exchange`.
    #[must_use]
    pub(crate) fn with(mut self, exchange: &Exchange) -> Self {
        self.sent = Some(excerpt(&exchange.sent));
        self.received = Some(excerpt(&exchange.received));
        self
    }

    /// The same outcome with a request and answer given as text.
    #[must_use]
    pub(crate) fn with_text(mut self, sent: &str, received: &str) -> Self {
        self.sent = Some(excerpt(sent));
        self.received = Some(excerpt(received));
        self
    }
}

/// `text` cut to a readable length, on a character boundary.
pub(crate) fn excerpt(text: &str) -> String {
    if text.len() <= EXCERPT {
        return text.to_owned();
    }
    let mut end = EXCERPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

impl Exchange {
    /// The result value, or the error as a failure saying `what` could not be done.
    pub(crate) fn ok(&self, what: &str) -> Result<&Value, Outcome> {
        match &self.result {
            Ok(value) => Ok(value),
            Err(error) => Err(Outcome::fail(format!(
                "{what}: the agent answered {}",
                error.describe()
            ))
            .with(self)),
        }
    }
}

/// What a check returns: `Err` ends it early with a failure or a skip, so `?` reads as
/// "otherwise the rule fails here".
pub(crate) type Checked = Result<Outcome, Outcome>;
