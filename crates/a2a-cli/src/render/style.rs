//! [`Style`]: ANSI colours for human output, on when [`crate::color`] says stdout is
//! coloured and `--no-color` was not given.

use a2a_types::TaskState;

/// Whether and how to colour text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    colour: bool,
}

/// ANSI select-graphic-rendition codes.
mod sgr {
    pub(super) const BOLD: &str = "1";
    pub(super) const DIM: &str = "2";
    pub(super) const RED: &str = "31";
    pub(super) const GREEN: &str = "32";
    pub(super) const YELLOW: &str = "33";
    pub(super) const MAGENTA: &str = "35";
    pub(super) const CYAN: &str = "36";
}

impl Style {
    /// Colours when `--color` and `NO_COLOR` allow them on stdout ([`crate::color`]),
    /// unless `no_color`.
    pub(crate) fn detect(no_color: bool) -> Self {
        Self {
            colour: !no_color && crate::color::stdout(),
        }
    }

    /// No colours at all.
    pub(crate) const fn plain() -> Self {
        Self { colour: false }
    }

    /// Colours always (for tests of the colouring itself).
    #[cfg(test)]
    pub(crate) const fn coloured() -> Self {
        Self { colour: true }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Bold text.
    pub(crate) fn bold(self, text: &str) -> String {
        self.paint(sgr::BOLD, text)
    }

    /// Faint text, for ids and labels.
    pub(crate) fn dim(self, text: &str) -> String {
        self.paint(sgr::DIM, text)
    }

    /// A task state's short name (`COMPLETED`, `INPUT_REQUIRED`) in its colour.
    pub(crate) fn state(self, state: TaskState) -> String {
        self.state_padded(state, 0)
    }

    /// As [`Style::state`], padded to `width` columns before colouring, so tables line up.
    pub(crate) fn state_padded(self, state: TaskState, width: usize) -> String {
        let code = match state {
            TaskState::Completed => sgr::GREEN,
            TaskState::Failed | TaskState::Rejected => sgr::RED,
            TaskState::Canceled => sgr::MAGENTA,
            TaskState::InputRequired | TaskState::AuthRequired => sgr::YELLOW,
            TaskState::Submitted | TaskState::Working => sgr::CYAN,
            TaskState::Unspecified => sgr::DIM,
        };
        let name = format!("{:width$}", state_name(state));
        self.paint(code, &name)
    }
}

/// A state's proto name without the `TASK_STATE_` prefix.
pub(crate) fn state_name(state: TaskState) -> &'static str {
    let name = state.as_str();
    name.strip_prefix("TASK_STATE_").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_writes_no_escape_codes() {
        let style = Style::plain();
        assert_eq!(style.state(TaskState::Completed), "COMPLETED");
        assert_eq!(style.bold("x"), "x");
        assert_eq!(
            style.state_padded(TaskState::Working, 10),
            "WORKING   ",
            "padded before colouring"
        );
    }

    #[test]
    fn states_have_their_colours() {
        let style = Style::coloured();
        assert_eq!(
            style.state(TaskState::Completed),
            "\x1b[32mCOMPLETED\x1b[0m"
        );
        assert_eq!(style.state(TaskState::Failed), "\x1b[31mFAILED\x1b[0m");
        assert_eq!(
            style.state(TaskState::InputRequired),
            "\x1b[33mINPUT_REQUIRED\x1b[0m"
        );
    }
}
