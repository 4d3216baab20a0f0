//! What the user gets wrong: one line on stderr and exit code 2 (3 when the address cannot
//! be bound).

use crate::support::{TempFile, a2a, run};

/// Runs `a2a ARGS…` (expected to fail before serving) and returns (code, stderr lines).
fn failing(args: &[&str]) -> (Option<i32>, Vec<String>) {
    let output = run(args);
    assert!(output.stdout.is_empty(), "stdout: {:?}", output.stdout);
    let stderr = String::from_utf8(output.stderr).unwrap();
    (
        output.status.code(),
        stderr.lines().map(str::to_owned).collect(),
    )
}

#[test]
fn a_bad_flag_prints_one_line_and_exits_2() {
    let (code, lines) = failing(&["serve", "--no-such-flag"]);
    assert_eq!(code, Some(2));
    assert_eq!(lines, ["error: unexpected argument '--no-such-flag' found"]);
}

#[test]
fn a_bad_value_prints_one_line_and_exits_2() {
    for args in [
        &["serve", "--max-stored-tasks", "many"][..],
        &["serve", "--agent", "clever"],
        &["serve", "--store", "mysql://tasks"],
        &["serve", "--agent", "exec"],
        &["serve", "--agent", "exec", "--", "no-such-program-for-a2a"],
        &["serve", "--card", "/nonexistent/card.json"],
        &["serve", "--config", "/nonexistent/a2a.toml"],
    ] {
        let (code, lines) = failing(args);
        assert_eq!(code, Some(2), "{args:?}: {lines:?}");
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(lines[0].starts_with("error: "), "{args:?}: {lines:?}");
    }
}

#[test]
fn a_bad_environment_variable_names_itself() {
    let output = a2a()
        .args(["serve"])
        .env("A2A_ASYNC_TIMEOUT", "soon")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("error: environment variable A2A_ASYNC_TIMEOUT: "),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_card_file_that_is_not_a_card_names_the_field() {
    let file = TempFile::new("card.json", r#"{"name": "x", "description": 5}"#);
    let (code, lines) = failing(&["serve", "--card", file.path()]);
    assert_eq!(code, Some(2));
    assert!(lines[0].contains("description"), "{lines:?}");
}

#[test]
fn an_address_in_use_exits_3() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let (code, lines) = failing(&["serve", "--bind", &address]);
    assert_eq!(code, Some(3), "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("error: cannot listen on {address}")),
        "{lines:?}"
    );
}

#[test]
fn help_and_version_succeed() {
    for args in [&["--version"][..], &["serve", "--help"]] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(!output.stdout.is_empty(), "{args:?}");
    }
}
