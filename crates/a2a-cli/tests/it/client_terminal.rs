//! On a terminal (a pseudo-terminal from util-linux `script`), states are coloured; NO_COLOR
//! and `--no-color` turn the colours off. Skipped where `script` is not installed.

use std::process::Command;

use crate::support::Server;

/// Runs `a2a ARGS…` on a pseudo-terminal and returns what it printed; `None` without
/// `script`.
fn on_a_terminal(args: &[&str], no_color: bool) -> Option<String> {
    let mut line = env!("CARGO_BIN_EXE_a2a").to_owned();
    for arg in args {
        line.push_str(&format!(" '{arg}'"));
    }
    let mut command = Command::new("script");
    command.args(["-qec", &line, "/dev/null"]);
    if no_color {
        command.env("NO_COLOR", "1");
    } else {
        command.env_remove("NO_COLOR");
    }
    let output = command.output().ok()?;
    assert!(output.status.success(), "{output:?}");
    Some(String::from_utf8(output.stdout).unwrap())
}

#[test]
fn states_are_coloured_on_a_terminal_only_when_allowed() {
    let server = Server::start(&["--agent", "echo"]);
    let send = ["send", server.url.as_str(), "hi"];
    let Some(coloured) = on_a_terminal(&send, false) else {
        eprintln!("no `script` here: skipped");
        return;
    };
    assert!(
        coloured.contains("\x1b[32mCOMPLETED\x1b[0m"),
        "{coloured:?}"
    );

    let plain = on_a_terminal(&send, true).unwrap();
    assert!(
        plain.contains("COMPLETED") && !plain.contains('\x1b'),
        "{plain:?}"
    );

    let flag = ["send", server.url.as_str(), "hi", "--no-color"];
    let plain = on_a_terminal(&flag, false).unwrap();
    assert!(
        plain.contains("COMPLETED") && !plain.contains('\x1b'),
        "{plain:?}"
    );
}
