//! `--color auto|always|never` and `NO_COLOR`, one decision for every output: the client
//! commands' text, the log lines of `a2a serve` and clap's own messages. `--color` wins over
//! `NO_COLOR`; without either, colours only on a terminal (`client_terminal.rs`).

use std::process::Command;

use crate::support::{Server, a2a};

const ESCAPE: char = '\x1b';

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn color_always_colours_a_pipe_whatever_no_color_says() {
    let server = Server::start(&["--agent", "echo"]);
    let url = server.url.as_str();
    let coloured = stdout_of(a2a().args(["--color", "always", "send", url, "hi"]));
    assert!(
        coloured.contains("\x1b[32mCOMPLETED\x1b[0m"),
        "{coloured:?}"
    );
    // A global flag: after the subcommand too, and it wins over NO_COLOR.
    let coloured = stdout_of(
        a2a()
            .args(["send", url, "hi", "--color=always"])
            .env("NO_COLOR", "1"),
    );
    assert!(
        coloured.contains("\x1b[32mCOMPLETED\x1b[0m"),
        "{coloured:?}"
    );
    // --no-color is --color never.
    let plain = stdout_of(a2a().args(["--color", "always", "send", url, "hi", "--no-color"]));
    assert!(
        plain.contains("COMPLETED") && !plain.contains(ESCAPE),
        "{plain:?}"
    );
    let plain = stdout_of(a2a().args(["--color", "never", "send", url, "hi"]));
    assert!(
        plain.contains("COMPLETED") && !plain.contains(ESCAPE),
        "{plain:?}"
    );
}

#[test]
fn color_never_keeps_a_terminal_plain() {
    let server = Server::start(&["--agent", "echo"]);
    let line = format!(
        "{} --color never send '{}' hi",
        env!("CARGO_BIN_EXE_a2a"),
        server.url
    );
    let Ok(output) = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env_remove("NO_COLOR")
        .output()
    else {
        eprintln!("no `script` here: skipped");
        return;
    };
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("COMPLETED") && !text.contains(ESCAPE),
        "{text:?}"
    );
}

#[test]
fn the_server_log_follows_the_choice() {
    let mut server = Server::start(&["--agent", "echo", "--color", "always"]);
    server.terminate();
    let log = server.log();
    assert!(log.contains("listening") || log.contains("INFO"), "{log}");
    assert!(
        log.contains(ESCAPE),
        "--color always, yet no colour in the log: {log:?}"
    );

    let mut command = a2a();
    command.env("NO_COLOR", "1");
    let mut server = Server::start_command(command, &["--agent", "echo", "--color", "auto"]);
    server.terminate();
    let log = server.log();
    assert!(!log.contains(ESCAPE), "{log:?}");
}

#[test]
fn clap_help_follows_the_choice() {
    let help = stdout_of(a2a().args(["--color", "always", "serve", "--help"]));
    assert!(
        help.contains("--print-config") && help.contains(ESCAPE),
        "{help:?}"
    );
    let help = stdout_of(a2a().args(["serve", "--help", "--color=never"]));
    assert!(
        help.contains("--print-config") && !help.contains(ESCAPE),
        "{help:?}"
    );
    // Usage errors are one plain line, whatever the choice.
    let output = a2a().args(["--color", "always", "sned"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(
        text.starts_with("error: ") && !text.contains(ESCAPE),
        "{text:?}"
    );
}
