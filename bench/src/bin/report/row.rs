//! One row of the table: a figure, the bare handler's, the goal, and the verdict.

/// What a figure is compared with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Goal {
    /// a2a / bare at least this.
    RatioAtLeast(f64),
    /// a2a / bare at most this.
    RatioAtMost(f64),
    /// The value at most this.
    AtMost(f64),
}

/// One line of the table.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) figure: String,
    pub(crate) value: Result<f64, String>,
    pub(crate) bare: Option<Result<f64, String>>,
    pub(crate) decimals: usize,
    /// The goal, and what its `Goal:` line calls the figure.
    pub(crate) goal: Option<(Goal, String)>,
}

impl Row {
    pub(crate) fn new(
        figure: impl Into<String>,
        value: Result<f64, String>,
        decimals: usize,
    ) -> Self {
        Self {
            figure: figure.into(),
            value,
            bare: None,
            decimals,
            goal: None,
        }
    }

    pub(crate) fn bare(mut self, bare: Result<f64, String>) -> Self {
        self.bare = Some(bare);
        self
    }

    pub(crate) fn goal(mut self, goal: Goal, what: impl Into<String>) -> Self {
        self.goal = Some((goal, what.into()));
        self
    }

    /// a2a / bare, when both are known.
    pub(crate) fn ratio(&self) -> Option<f64> {
        match (&self.value, &self.bare) {
            (Ok(value), Some(Ok(bare))) if *bare > 0.0 => Some(value / bare),
            _ => None,
        }
    }

    /// The goal column and the goal line, when the row has a goal.
    pub(crate) fn verdict(&self) -> Option<(String, String)> {
        let (goal, what) = self.goal.as_ref()?;
        let (column, op, target, value, decimals) = match *goal {
            Goal::RatioAtLeast(at_least) => (
                format!(">= {at_least:.2}x bare"),
                ">=",
                format!("{at_least:.2}"),
                self.ratio(),
                2,
            ),
            Goal::RatioAtMost(at_most) => (
                format!("<= {at_most:.2}x bare"),
                "<=",
                format!("{at_most:.2}"),
                self.ratio(),
                2,
            ),
            Goal::AtMost(at_most) => (
                format!("<= {at_most:.*}", self.decimals),
                "<=",
                format!("{at_most:.*}", self.decimals),
                self.value.as_ref().ok().copied(),
                self.decimals,
            ),
        };
        let met = |value: f64| match *goal {
            Goal::RatioAtLeast(at_least) => value >= at_least,
            Goal::RatioAtMost(at_most) | Goal::AtMost(at_most) => value <= at_most,
        };
        let result = match value {
            Some(value) if met(value) => format!("PASS ({value:.decimals$})"),
            Some(value) => format!("FAIL ({value:.decimals$})"),
            None => "ERROR".to_owned(),
        };
        Some((column, format!("Goal: {what} {op} {target}: {result}")))
    }
}
