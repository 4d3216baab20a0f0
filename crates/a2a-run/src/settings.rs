//! [`Settings`]: what every turn of a [`RunAgent`](crate::RunAgent) shares, with the
//! [`Limits`], [`OutputKind`] and [`Failure`] its builder takes.

use std::sync::Arc;
use std::time::Duration;

use crate::approval::ApprovalKey;
use crate::model::Model;
use crate::policy::ToolPolicy;
use crate::store::RunStore;
use crate::tools::Toolbox;

/// Limits of one run, over all its legs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Model calls a run may make (default 16).
    pub max_steps: u32,
    /// Tokens (prompt and completion) a run may use; `None` for no limit (the default).
    pub token_budget: Option<u64>,
    /// Wall time a run may spend in legs; `None` for no limit (the default).
    pub wall_time: Option<Duration>,
    /// How long one tool call may take (default 60 s); a late call fails, and the model is
    /// told.
    pub tool_timeout: Duration,
    /// The most bytes of one tool's output the model sees (default 16 KiB).
    pub max_tool_output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_steps: 16,
            token_budget: None,
            wall_time: None,
            tool_timeout: Duration::from_secs(60),
            max_tool_output: 16 * 1024,
        }
    }
}

/// What kind of output a run gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputKind {
    /// Text: the artifact has a text part (the default).
    #[default]
    Text,
    /// JSON: the model's answer must parse as JSON; the artifact has a data part with
    /// media type `application/json`, never sent in pieces.
    Json,
}

/// Why a run failed, for [`RunAgentBuilder::failure_message`](crate::RunAgentBuilder::failure_message).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The model call failed with this code (`rate_limit`, `unauthorized`…).
    Model(String),
    /// The model's answer was not the output asked for.
    InvalidOutput,
    /// The run or task store failed.
    Store,
}

pub(crate) type FailureMessage = Arc<dyn Fn(&Failure) -> String + Send + Sync>;

/// What every turn of a [`RunAgent`](crate::RunAgent) shares.
pub(crate) struct Settings {
    pub(crate) model: Arc<dyn Model>,
    pub(crate) store: Arc<dyn RunStore>,
    pub(crate) toolbox: Toolbox,
    pub(crate) policy: ToolPolicy,
    pub(crate) limits: Limits,
    pub(crate) system: Option<String>,
    pub(crate) approvals: Option<ApprovalKey>,
    pub(crate) drafts: bool,
    pub(crate) output: OutputKind,
    pub(crate) definition: String,
    pub(crate) failure_message: Option<FailureMessage>,
}
