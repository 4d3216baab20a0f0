//! Which status changes the task lifecycle allows (spec digest §9.1).

use a2a_types::TaskState;

/// True when a task in `from` may move to `to`.
///
/// Terminal states never change; nothing moves back to SUBMITTED; UNSPECIFIED is never a
/// target. Every other move is allowed, including staying in the same state with a new status
/// message.
#[must_use]
pub(crate) const fn can_move(from: TaskState, to: TaskState) -> bool {
    if from.is_terminal() {
        return false;
    }
    match to {
        TaskState::Unspecified => false,
        TaskState::Submitted => matches!(from, TaskState::Submitted),
        TaskState::Working
        | TaskState::Completed
        | TaskState::Failed
        | TaskState::Canceled
        | TaskState::InputRequired
        | TaskState::Rejected
        | TaskState::AuthRequired => true,
    }
}

/// True when a status change to `state` ends the turn: a terminal state or INPUT_REQUIRED.
#[must_use]
pub(crate) const fn ends_turn(state: TaskState) -> bool {
    state.is_terminal() || matches!(state, TaskState::InputRequired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_transitions() {
        use TaskState::*;
        let cases = [
            (Submitted, Working, true),
            (Submitted, Submitted, true),
            (Working, Submitted, false),
            (Working, InputRequired, true),
            (Working, Working, true),
            (InputRequired, Working, true),
            (AuthRequired, Completed, true),
            (Working, Unspecified, false),
            (Completed, Working, false),
            (Canceled, Completed, false),
            (Failed, Failed, false),
            (Rejected, Canceled, false),
        ];
        for (from, to, allowed) in cases {
            assert_eq!(can_move(from, to), allowed, "{from:?} → {to:?}");
        }
    }

    #[test]
    fn turns_end_at_terminal_states_and_input_required_only() {
        for state in TaskState::ALL {
            let expected = state.is_terminal() || state == TaskState::InputRequired;
            assert_eq!(ends_turn(state), expected, "{state}");
        }
    }
}
