//! `a2a chat URL`: a conversation with an agent, one line of stdin per message.
//!
//! The chat keeps the `contextId` across turns, and the `taskId` while the task waits for
//! input; a task that reached a final state is let go, so the next line starts a new task
//! in the same conversation. When the agent asks a question (INPUT_REQUIRED), its status
//! message is shown as the agent's words and the next line answers it. Answers stream when
//! the card says the agent can (`capabilities.streaming`).
//!
//! On a terminal there is a prompt and Ctrl-C stops waiting for the current turn (`/cancel`
//! then cancels its task); with piped stdin the lines are sent one after the other and the
//! first failure ends the chat with its exit code.
//!
//! An agent run (`a2a-run`) that waits for its client lists its pending actions: the chat
//! shows each, asks `approve? [y/N]` for a tool call that needs approval and for the result
//! of a tool the client runs, reading the answers from the same input as the chat's lines
//! (the end of input denies), and sends them all in one message. The model's text shows as
//! it is written (drafts); the stored output is not repeated when the drafts said it.

mod args;
mod input;
mod run;
mod session;
mod turn;
mod turn_end;

pub(crate) use self::args::ChatArgs;
pub(crate) use self::run::run;

#[cfg(test)]
mod tests;
