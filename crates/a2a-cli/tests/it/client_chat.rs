//! `a2a chat` driven through piped stdin: turns keep the context, a question
//! (INPUT_REQUIRED) is answered by the next line, and the chat commands work.

use crate::client_mock::{MockAgent, cli_with_input};
use crate::support::Server;

#[test]
fn a_question_is_answered_in_the_next_turn_of_the_same_task() {
    let server = Server::start(&["--agent", "conformance"]);
    let run = cli_with_input(
        &[
            "chat",
            &server.url,
            "--message-id",
            "tck-input-required-chat",
        ],
        "I want a colour\nblue\n/task\n",
    );
    let text = run.ok();
    let expected_start = "\
agent: Input required: send a follow-up message for this task
[INPUT_REQUIRED]
agent: blue
context ";
    assert!(text.starts_with(expected_start), "{text}");
    // `/task` shows the task that the answer completed, in the same context.
    assert!(text.contains("  COMPLETED\n"), "{text}");
    assert!(
        text.contains("(ended: the next message starts a new task)"),
        "{text}"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn the_context_is_kept_across_turns_and_new_forgets_it() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli_with_input(&["chat", &server.url, "--json"], "one\ntwo\n/new\nthree\n");
    let events = run.json_lines();
    let contexts: Vec<&str> = events
        .iter()
        .filter_map(|event| event["task"]["contextId"].as_str())
        .collect();
    assert_eq!(contexts.len(), 3, "one task snapshot per turn: {events:?}");
    assert_eq!(
        contexts[0], contexts[1],
        "the second turn continues the context"
    );
    assert_ne!(contexts[1], contexts[2], "/new starts another");
}

#[test]
fn streamed_answers_print_as_the_agents_words() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli_with_input(&["chat", &server.url], "hello\n/quit\nnot sent\n");
    assert_eq!(run.ok(), "agent: hello\n");
}

#[test]
fn streamed_text_chunks_of_one_answer_flow_as_one_line_in_a_chat() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli_with_input(&["chat", &server.url], "hello big world\n");
    assert_eq!(run.ok(), "agent: hello big world\n");
}

#[test]
fn an_agent_that_cannot_stream_gets_plain_sends() {
    let agent = MockAgent::start();
    let run = cli_with_input(&["chat", &agent.url], "hi\n");
    assert_eq!(run.ok(), "agent: mock answer\n");
}

#[test]
fn end_of_input_ends_the_chat_cleanly() {
    let server = Server::start(&["--agent", "echo"]);
    let run = cli_with_input(&["chat", &server.url], "");
    assert_eq!(run.ok(), "");
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn a_rejected_task_is_shown_and_the_chat_goes_on() {
    let server = Server::start(&["--agent", "conformance"]);
    let run = cli_with_input(
        &["chat", &server.url, "--message-id", "tck-reject-task-chat"],
        "please\nnever sent\n",
    );
    assert_eq!(
        run.code,
        Some(0),
        "a rejected task is an answer: {}",
        run.stderr
    );
    assert!(run.stdout.contains("[REJECTED]"), "{}", run.stdout);
}

#[test]
fn with_piped_input_a_failure_ends_the_chat_with_its_code() {
    let agent = MockAgent::denying();
    let run = cli_with_input(&["chat", &agent.url], "hi\nnever sent\n");
    let line = run.failed(1);
    assert!(line.contains("401"), "{line}");
    assert_eq!(agent.headers().len(), 2, "the card, then one message only");
}

#[test]
fn chat_commands_answer_without_calling_the_agent() {
    let agent = MockAgent::start();
    let run = cli_with_input(&["chat", &agent.url], "/help\n/cancel\n/task\n/bogus\n");
    let text = run.ok();
    assert!(text.contains("/new ") && text.contains("/quit "), "{text}");
    assert!(text.contains("no task to cancel\n"), "{text}");
    assert!(text.contains("no task yet\n"), "{text}");
    assert_eq!(run.stderr, "unknown command /bogus; /help lists them\n");
    assert_eq!(agent.headers().len(), 1, "the card only");
}
