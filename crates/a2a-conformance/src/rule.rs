//! What a rule is.
//!
//! What a rule is: its id, level, spec section, the sentence saying what it checks, where it
//! runs, and the function that checks it.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;

use crate::context::Context;
use crate::outcome::Outcome;

/// How strongly the spec asks for what a rule checks (RFC 2119).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[non_exhaustive]
pub enum Level {
    /// MUST / MUST NOT / REQUIRED.
    #[serde(rename = "MUST")]
    Must,
    /// SHOULD / SHOULD NOT / RECOMMENDED.
    #[serde(rename = "SHOULD")]
    Should,
    /// MAY / OPTIONAL.
    #[serde(rename = "MAY")]
    May,
}

impl Level {
    /// The keyword, upper case.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Must => "MUST",
            Self::Should => "SHOULD",
            Self::May => "MAY",
        }
    }
}

/// Where a rule runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Scope {
    /// Once, on the agent card.
    Card,
    /// On every v1.0 interface of the card.
    V1,
    /// On every v1.0 interface of a binding carried over HTTP (JSON-RPC, HTTP+JSON).
    V1Http,
    /// On every v1.0 JSON-RPC interface.
    V1JsonRpc,
    /// Once, across all the v1.0 interfaces together.
    AcrossV1,
    /// On every v0.3 interface.
    V03,
}

/// One rule of the spec, checked by a function.
#[derive(Clone, Copy)]
pub struct Rule {
    /// Our stable id, `area.name`.
    pub id: &'static str,
    /// The spec's keyword for it.
    pub level: Level,
    /// The section of the A2A specification that states it, e.g. `3.1.4`.
    pub section: &'static str,
    /// One sentence: what is checked.
    pub checks: &'static str,
    /// Where it runs.
    pub scope: Scope,
    /// True when the check creates tasks or push configs (left out by `--read-only`).
    pub creates: bool,
    /// The check.
    pub run: fn(Arc<Context>) -> BoxFuture<'static, Outcome>,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("id", &self.id)
            .field("level", &self.level)
            .field("section", &self.section)
            .finish_non_exhaustive()
    }
}

impl Rule {
    /// The area: the id up to its first dot.
    #[must_use]
    pub fn area(&self) -> &'static str {
        self.id.split_once('.').map_or(self.id, |(area, _)| area)
    }
}

/// Declares a rule beside its check: `rule!(NAME, "area.name", Must, "3.1.4", V1, creates,
/// "What is checked." => check_fn);` where `check_fn` is an `async fn(Arc<Context>) ->
/// Checked` and `creates` is `true` when it makes tasks or push configs.
macro_rules! rule {
    ($name:ident, $id:literal, $level:ident, $section:literal, $scope:ident, $creates:literal,
     $checks:literal => $check:path) => {
        pub(crate) const $name: $crate::rule::Rule = $crate::rule::Rule {
            id: $id,
            level: $crate::rule::Level::$level,
            section: $section,
            checks: $checks,
            scope: $crate::rule::Scope::$scope,
            creates: $creates,
            run: |context| {
                Box::pin(async move {
                    match $check(context).await {
                        Ok(outcome) | Err(outcome) => outcome,
                    }
                })
            },
        };
    };
}
pub(crate) use rule;
