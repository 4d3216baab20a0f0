use a2a_types::{ContextId, TaskId, TaskState};

use super::input::{Input, parse_input};
use super::session::Session;
use super::*;
use crate::progress::Progress;

#[test]
fn lines_are_commands_or_text() {
    assert_eq!(parse_input("  hello  "), Input::Say("hello"));
    assert_eq!(parse_input("/quit"), Input::Quit);
    assert_eq!(parse_input("/new"), Input::New);
    assert_eq!(parse_input("/task"), Input::Task);
    assert_eq!(parse_input("/cancel"), Input::Cancel);
    assert_eq!(parse_input("/nope"), Input::Unknown("/nope"));
    assert_eq!(parse_input("//etc/hosts"), Input::Say("/etc/hosts"));
    assert_eq!(parse_input("   "), Input::Nothing);
}

fn progress(state: TaskState) -> Progress {
    Progress {
        task_id: Some(TaskId::new("t")),
        context_id: Some(ContextId::new("c")),
        state: Some(state),
        status_text: String::new(),
    }
}

#[test]
fn the_task_is_kept_while_it_waits_and_dropped_when_it_ends() {
    let mut session = Session::default();
    session.after_turn(&progress(TaskState::InputRequired));
    let follow_up = session.message("blue");
    assert_eq!(follow_up.task_id, Some(TaskId::new("t")));
    assert_eq!(follow_up.context_id, Some(ContextId::new("c")));

    session.after_turn(&progress(TaskState::Completed));
    let next = session.message("again");
    assert_eq!(next.task_id, None, "a finished task is not continued");
    assert_eq!(
        next.context_id,
        Some(ContextId::new("c")),
        "the context stays"
    );
    assert_eq!(session.last_task_id, Some(TaskId::new("t")));
}

#[test]
fn client_tools_are_declared_in_the_message_metadata() {
    use clap::Parser as _;

    #[derive(clap::Parser)]
    struct Wrapper {
        #[command(flatten)]
        chat: ChatArgs,
    }
    let parsed = Wrapper::parse_from([
        "chat",
        "http://agent",
        "--client-tool",
        "get_location:Where the user is",
        "--client-tool",
        "now",
    ]);
    let metadata = parsed.chat.client_tools().unwrap();
    assert_eq!(
        metadata["clientTools"],
        serde_json::json!([
            {"name": "get_location", "description": "Where the user is"},
            {"name": "now", "description": ""}
        ])
    );
    let none = Wrapper::parse_from(["chat", "http://agent"]);
    assert!(none.chat.client_tools().is_none());
}

#[test]
fn a_chosen_message_id_is_used_once() {
    let mut session = Session {
        next_message_id: Some("tck-input-required-1".into()),
        ..Session::default()
    };
    assert_eq!(
        session.message("a").message_id.as_str(),
        "tck-input-required-1"
    );
    assert_ne!(
        session.message("b").message_id.as_str(),
        "tck-input-required-1"
    );
}
